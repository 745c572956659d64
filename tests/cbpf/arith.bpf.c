// SPDX-License-Identifier: MIT
/* Arithmetic on arguments: 64-bit add/sub with carries, shifts, signed
 * 32- and 64-bit compares, truncation, division by a constant and by an
 * argument (eBPF: x / 0 == 0), and a return value computed from args. */
#include <secbpf/filter.h>

SEC("seccomp")
int arith(struct seccomp_data *ctx)
{
	__u64 a0 = ctx->args[0], a1 = ctx->args[1], a2 = ctx->args[2];

	switch (ctx->nr) {
	case 0:
		if (a0 + a1 == 0x100000000ull)
			return SECCOMP_RET_ERRNO | 1;
		if (a0 - a1 > 0xffffffffull)
			return SECCOMP_RET_ERRNO | 2;
		return SECCOMP_RET_ALLOW;
	case 1:
		if ((int)a0 < -5)
			return SECCOMP_RET_ERRNO | 3;
		if ((long)a1 >= (long)a2)
			return SECCOMP_RET_ERRNO | 4;
		return SECCOMP_RET_ALLOW;
	case 2:
		if ((a0 >> 40) == 0x12 || (a1 << 12) == 0x5000)
			return SECCOMP_RET_ERRNO | 5;
		if (((long)a2 >> 3) < -100)
			return SECCOMP_RET_ERRNO | 6;
		return SECCOMP_RET_ALLOW;
	case 3:
		return SECCOMP_RET_ERRNO | ((__u32)a0 / 7 + (__u32)a1 % 5) % 4096;
	case 4:
		if ((__u32)a2 != 0 && (__u32)a0 / (__u32)a2 > 3)
			return SECCOMP_RET_ERRNO | 7;
		return SECCOMP_RET_ERRNO | (((__u32)a0 * 3 + (__u32)a1) & 0xfff);
	case 5:
		if ((a0 ^ a1) & 0xff00000000ull)
			return SECCOMP_RET_ERRNO | 8;
		if (-a2 == 1)
			return SECCOMP_RET_ERRNO | 9;
		return SECCOMP_RET_ALLOW;
	case 6:
		if (ctx->instruction_pointer >= 0x7f0000000000ull)
			return SECCOMP_RET_KILL_THREAD;
		return SECCOMP_RET_ALLOW;
	}
	return SECCOMP_RET_LOG;
}

char _license[] SEC("license") = "GPL";
