// SPDX-License-Identifier: MIT
/*
 * 64-bit lowering: eBPF expressions and conditions on 64-bit values as
 * cBPF on the 32-bit A and X, one word (low or high half) at a time, with
 * M[sp..15] for temporaries. Reads of seccomp_data assume a little-endian
 * host (the high word of a field is at offset + 4).
 */
#include <errno.h>

#include "cbpf/cbpf_internal.h"

/* ---- expressions: A = low or high 32 bits, M[sp..15] free for temporaries ---- */

int cbpf_lower_store_temp(struct cbpf_asm *m, unsigned slot)
{
	if (slot >= BPF_MEMWORDS)
		return -ENOSPC;
	cbpf_asm_stmt(m, BPF_ST, slot);
	return 0;
}

/* A = (int32_t)A >> k for 1 <= k <= 31; cBPF has no arithmetic shift, so
 * OR the logical shift with the sign fill. */
static int lower_arsh(struct cbpf_asm *m, unsigned k, unsigned sp)
{
	if (k == 0)
		return 0;
	if (cbpf_lower_store_temp(m, sp) || sp + 1 >= BPF_MEMWORDS)
		return -ENOSPC;
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 31);
	cbpf_asm_stmt(m, BPF_ALU | BPF_NEG, 0);
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 32 - k);
	cbpf_asm_stmt(m, BPF_ST, sp + 1);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, k);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp + 1);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	return 0;
}

/* ---- shifts by a variable amount ---- */

/*
 * eBPF masks a variable count by 63 (by 31 for 32-bit shifts); cBPF's
 * shifts by X are only ever given counts in 0..31, whatever the kernel
 * would do with more. A 64-bit shift branches on bit 5 of the count: below
 * 32 each word takes bits from both words of a, from 32 on one word of a
 * moves whole into the other word.
 */

/* Bit 5 of the count n from its shape, which decides the branch above
 * without a test (x & 31, x | 32); -1 when the shape does not say. */
static int shift_count_bit5(const struct cbpf_expr *n)
{
	if (n->kind == CBPF_X_TRUNC && n->width <= 5)
		return 0;
	if (n->kind != CBPF_X_ALU || n->b->kind != CBPF_X_CONST)
		return -1;
	if (n->op == BPF_AND && !(n->b->imm & 32))
		return 0;
	if (n->op == BPF_OR && (n->b->imm & 32))
		return 1;
	return -1;
}

/* A = (int32_t)A >> M[count], the count in 0..31. cBPF has no arithmetic
 * shift; a negative word shifted is the complement of its complement
 * shifted logically, which brings the ones in. */
static void lower_arsh_var(struct cbpf_asm *m, unsigned count)
{
	uint32_t neg = cbpf_asm_label(m), pos = cbpf_asm_label(m), done = cbpf_asm_label(m);

	cbpf_asm_jump(m, BPF_JMP | BPF_JSET | BPF_K, 0x80000000u, neg, pos);
	cbpf_asm_place(m, pos);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, count);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_X, 0);
	cbpf_asm_ja(m, done);
	cbpf_asm_place(m, neg);
	cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, 0xffffffffu);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, count);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, 0xffffffffu);
	cbpf_asm_place(m, done);
}

/* A = half(a) op M[count] (op BPF_LSH, BPF_RSH or BPF_ARSH), the count in
 * 0..31; temporaries from M[sp]. */
static int lower_word_shift_var(struct cbpf_asm *m, cbpf_lower_half_fn half,
				const struct cbpf_expr *a, unsigned op, unsigned count, unsigned sp)
{
	int rc;

	if (half == cbpf_lower_hi_word && a->hi_zero) {
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
		return 0;
	}
	rc = half(m, a, sp);
	if (rc)
		return rc;
	if (op == BPF_ARSH) {
		lower_arsh_var(m, count);
		return 0;
	}
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, count);
	cbpf_asm_stmt(m, BPF_ALU | op | BPF_X, 0);
	return 0;
}

/*
 * The word of a 64-bit shift by c = M[count] < 32 that takes bits from
 * both words of a: left, hi(a) << c | lo(a) >> (32 - c); right (logical
 * or arithmetic alike), lo(a) >> c | hi(a) << (32 - c). The word that
 * crosses over is shifted by 1 and then by 31 - c (= c ^ 31), so that
 * c = 0 never asks for a shift by 32. Temporaries from M[sp].
 */
static int lower_funnel_var(struct cbpf_asm *m, const struct cbpf_expr *a, bool left,
			    unsigned count, unsigned sp)
{
	cbpf_lower_half_fn own = left ? cbpf_lower_hi_word : cbpf_lower_lo_word;
	cbpf_lower_half_fn cross = left ? cbpf_lower_lo_word : cbpf_lower_hi_word;
	uint16_t op = left ? BPF_LSH : BPF_RSH, back = left ? BPF_RSH : BPF_LSH;
	int rc;

	/* nothing crosses over */
	if (!left && a->hi_zero)
		return lower_word_shift_var(m, own, a, op, count, sp);
	rc = cross(m, a, sp);
	if (rc)
		return rc;
	cbpf_asm_stmt(m, BPF_ALU | back | BPF_K, 1);
	if (cbpf_lower_store_temp(m, sp))
		return -ENOSPC;
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, count);
	cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, 31);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp);
	cbpf_asm_stmt(m, BPF_ALU | back | BPF_X, 0);
	/* nothing of its own */
	if (left && a->hi_zero)
		return 0;
	cbpf_asm_stmt(m, BPF_ST, sp);
	rc = lower_word_shift_var(m, own, a, op, count, sp + 1);
	if (rc)
		return rc;
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	return 0;
}

