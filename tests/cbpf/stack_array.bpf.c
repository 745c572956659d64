// SPDX-License-Identifier: MIT
/*
 * Issue 23's fourth reproducer and its kin: arrays on the stack read at an
 * index the data decides, bounded by a mask. Each entry is an expression
 * (an argument, a constant, something computed), and the read is a lookup
 * over them; it was sent whole to the supervisor as "pointer arithmetic the
 * compiler does not follow".
 */
#include <secbpf/filter.h>

SEC("seccomp")
int stack_array(struct seccomp_data *ctx)
{
	__u64 arr[4] = { ctx->args[0], ctx->args[1], 7, 9 };

	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_KILL_PROCESS;
	switch (ctx->nr) {
	case 0:
		/* the reproducer */
		if (arr[ctx->args[2] & 3] == 7)
			return SECCOMP_RET_ERRNO | 1;
		return SECCOMP_RET_ALLOW;
	case 1: {
		/* 32-bit entries, one computed, read at a shifted index */
		__u32 w[8] = { 1, 2, 3, (__u32)ctx->args[3] * 3, 5, 8, 13, 21 };

		return SECCOMP_RET_ERRNO | (w[(ctx->args[0] >> 4) & 7] & 0xfff);
	}
	case 2: {
		/* two reads in a row, bytes, signed */
		__s8 b[4] = { -1, 2, (__s8)ctx->args[1], 100 };

		if (b[ctx->args[0] & 3] + b[(ctx->args[0] >> 2) & 3] < 0)
			return SECCOMP_RET_ERRNO | 2;
		return SECCOMP_RET_ALLOW;
	}
	}
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
