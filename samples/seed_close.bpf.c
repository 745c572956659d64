// SPDX-License-Identifier: GPL-2.0
/*
 * The seed sample (RFC patch 05/12, samples/bpf/test_seccomp_kern.c):
 * close(999) fails with EPERM, every other syscall is allowed, and a
 * foreign arch gets EPERM for all. Changed from the seed in its include
 * lines and two fixes, marked "secbpf:" below: x32 numbers (bit 30 set,
 * under AUDIT_ARCH_X86_64) are a foreign ABI too, and the fd is compared
 * on its low 32 bits, since close() takes an unsigned int and the seed's
 * 64-bit compare let close(999 | 1ull << 32) through.
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
	/* secbpf: x32 (a no-op on i386, whose numbers never have bit 30). */
	if (ctx->nr & SECBPF_X32_SYSCALL_BIT)
		return SECCOMP_RET_ERRNO | EPERM;
	/* secbpf: (__u32), the fd's width. */
	if (ctx->nr == __NR_close && (__u32)ctx->args[0] == 999)
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