/* Whether the low or high word of a 64-bit shift by 32..63 (big) or by
 * 0..31 depends on the count: not the word every bit leaves, nor the high
 * word of an arithmetic shift, which is all sign. */
static bool shift64_case_uses_count(unsigned op, bool hi, bool big)
{
	return !big || (op == BPF_LSH && hi) || (op != BPF_LSH && !hi);
}

/*
 * One case of the branch on bit 5 of the count (big: the count is 32..63)
 * for the low or high word of a 64-bit shift, A holding the count when the
 * case uses it: the count masked by 31 goes to M[sp].
 */
static int lower_shift64_case(struct cbpf_asm *m, unsigned op, const struct cbpf_expr *a, bool hi,
			      bool big, unsigned sp)
{
	int rc;

	if (!shift64_case_uses_count(op, hi, big) && op != BPF_ARSH) {
		/* every bit shifted out */
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
		return 0;
	}
	if (!shift64_case_uses_count(op, hi, big)) {
		/* the sign of hi(a), everywhere */
		rc = cbpf_lower_hi_word(m, a, sp);
		if (!rc) {
			cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 31);
			cbpf_asm_stmt(m, BPF_ALU | BPF_NEG, 0);
		}
		return rc;
	}
	cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, 31);
	if (cbpf_lower_store_temp(m, sp))
		return -ENOSPC;
	/* big: one word of a moves whole into the other */
	if (big)
		return lower_word_shift_var(m, hi ? cbpf_lower_lo_word : cbpf_lower_hi_word, a, op,
					    sp, sp + 1);
	/* the word that bits only leave (lo for a left shift) */
	if (hi != (op == BPF_LSH))
		return lower_word_shift_var(m, hi ? cbpf_lower_hi_word : cbpf_lower_lo_word, a, op,
					    sp, sp + 1);
	return lower_funnel_var(m, a, op == BPF_LSH, sp, sp + 1);
}

/* half(e) for a shift of e->a by the variable count e->b, masked as eBPF
 * masks it; temporaries from M[sp]. */
static int lower_shift_var(struct cbpf_asm *m, const struct cbpf_expr *e, bool hi, unsigned sp)
{
	/* an arithmetic shift of a value below 2^63 is a logical one */
	unsigned op = e->op == BPF_ARSH && e->a->hi_zero ? BPF_RSH : e->op;
	int bit5 = e->is32 ? 0 : shift_count_bit5(e->b), rc;
	uint32_t big, small, done;

	if (bit5 >= 0 && !e->is32 && !shift64_case_uses_count(op, hi, bit5))
		return lower_shift64_case(m, op, e->a, hi, bit5, sp);
	rc = cbpf_lower_lo_word(m, e->b, sp);
	if (rc)
		return rc;
	if (e->is32) {
		/* the high word is zero (hi_zero): never asked for */
		cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, 31);
		if (cbpf_lower_store_temp(m, sp))
			return -ENOSPC;
		return lower_word_shift_var(m, cbpf_lower_lo_word, e->a, e->op, sp, sp + 1);
	}
	if (bit5 >= 0)
		return lower_shift64_case(m, op, e->a, hi, bit5, sp);
	big = cbpf_asm_label(m);
	small = cbpf_asm_label(m);
	done = cbpf_asm_label(m);
	cbpf_asm_jump(m, BPF_JMP | BPF_JSET | BPF_K, 32, big, small);
	cbpf_asm_place(m, small);
	rc = lower_shift64_case(m, op, e->a, hi, false, sp);
	if (rc)
		return rc;
	cbpf_asm_ja(m, done);
	cbpf_asm_place(m, big);
	rc = lower_shift64_case(m, op, e->a, hi, true, sp);
	cbpf_asm_place(m, done);
	return rc;
}

/* X = half(x) (through M[sp]), then A = half(a) (temporaries from
 * M[sp + 1]): the two operands of an ALU or jump on X. */
static int lower_x_then_a(struct cbpf_asm *m, cbpf_lower_half_fn half, const struct cbpf_expr *x,
			  const struct cbpf_expr *a, unsigned sp)
{
	int rc = half(m, x, sp);

	if (!rc)
		rc = cbpf_lower_store_temp(m, sp);
	if (!rc)
		rc = half(m, a, sp + 1);
	if (rc)
		return rc;
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp);
	return 0;
}

/* A = half(a) op half(b), op a cBPF ALU op without carries. */
static int lower_binary(struct cbpf_asm *m, unsigned op, cbpf_lower_half_fn half,
			const struct cbpf_expr *a, const struct cbpf_expr *b, unsigned sp)
{
	int rc;

	if (b->kind == CBPF_X_CONST) {
		rc = half(m, a, sp);
		if (rc)
			return rc;
		cbpf_asm_stmt(m, BPF_ALU | op | BPF_K,
			      half == cbpf_lower_lo_word ? (uint32_t)b->imm
							 : (uint32_t)(b->imm >> 32));
		return 0;
	}
	rc = lower_x_then_a(m, half, b, a, sp);
	if (rc)
		return rc;
	cbpf_asm_stmt(m, BPF_ALU | op | BPF_X, 0);
	return 0;
}

