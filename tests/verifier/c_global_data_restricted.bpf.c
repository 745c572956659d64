// Global data is direct map-value access: not in the restricted tier.
// expect: reject no global data (direct map-value access)
// tier: restricted
#include <secbpf/filter.h>

__u64 hits;

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	hits++;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
