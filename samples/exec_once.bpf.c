// SPDX-License-Identifier: MIT
/*
 * Exec once: each process may call execve (or execveat) once; later ones
 * fail with EPERM. The count lives in task storage, which seed 011 keeps
 * per process (bpf_task_storage_get with a NULL task means the calling
 * process), so a forked child starts with its own, fresh count. Under
 * `secbpf run` the filter is in force from CMD's own execve on, so that
 * execve is CMD's one; its children may each exec once.
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

SEC("seccomp")
int exec_once(struct seccomp_data *ctx)
{
	struct exec_state *st;

	if (ctx->nr != __NR_execve && ctx->nr != __NR_execveat)
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