/* A = lo(a) >> k | hi(a) << (32 - k), the low word of a 64-bit right shift. */
static int lower_lo_rsh64(struct cbpf_asm *m, const struct cbpf_expr *a, unsigned k, unsigned sp)
{
	int rc;

	if (k >= 32) {
		rc = cbpf_lower_hi_word(m, a, sp);
		if (!rc && k > 32)
			cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, k - 32);
		return rc;
	}
	rc = cbpf_lower_hi_word(m, a, sp);
	if (!rc)
		cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 32 - k);
	if (!rc)
		rc = cbpf_lower_store_temp(m, sp);
	if (!rc)
		rc = cbpf_lower_lo_word(m, a, sp + 1);
	if (rc)
		return rc;
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, k);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	return 0;
}

/* 32-bit (or 64-bit with both halves known zero above) unsigned division
 * and modulo. eBPF defines x / 0 = 0 and x % 0 = x; cBPF would end the
 * filter (KILL), so a variable divisor is tested first. */
static int lower_divmod(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
{
	bool mod = e->op == BPF_MOD;
	uint32_t zero, done, nonzero;
	int rc;

	if (e->b->kind == CBPF_X_CONST) {
		uint32_t k = (uint32_t)e->b->imm;

		if (!e->is32 && e->b->imm >> 32)
			return -ENOTSUP;
		if (k == 0)
			return -ENOTSUP;	/* folded by the front end */
		rc = cbpf_lower_lo_word(m, e->a, sp);
		if (rc)
			return rc;
		if (!mod) {
			cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_K, k);
			return 0;
		}
		if (cbpf_lower_store_temp(m, sp))
			return -ENOSPC;
		cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_K, k);
		cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_K, k);
		cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp);
		cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_X, 0);
		return 0;
	}
	if (!e->is32 && !e->b->hi_zero)
		return -ENOTSUP;
	rc = cbpf_lower_lo_word(m, e->b, sp);
	if (!rc)
		rc = cbpf_lower_store_temp(m, sp);
	if (!rc)
		rc = cbpf_lower_lo_word(m, e->a, sp + 1);
	if (!rc)
		rc = cbpf_lower_store_temp(m, sp + 1);
	if (rc)
		return rc;
	zero = cbpf_asm_label(m);
	done = cbpf_asm_label(m);
	nonzero = cbpf_asm_label(m);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp);
	cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, 0, zero, nonzero);
	cbpf_asm_place(m, nonzero);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp + 1);
	cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_X, 0);
	if (mod) {
		cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_X, 0);
		cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp + 1);
		cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_X, 0);
	}
	cbpf_asm_ja(m, done);
	cbpf_asm_place(m, zero);
	if (mod)
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp + 1);
	else
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
	cbpf_asm_place(m, done);
	return 0;
}

/* ---- 64-bit multiplication and division by a constant, in 32-bit words ---- */

#define LIMB 0x10000u		/* the base of 16-bit limbs */

/* A = M[x] op-limb: its low (lo16) or high 16 bits. */
static void lower_limb(struct cbpf_asm *m, unsigned slot, bool hi16)
{
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, slot);
	if (hi16)
		cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 16);
	else
		cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, LIMB - 1);
}

/* A = limb(M[x]) * limb(M[y]), a product of 16-bit limbs (exact in 32 bits). */
static void lower_limb_mul(struct cbpf_asm *m, unsigned x, bool xhi, unsigned y, bool yhi)
{
	lower_limb(m, y, yhi);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	lower_limb(m, x, xhi);
	cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_X, 0);
}

/*
 * A = the high 32 bits of the 64-bit product of M[s] and M[s + 1]; cBPF's
 * multiplication keeps only the low 32, so the product is summed from the
 * four products of 16-bit limbs, none of which overflows. M[s + 2] and
 * M[s + 3] are scratch.
 */
static int lower_mulhi32(struct cbpf_asm *m, unsigned s)
{
	if (s + 3 >= BPF_MEMWORDS)
		return -ENOSPC;
	/* c = x0 * y0 >> 16 */
	lower_limb_mul(m, s, false, s + 1, false);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 16);
	cbpf_asm_stmt(m, BPF_ST, s + 2);
	/* t1 = x1 * y0 + c (< 2^32); M[s + 3] = t1 >> 16, M[s + 2] = t1 */
	lower_limb_mul(m, s, true, s + 1, false);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, s + 2);
	cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, s + 2);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 16);
	cbpf_asm_stmt(m, BPF_ST, s + 3);
	/* t2 = x0 * y1 + (t1 & 0xffff) (< 2^32); M[s + 3] += t2 >> 16 */
	lower_limb_mul(m, s, false, s + 1, true);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	lower_limb(m, s + 2, false);
	cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 16);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, s + 3);
	cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, s + 3);
	/* x1 * y1 + the carries */
	lower_limb_mul(m, s, true, s + 1, true);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, s + 3);
	cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
	return 0;
}

