// SPDX-License-Identifier: MIT
/* .rodata tables indexed by arguments: a value read by a key of many
 * values is one expression (a search of the key) rather than a path per
 * value, so several lookups in a row stay linear; 32- and 64-bit
 * entries, in computed returns and in decisions. */
#include <secbpf/filter.h>

/* ERRNO with 12 bits of v from bit s. */
#define SLICE(v, s) (SECCOMP_RET_ERRNO | (__u32)(((__u64)(v) >> (s)) & 0xfff))

static const __u32 tbl[16] = {
	0x9e3779b9, 7, 0x80000000, 0xffffffff, 42, 42, 0x12345678, 0, 1, 0xdeadbeef, 999,
	0x7fffffff, 3, 0xc000003e, 0x40000000, 65536,
};
static const __u64 wide[8] = {
	0x100000000ull, 0xffffffffffffffffull, 5, 0x8000000000000000ull, 0x123456789abcdefull,
	0x7fffffffffffffffull, 0xfffffffeull, 0x200000001ull,
};

SEC("seccomp")
int table(struct seccomp_data *ctx)
{
	__u64 a0 = ctx->args[0], a1 = ctx->args[1];

	switch (ctx->nr) {
	case 0:
		return SLICE(tbl[a0 & 15], 0);
	case 1:
		return SLICE(tbl[(a0 >> 8) & 15], 20);
	case 2:
		if (tbl[a0 & 15] + tbl[(a0 >> 8) & 15] > (__u32)a1)
			return SECCOMP_RET_ERRNO | 1;
		return SECCOMP_RET_ALLOW;
	case 3:
		/* three lookups in a row: 4096 paths if each forked */
		if ((tbl[a0 & 15] ^ tbl[(a0 >> 4) & 15] ^ tbl[(a0 >> 8) & 15]) == (__u32)a1)
			return SECCOMP_RET_ERRNO | 2;
		return SECCOMP_RET_ALLOW;
	case 4:
		return SLICE(wide[a1 & 7], 36);
	case 5:
		if (wide[a0 & 7] > a1)
			return SECCOMP_RET_ERRNO | 3;
		if (wide[(a0 >> 3) & 7] == a1)
			return SECCOMP_RET_ERRNO | 4;
		return SECCOMP_RET_ALLOW;
	}
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
