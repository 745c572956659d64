// SPDX-License-Identifier: MIT
/*
 * Tail calls and bpf_loop for tests/test_runtime.c and test_helpers.c.
 * jumps[] is filled by the test with program indices of this object.
 */
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 4);
	__uint(max_entries, 4);
} jumps SEC(".maps");

struct result {
	__s64 rc[4];
	__u64 val[4];
} res;

/* Tail-calls jumps[args[0]]; returns 1000 when that falls through. */
SEC("seccomp")
int entry(struct seccomp_data *ctx)
{
	res.val[0] = 0;
	res.rc[0] = bpf_tail_call(ctx, &jumps, ctx->args[0]);
	return 1000;
}

SEC("seccomp")
int target(struct seccomp_data *ctx)
{
	return 42;
}

/* Tail-calls jumps[2] (itself) until the limit stops it. */
SEC("seccomp")
int again(struct seccomp_data *ctx)
{
	res.val[0]++;
	bpf_tail_call(ctx, &jumps, 2);
	return 7;
}

static __attribute__((noinline)) int tail_from_sub(struct seccomp_data *ctx)
{
	bpf_tail_call(ctx, &jumps, 1);
	return ctx->nr;
}

SEC("seccomp")
int from_sub(struct seccomp_data *ctx)
{
	return tail_from_sub(ctx) + 1;
}

struct loop_ctx {
	__u64 sum;
	__u32 stop;
};

static long step(__u32 i, struct loop_ctx *c)
{
	c->sum += i;
	return i == c->stop;
}

/* bpf_loop(args[0]) stopping at index args[1]. */
SEC("seccomp")
int loop(struct seccomp_data *ctx)
{
	struct loop_ctx c = { .stop = ctx->args[1] };

	res.rc[0] = bpf_loop(ctx->args[0], step, &c, 0);
	res.val[0] = c.sum;
	res.rc[1] = bpf_loop(1, step, &c, 1);
	res.rc[2] = bpf_loop((1U << 23) + 1, step, &c, 0);
	return SECCOMP_RET_ALLOW;
}

/* For `secbpf test`: ERRNO(iterations of bpf_loop). */
SEC("seccomp")
int loop_errno(struct seccomp_data *ctx)
{
	struct loop_ctx c = { .stop = ctx->args[1] };
	long n = bpf_loop(ctx->args[0], step, &c, 0);

	return SECCOMP_RET_ERRNO | (n & 0xfff);
}

char _license[] SEC("license") = "GPL";