/* M[slot] = half(e), temporaries above slot. */
static int lower_word_to(struct cbpf_asm *m, cbpf_lower_half_fn half, const struct cbpf_expr *e,
			 unsigned slot)
{
	int rc = half(m, e, slot);

	return rc ? rc : cbpf_lower_store_temp(m, slot);
}

/* A = hi(a * b) = hi(lo(a) * lo(b)) + lo(a) * hi(b) + hi(a) * lo(b), mod 2^32. */
static int lower_mul_hi(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
{
	const struct cbpf_expr *a = e->a, *b = e->b;
	int rc;

	rc = lower_word_to(m, cbpf_lower_lo_word, a, sp);
	if (!rc)
		rc = lower_word_to(m, cbpf_lower_lo_word, b, sp + 1);
	if (!rc)
		rc = lower_mulhi32(m, sp);
	if (!rc)
		rc = cbpf_lower_store_temp(m, sp + 2);
	if (!rc && !b->hi_zero) {
		rc = cbpf_lower_hi_word(m, b, sp + 3);
		if (rc)
			return rc;
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp);
		cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_X, 0);
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp + 2);
		cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
		cbpf_asm_stmt(m, BPF_ST, sp + 2);
	}
	if (!rc && !a->hi_zero) {
		rc = cbpf_lower_hi_word(m, a, sp + 3);
		if (rc)
			return rc;
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp + 1);
		cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_X, 0);
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp + 2);
		cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
		return 0;
	}
	if (!rc)
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp + 2);
	return rc;
}

/* A = M[slot] % k, by M[slot] - M[slot] / k * k. */
static void lower_mod_k(struct cbpf_asm *m, unsigned slot, uint32_t k)
{
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, slot);
	cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_K, k);
	cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_K, k);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, slot);
	cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_X, 0);
}

/* One step of the long division below: M[sp] and A become
 * (M[sp] % k) << 16 | the high (hi_limb) or low 16 bits of M[sp + 1]. */
static void lower_divmod_digit(struct cbpf_asm *m, unsigned sp, uint32_t k, bool hi_limb)
{
	lower_mod_k(m, sp, k);
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 16);
	cbpf_asm_stmt(m, BPF_ST, sp);
	lower_limb(m, sp + 1, hi_limb);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, sp);
}

/*
 * lo(a / k) or lo(a % k) for a constant 1 < k < 2^16: long division of
 * hi(a) and the two 16-bit limbs of lo(a), each step dividing a number
 * below k * 2^16 with cBPF's 32-bit division. M[sp..sp + 2] are used.
 */
static int lower_divmod_small(struct cbpf_asm *m, const struct cbpf_expr *e, uint32_t k,
			      unsigned sp)
{
	bool mod = e->op == BPF_MOD;
	int rc;

	if (sp + 2 >= BPF_MEMWORDS)
		return -ENOSPC;
	rc = lower_word_to(m, cbpf_lower_hi_word, e->a, sp);
	if (!rc)
		rc = lower_word_to(m, cbpf_lower_lo_word, e->a, sp + 1);
	if (rc)
		return rc;
	/* n1 = (hi(a) % k) << 16 | lo(a) >> 16; q1 = n1 / k */
	lower_divmod_digit(m, sp, k, true);
	if (!mod) {
		cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_K, k);
		cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 16);
		cbpf_asm_stmt(m, BPF_ST, sp + 2);
	}
	/* n0 = (n1 % k) << 16 | lo(a) & 0xffff; q0 = n0 / k */
	lower_divmod_digit(m, sp, k, false);
	if (mod) {
		lower_mod_k(m, sp, k);
		return 0;
	}
	cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_K, k);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp + 2);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	return 0;
}

/*
 * One digit of the normalized long division (Knuth's algorithm D with
 * 16-bit digits): M[q] = M[n] / vn1 and M[rh] = its remainder, then the
 * estimate corrected at most twice while q >= 2^16 or q * vn0 > rhat *
 * 2^16 + digit, digit being the high (hi16) or low limb of M[u].
 * M[t] is scratch.
 */
static void lower_div_digit(struct cbpf_asm *m, unsigned n, unsigned u, bool hi16, unsigned q,
			    unsigned rh, unsigned t, uint32_t vn1, uint32_t vn0)
{
	uint32_t done = cbpf_asm_label(m);
	int pass;

	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, n);
	cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_K, vn1);
	cbpf_asm_stmt(m, BPF_ST, q);
	cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_K, vn1);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, n);
	cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, rh);
	for (pass = 0; pass < 2; pass++) {
		uint32_t fix = cbpf_asm_label(m), cmp = cbpf_asm_label(m);

		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, q);
		cbpf_asm_jump(m, BPF_JMP | BPF_JGE | BPF_K, LIMB, fix, cmp);
		cbpf_asm_place(m, cmp);
		lower_limb(m, u, hi16);
		cbpf_asm_stmt(m, BPF_ST, t);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, rh);
		cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 16);
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, t);
		cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
		cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, q);
		cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_K, vn0);
		cbpf_asm_jump(m, BPF_JMP | BPF_JGT | BPF_X, 0, fix, done);
		cbpf_asm_place(m, fix);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, q);
		cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_K, 1);
		cbpf_asm_stmt(m, BPF_ST, q);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, rh);
		cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_K, vn1);
		cbpf_asm_stmt(m, BPF_ST, rh);
		if (pass == 0) {
			uint32_t again = cbpf_asm_label(m);

			cbpf_asm_jump(m, BPF_JMP | BPF_JGE | BPF_K, LIMB, done, again);
			cbpf_asm_place(m, again);
		}
	}
	cbpf_asm_place(m, done);
}

