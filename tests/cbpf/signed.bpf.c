// SPDX-License-Identifier: MIT
/* cpu v4 arithmetic on arguments (built with clang -mcpu=v4): signed
 * division and modulo of 32 and 64 bits by constants and by arguments
 * (x / 0 == 0, x % 0 == x, INT_MIN / -1 == INT_MIN in eBPF), byte swaps and
 * sign extensions, in decisions and in computed returns.
 * bpf-cpu: v4
 */
#include <secbpf/filter.h>

/* ERRNO with 12 bits of v from bit s. */
#define SLICE(v, s) (SECCOMP_RET_ERRNO | (__u32)(((__u64)(v) >> (s)) & 0xfff))

SEC("seccomp")
int signed_ops(struct seccomp_data *ctx)
{
	__s64 a0 = (__s64)ctx->args[0], a1 = (__s64)ctx->args[1];
	__s32 w0 = (__s32)ctx->args[0], w1 = (__s32)ctx->args[1];

	switch (ctx->nr) {
	case 0:
		if (a0 / 7 < a1)
			return SECCOMP_RET_ERRNO | 1;
		if (a0 % 10 == -9)
			return SECCOMP_RET_ERRNO | 2;
		if (a0 / -1000 > a1)
			return SECCOMP_RET_ERRNO | 3;
		return SECCOMP_RET_ALLOW;
	case 1:
		if (w0 / w1 == -2)
			return SECCOMP_RET_ERRNO | 4;
		if (w0 % w1 < 0)
			return SECCOMP_RET_ERRNO | 5;
		if (w0 / 3 > w1)
			return SECCOMP_RET_ERRNO | 6;
		return SECCOMP_RET_ALLOW;
	case 2:
		/* by a 64-bit variable */
		if (a0 / a1 > 1000)
			return SECCOMP_RET_ERRNO | 7;
		if (a0 % a1 == -1)
			return SECCOMP_RET_ERRNO | 8;
		return SECCOMP_RET_ALLOW;
	case 3:
		return SLICE(w0 / -3 + w1 % 7, 0);
	case 4:
		return SLICE(a0 / 12345, 40);
	case 5:
		if (__builtin_bswap16((__u16)ctx->args[0]) > (__u16)ctx->args[3])
			return SECCOMP_RET_ERRNO | 9;
		if (__builtin_bswap32((__u32)ctx->args[1]) > (__u32)ctx->args[3])
			return SECCOMP_RET_ERRNO | 10;
		if (__builtin_bswap64(ctx->args[2]) < ctx->args[3])
			return SECCOMP_RET_ERRNO | 11;
		return SECCOMP_RET_ALLOW;
	case 6:
		return SLICE(__builtin_bswap64(ctx->args[0]), 20);
	case 7:
		/* movsx */
		if ((__s64)(__s8)ctx->args[0] + (__s64)(__s16)ctx->args[1] < -100)
			return SECCOMP_RET_ERRNO | 12;
		if ((__s64)(__s32)ctx->args[2] > a1)
			return SECCOMP_RET_ERRNO | 13;
		return SECCOMP_RET_ALLOW;
	case 8: {
		/* sign-extending loads from the stack */
		volatile __s8 b = (__s8)ctx->args[0];
		volatile __s16 h = (__s16)ctx->args[1];
		volatile __s32 w = (__s32)ctx->args[2];

		if (b + h < -100)
			return SECCOMP_RET_ERRNO | 14;
		if (w < a1)
			return SECCOMP_RET_ERRNO | 15;
		return SECCOMP_RET_ALLOW;
	}
	}
	return SECCOMP_RET_LOG;
}

char _license[] SEC("license") = "GPL";
