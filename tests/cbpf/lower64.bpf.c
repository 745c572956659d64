// SPDX-License-Identifier: MIT
/* 64-bit multiplication and unsigned division and modulo by constants of
 * every class the compiler lowers to cBPF (below 2^16, below 2^32, below
 * 2^63, from 2^63, powers of two), each result read in 12-bit slices
 * through computed returns (bits 0-11, 28-39, 52-63 ...) and compares, so
 * that both words of each are checked. */
#include <secbpf/filter.h>

/* ERRNO with 12 bits of v from bit s. */
#define SLICE(v, s) (SECCOMP_RET_ERRNO | (__u32)(((v) >> (s)) & 0xfff))

SEC("seccomp")
int lower64(struct seccomp_data *ctx)
{
	__u64 a0 = ctx->args[0], a1 = ctx->args[1];

	switch (ctx->nr) {
	case 0:
		return SLICE(a0 * a1, 0);
	case 1:
		return SLICE(a0 * a1, 28);
	case 2:
		return SLICE(a0 * a1, 52);
	case 3:
		return SLICE(a0 * 0x9e3779b97f4a7c15ull, 34);
	case 4:
		return SLICE(a0 / 10, 0);
	case 5:
		return SLICE(a0 / 10, 40);
	case 6:
		return SLICE(a0 / 1000003, 8);
	case 7:
		return SLICE(a0 / 1000003, 30);
	case 8:
		return SLICE(a0 % 1000003, 0);
	case 9:
		return SLICE(a0 % 1000003, 9);
	case 10:
		return SLICE(a0 % 7, 0);
	case 11:
		return SLICE(a0 / 0x8000000000000001ull + a0 % 0x8000000000000001ull, 0);
	case 12:
		return SLICE(a0 % 0x8000000000000001ull, 52);
	case 13:
		return SLICE(a0 / 4096 + a0 % 64, 40);
	case 14:
		if (a0 / 0xfffffffbull == a1)
			return SECCOMP_RET_ERRNO | 1;
		if (a0 % 0xfffffffbull > a1)
			return SECCOMP_RET_ERRNO | 2;
		return SECCOMP_RET_ALLOW;
	case 16:
		return SLICE(a0 / 0x8000ffff + (a0 % 0x8000ffff << 20), 20);
	case 17:
		/* 2^32 <= k < 2^63: the quotient fits 32 bits */
		return SLICE(a0 / 0x2540be3ffull + (a0 % 0x2540be3ffull << 12), 8);
	case 18:
		if (a0 % 0x7fffffff00000001ull > a1)
			return SECCOMP_RET_ERRNO | 5;
		return SECCOMP_RET_ALLOW;
	case 15:
		if (a0 * a1 == 0x100000000ull)
			return SECCOMP_RET_ERRNO | 3;
		if (a0 * a1 > a0)
			return SECCOMP_RET_ERRNO | 4;
		return SECCOMP_RET_ALLOW;
	}
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
