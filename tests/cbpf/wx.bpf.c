// SPDX-License-Identifier: MIT
/* W^X: no mapping or protection change that is both writable and
 * executable; the errno carries the offending prot bits. */
#include <secbpf/filter.h>

#define PROT_WRITE 0x2
#define PROT_EXEC 0x4

SEC("seccomp")
int wx(struct seccomp_data *ctx)
{
	__u64 prot;

	if (ctx->nr == __NR_mmap || ctx->nr == __NR_mprotect)
		prot = ctx->args[2];
	else if (ctx->nr == __NR_pkey_mprotect)
		prot = ctx->args[2];
	else
		return SECCOMP_RET_ALLOW;
	if ((prot & (PROT_WRITE | PROT_EXEC)) == (PROT_WRITE | PROT_EXEC))
		return SECCOMP_RET_ERRNO | (__u32)(prot & 0xff);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
