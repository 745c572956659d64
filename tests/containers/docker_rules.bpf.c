// SPDX-License-Identifier: MIT
/*
 * tests/test_docker.c: a stateless policy with argument rules in the style
 * of Docker's default profile, each one a masked equality, so that
 * `secbpf export-oci` writes it exactly and Docker 20.10 (which drops
 * listenerPath) can run it: socket(AF_VSOCK), personality(ADDR_NO_RANDOMIZE)
 * and clone(CLONE_NEWUSER | SIGCHLD) fail with EPERM, clone3 with ENOSYS
 * (so that a libc falls back to clone), keyctl and bpf with EPERM.
 */
#include <secbpf/filter.h>

#define AF_VSOCK_FAMILY 40
#define ADDR_NO_RANDOMIZE_FLAG 0x0040000
#define CLONE_NEWUSER_FLAG 0x10000000
#define SIGCHLD_SIGNAL 17

SEC("seccomp")
int docker_rules(struct seccomp_data *ctx)
{
	SECBPF_DENY_OTHER_ARCHES(ctx, SECCOMP_RET_ERRNO | EPERM, X86_64);
	switch (ctx->nr) {
	case __NR_socket: /* the family is an int: its low 32 bits */
		if ((__u32)ctx->args[0] == AF_VSOCK_FAMILY)
			return SECCOMP_RET_ERRNO | EPERM;
		return SECCOMP_RET_ALLOW;
	case __NR_personality:
		if ((__u32)ctx->args[0] == ADDR_NO_RANDOMIZE_FLAG)
			return SECCOMP_RET_ERRNO | EPERM;
		return SECCOMP_RET_ALLOW;
	case __NR_clone:
		if (ctx->args[0] == (CLONE_NEWUSER_FLAG | SIGCHLD_SIGNAL))
			return SECCOMP_RET_ERRNO | EPERM;
		return SECCOMP_RET_ALLOW;
	case __NR_clone3:
		return SECCOMP_RET_ERRNO | ENOSYS;
	case __NR_keyctl:
	case __NR_bpf:
		return SECCOMP_RET_ERRNO | EPERM;
	}
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
