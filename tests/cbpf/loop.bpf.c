// SPDX-License-Identifier: MIT
/* A real (not unrolled) loop over a table, and a loop over an argument's
 * bits: both unrolled by the compiler's exploration. */
#include <secbpf/filter.h>

static const volatile int denied[8] = { 101, 102, 103, 165, 166, 169, 175, 176 };

SEC("seccomp")
int loop(struct seccomp_data *ctx)
{
	int i;
	__u32 bits = 0;

#pragma nounroll
	for (i = 0; i < 8; i++)
		if (ctx->nr == denied[i])
			return SECCOMP_RET_ERRNO | EPERM;
	if (ctx->nr == __NR_ioctl) {
		__u64 a = ctx->args[1];

#pragma nounroll
		for (i = 0; i < 4; i++)
			if (a & (1ull << (i * 8)))
				bits++;
		if (bits >= 3)
			return SECCOMP_RET_ERRNO | E2BIG;
	}
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