/* M[n] = (M[n] << 16) + limb(M[u]) - M[q] * v, mod 2^32: the partial
 * remainder after a digit. */
static void lower_div_remainder(struct cbpf_asm *m, unsigned n, unsigned u, bool hi16, unsigned q,
				uint32_t v)
{
	lower_limb(m, u, hi16);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, n);
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 16);
	cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, n);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, q);
	cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_K, v);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, n);
	cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, n);
}

/*
 * lo(a / k) or lo(a % k) for a constant 2^16 <= k < 2^32: hi(a) % k and
 * lo(a) make a two-word number whose quotient by k fits 32 bits, divided
 * in two 16-bit digits after shifting k until its top bit is set.
 * M[sp..sp + 5] are used.
 */
static int lower_divmod_word(struct cbpf_asm *m, const struct cbpf_expr *e, uint32_t k,
			     unsigned sp)
{
	unsigned shift = (unsigned)__builtin_clz(k);
	uint32_t v = k << shift, vn1 = v >> 16, vn0 = v & (LIMB - 1);
	unsigned n = sp, u = sp + 1, q1 = sp + 2, q0 = sp + 3, rh = sp + 4, t = sp + 5;
	int rc;

	if (t >= BPF_MEMWORDS)
		return -ENOSPC;
	rc = lower_word_to(m, cbpf_lower_hi_word, e->a, n);
	if (!rc)
		rc = lower_word_to(m, cbpf_lower_lo_word, e->a, u);
	if (rc)
		return rc;
	/* n = (hi(a) % k) << shift | lo(a) >> (32 - shift); u = lo(a) << shift */
	lower_mod_k(m, n, k);
	if (shift) {
		cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, shift);
		cbpf_asm_stmt(m, BPF_ST, n);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, u);
		cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 32 - shift);
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, n);
		cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
		cbpf_asm_stmt(m, BPF_ST, n);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, u);
		cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, shift);
		cbpf_asm_stmt(m, BPF_ST, u);
	} else {
		cbpf_asm_stmt(m, BPF_ST, n);
	}
	lower_div_digit(m, n, u, true, q1, rh, t, vn1, vn0);
	lower_div_remainder(m, n, u, true, q1, v);
	lower_div_digit(m, n, u, false, q0, rh, t, vn1, vn0);
	if (e->op == BPF_MOD) {
		lower_div_remainder(m, n, u, false, q0, v);
		if (shift)
			cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, shift);
		return 0;
	}
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, q1);
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 16);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, q0);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	return 0;
}

/*
 * half(a / k) or half(a % k) for a constant k >= 2^63: the quotient is
 * a >= k, the remainder a - k when it is 1. Temporaries from M[sp].
 */
static int lower_divmod_top(struct cbpf_asm *m, const struct cbpf_expr *e, bool hi, uint64_t k,
			    unsigned sp)
{
	uint32_t one = cbpf_asm_label(m), zero = cbpf_asm_label(m), eq = cbpf_asm_label(m);
	uint32_t lo = cbpf_asm_label(m), done = cbpf_asm_label(m);
	uint32_t khi = (uint32_t)(k >> 32), klo = (uint32_t)k;
	int rc;

	rc = cbpf_lower_hi_word(m, e->a, sp);
	if (rc)
		return rc;
	cbpf_asm_jump(m, BPF_JMP | BPF_JGT | BPF_K, khi, one, eq);
	cbpf_asm_place(m, eq);
	cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, khi, lo, zero);
	cbpf_asm_place(m, lo);
	rc = cbpf_lower_lo_word(m, e->a, sp);
	if (rc)
		return rc;
	cbpf_asm_jump(m, BPF_JMP | BPF_JGE | BPF_K, klo, one, zero);
	cbpf_asm_place(m, zero);
	if (e->op == BPF_DIV)
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
	else
		rc = hi ? cbpf_lower_hi_word(m, e->a, sp) : cbpf_lower_lo_word(m, e->a, sp);
	if (rc)
		return rc;
	cbpf_asm_ja(m, done);
	cbpf_asm_place(m, one);
	if (e->op == BPF_DIV) {
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, hi ? 0 : 1);
	} else if (!hi) {
		rc = cbpf_lower_lo_word(m, e->a, sp);
		if (rc)
			return rc;
		cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_K, klo);
	} else {
		/* hi(a) - hi(k) - (lo(a) < lo(k)), mod 2^32 */
		uint32_t borrow = cbpf_asm_label(m), sub = cbpf_asm_label(m);

		rc = cbpf_lower_lo_word(m, e->a, sp);
		if (rc)
			return rc;
		cbpf_asm_jump(m, BPF_JMP | BPF_JGE | BPF_K, klo, sub, borrow);
		cbpf_asm_place(m, borrow);
		rc = cbpf_lower_hi_word(m, e->a, sp);
		if (rc)
			return rc;
		cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_K, khi + 1);
		cbpf_asm_ja(m, done);
		cbpf_asm_place(m, sub);
		rc = cbpf_lower_hi_word(m, e->a, sp);
		if (rc)
			return rc;
		cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_K, khi);
	}
	cbpf_asm_place(m, done);
	return 0;
}

