// SPDX-License-Identifier: MIT
/*
 * More work than the compiler spends on one (arch, nr) cell: a 64-bit mix
 * of products and quotients of argument bytes, whose final test has no
 * cBPF lowering and whose every sub-expression is a key worth trying. The
 * cell goes to the supervisor with the reason, at the same point on every
 * run; the other cells stay in the kernel.
 * guest-cache: skip (its cells go to the supervisor by design, out of
 * the kernel's cache; and its compile is slow under TCG)
 */
#include <secbpf/filter.h>

SEC("seccomp")
int work_budget(struct seccomp_data *ctx)
{
	__u64 a = ctx->args[0], b = ctx->args[1], h = 0;

	if (ctx->nr != 0)
		return ctx->args[2] == 7 ? SECCOMP_RET_ERRNO | 7 : SECCOMP_RET_ALLOW;
#pragma clang loop unroll(disable)
	for (int i = 0; i < 24; i++) {
		__u64 x = (a >> (i * 2)) & 0xff, y = (b >> i) & 0x3f;

		h = (h * 0x9e3779b97f4a7c15ull) ^ (x * y) ^ (h >> 29) ^ ((h * x) / (y + 1));
		if ((__s64)h < 0)
			break;
	}
	if (h % 1000003 == 77)
		return SECCOMP_RET_ERRNO | 1;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
