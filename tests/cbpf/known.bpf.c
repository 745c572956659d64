// SPDX-License-Identifier: MIT
/* What is constant in a cell is used: arch once tested, .rodata tables
 * indexed by a few bits of an argument, and shifts or products whose
 * variable part has few values (a key): none of it needs the supervisor. */
#include <secbpf/filter.h>

static const int tbl1[3] = { 9, 39, 2 };
static const __u32 errs[8] = { 1, 13, 1, 22, 95, 13, 1, 1 };
static const __u8 small[4] = { 3, 1, 4, 1 };
static const short signed_tbl[4] = { -1, 2, -3, 4 };

SEC("seccomp")
int known(struct seccomp_data *ctx)
{
	switch (ctx->nr) {
	case 0:
		/* arch is a constant in the aarch64 cell: a product of a
		 * masked ip (7 bits) and a constant */
		if (ctx->arch != AUDIT_ARCH_AARCH64)
			return SECCOMP_RET_LOG;
		if (!((((__u64)((__u32)ctx->instruction_pointer & 0xc000003eU)) *
		       (__u64)ctx->arch) & 0x8000000000ULL))
			return SECCOMP_RET_ERRNO | 1;
		return SECCOMP_RET_ALLOW;
	case 1:
		/* clang makes this a bit test: (1 << args[2]) & mask */
		for (int i = 0; i < 3; i++)
			if (ctx->args[2] == tbl1[i])
				return SECCOMP_RET_TRACE | 1;
		return SECCOMP_RET_ALLOW;
	case 2:
		return SECCOMP_RET_ERRNO | errs[ctx->args[0] & 7];
	case 3:
		if (ctx->args[1] == small[(ctx->args[0] >> 8) & 3])
			return SECCOMP_RET_ERRNO | 5;
		return SECCOMP_RET_ALLOW;
	case 4:
		/* a 64-bit shift by a variable amount of 16 values */
		if (((ctx->args[1] << (ctx->args[2] & 15)) >> 40) == 0x12)
			return SECCOMP_RET_ERRNO | 7;
		return SECCOMP_RET_ALLOW;
	case 5:
		/* a 64-bit product of a byte */
		if (((((__u64)(__u8)ctx->args[3]) * 0x9e3779b97f4a7c15ULL) >> 58) == 5)
			return SECCOMP_RET_ERRNO | 8;
		return SECCOMP_RET_ALLOW;
	case 6:
		if ((long)ctx->args[1] == signed_tbl[ctx->args[0] & 3])
			return SECCOMP_RET_ERRNO | 9;
		return SECCOMP_RET_ALLOW;
	case 7:
		/* a 64-bit bit set indexed by an argument */
		if ((1ULL << (ctx->args[0] & 63)) & 0x8000000400000021ULL)
			return SECCOMP_RET_ERRNO | 10;
		return SECCOMP_RET_ALLOW;
	case 8:
		/* a returned value of a 64-bit shift by a variable amount */
		return SECCOMP_RET_ERRNO | ((0x0123456789abcdefULL >> (ctx->args[0] & 63)) & 0xfff);
	}
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
