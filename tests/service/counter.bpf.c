// SPDX-License-Identifier: MIT
/*
 * tests/test_secbpfd.c: a stateful program served by secbpfd. It counts
 * getppid(0xc0, 0) in global data (a map that lives in the service, shared
 * by every attachment) and answers getppid(0xc0, 1, i) with ERRNO(1 + bits
 * 10i.. of the count). Every other syscall stays in the kernel.
 */
#include <secbpf/filter.h>

__u64 calls;

SEC("seccomp")
int counter(struct seccomp_data *ctx)
{
	if (ctx->nr != __NR_getppid || ctx->args[0] != 0xc0)
		return SECCOMP_RET_ALLOW;
	if (ctx->args[1] == 1)
		return SECCOMP_RET_ERRNO | (((calls >> (ctx->args[2] * 10)) & 0x3ff) + 1);
	__sync_fetch_and_add(&calls, 1);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
