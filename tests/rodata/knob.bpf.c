// SPDX-License-Identifier: MIT
/* A const volatile knob and a small table in .rodata beside a table clang
 * puts in .rodata.cst32, plus .data: --set must write the knob, not the
 * table's bytes. */
#include <secbpf/filter.h>

const volatile __u32 knob = 6;
static const __u64 tbl[4] = { 10, 20, 30, 40 };
static const __u16 small[3] = { 1, 2, 3 };
__u32 seen = 7;

SEC("seccomp")
int prog(struct seccomp_data *ctx)
{
	if (ctx->args[2] == knob)
		return SECCOMP_RET_ERRNO | 6;
#pragma clang loop unroll(disable)
	for (int i = 0; i < 4; i++)
		if (ctx->args[0] == tbl[i])
			return SECCOMP_RET_ERRNO | 7;
#pragma clang loop unroll(disable)
	for (int i = 0; i < 3; i++)
		if (ctx->args[1] == small[i])
			return SECCOMP_RET_ERRNO | 8;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