/*
 * half(a / k) or half(a % k), unsigned, 64-bit a with its high word in
 * play and a constant k that is not 0, 1 or a power of two (those the
 * front end folds or makes shifts). -ENOTSUP for 2^32 <= k < 2^63.
 */
static int lower_divmod64_const(struct cbpf_asm *m, const struct cbpf_expr *e, bool hi,
				unsigned sp)
{
	uint64_t k = e->b->imm;

	if (k >> 63)
		return lower_divmod_top(m, e, hi, k, sp);
	if (k >> 32 || k < 2)
		return -ENOTSUP;
	if (hi && e->op == BPF_MOD) {
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);	/* below k < 2^32 */
		return 0;
	}
	if (hi) {
		/* hi(a / k) = hi(a) / k */
		int rc = cbpf_lower_hi_word(m, e->a, sp);

		if (!rc)
			cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_K, (uint32_t)k);
		return rc;
	}
	if (k < LIMB)
		return lower_divmod_small(m, e, (uint32_t)k, sp);
	return lower_divmod_word(m, e, (uint32_t)k, sp);
}

/* A = 0 if the jump code/k (on A and K or X) is taken, else 1. */
static void lower_bool_unless(struct cbpf_asm *m, uint16_t code, uint32_t k)
{
	uint32_t one = cbpf_asm_label(m), zero = cbpf_asm_label(m), done = cbpf_asm_label(m);

	cbpf_asm_jump(m, code, k, zero, one);
	cbpf_asm_place(m, one);
	cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 1);
	cbpf_asm_ja(m, done);
	cbpf_asm_place(m, zero);
	cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
	cbpf_asm_place(m, done);
}

/* A = carry (ADD: lo(a) + lo(b) overflows) or borrow (SUB: lo(a) < lo(b)),
 * then M[sp] = it. */
static int lower_add_carry(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
{
	int rc;

	if (e->op == BPF_ADD) {
		/* sum = lo(a) + lo(b) wraps iff sum < lo(a) */
		rc = lower_x_then_a(m, cbpf_lower_lo_word, e->a, e->b, sp);
		if (rc)
			return rc;
		cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
	} else {
		rc = lower_x_then_a(m, cbpf_lower_lo_word, e->b, e->a, sp);
		if (rc)
			return rc;
	}
	/* ADD: A = sum, X = lo(a): no carry iff A >= X.
	 * SUB: A = lo(a), X = lo(b): no borrow iff A >= X. */
	lower_bool_unless(m, BPF_JMP | BPF_JGE | BPF_X, 0);
	return cbpf_lower_store_temp(m, sp);
}

int cbpf_lower_lo_word(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
{
	unsigned k;
	int rc;

	switch (e->kind) {
	case CBPF_X_CONST:
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, (uint32_t)e->imm);
		return 0;
	case CBPF_X_FIELD:
		cbpf_asm_stmt(m, BPF_LD | BPF_W | BPF_ABS, (uint32_t)e->imm & ~3u);
		if (e->width < 32) {
			if (e->imm & 3)
				cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K,
					      (uint32_t)(e->imm & 3) * 8);
			cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K,
				      (uint32_t)((1ull << e->width) - 1));
		}
		return 0;
	case CBPF_X_TRUNC:
		rc = cbpf_lower_lo_word(m, e->a, sp);
		if (!rc && e->width < 32)
			cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K,
				      (uint32_t)((1ull << e->width) - 1));
		return rc;
	case CBPF_X_SEXT:
		rc = cbpf_lower_lo_word(m, e->a, sp);
		if (rc || e->width >= 32)
			return rc;
		cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 32 - e->width);
		return lower_arsh(m, 32 - e->width, sp);
	case CBPF_X_NEG:
		rc = cbpf_lower_lo_word(m, e->a, sp);
		if (!rc)
			cbpf_asm_stmt(m, BPF_ALU | BPF_NEG, 0);
		return rc;
	case CBPF_X_BSWAP:
		return -ENOTSUP;
	case CBPF_X_ALU:
		break;
	default:
		return -ENOTSUP;
	}
	switch (e->op) {
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		/* The low word of these depends only on the low words. */
		return lower_binary(m, e->op, cbpf_lower_lo_word, e->a, e->b, sp);
	case BPF_DIV:
	case BPF_MOD:
		if (e->sgn)
			return -ENOTSUP;
		if (!e->is32 && !e->a->hi_zero)
			return e->b->kind == CBPF_X_CONST ? lower_divmod64_const(m, e, false, sp)
							  : -ENOTSUP;
		return lower_divmod(m, e, sp);
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		break;
	default:
		return -ENOTSUP;
	}
	if (e->b->kind != CBPF_X_CONST)
		return lower_shift_var(m, e, false, sp);
	k = (unsigned)e->b->imm;	/* masked by the front end */
	if (e->is32) {
		rc = cbpf_lower_lo_word(m, e->a, sp);
		if (rc)
			return rc;
		if (e->op == BPF_ARSH)
			return lower_arsh(m, k, sp);
		cbpf_asm_stmt(m, BPF_ALU | e->op | BPF_K, k);
		return 0;
	}
	if (e->op == BPF_LSH) {
		if (k >= 32) {
			cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
			return 0;
		}
		rc = cbpf_lower_lo_word(m, e->a, sp);
		if (!rc)
			cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, k);
		return rc;
	}
	if (e->op == BPF_ARSH && k > 32) {
		rc = cbpf_lower_hi_word(m, e->a, sp);
		return rc ? rc : lower_arsh(m, k - 32, sp);
	}
	return lower_lo_rsh64(m, e->a, k, sp);
}

