// SPDX-License-Identifier: MIT
/*
 * Test object for tests/test_object.c: several programs, two in one
 * SEC("seccomp") section and one in SEC("seccomp/strict"), next to a
 * program of another type that the loader must ignore.
 */
#include <secbpf/filter.h>

SEC("seccomp")
int allow_all(struct seccomp_data *ctx)
{
	return SECCOMP_RET_ALLOW;
}

SEC("seccomp")
int deny_close(struct seccomp_data *ctx)
{
	if (ctx->nr == __NR_close)
		return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

SEC("seccomp/strict")
int kill_ptrace(struct seccomp_data *ctx)
{
	if (ctx->nr == __NR_ptrace)
		return SECCOMP_RET_KILL_PROCESS;
	return SECCOMP_RET_ALLOW;
}

SEC("socket")
int not_a_filter(void *skb)
{
	return 0;
}

char _license[] SEC("license") = "GPL";
