// SPDX-License-Identifier: MIT
/* Ring buffer helpers for tests/test_helpers.c. */
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

struct event {
	__u32 nr;
	__u32 seq;
	__u64 arg;
};

struct result {
	__s64 rc[4];
	__u64 val[4];
} res;

/* Records seq 1 (output) and 2 (reserve, submit); 3 is discarded. */
SEC("seccomp")
int emit(struct seccomp_data *ctx)
{
	struct event e = { .nr = ctx->nr, .seq = 1, .arg = ctx->args[0] };
	struct event *r;

	res.rc[0] = bpf_ringbuf_output(&events, &e, sizeof(e), 0);
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r)
		return 1;
	r->nr = ctx->nr;
	r->seq = 2;
	r->arg = ctx->args[1];
	bpf_ringbuf_submit(r, 0);
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r)
		return 2;
	r->seq = 3;
	bpf_ringbuf_discard(r, 0);
	res.val[0] = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	res.val[1] = bpf_ringbuf_query(&events, BPF_RB_RING_SIZE);
	res.rc[1] = bpf_ringbuf_output(&events, &e, sizeof(e), 0xff);
	return SECCOMP_RET_ALLOW;
}

/* Reserves a record, then faults on a load from args[2]. */
SEC("seccomp")
int leak(struct seccomp_data *ctx)
{
	struct event *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);

	if (!r)
		return 1;
	r->seq = 9;
	r->arg = *(volatile __u64 *)(long)ctx->args[2];
	bpf_ringbuf_submit(r, 0);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
