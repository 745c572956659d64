// SPDX-License-Identifier: MIT
/*
 * Test object for tests/test_object.c: a program whose only ld_imm64 loads
 * a 64-bit constant (no relocation), used to build truncated copies.
 */
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	if (ctx->args[0] == 0x1122334455667788ULL)
		return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "Dual MIT/GPL";
