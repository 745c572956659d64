// SPDX-License-Identifier: MIT
/* Argument rules in the style of Docker's default profile: personality
 * with a few values, clone without namespace flags, socket without
 * AF_NETLINK raw sockets, everything else allowed. */
#include <secbpf/filter.h>

#define CLONE_NS_FLAGS 0x7e020000ull	/* NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET */

SEC("seccomp")
int docker_args(struct seccomp_data *ctx)
{
	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_ERRNO | EPERM;
	if (ctx->nr == __NR_personality) {
		__u64 p = ctx->args[0];

		if (p == 0x0 || p == 0x8 || p == 0x20000 || p == 0x20008 || p == 0xffffffff)
			return SECCOMP_RET_ALLOW;
		return SECCOMP_RET_ERRNO | EPERM;
	}
	if (ctx->nr == __NR_clone) {
		if (ctx->args[0] & CLONE_NS_FLAGS)
			return SECCOMP_RET_ERRNO | EPERM;
		return SECCOMP_RET_ALLOW;
	}
	if (ctx->nr == __NR_socket) {
		if ((int)ctx->args[0] == 16 && ctx->args[1] == 3)	/* AF_NETLINK, SOCK_RAW */
			return SECCOMP_RET_ERRNO | EACCES;
		if (ctx->args[0] > 44)
			return SECCOMP_RET_ERRNO | EAFNOSUPPORT;
		return SECCOMP_RET_ALLOW;
	}
	if (ctx->nr == __NR_kill && (long)ctx->args[0] <= 0)
		return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
