// SPDX-License-Identifier: MIT
/*
 * W^X: no memory may be writable and executable at once. mmap, mprotect
 * and pkey_mprotect fail with EPERM when their prot asks for both
 * PROT_WRITE and PROT_EXEC; mapping RW, filling the pages, then switching
 * them to RX (what a JIT does) still works.
 *
 * This is a guard rail, not a full W^X policy: the same file or memfd can
 * still be mapped twice, once writable and once executable. Other ABIs
 * reach mmap under other numbers (i386's old mmap even takes its
 * arguments in memory, out of a filter's sight), so a foreign arch or an
 * x32 number kills the process instead of slipping past the rule.
 */
#include <secbpf/filter.h>

#define PROT_WRITE 0x2
#define PROT_EXEC 0x4
#define X32_SYSCALL_BIT 0x40000000u

SEC("seccomp")
int wx(struct seccomp_data *ctx)
{
	__u32 nr = (__u32)ctx->nr;
	__u64 prot;

	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_KILL_PROCESS;
	if (nr >= X32_SYSCALL_BIT && nr != 0xffffffffu)
		return SECCOMP_RET_KILL_PROCESS;

	switch (nr) {
	case __NR_mmap:		 /* (addr, len, prot, flags, fd, off) */
	case __NR_mprotect:	 /* (start, len, prot) */
	case __NR_pkey_mprotect: /* (start, len, prot, pkey) */
		prot = ctx->args[2];
		break;
	default:
		return SECCOMP_RET_ALLOW;
	}
	/* The kernel takes prot as an unsigned long: test the bits themselves,
	 * whatever the other bits hold. */
	if ((prot & PROT_WRITE) && (prot & PROT_EXEC))
		return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
