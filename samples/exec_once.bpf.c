// SPDX-License-Identifier: MIT
/*
 * Exec once: each process may call execve (or execveat) once; later ones
 * fail with EPERM. The count lives in task storage, which seed 011 keeps
 * per process (bpf_task_storage_get with a NULL task means the calling
 * process), so a forked child starts with its own, fresh count. Under
 * `secbpf run` the filter is in force from CMD's own execve on, so that
 * execve is CMD's one; its children may each exec once.
 *
 * Every ABI that can exec counts: a 64-bit x86 process can also call
 * i386's execve (11) through `int $0x80`, so the filter checks the arch
 * first and counts each arch's execve and execveat under that arch's
 * numbers; any other ABI (x32, ...) gets EPERM for everything.
 */
#include <secbpf/filter.h>

struct exec_state {
	__u32 execs;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct exec_state);
} exec_state SEC(".maps");

/* Whether the syscall is an exec on one of the ABIs the filter handles. */
static __always_inline int is_exec(struct seccomp_data *ctx)
{
	if (SECBPF_ARCH_IS_X86_64(ctx))
		return ctx->nr == __SNR_x86_64_execve || ctx->nr == __SNR_x86_64_execveat;
	if (SECBPF_ARCH_IS_I386(ctx))
		return ctx->nr == __SNR_i386_execve || ctx->nr == __SNR_i386_execveat;
	return ctx->nr == __SNR_aarch64_execve || ctx->nr == __SNR_aarch64_execveat;
}

SEC("seccomp")
int exec_once(struct seccomp_data *ctx)
{
	struct exec_state *st;

	SECBPF_DENY_OTHER_ARCHES(ctx, SECCOMP_RET_ERRNO | EPERM, X86_64, I386, AARCH64);
	if (!is_exec(ctx))
		return SECCOMP_RET_ALLOW;
	st = bpf_task_storage_get(&exec_state, NULL, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st)
		return SECCOMP_RET_ERRNO | ENOMEM; /* fail closed */
	/* Not atomic (clang's default BPF cpu has no fetch-and-add that
	 * returns the old value), and it need not be: of two threads racing
	 * into execve, the kernel lets one exec replace the whole process. */
	if (st->execs >= 1)
		return SECCOMP_RET_ERRNO | EPERM;
	st->execs++;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
