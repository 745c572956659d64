// SPDX-License-Identifier: MIT
/*
 * tests/test_secbpfd.c: a program that keeps state per process, as
 * samples/exec_once does. getppid(0xc3) counts the calls of the calling
 * process in task storage and answers ERRNO(count), so the service tracks
 * every process that makes it until that process exits. Every other
 * syscall stays in the kernel.
 */
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} calls SEC(".maps");

SEC("seccomp")
int procs(struct seccomp_data *ctx)
{
	__u32 *n;

	if (ctx->nr != __NR_getppid || ctx->args[0] != 0xc3)
		return SECCOMP_RET_ALLOW;
	n = bpf_task_storage_get(&calls, NULL, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!n)
		return SECCOMP_RET_ERRNO | ENOMEM; /* fail closed */
	*n += 1;
	return SECCOMP_RET_ERRNO | (*n & 0x3ff);
}

char _license[] SEC("license") = "GPL";
