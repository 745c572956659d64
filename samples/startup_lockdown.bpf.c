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
 */
#include <secbpf/filter.h>

const volatile __u64 startup_marker = 0x5ecb0d0e;

static __u32 locked;

SEC("seccomp")
int startup_lockdown(struct seccomp_data *ctx)
{
	switch (ctx->nr) {
	case __NR_close:
		if (ctx->args[0] == startup_marker)
			*(volatile __u32 *)&locked = 1;
		return SECCOMP_RET_ALLOW;
	case __NR_execve:
	case __NR_execveat:
	case __NR_ptrace:
	case __NR_listen:
		if (*(volatile __u32 *)&locked)
			return SECCOMP_RET_ERRNO | EPERM;
		return SECCOMP_RET_ALLOW;
	default:
		return SECCOMP_RET_ALLOW;
	}
}

char _license[] SEC("license") = "GPL";
