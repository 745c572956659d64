// SPDX-License-Identifier: MIT
/*
 * Test object for tests/test_object.c: BTF-defined maps of several types,
 * declared with types (key/value) or with sizes (key_size/value_size).
 */
#include <secbpf/filter.h>

struct stats {
	__u64 calls;
	__u64 denied;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct stats);
	__uint(max_entries, 512);
} per_nr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 8);
	__uint(max_entries, 4);
} totals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(map_flags, BPF_F_NO_COMMON_LRU);
	__type(key, __u64);
	__type(value, __u32);
	__uint(max_entries, 64);
} recent SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__type(value, __u32);
	__uint(max_entries, 16);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} ring SEC(".maps");

SEC("seccomp")
int count(struct seccomp_data *ctx)
{
	__u32 nr = ctx->nr, zero = 0;
	__u64 ip = ctx->instruction_pointer;
	struct stats *s = bpf_map_lookup_elem(&per_nr, &nr);
	__u64 *t = bpf_map_lookup_elem(&totals, &zero);

	if (s)
		s->calls++;
	if (t)
		(*t)++;
	bpf_map_update_elem(&recent, &ip, &nr, BPF_ANY);
	bpf_map_push_elem(&events, &nr, 0);
	bpf_ringbuf_output(&ring, &nr, sizeof(nr), 0);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
