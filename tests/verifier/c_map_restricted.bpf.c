// expect: reject the restricted tier allows no maps
// tier: restricted
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cfg SEC(".maps");

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&cfg, &k);

	return v && *v ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EPERM;
}

char _license[] SEC("license") = "GPL";
