// SPDX-License-Identifier: MIT
/*
 * Issue 23's fifth reproducer: a hash over the bytes of two arguments that
 * stops at the first negative byte, a subprogram that switches on nr and a
 * compare of the hash. Each way out of the loop ends in a compare of a long
 * 32-bit expression, which the compiler tries to split on each byte: it
 * lowered every split in full and again to size it (6 s at 16 bytes, 66 s
 * for the original), where the first few values of a key show that the
 * split is too long.
 * guest-cache: skip (open: the kernel's cache leaves out nr 0, 1, 2, 9, 10,
 * 17, ... that the program always allows; a missed optimization, seen in
 * the 6.1 guest on 2026-12-05, not a wrong decision)
 */
#include <secbpf/filter.h>

#ifndef HASH_BYTES
#define HASH_BYTES 16
#endif

static __attribute__((noinline)) int kind(struct seccomp_data *ctx)
{
	switch (ctx->nr) {
	case 0:
	case 1:
	case 17:
	case 18:
		return 1;
	case 2:
	case 257:
		return 2;
	case 59:
	case 322:
		return 3;
	case 9:
	case 10:
		return 4;
	default:
		return 0;
	}
}

SEC("seccomp")
int hash_break(struct seccomp_data *ctx)
{
	__u32 h = 0;
	int k;

	for (int i = 0; i < HASH_BYTES; i++) {
		__s8 b = (__s8)(ctx->args[i & 1] >> (8 * (i >> 1)));

		if (b < 0)
			break;
		h = h * 31 + b;
	}
	k = kind(ctx);
	if (k == 0)
		return SECCOMP_RET_ALLOW;
	if (h == 0xdeadbeef)
		return SECCOMP_RET_ERRNO | (k == 3 ? 3 : 1);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
