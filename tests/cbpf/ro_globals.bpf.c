// SPDX-License-Identifier: MIT
/*
 * Issue 23's sixth finding: globals in .data and .bss that the program only
 * reads are knobs like those in .rodata, and fold to constants: nothing
 * writes them once the object is loaded (--set writes them before). One
 * of them is read through a pointer kept across a loop and a subprogram,
 * one at an index the arguments decide. They were sent to the supervisor
 * as state.
 * guest-cache: skip (it kills execve, nr 59, so kernel/tests/seccomp_cache.sh's
 * cache_hold cannot start under it)
 */
#include <secbpf/filter.h>

__u32 deny_nr = 59;			/* .data */
__u64 limits[4] = { 10, 100, 1000, 0x100000000ull };
__u32 quiet;				/* .bss */
__u64 zeroes[2];

static __attribute__((noinline)) int over(const __u64 *lim, __u64 v, __u32 i)
{
	return v > lim[i & 3];
}

SEC("seccomp")
int ro_globals(struct seccomp_data *ctx)
{
	__u64 sum = 0;

	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_KILL_PROCESS;
	if (ctx->nr == deny_nr)
		return quiet ? SECCOMP_RET_ERRNO | 1 : SECCOMP_RET_KILL_PROCESS;
	if (ctx->nr == 0) {
		for (int i = 0; i < 4; i++)
			sum += limits[i] & ctx->args[i];
		if (sum == zeroes[1] + 3)
			return SECCOMP_RET_ERRNO | 3;
	}
	if (ctx->nr == 1 && over(limits, ctx->args[2], (__u32)ctx->args[1]))
		return SECCOMP_RET_ERRNO | 2;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
