// An allow-list of syscall numbers in a hash map; anything else is denied.
// expect: accept
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 512);
	__type(key, __u32);
	__type(value, __u8);
} allowed SEC(".maps");

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u32 nr = ctx->nr;

	if (ctx->arch != SECBPF_AUDIT_ARCH_NATIVE)
		return SECCOMP_RET_KILL_PROCESS;
	if (bpf_map_lookup_elem(&allowed, &nr))
		return SECCOMP_RET_ALLOW;
	return SECCOMP_RET_ERRNO | ENOSYS;
}

char _license[] SEC("license") = "GPL";
