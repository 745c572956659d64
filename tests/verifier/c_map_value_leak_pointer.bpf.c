// Storing the context pointer in a map would let user space read it.
// expect: reject storing a pointer into map store would leak its address
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} store SEC(".maps");

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&store, &k);

	if (v)
		*v = (__u64)ctx;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
