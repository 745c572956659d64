// An array indexed by the syscall number, checked against its size.
// expect: accept
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[512]);
} policy SEC(".maps");

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u32 k = 0, nr = ctx->nr;
	__u8 *bits = bpf_map_lookup_elem(&policy, &k);

	if (!bits || nr >= 512 * 8)
		return SECCOMP_RET_ALLOW;
	if (bits[nr / 8] & (1 << (nr % 8)))
		return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
