// SPDX-License-Identifier: MIT
/*
 * The stateful program bench_notify times: for the one notified syscall
 * (notified_nr, set by the bench to getppid) it looks up the calling
 * thread's counter in a hash map and writes it back incremented with
 * bpf_map_update_elem, so every notification costs a helper call, a
 * lookup and a real hash-map update. Each thread has its own key, so the
 * counts are exact and the bench checks them.
 */
#include <secbpf/filter.h>

const volatile __u32 notified_nr = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);   /* thread id */
	__type(value, __u64); /* notified calls */
} calls SEC(".maps");

SEC("seccomp")
int count_per_thread(struct seccomp_data *ctx)
{
	__u32 tid;
	__u64 next = 1, *n;

	if (ctx->nr != notified_nr)
		return SECCOMP_RET_ALLOW;
	tid = (__u32)bpf_get_current_pid_tgid();
	n = bpf_map_lookup_elem(&calls, &tid);
	if (n)
		next = *n + 1;
	bpf_map_update_elem(&calls, &tid, &next, BPF_ANY);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
