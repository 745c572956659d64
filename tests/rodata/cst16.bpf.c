// SPDX-License-Identifier: MIT
/* A 16-byte table (.rodata.cst16), a 32-byte one (.rodata.cst32) and a
 * string (.rodata.str1.1) beside a 6-byte table in .rodata itself. */
#include <secbpf/filter.h>

static const __u64 pair[2] = { 0xdeadbeefcafef00dULL, 41 };
static const __u32 quad[8] = { 100, 200, 300, 400, 500, 600, 700, 800 };
static const __u16 odd[3] = { 9, 99, 999 };

SEC("seccomp")
int prog(struct seccomp_data *ctx)
{
	const char *word = "secbpf rodata";

#pragma clang loop unroll(disable)
	for (int i = 0; i < 2; i++)
		if (ctx->args[0] == pair[i])
			return SECCOMP_RET_ERRNO | 3;
#pragma clang loop unroll(disable)
	for (int i = 0; i < 8; i++)
		if (ctx->args[1] == quad[i])
			return SECCOMP_RET_ERRNO | 4;
#pragma clang loop unroll(disable)
	for (int i = 0; i < 13; i++)
		if (ctx->args[2] == (unsigned char)word[i])
			return SECCOMP_RET_ERRNO | 5;
#pragma clang loop unroll(disable)
	for (int i = 0; i < 3; i++)
		if (ctx->args[3] == odd[i])
			return SECCOMP_RET_ERRNO | 6;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
