// SPDX-License-Identifier: MIT
/*
 * The program bench_secbpfd times under secbpfd and under `secbpf run`:
 * it counts getppid(0xc0) in a global (every one is notified and runs in
 * the supervisor) and answers getppid(0x5ecb, i) with ERRNO(1 + bits
 * 10i.. of the count), which the bench reads back to check the counts.
 * Other getppid calls stay in the kernel.
 */
#include <secbpf/filter.h>

__u64 calls;

SEC("seccomp")
int count(struct seccomp_data *ctx)
{
	if (ctx->nr != __NR_getppid)
		return SECCOMP_RET_ALLOW;
	if (ctx->args[0] == 0x5ecb)
		return SECCOMP_RET_ERRNO | (((calls >> (ctx->args[1] * 10)) & 0x3ff) + 1);
	if (ctx->args[0] != 0xc0)
		return SECCOMP_RET_ALLOW;
	__sync_fetch_and_add(&calls, 1);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
