// SPDX-License-Identifier: MIT
/*
 * More work than the compiler spends on a whole program: eight syscalls
 * each mix the arguments with a salt of their own, each mix more than one
 * cell's budget. After a few cells the program's budget is spent, and the
 * cells not explored yet go to the supervisor with the reason; the compile
 * stays bounded.
 * guest-cache: skip (its cells go to the supervisor by design, out of
 * the kernel's cache; and its compile is slow under TCG)
 */
#include <secbpf/filter.h>

static __attribute__((noinline)) __u64 mix(__u64 a, __u64 b, __u64 salt)
{
	__u64 h = salt;

#pragma clang loop unroll(disable)
	for (int i = 0; i < 24; i++) {
		__u64 x = (a >> (i * 2)) & 0xff, y = (b >> i) & 0x3f;

		h = (h * 0x9e3779b97f4a7c15ull) ^ (x * y) ^ (h >> 29) ^ ((h * x) / (y + 1));
		if ((__s64)h < 0)
			break;
	}
	return h;
}

SEC("seccomp")
int work_budget_total(struct seccomp_data *ctx)
{
	__u64 salt;

	switch (ctx->nr) {
	case 0: salt = 0x9e37; break;
	case 1: salt = 0x79b9; break;
	case 2: salt = 0x7f4a; break;
	case 3: salt = 0x7c15; break;
	case 4: salt = 0xdead; break;
	case 5: salt = 0xbeef; break;
	case 6: salt = 0xcafe; break;
	case 7: salt = 0xf00d; break;
	default: return SECCOMP_RET_ALLOW;
	}
	if (mix(ctx->args[0], ctx->args[1], salt) % 1000003 == 77)
		return SECCOMP_RET_ERRNO | 1;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
