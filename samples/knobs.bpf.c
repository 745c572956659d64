// SPDX-License-Identifier: MIT
/*
 * A filter configured without editing its source: the `const volatile`
 * globals below are its knobs, set when the filter is loaded, e.g.
 *
 *   secbpf run -f knobs.bpf.o --set denied_fd=42 --set deny_ptrace=false -- CMD
 *
 * As with a libbpf skeleton's rodata, the values are frozen before the
 * program runs, so secbpf folds them as constants: a rule switched off
 * compiles to nothing, and the filter still runs entirely in the kernel.
 *
 *   denied_fd    close(denied_fd) fails (-1: no fd is protected)
 *   deny_ptrace  ptrace, process_vm_readv and process_vm_writev fail
 *   deny_errno   the errno of a denial
 * A foreign arch gets deny_errno for every syscall, as in the seed sample,
 * and so do x32 numbers (bit 30 set), which would otherwise reach close()
 * and ptrace() under numbers the rules do not test.
 */
#include <secbpf/filter.h>

#define X32_SYSCALL_BIT 0x40000000u

const volatile int denied_fd = 999;
const volatile _Bool deny_ptrace = 1;
const volatile __u32 deny_errno = EPERM;

SEC("seccomp")
int knobs(struct seccomp_data *ctx)
{
	/* Capped as the kernel caps it (4095), and so that a large value
	 * cannot spill into the action bits (0x10000 would read as TRACE). */
	__u32 deny = SECCOMP_RET_ERRNO | (deny_errno > 4095 ? 4095 : deny_errno);

	if (ctx->arch != SECBPF_AUDIT_ARCH_NATIVE)
		return deny;
	if ((__u32)ctx->nr >= X32_SYSCALL_BIT && ctx->nr != -1)
		return deny;
	/* close() takes an unsigned int: the kernel ignores the upper half of
	 * the register, so compare only the lower one (a 64-bit compare
	 * would let close(denied_fd | 1ull << 32) through). */
	if (ctx->nr == __NR_close && denied_fd >= 0 && (__u32)ctx->args[0] == (__u32)denied_fd)
		return deny;
	if (deny_ptrace && (ctx->nr == __NR_ptrace || ctx->nr == __NR_process_vm_readv ||
			    ctx->nr == __NR_process_vm_writev))
		return deny;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
