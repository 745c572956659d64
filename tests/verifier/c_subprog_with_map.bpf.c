// A function that looks up and updates a map, called twice.
// expect: accept
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __attribute__((noinline)) int bump(__u32 key)
{
	__u64 *v = bpf_map_lookup_elem(&counts, &key);

	if (!v)
		return 0;
	return ++*v > 10;
}

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	if (bump(ctx->nr) || bump(1000))
		return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
