// A struct passed as a map key with a hole clang does not write.
// expect: reject is not initialized
#include <secbpf/filter.h>

struct key {
	__u8 a;
	__u64 b;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, struct key);
	__type(value, __u32);
} m SEC(".maps");

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	struct key k;

	k.a = 1;
	k.b = ctx->args[0];
	return bpf_map_lookup_elem(&m, &k) ? SECCOMP_RET_ALLOW : SECCOMP_RET_KILL_PROCESS;
}

char _license[] SEC("license") = "GPL";
