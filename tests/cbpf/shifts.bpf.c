// SPDX-License-Identifier: MIT
/* Shifts by a variable amount: 64-bit <<, >> and s>> and 32-bit s>> of
 * arguments by arguments, in computed returns (both words, 12 bits at a
 * time) and in decisions. eBPF's own shifts by a register are written in
 * inline assembly, so that counts of 64 and more reach the filter unmasked
 * (C leaves them undefined); the C shifts mask their counts. */
#include <secbpf/filter.h>

/* ERRNO with 12 bits of v from bit s. */
#define SLICE(v, s) (SECCOMP_RET_ERRNO | (__u32)(((v) >> (s)) & 0xfff))

static __always_inline __u64 lsh64(__u64 x, __u64 n)
{
	asm volatile("%0 <<= %1" : "+r"(x) : "r"(n));
	return x;
}

static __always_inline __u64 rsh64(__u64 x, __u64 n)
{
	asm volatile("%0 >>= %1" : "+r"(x) : "r"(n));
	return x;
}

static __always_inline __u64 arsh64(__u64 x, __u64 n)
{
	asm volatile("%0 s>>= %1" : "+r"(x) : "r"(n));
	return x;
}

/* w registers need clang's "w" constraint, which only -mcpu=v3 has:
 * the operands are pinned to r1 and r2 instead. */
static __always_inline __u32 arsh32(__u64 x, __u64 n)
{
	register __u64 rx asm("r1") = x;
	register __u64 rn asm("r2") = n;

	asm volatile("w1 s>>= w2" : "+r"(rx) : "r"(rn));
	return (__u32)rx;
}

SEC("seccomp")
int shifts(struct seccomp_data *ctx)
{
	__u64 a0 = ctx->args[0], a1 = ctx->args[1], a2 = ctx->args[2];

	/* the count from nr, which varies inside this range */
	if (ctx->nr >= 100 && ctx->nr < 400)
		return SLICE(arsh64(a0, ctx->nr) ^ rsh64(a2, ctx->nr), 24);
	switch (ctx->nr) {
	case 0:
		return SLICE(lsh64(a0, a1), 0);
	case 1:
		return SLICE(lsh64(a0, a1), 26);
	case 2:
		return SLICE(lsh64(a0, a1), 52);
	case 3:
		return SLICE(rsh64(a0, a1), 0);
	case 4:
		return SLICE(rsh64(a0, a1), 30);
	case 5:
		return SLICE(rsh64(a0, a1), 52);
	case 6:
		return SLICE(arsh64(a0, a1), 2);
	case 7:
		return SLICE(arsh64(a0, a1), 31);
	case 8:
		return SLICE(arsh64(a0, a1), 52);
	case 9:
		return SLICE(arsh32(a0, a1), 0);
	case 10:
		return SLICE(arsh32(a0, a1), 20);
	case 11:
		/* a narrow count: the low byte of an argument */
		return SLICE(lsh64(a0, (__u8)a2) + rsh64(a1, (__u8)a2), 28);
	case 12:
		/* whole 64-bit compares of a shift (split on the count) */
		if ((__s64)arsh64(a0, a1) < (__s64)a2)
			return SECCOMP_RET_ERRNO | 1;
		return SECCOMP_RET_ALLOW;
	case 15:
		/* compares of one word of a shift */
		if ((__u32)lsh64(a0, a1) == (__u32)a2)
			return SECCOMP_RET_ERRNO | 2;
		if (rsh64(a0, a1) >> 32 > (a2 & 0xffff))
			return SECCOMP_RET_ERRNO | 3;
		if ((__u32)arsh64(a0, a1) > 0x7ffffff0)
			return SECCOMP_RET_ERRNO | 9;
		return SECCOMP_RET_ALLOW;
	case 13:
		/* C's shifts, their counts masked */
		if ((a0 << (a1 & 31)) >> 40 == 0x12)
			return SECCOMP_RET_ERRNO | 4;
		if ((__u32)(((__s64)a0 >> (a1 & 31)) >> 32) == 0xfffffffe)
			return SECCOMP_RET_ERRNO | 5;
		if ((__s32)a0 >> (a1 & 31) < -5)
			return SECCOMP_RET_ERRNO | 6;
		if ((__u32)a0 >> (a1 & 31) == 1)
			return SECCOMP_RET_ERRNO | 7;
		return SECCOMP_RET_ALLOW;
	case 14:
		if ((__s32)arsh32(a0, a1) > (__s32)a2)
			return SECCOMP_RET_ERRNO | 8;
		return SECCOMP_RET_ALLOW;
	}
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
