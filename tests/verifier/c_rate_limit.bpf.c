// At most one fork per millisecond per process (task storage + ktime).
// expect: accept
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} last_fork SEC(".maps");

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u64 now, *last;

	if (ctx->nr != __NR_clone && ctx->nr != __NR_fork)
		return SECCOMP_RET_ALLOW;
	last = bpf_task_storage_get(&last_fork, NULL, NULL,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!last)
		return SECCOMP_RET_ALLOW;
	now = bpf_ktime_get_ns();
	if (now - *last < 1000000)
		return SECCOMP_RET_ERRNO | EAGAIN;
	*last = now;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
