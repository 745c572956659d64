// SPDX-License-Identifier: MIT
/*
 * Counting syscalls in a map: every syscall of the filtered processes adds
 * one, atomically, to its number's counter in a hash map, and is allowed.
 * Shows a stateful filter: the map access cannot run in the kernel's cBPF,
 * so every syscall goes to the supervisor (a cost of some microseconds
 * each), which runs this program with a real hash map shared by its
 * threads. Narrow `counted_nr` with --set counted_nr=N to count one
 * syscall only; the others then stay in the kernel at full speed.
 *
 * The keys are numbers of the native ABI (x86_64 on x86_64), typed
 * secbpf_syscall_nr so that `secbpf run --stats` names them; syscalls of
 * another ABI (i386 through `int $0x80`, x32) have other numbers, so they
 * are counted apart, in other_abi_calls.
 */
#include <secbpf/filter.h>

/* 0: count every syscall; else only this number. */
const volatile __u32 counted_nr = 0;

/* Syscalls of another ABI than the native one. */
__u64 other_abi_calls;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, secbpf_syscall_nr);
	__type(value, __u64); /* calls */
} syscall_counts SEC(".maps");

SEC("seccomp")
int count_syscalls(struct seccomp_data *ctx)
{
	secbpf_syscall_nr nr = ctx->nr;
	__u64 one = 1, *count;

	if (!SECBPF_ARCH_IS_NATIVE(ctx)) {
		if (!counted_nr)
			__sync_fetch_and_add(&other_abi_calls, 1);
		return SECCOMP_RET_ALLOW;
	}
	if (counted_nr && nr != counted_nr)
		return SECCOMP_RET_ALLOW;
	count = bpf_map_lookup_elem(&syscall_counts, &nr);
	if (count) {
		__sync_fetch_and_add(count, 1);
		return SECCOMP_RET_ALLOW;
	}
	/* First call of this number: insert; if another thread inserted it
	 * meanwhile, add to its counter instead. */
	if (bpf_map_update_elem(&syscall_counts, &nr, &one, BPF_NOEXIST) == 0)
		return SECCOMP_RET_ALLOW;
	count = bpf_map_lookup_elem(&syscall_counts, &nr);
	if (count)
		__sync_fetch_and_add(count, 1);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
