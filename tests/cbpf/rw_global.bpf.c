// SPDX-License-Identifier: MIT
/*
 * A global the program writes (a counter in .bss, through a pointer a
 * subprogram gets) stays state, the supervisor's; a knob in .data beside it
 * that nothing writes folds to a constant.
 */
#include <secbpf/filter.h>
__u64 counter;
__u32 knob = 5;
static __attribute__((noinline)) void bump(__u64 *c)
{
	*c += 1;
}

SEC("seccomp")
int rw_global(struct seccomp_data *ctx)
{
	if (ctx->nr == knob)
		return SECCOMP_RET_ERRNO | 1;
	if (ctx->nr == 1)
		bump(&counter);
	return counter > 3 ? SECCOMP_RET_ERRNO | 2 : SECCOMP_RET_ALLOW;
}
char _license[] SEC("license") = "GPL";
