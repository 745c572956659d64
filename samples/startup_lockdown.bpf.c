// SPDX-License-Identifier: MIT
/*
 * Temporal specialisation: a program may need execve, ptrace or new
 * listening sockets while it starts, and never after. It announces the end
 * of its start-up with a marker syscall, close(startup_marker) (an fd that
 * cannot exist: close fails with EBADF and has no other effect); from then
 * on those syscalls fail with EPERM. Shows state in global data: `locked`
 * lives in .bss, one flag for this filter, so the marker from any process
 * under it locks them all (per-process state would use task storage, as
 * exec_once.bpf.c does). Only close(startup_marker) and the locked
 * syscalls go to the supervisor; everything else stays in the kernel.
 *
 * The filter handles x86_64 and i386 (which a 64-bit process reaches with
 * `int $0x80`), each under its own numbers; on i386 the locked syscalls
 * include socketcall, which multiplexes listen with its arguments in
 * memory the filter cannot read. Any other ABI (x32, ...) gets EPERM. The
 * marker is compared on its low 32 bits, as close(2) takes an unsigned int.
 */
#include <secbpf/filter.h>

const volatile __u32 startup_marker = 0x5ecb0d0e;

static __u32 locked;

/* The marker was closed: from now on the syscalls below fail, for every
 * process under this filter. */
static __always_inline int lock_now(void)
{
	*(volatile __u32 *)&locked = 1;
	return SECCOMP_RET_ALLOW;
}

/* A syscall allowed only before the marker. */
static __always_inline int until_locked(void)
{
	if (*(volatile __u32 *)&locked)
		return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

SEC("seccomp")
int startup_lockdown(struct seccomp_data *ctx)
{
	SECBPF_DENY_OTHER_ARCHES(ctx, SECCOMP_RET_ERRNO | EPERM, X86_64, I386);
	if (SECBPF_ARCH_IS_I386(ctx)) {
		switch (ctx->nr) {
		case __SNR_i386_close:
			if (SECBPF_ARG_U32(ctx, 0) == startup_marker)
				return lock_now();
			return SECCOMP_RET_ALLOW;
		case __SNR_i386_execve:
		case __SNR_i386_execveat:
		case __SNR_i386_ptrace:
		case __SNR_i386_listen:
		case __SNR_i386_socketcall:
			return until_locked();
		default:
			return SECCOMP_RET_ALLOW;
		}
	}
	switch (ctx->nr) {
	case __SNR_x86_64_close:
		if (SECBPF_ARG_U32(ctx, 0) == startup_marker)
			return lock_now();
		return SECCOMP_RET_ALLOW;
	case __SNR_x86_64_execve:
	case __SNR_x86_64_execveat:
	case __SNR_x86_64_ptrace:
	case __SNR_x86_64_listen:
		return until_locked();
	default:
		return SECCOMP_RET_ALLOW;
	}
}

char _license[] SEC("license") = "GPL";
