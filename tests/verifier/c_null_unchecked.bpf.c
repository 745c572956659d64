// The lookup result is used without a NULL check.
// expect: reject may be NULL: check the pointer against NULL first
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} m SEC(".maps");

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u32 nr = ctx->nr;
	__u32 *v = bpf_map_lookup_elem(&m, &nr);

	return *v;
}

char _license[] SEC("license") = "GPL";
