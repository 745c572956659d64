// SPDX-License-Identifier: MIT
/*
 * A second program for bench_notify: the same count as notify_update.bpf.c
 * but by syscall number, with an atomic add in the map value and no helper
 * call: what a syscall counter or a rate limit by number costs. It needs
 * nothing about the calling thread, so the supervisor never looks for its
 * thread group. The counts are exact (the bench checks them).
 */
#include <secbpf/filter.h>

const volatile __u32 notified_nr = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);   /* syscall number */
	__type(value, __u64); /* notified calls */
} calls SEC(".maps");

SEC("seccomp")
int count_by_number(struct seccomp_data *ctx)
{
	__u32 nr = ctx->nr;
	__u64 one = 1, *n;

	if (nr != notified_nr)
		return SECCOMP_RET_ALLOW;
	n = bpf_map_lookup_elem(&calls, &nr);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return SECCOMP_RET_ALLOW;
	}
	/* First call: insert; if another worker did meanwhile, add. */
	if (bpf_map_update_elem(&calls, &nr, &one, BPF_NOEXIST) == 0)
		return SECCOMP_RET_ALLOW;
	n = bpf_map_lookup_elem(&calls, &nr);
	if (n)
		__sync_fetch_and_add(n, 1);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
