// SPDX-License-Identifier: MIT
/*
 * A container policy in the spirit of Docker's default seccomp profile,
 * written as one switch on the syscall number (x86_64 only):
 *
 *  - arch first: a foreign arch (i386 via int 0x80, ...) or an x32 number
 *    (bit 30 set) is KILL_PROCESS, as libseccomp's bad-arch action does
 *    for a profile that lists x86_64 alone. nr == -1 (what a tracer sets to
 *    skip a syscall) is not an x32 number and gets the default.
 *  - about 300 syscalls allowed outright: what ordinary programs use;
 *  - personality: only the personas Docker allows (PER_LINUX and
 *    PER_LINUX32, each with or without UNAME26) and the 0xffffffff query,
 *    compared on the low 32 bits: the kernel takes an unsigned int;
 *  - clone: denied when the flags ask for a new namespace (the mask Docker
 *    uses: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET);
 *    clone3 gets ENOSYS, because its flags sit in memory a filter cannot
 *    read, and ENOSYS makes the C library fall back to clone;
 *  - socket: address families from AF_VSOCK (40) on are denied (vsock
 *    reaches the hypervisor; KCM, QIPCRTR, SMC, XDP and MCTP are rarely
 *    needed attack surface), and so is AF_NETLINK with NETLINK_AUDIT
 *    (writing to the host's audit log). The kernel takes the family and
 *    the protocol as ints, so both are compared on their low 32 bits:
 *    socket(AF_NETLINK, SOCK_RAW, 9 | 1ull << 32) opens an audit socket
 *    and is denied like 9 (a 64-bit compare let it through);
 *  - everything else (mount, unshare, setns, bpf, kexec, module loading,
 *    keyrings, io_uring, ...) gets ERRNO(EPERM).
 *
 * Every decision depends only on seccomp_data, so secbpf compiles the whole
 * program to classic BPF: the allowed syscalls hit the kernel's
 * constant-allow cache and only personality, clone and socket run argument
 * checks. The lists (allowed syscalls, personas, flags, families) are in
 * docker_like_policy.h, which bench/policies/docker_like.h turns into the
 * same policy for libseccomp; tests/test_libseccomp_equiv.c checks that
 * the two filters decide alike.
 */
#include <secbpf/filter.h>

#include "docker_like_policy.h"

#define DENY (SECCOMP_RET_ERRNO | EPERM)

/* personality(2): one of DOCKER_LIKE_PERSONAS. */
static __always_inline int personality_allowed(__u32 persona)
{
#define PERSONA_IS(value) persona == value ||
#define LAST_PERSONA_IS(value) persona == value
	return DOCKER_LIKE_PERSONAS(PERSONA_IS, LAST_PERSONA_IS);
#undef PERSONA_IS
#undef LAST_PERSONA_IS
}

/* socket(2): see the top of the file. */
static __always_inline int socket_allowed(__u32 family, __u32 protocol)
{
	if (family >= DOCKER_LIKE_AF_VSOCK)
		return 0;
	if (family == DOCKER_LIKE_AF_NETLINK && protocol == DOCKER_LIKE_NETLINK_AUDIT)
		return 0;
	return 1;
}

SEC("seccomp")
int docker_like(struct seccomp_data *ctx)
{
	__u32 nr = (__u32)ctx->nr;

	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_KILL_PROCESS;
	if (nr >= DOCKER_LIKE_X32_SYSCALL_BIT && nr != 0xffffffffu)
		return SECCOMP_RET_KILL_PROCESS;

	switch (nr) {
	/* Argument checks. */
	case __NR_personality:
		return personality_allowed(SECBPF_ARG_U32(ctx, 0)) ? SECCOMP_RET_ALLOW : DENY;
	case __NR_clone:
		return ctx->args[0] & DOCKER_LIKE_NS_CLONE_FLAGS ? DENY : SECCOMP_RET_ALLOW;
	case __NR_clone3:
		return SECCOMP_RET_ERRNO | ENOSYS;
	case __NR_socket:
		return socket_allowed(SECBPF_ARG_U32(ctx, 0), SECBPF_ARG_U32(ctx, 2)) ? SECCOMP_RET_ALLOW : DENY;

	/* About 300 syscalls allowed outright (docker_like_policy.h). */
#define ALLOWED_CASE(name) case __NR_##name:
	DOCKER_LIKE_ALLOWED(ALLOWED_CASE)
#undef ALLOWED_CASE
		return SECCOMP_RET_ALLOW;
	default:
		return DENY;
	}
}

char _license[] SEC("license") = "GPL";
