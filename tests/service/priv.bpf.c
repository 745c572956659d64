// SPDX-License-Identifier: MIT
/*
 * tests/test_secbpfd.c: a program that needs the privileged tier (the
 * tracing helper bpf_get_current_comm): getppid(0xc1) fails with the first
 * byte of the caller's command name as its errno.
 */
#include <secbpf/filter.h>

SEC("seccomp")
int priv(struct seccomp_data *ctx)
{
	char comm[16];

	if (ctx->nr != __NR_getppid || ctx->args[0] != 0xc1)
		return SECCOMP_RET_ALLOW;
	if (bpf_get_current_comm(comm, sizeof(comm)))
		return SECCOMP_RET_ERRNO | 1;
	return SECCOMP_RET_ERRNO | (unsigned char)comm[0];
}

char _license[] SEC("license") = "GPL";
