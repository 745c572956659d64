// SPDX-License-Identifier: MIT
/* Configured through const volatile globals (.rodata, --set): folded. */
#include <secbpf/filter.h>

const volatile int denied_nr = __NR_getpid;
const volatile __u32 deny_errno = EPERM;
const volatile _Bool strict = 0;
static const int table[4] = { __NR_uname, __NR_sysinfo, __NR_syslog, -1 };

SEC("seccomp")
int knob(struct seccomp_data *ctx)
{
	int i;

	if (ctx->nr == denied_nr)
		return SECCOMP_RET_ERRNO | deny_errno;
	if (strict && ctx->nr > 300)
		return SECCOMP_RET_KILL_PROCESS;
#pragma unroll
	for (i = 0; i < 4; i++)
		if (ctx->nr == table[i])
			return SECCOMP_RET_ERRNO | (100 + i);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
