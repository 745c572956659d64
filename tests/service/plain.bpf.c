// SPDX-License-Identifier: MIT
/*
 * tests/test_secbpfd.c: a stateless program (all of it runs in the
 * kernel as cBPF): getppid(0xc2) fails with errno 7.
 */
#include <secbpf/filter.h>

SEC("seccomp")
int plain(struct seccomp_data *ctx)
{
	if (ctx->nr == __NR_getppid && ctx->args[0] == 0xc2)
		return SECCOMP_RET_ERRNO | 7;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