int cbpf_lower_hi_word(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
{
	unsigned k;
	int rc;

	if (e->hi_zero) {
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
		return 0;
	}
	switch (e->kind) {
	case CBPF_X_CONST:
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, (uint32_t)(e->imm >> 32));
		return 0;
	case CBPF_X_FIELD:
		cbpf_asm_stmt(m, BPF_LD | BPF_W | BPF_ABS, (uint32_t)e->imm + 4);
		return 0;
	case CBPF_X_TRUNC:
		rc = cbpf_lower_hi_word(m, e->a, sp);
		if (!rc)
			cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K,
				      (uint32_t)((1ull << (e->width - 32)) - 1));
		return rc;
	case CBPF_X_SEXT:
		/* The sign of the sign-extended low word, everywhere. */
		rc = cbpf_lower_lo_word(m, e, sp);
		return rc ? rc : lower_arsh(m, 31, sp);
	case CBPF_X_NEG: {
		/* hi(-a) = -hi(a) - (lo(a) != 0) */
		rc = cbpf_lower_lo_word(m, e->a, sp);
		if (rc)
			return rc;
		lower_bool_unless(m, BPF_JMP | BPF_JEQ | BPF_K, 0);
		rc = cbpf_lower_store_temp(m, sp);
		if (!rc)
			rc = cbpf_lower_hi_word(m, e->a, sp + 1);
		if (rc)
			return rc;
		cbpf_asm_stmt(m, BPF_ALU | BPF_NEG, 0);
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp);
		cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_X, 0);
		return 0;
	}
	case CBPF_X_ALU:
		break;
	default:
		return -ENOTSUP;
	}
	switch (e->op) {
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		return lower_binary(m, e->op, cbpf_lower_hi_word, e->a, e->b, sp);
	case BPF_ADD:
	case BPF_SUB:
		/* hi = hi(a) +- hi(b) +- carry */
		rc = lower_add_carry(m, e, sp);
		if (!rc)
			rc = lower_binary(m, e->op, cbpf_lower_hi_word, e->a, e->b, sp + 1);
		if (rc)
			return rc;
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp);
		cbpf_asm_stmt(m, BPF_ALU | e->op | BPF_X, 0);
		return 0;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		if (e->b->kind != CBPF_X_CONST)
			return lower_shift_var(m, e, true, sp);
		break;
	case BPF_MUL:
		return lower_mul_hi(m, e, sp);
	case BPF_DIV:
	case BPF_MOD:
		if (e->sgn || e->b->kind != CBPF_X_CONST)
			return -ENOTSUP;
		return lower_divmod64_const(m, e, true, sp);
	default:
		return -ENOTSUP;
	}
	k = (unsigned)e->b->imm;
	if (e->op == BPF_LSH) {
		if (k >= 32) {
			rc = cbpf_lower_lo_word(m, e->a, sp);
			if (!rc && k > 32)
				cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, k - 32);
			return rc;
		}
		/* hi(a) << k | lo(a) >> (32 - k) */
		rc = cbpf_lower_lo_word(m, e->a, sp);
		if (!rc)
			cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 32 - k);
		if (!rc)
			rc = cbpf_lower_store_temp(m, sp);
		if (!rc)
			rc = cbpf_lower_hi_word(m, e->a, sp + 1);
		if (rc)
			return rc;
		cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, k);
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp);
		cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
		return 0;
	}
	rc = cbpf_lower_hi_word(m, e->a, sp);
	if (rc)
		return rc;
	if (e->op == BPF_RSH) {
		cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, k);	/* k < 32: else hi_zero */
		return 0;
	}
	return lower_arsh(m, k >= 32 ? 31 : k, sp);
}

/* ---- conditions ---- */

uint16_t cbpf_lower_jump_op(unsigned op)
{
	switch (op) {
	case CBPF_C_EQ: return BPF_JMP | BPF_JEQ;
	case CBPF_C_GT: return BPF_JMP | BPF_JGT;
	case CBPF_C_GE: return BPF_JMP | BPF_JGE;
	}
	return BPF_JMP | BPF_JSET;
}

/* One 32-bit comparison of half(a) with half(b), sign bits flipped when
 * flip, jumping to lt or lf. */
