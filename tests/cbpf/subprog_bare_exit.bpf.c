// SPDX-License-Identifier: MIT
/*
 * Issue 23's second reproducer: clang propagates f1's constant return into
 * the caller (IPSCCP) and leaves f1 a bare `exit` that sets no R0. The
 * kernel accepts it, since the caller never reads that R0; it was refused
 * with "R0 is not set at exit".
 */
#include <secbpf/filter.h>

static __attribute__((noinline)) __u32 f1(struct seccomp_data *ctx, __u64 p)
{
	__u64 v = 0;

	for (int i = 0; i < 8; i++)
		v += (p >> i) & 1;
	return SECCOMP_RET_TRACE | 255;
}

SEC("seccomp")
int prog(struct seccomp_data *ctx)
{
	if (ctx->nr == 5)
		return f1(ctx, ctx->args[0]);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
