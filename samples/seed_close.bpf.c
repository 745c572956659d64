// SPDX-License-Identifier: GPL-2.0
/*
 * The seed sample (RFC patch 05/12, samples/bpf/test_seccomp_kern.c),
 * unchanged apart from its include lines: close(999) fails with EPERM,
 * every other syscall is allowed, and a foreign arch gets EPERM for all.
 */
#include <secbpf/filter.h>

#if defined(__x86_64__)
#define ARCH	AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define ARCH	AUDIT_ARCH_I386
#else
#endif

#ifdef ARCH
/* Returns EPERM when trying to close fd 999 */
SEC("seccomp")
int bpf_prog1(struct seccomp_data *ctx)
{
	/*
	 * Make sure this BPF program is being run on the same architecture it
	 * was compiled on.
	 */
	if (ctx->arch != ARCH)
		return SECCOMP_RET_ERRNO | EPERM;
	if (ctx->nr == __NR_close && ctx->args[0] == 999)
		return SECCOMP_RET_ERRNO | EPERM;

	return SECCOMP_RET_ALLOW;
}
#else
#warning Architecture not supported -- Blocking all syscalls
SEC("seccomp")
int bpf_prog1(struct seccomp_data *ctx)
{
	return SECCOMP_RET_ERRNO | EPERM;
}
#endif

char _license[] SEC("license") = "GPL";
