// Count syscalls per number in a hash map.
// expect: accept
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u32 nr = ctx->nr;
	__u64 one = 1, *v;

	v = bpf_map_lookup_elem(&counts, &nr);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&counts, &nr, &one, BPF_NOEXIST);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
