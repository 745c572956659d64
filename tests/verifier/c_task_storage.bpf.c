// Per-process state through task storage with a NULL task (seed 011).
// expect: accept
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} opens SEC(".maps");

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u64 *n;

	if (ctx->nr != __NR_openat)
		return SECCOMP_RET_ALLOW;
	n = bpf_task_storage_get(&opens, NULL, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!n)
		return SECCOMP_RET_ALLOW;
	if (++*n > 100)
		return SECCOMP_RET_ERRNO | EMFILE;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
