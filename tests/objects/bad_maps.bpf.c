// SPDX-License-Identifier: MIT
/*
 * Test object for tests/test_object.c: maps the loader must refuse, one per
 * -D case: an unknown type number, a type secbpf does not support, an inner
 * map (values), pinning, an unknown attribute.
 */
#include <secbpf/filter.h>

#if defined(CASE_UNKNOWN_TYPE)
struct {
	__uint(type, 99);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} bad SEC(".maps");
#elif defined(CASE_PERF_EVENT)
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 4);
} bad SEC(".maps");
#elif defined(CASE_INNER_MAP)
struct inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} inner SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct inner);
} bad SEC(".maps");
#elif defined(CASE_PINNING)
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} bad SEC(".maps");
#else
#error "pick a case with -DCASE_..."
#endif

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u32 k = 0;

	if (bpf_map_lookup_elem(&bad, &k))
		return SECCOMP_RET_KILL_PROCESS;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