static int lower_cmp_words(struct cbpf_asm *m, unsigned op, bool flip, cbpf_lower_half_fn half,
			   const struct cbpf_expr *a, const struct cbpf_expr *b, uint32_t lt,
			   uint32_t lf)
{
	uint32_t fl = flip ? 0x80000000u : 0;
	int rc;

	if (b->kind == CBPF_X_CONST) {
		uint32_t k =
			half == cbpf_lower_lo_word ? (uint32_t)b->imm : (uint32_t)(b->imm >> 32);

		rc = half(m, a, 0);
		if (rc)
			return rc;
		if (fl)
			cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, fl);
		cbpf_asm_jump(m, cbpf_lower_jump_op(op) | BPF_K, k ^ fl, lt, lf);
		return 0;
	}
	rc = half(m, b, 0);
	if (rc)
		return rc;
	if (fl)
		cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, fl);
	rc = cbpf_lower_store_temp(m, 0);
	if (!rc)
		rc = half(m, a, 1);
	if (rc)
		return rc;
	if (fl)
		cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, fl);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, 0);
	cbpf_asm_jump(m, cbpf_lower_jump_op(op) | BPF_X, 0, lt, lf);
	return 0;
}

/* if (a op b) goto lt else lf, for 64-bit or 32-bit (is32) operands. */
int cbpf_lower_cond(struct cbpf_asm *m, const struct cbpf_rnode *n, uint32_t lt, uint32_t lf)
{
	const struct cbpf_expr *a = n->a, *b = n->b;
	bool sgn = n->sgn && n->op != CBPF_C_EQ && n->op != CBPF_C_SET;
	uint32_t lo_label;
	int rc;

	if (n->is32 || n->op == CBPF_C_SET) {
		if (n->is32)
			return lower_cmp_words(m, n->op, sgn, cbpf_lower_lo_word, a, b, lt, lf);
	}
	if (a->hi_zero && b->hi_zero)	/* both in [0, 2^32): signedness moot */
		return lower_cmp_words(m, n->op, false, cbpf_lower_lo_word, a, b, lt, lf);
	if (b->kind == CBPF_X_CONST && (uint32_t)(b->imm >> 32) == 0 && n->op == CBPF_C_SET)
		return lower_cmp_words(m, n->op, false, cbpf_lower_lo_word, a, b, lt, lf);
	lo_label = cbpf_asm_label(m);
	switch (n->op) {
	case CBPF_C_EQ:
		rc = lower_cmp_words(m, CBPF_C_EQ, false, cbpf_lower_hi_word, a, b, lo_label, lf);
		break;
	case CBPF_C_SET:
		rc = lower_cmp_words(m, CBPF_C_SET, false, cbpf_lower_hi_word, a, b, lt, lo_label);
		break;
	default: {
		/* hi(a) > hi(b): true; hi(a) == hi(b): decide on the low
		 * words, unsigned; else false. */
		uint32_t eq = cbpf_asm_label(m);

		rc = lower_cmp_words(m, CBPF_C_GT, sgn, cbpf_lower_hi_word, a, b, lt, eq);
		if (rc)
			return rc;
		cbpf_asm_place(m, eq);
		/* A and X (or K) still hold the flipped high words. */
		if (b->kind == CBPF_X_CONST)
			cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K,
			       (uint32_t)(b->imm >> 32) ^ (sgn ? 0x80000000u : 0), lo_label, lf);
		else
			cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_X, 0, lo_label, lf);
		break;
	}
	}
	if (rc)
		return rc;
	cbpf_asm_place(m, lo_label);
	return lower_cmp_words(m, n->op, false, cbpf_lower_lo_word, a, b, lt, lf);
}

/* ---- why a test has no lowering ---- */

static bool lower_expr_ok(const struct cbpf_expr *e)
{
	struct cbpf_asm m = { 0 };
	int rc = cbpf_lower_lo_word(&m, e, 0);

	if (!rc && !e->hi_zero)
		rc = cbpf_lower_hi_word(&m, e, 0);
	rc = rc || m.oom;
	cbpf_asm_free(&m);
	return rc == 0;
}

/* The innermost operation of e with no lowering, in words; NULL if none. */
static const char *lower_expr_why(const struct cbpf_expr *e)
{
	const char *why;

	if (e->a && (why = lower_expr_why(e->a)))
		return why;
	if (e->b && (why = lower_expr_why(e->b)))
		return why;
	if (lower_expr_ok(e))
		return NULL;
	if (e->kind == CBPF_X_BSWAP)
		return "byte swap";
	if (e->kind != CBPF_X_ALU)
		return "an operation with no cBPF lowering";
	switch (e->op) {
	case BPF_MUL:
		return "64-bit multiplication";
	case BPF_DIV:
	case BPF_MOD:
		if (e->sgn)
			return "signed division or modulo";
		return e->b->kind == CBPF_X_CONST ? "64-bit division or modulo by a constant"
						  : "64-bit division or modulo by a variable";
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		return e->op == BPF_ARSH ? "arithmetic shift by a variable amount"
					 : "64-bit shift by a variable amount";
	}
	return "an operation with no cBPF lowering";
}

const char *cbpf_lower_why(const struct cbpf_rnode *n)
{
	const char *why = NULL;

	if (n->kind == CBPF_R_BRANCH) {
		why = lower_expr_why(n->a);
		if (!why)
			why = lower_expr_why(n->b);
	} else if (n->kind == CBPF_R_RET && n->ret) {
		why = lower_expr_why(n->ret);
	}
	return why ? why : "a test too large for one filter";
}
