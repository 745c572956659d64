// SPDX-License-Identifier: MIT
/* The reproducer's tables on fsync(2) only, for a real process to meet:
 * fsync's fd is args[0], and args[1] is whatever the caller passes. */
#include <secbpf/filter.h>

static const __u64 tbl[4] = { 1, 2, 3, 0x7ffffffffffffffeULL };
static const __u32 other[3] = { 5, 6, 7 };

SEC("seccomp")
int prog(struct seccomp_data *ctx)
{
	if (ctx->nr != __NR_fsync)
		return SECCOMP_RET_ALLOW;
#pragma clang loop unroll(disable)
	for (int i = 0; i < 4; i++)
		if (ctx->args[0] == tbl[i])
			return SECCOMP_RET_ERRNO | 1;
#pragma clang loop unroll(disable)
	for (int i = 0; i < 3; i++)
		if (ctx->args[1] == other[i])
			return SECCOMP_RET_ERRNO | 2;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
