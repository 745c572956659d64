// SPDX-License-Identifier: MIT
/*
 * tests/test_containers.c: the policy a container runs under. mkdir and
 * mkdirat fail with EPERM (a stateless rule, decided in the kernel); each
 * process may exec once (a stateful rule, task storage in secbpfd) and
 * every exec allowed is counted in global data; the rest is allowed.
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

__u64 execs_allowed;

SEC("seccomp")
int ctr_policy(struct seccomp_data *ctx)
{
	struct exec_state *st;

	SECBPF_DENY_OTHER_ARCHES(ctx, SECCOMP_RET_ERRNO | EPERM, X86_64);
#ifdef __NR_mkdir /* not on arches with only the *at calls */
	if (ctx->nr == __NR_mkdir)
		return SECCOMP_RET_ERRNO | EPERM;
#endif
	if (ctx->nr == __NR_mkdirat)
		return SECCOMP_RET_ERRNO | EPERM;
	if (ctx->nr != __NR_execve && ctx->nr != __NR_execveat)
		return SECCOMP_RET_ALLOW;
	st = bpf_task_storage_get(&exec_state, NULL, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st)
		return SECCOMP_RET_ERRNO | ENOMEM;
	if (st->execs >= 1)
		return SECCOMP_RET_ERRNO | EPERM;
	st->execs++;
	__sync_fetch_and_add(&execs_allowed, 1);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
