// SPDX-License-Identifier: MIT
/* 64-bit unsigned division and modulo by a variable: a divisor of each
 * range the compiler splits on (0, below 2^16, below 2^32, with a high
 * word), each word of each result read in 12-bit slices through computed
 * returns, and both at once in compares. */
#include <secbpf/filter.h>

/* ERRNO with 12 bits of v from bit s. */
#define SLICE(v, s) (SECCOMP_RET_ERRNO | (__u32)(((v) >> (s)) & 0xfff))

SEC("seccomp")
int divvar(struct seccomp_data *ctx)
{
	__u64 a0 = ctx->args[0], a1 = ctx->args[1], a2 = ctx->args[2];

	switch (ctx->nr) {
	case 0:
		return SLICE(a0 / a1, 0);
	case 2:
		return SLICE(a0 / a1, 52);
	case 3:
		return SLICE(a0 % a1, 0);
	case 5:
		return SLICE(a0 % a1, 52);
	case 6:
		/* a 32-bit dividend by a 64-bit divisor */
		return SLICE((__u32)a0 / a1 + ((__u32)a0 % a1 << 20), 14);
	case 7:
		if (a0 / a1 == a2)
			return SECCOMP_RET_ERRNO | 1;
		if (a0 % a1 > a2)
			return SECCOMP_RET_ERRNO | 2;
		return SECCOMP_RET_ALLOW;
	case 8:
		/* the quotient tested by an interval, its remainder by a mask */
		if (a0 / (a1 | 1) - 10 < 20)
			return SECCOMP_RET_ERRNO | 3;
		if ((a0 % (a2 + 3)) & 0x100000000ull)
			return SECCOMP_RET_ERRNO | 4;
		return SECCOMP_RET_ALLOW;
	}
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
