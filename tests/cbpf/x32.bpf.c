// SPDX-License-Identifier: MIT
/* x32 numbers (bit 30 under AUDIT_ARCH_X86_64), negative numbers, i386,
 * and signed compares of nr that clang emits for int. */
#include <secbpf/filter.h>

#define X32_BIT 0x40000000

SEC("seccomp")
int x32(struct seccomp_data *ctx)
{
	int nr = ctx->nr;

	if (ctx->arch == AUDIT_ARCH_I386)
		return nr == 6 ? SECCOMP_RET_ERRNO | 6 : SECCOMP_RET_ALLOW;
	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_KILL_PROCESS;
	if (nr < 0)
		return SECCOMP_RET_ERRNO | 1;
	if (nr & X32_BIT) {
		if ((nr & ~X32_BIT) == __NR_close)
			return SECCOMP_RET_ERRNO | 2;
		return SECCOMP_RET_ERRNO | 3;
	}
	if (nr >= 512)
		return SECCOMP_RET_ERRNO | 4;
	if (nr - 200 < 10 && nr - 200 >= 0)
		return SECCOMP_RET_TRAP | (nr - 200);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
