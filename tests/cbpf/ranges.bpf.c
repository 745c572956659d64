// SPDX-License-Identifier: MIT
/* Interval tests that clang turns into "(x + C) op K" (an offset sum and
 * one compare): 64- and 32-bit, unsigned and signed, one interval and the
 * complement of one. The compiler tests them as ranges of x
 * (lib/cbpf/keys.c, offset_branch). */
#include <secbpf/filter.h>

SEC("seccomp")
int ranges(struct seccomp_data *ctx)
{
	__u64 a0 = ctx->args[0];
	__s64 s0 = (__s64)ctx->args[0];
	__u32 w1 = (__u32)ctx->args[1];
	int i2 = (int)ctx->args[2];

	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_KILL_PROCESS;
	switch (ctx->nr) {
	case 0: /* Docker's socket rule: all but 38 and 40 */
		if (a0 < 38 || a0 == 39 || a0 > 40)
			return SECCOMP_RET_ALLOW;
		return SECCOMP_RET_ERRNO | 1;
	case 1:
		if (s0 >= -5 && s0 <= 100)
			return SECCOMP_RET_ERRNO | 2;
		return SECCOMP_RET_ALLOW;
	case 2:
		if (w1 >= 7 && w1 < 10)
			return SECCOMP_RET_ERRNO | 3;
		return SECCOMP_RET_ALLOW;
	case 3:
		if (i2 >= -3 && i2 <= 4)
			return SECCOMP_RET_ERRNO | 4;
		return SECCOMP_RET_ALLOW;
	case 4:
		if (a0 >= 0x7ffffffffffffff0ULL && a0 <= 0x8000000000000010ULL)
			return SECCOMP_RET_ERRNO | 5;
		return SECCOMP_RET_ALLOW;
	case 5:
		if (a0 - 1 < 0xfffffffffffffffeULL) /* neither 0 nor all ones */
			return SECCOMP_RET_ALLOW;
		return SECCOMP_RET_ERRNO | 6;
	case 6:
		if (a0 + 16 == 3) /* 2^64 - 13 */
			return SECCOMP_RET_ERRNO | 7;
		return SECCOMP_RET_ALLOW;
	}
	return SECCOMP_RET_ALLOW;
}
