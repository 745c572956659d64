// SPDX-License-Identifier: MIT
/*
 * Map helpers for tests/test_runtime.c and tests/test_helpers.c: counters
 * updated with atomics from many threads, a per-slot counter, a queue,
 * for_each_map_elem, and .rodata that a program must not be able to write.
 */
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__type(value, __u32);
	__uint(max_entries, 2);
} fifo SEC(".maps");

const volatile __u32 limit = 7;

struct result {
	__s64 rc[4];
	__u64 val[4];
} res;

/* Count syscalls by number, exactly under concurrency: create the element
 * if needed (losing the race is fine), then add atomically. */
SEC("seccomp")
int count(struct seccomp_data *ctx)
{
	__u32 nr = ctx->nr, zero = 0;
	__u64 init = 0, *v, *slot;

	v = bpf_map_lookup_elem(&counts, &nr);
	if (!v) {
		bpf_map_update_elem(&counts, &nr, &init, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&counts, &nr);
		if (!v)
			return SECCOMP_RET_KILL_PROCESS;
	}
	__sync_fetch_and_add(v, 1);
	slot = bpf_map_lookup_elem(&slots, &zero);
	if (slot)
		*slot += 1;	/* this worker's own slot: no atomic needed */
	return SECCOMP_RET_ALLOW;
}

/* args[0]: 0 push args[1] with flags args[2], 1 pop, 2 peek, 3 delete
 * counts[args[1]]. rc[0] is the helper's result, val[0] the value. */
SEC("seccomp")
int queue(struct seccomp_data *ctx)
{
	__u32 v = ctx->args[1], key = ctx->args[1];

	switch (ctx->args[0]) {
	case 0:
		res.rc[0] = bpf_map_push_elem(&fifo, &v, ctx->args[2]);
		break;
	case 1:
		v = 0xdead;
		res.rc[0] = bpf_map_pop_elem(&fifo, &v);
		break;
	case 2:
		v = 0xdead;
		res.rc[0] = bpf_map_peek_elem(&fifo, &v);
		break;
	default:
		res.rc[0] = bpf_map_delete_elem(&counts, &key);
		break;
	}
	res.val[0] = v;
	return SECCOMP_RET_ALLOW;
}

struct walk_ctx {
	__u64 sum;
	__u32 stop;
};

static long add_elem(void *map, __u32 *key, __u64 *val, struct walk_ctx *c)
{
	c->sum += *val;
	*val += 1;		/* values are writable in the callback */
	return *key == c->stop;
}

/* Walk table until key args[0]: rc[0] elements, val[0] their sum. */
SEC("seccomp")
int walk(struct seccomp_data *ctx)
{
	struct walk_ctx c = { .stop = ctx->args[0] };

	res.rc[0] = bpf_for_each_map_elem(&table, add_elem, &c, 0);
	res.val[0] = c.sum;
	res.rc[1] = bpf_for_each_map_elem(&table, add_elem, &c, 1);
	return SECCOMP_RET_ALLOW;
}

SEC("seccomp")
int rodata_read(struct seccomp_data *ctx)
{
	return limit;
}

/* Writes .rodata through a cast: the run must fail. */
SEC("seccomp")
int rodata_write(struct seccomp_data *ctx)
{
	*(volatile __u32 *)&limit = ctx->args[0];
	return limit;
}

char _license[] SEC("license") = "GPL";
