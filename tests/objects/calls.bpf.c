// SPDX-License-Identifier: MIT
/*
 * Test object for tests/test_object.c: static subprograms (one calling
 * another), a global function in .text, and a bpf_loop callback, shared by
 * two programs that must each get their own linked copy.
 */
#include <secbpf/filter.h>

static __attribute__((noinline)) int is_denied(int nr)
{
	return nr == __NR_close || nr == __NR_ptrace;
}

static __attribute__((noinline)) int decide(int nr)
{
	if (is_denied(nr))
		return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

__attribute__((noinline)) int global_twice(int x)
{
	return x * 2;
}

struct loop_ctx {
	int nr;
	int found;
};

static int check_one(__u32 i, void *data)
{
	struct loop_ctx *c = data;

	if (c->nr == (int)i + 400)
		c->found = 1;
	return 0;
}

SEC("seccomp")
int with_loop(struct seccomp_data *ctx)
{
	struct loop_ctx c = { .nr = ctx->nr, .found = 0 };

	bpf_loop(8, check_one, &c, 0);
	if (c.found)
		return SECCOMP_RET_ERRNO | global_twice(2);
	return decide(ctx->nr);
}

SEC("seccomp")
int plain(struct seccomp_data *ctx)
{
	return decide(ctx->nr);
}

char _license[] SEC("license") = "GPL";
