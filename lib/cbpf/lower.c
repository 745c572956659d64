// SPDX-License-Identifier: MIT
/*
 * 64-bit lowering: eBPF expressions and conditions on 64-bit values as
 * cBPF on the 32-bit A and X, one word (low or high half) at a time, with
 * M[sp..15] for temporaries. Reads of seccomp_data assume a little-endian
 * host (the high word of a field is at offset + 4).
 */
#include <errno.h>
#include <stdlib.h>

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
 * shift logically and sign-extend from the bit the sign lands on:
 * (A >> k ^ s) - s with s = 1 << (31 - k). M[sp] is not used. */
static int lower_arsh(struct cbpf_asm *m, unsigned k, unsigned sp)
{
	if (k == 0)
		return 0;
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, k);
	if (k == 31) {
		cbpf_asm_stmt(m, BPF_ALU | BPF_NEG, 0); /* the sign everywhere */
		return 0;
	}
	cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, 1u << (31 - k));
	cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_K, 1u << (31 - k));
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
	if (a->kind == CBPF_X_CONST) {
		/* X = 31 - c, then the constant word already shifted by 1 */
		uint32_t w = left ? (uint32_t)a->imm >> 1 : (uint32_t)(a->imm >> 32) << 1;

		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, count);
		cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, 31);
		cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, w);
	} else if (a->kind == CBPF_X_FIELD) {
		/* a field's word loads without X: X = 31 - c first */
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, count);
		cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, 31);
		cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
		rc = cross(m, a, sp);
		if (rc)
			return rc;
		cbpf_asm_stmt(m, BPF_ALU | back | BPF_K, 1);
	} else {
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
	}
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

/* ---- .rodata lookups ---- */

/* The word of t's value at pair i. */
static uint32_t table_word(const struct cbpf_table *t, uint32_t i, bool hi)
{
	return hi ? (uint32_t)(t->vals[i] >> 32) : (uint32_t)t->vals[i];
}

/*
 * A = the word of the value at the key in A, for the pairs [lo, hi) of
 * t: a search of the key (JGT), one leaf per run of pairs whose words
 * are equal. Every key value the program can produce is in t, so a leaf
 * needs no test of its own.
 */
static void lower_table_search(struct cbpf_asm *m, const struct cbpf_table *t, bool hi_word,
			       const uint32_t *run, uint32_t lo, uint32_t hi, uint32_t done)
{
	uint32_t mid, right, left;

	if (hi - lo == 1) {
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, table_word(t, run[lo], hi_word));
		cbpf_asm_ja(m, done);
		return;
	}
	mid = lo + (hi - lo) / 2;
	right = cbpf_asm_label(m);
	left = cbpf_asm_label(m);
	/* key > the last key of the runs on the left */
	cbpf_asm_jump(m, BPF_JMP | BPF_JGT | BPF_K, (uint32_t)t->keys[run[mid] - 1], right, left);
	cbpf_asm_place(m, left);
	lower_table_search(m, t, hi_word, run, lo, mid, done);
	cbpf_asm_place(m, right);
	lower_table_search(m, t, hi_word, run, mid, hi, done);
}

/* A = the low (hi) word of a .rodata lookup: the key's low word (its
 * values are below 2^32), then a search of the table's runs. */
static int lower_table(struct cbpf_asm *m, const struct cbpf_expr *e, bool hi, unsigned sp)
{
	const struct cbpf_table *t = (const struct cbpf_table *)(uintptr_t)e->imm;
	uint32_t *run, nrun = 0, i, done;
	int rc;

	run = malloc((t->n + 1) * sizeof(*run));
	if (!run) {
		m->oom = true;
		return -ENOMEM;
	}
	for (i = 0; i < t->n; i++)
		if (!i || table_word(t, i, hi) != table_word(t, i - 1, hi))
			run[nrun++] = i;
	if (nrun == 1) {
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, table_word(t, 0, hi));
		free(run);
		return 0;
	}
	run[nrun] = t->n;
	rc = cbpf_lower_lo_word(m, e->a, sp);
	if (!rc) {
		done = cbpf_asm_label(m);
		lower_table_search(m, t, hi, run, 0, nrun, done);
		cbpf_asm_place(m, done);
	}
	free(run);
	return rc;
}

/* ---- 64-bit multiplication, in 32-bit words ---- */

/* A = M[x] op-limb: its low (lo16) or high 16 bits. */
void cbpf_lower_limb(struct cbpf_asm *m, unsigned slot, bool hi16)
{
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, slot);
	if (hi16)
		cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 16);
	else
		cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, CBPF_LIMB - 1);
}

/* A = limb(M[x]) * limb(M[y]), a product of 16-bit limbs (exact in 32 bits). */
static void lower_limb_mul(struct cbpf_asm *m, unsigned x, bool xhi, unsigned y, bool yhi)
{
	cbpf_lower_limb(m, y, yhi);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_lower_limb(m, x, xhi);
	cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_X, 0);
}

/*
 * A = the high 32 bits of the 64-bit product of M[s] and M[s + 1]; cBPF's
 * multiplication keeps only the low 32, so the product is summed from the
 * four products of 16-bit limbs, none of which overflows. M[s + 2] and
 * M[s + 3] are scratch.
 */
int cbpf_lower_mulhi32(struct cbpf_asm *m, unsigned s)
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
	cbpf_lower_limb(m, s + 2, false);
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
int cbpf_lower_word_to(struct cbpf_asm *m, cbpf_lower_half_fn half, const struct cbpf_expr *e,
		       unsigned slot)
{
	int rc = half(m, e, slot);
	const struct cbpf_asm_insn *last = m->n ? &m->v[m->n - 1] : NULL;

	if (rc)
		return rc;
	if (last && last->code == BPF_ST && last->k == slot)
		return 0;	/* the memo's store */
	return cbpf_lower_store_temp(m, slot);
}

/* A = hi(a * b) = hi(lo(a) * lo(b)) + lo(a) * hi(b) + hi(a) * lo(b), mod 2^32. */
static int lower_mul_hi(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
{
	const struct cbpf_expr *a = e->a, *b = e->b;
	int rc;

	rc = cbpf_lower_word_to(m, cbpf_lower_lo_word, a, sp);
	if (!rc)
		rc = cbpf_lower_word_to(m, cbpf_lower_lo_word, b, sp + 1);
	if (!rc)
		rc = cbpf_lower_mulhi32(m, sp);
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

/* A = the bytes of the low width (16 or 32) bits of A in reverse order,
 * zero above: a word of BPF_END and bswap. M[sp] and M[sp + 1] are scratch. */
static int lower_bswap_a(struct cbpf_asm *m, unsigned width, unsigned sp)
{
	if (cbpf_lower_store_temp(m, sp) || sp + 1 >= BPF_MEMWORDS)
		return -ENOSPC;
	if (width == 16) {
		/* (x & 0xff) << 8 | (x >> 8) & 0xff */
		cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, 0xff);
		cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 8);
		cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp);
		cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 8);
		cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, 0xff);
		cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
		return 0;
	}
	/* x << 24 | x >> 24, then | (x & 0xff00) << 8, then | (x >> 8) & 0xff00 */
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 24);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 24);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, sp + 1);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp);
	cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, 0xff00);
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 8);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp + 1);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, sp + 1);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 8);
	cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, 0xff00);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp + 1);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	return 0;
}

/* Whether s is 0 or all ones for every input: x s>> (width - 1), or two of
 * those XORed (the signs expr.c makes for signed division). */
static bool lower_is_sign(const struct cbpf_expr *s, bool is32, bool xor_ok)
{
	if (s->kind != CBPF_X_ALU || s->is32 != is32)
		return false;
	if (s->op == BPF_XOR)
		return xor_ok && lower_is_sign(s->a, is32, false) &&
		       lower_is_sign(s->b, is32, false);
	return s->op == BPF_ARSH && s->b->kind == CBPF_X_CONST && s->b->imm == (is32 ? 31u : 63u);
}

/* Whether e is (x ^ s) - s with s a sign: x or -x, as expr.c builds |x|
 * and puts the sign back after signed division. */
static bool lower_is_flip(const struct cbpf_expr *e)
{
	const struct cbpf_expr *x = e->a;

	return e->op == BPF_SUB && x->kind == CBPF_X_ALU && x->op == BPF_XOR &&
	       x->is32 == e->is32 && x->b == e->b && lower_is_sign(e->b, e->is32, true);
}

/*
 * half((x ^ s) - s) for a sign s: x when s is 0, -x when all ones, with the
 * words of x computed once (the arithmetic form would compute x and s
 * several times each). hi(-x) = -hi(x) when lo(x) is 0, else ~hi(x).
 * Temporaries from M[sp].
 */
static int lower_flip(struct cbpf_asm *m, const struct cbpf_expr *e, bool hi, unsigned sp)
{
	uint32_t neg = cbpf_asm_label(m), pos = cbpf_asm_label(m), done = cbpf_asm_label(m);
	const struct cbpf_expr *x = e->a->a;
	unsigned s = hi ? sp + 2 : sp + 1;
	int rc;

	rc = cbpf_lower_word_to(m, cbpf_lower_lo_word, x, sp);
	if (!rc && hi)
		rc = cbpf_lower_word_to(m, cbpf_lower_hi_word, x, sp + 1);
	if (!rc)
		rc = cbpf_lower_lo_word(m, e->b, s); /* the sign: 0 or all ones */
	if (rc)
		return rc;
	cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, 0, pos, neg);
	cbpf_asm_place(m, neg);
	if (hi) {
		uint32_t lo_zero = cbpf_asm_label(m), lo_nonzero = cbpf_asm_label(m);

		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp);
		cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, 0, lo_zero, lo_nonzero);
		cbpf_asm_place(m, lo_nonzero);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp + 1);
		cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, 0xffffffffu);
		cbpf_asm_ja(m, done);
		cbpf_asm_place(m, lo_zero);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp + 1);
	} else {
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, sp);
	}
	cbpf_asm_stmt(m, BPF_ALU | BPF_NEG, 0);
	cbpf_asm_ja(m, done);
	cbpf_asm_place(m, pos);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, hi ? sp + 1 : sp);
	cbpf_asm_place(m, done);
	return 0;
}

static int lower_lo_word(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
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
	case CBPF_X_TABLE:
		return lower_table(m, e, false, sp);
	case CBPF_X_BSWAP:
		/* lo(bswap64(a)) = bswap32(hi(a)) */
		rc = e->width == 64 ? cbpf_lower_hi_word(m, e->a, sp)
				    : cbpf_lower_lo_word(m, e->a, sp);
		return rc ? rc : lower_bswap_a(m, e->width == 16 ? 16 : 32, sp);
	case CBPF_X_ALU:
		if (lower_is_flip(e))
			return lower_flip(m, e, false, sp);
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
		return cbpf_lower_divmod(m, e, false, sp);
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

static int lower_hi_word(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
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
	case CBPF_X_TABLE:
		return lower_table(m, e, true, sp);
	case CBPF_X_BSWAP:
		/* hi(bswap64(a)) = bswap32(lo(a)); narrower swaps are hi_zero */
		rc = cbpf_lower_lo_word(m, e->a, sp);
		return rc ? rc : lower_bswap_a(m, 32, sp);
	case CBPF_X_ALU:
		if (lower_is_flip(e))
			return lower_flip(m, e, true, sp);
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
		return cbpf_lower_divmod(m, e, true, sp);
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

/* ---- each word computed once where it can be ---- */

/* Longer code than this for one word is kept in M[sp] for reuse. */
#define MEMO_MIN_INSNS 24

/* half(e), or M[slot] when a memo says the code so far has put it there;
 * a word that took more than MEMO_MIN_INSNS is stored in M[sp] and
 * remembered (lib/cbpf/asm.c forgets it where a path skips its store or
 * the slot is overwritten). */
static int lower_word_memo(struct cbpf_asm *m, const struct cbpf_expr *e, bool hi, unsigned sp)
{
	int slot = cbpf_asm_memo_find(m, e, hi);
	uint32_t start = m->n;
	int rc;

	if (slot >= 0) {
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, (uint32_t)slot);
		return 0;
	}
	rc = hi ? lower_hi_word(m, e, sp) : lower_lo_word(m, e, sp);
	if (!rc && m->n - start > MEMO_MIN_INSNS && sp < BPF_MEMWORDS) {
		/* Away from the temporaries that start at sp, and from the
		 * memos of its own parts, which a caller may ask for next. */
		unsigned keep = cbpf_asm_memo_free_slot(m, sp);

		cbpf_asm_stmt(m, BPF_ST, keep);
		cbpf_asm_memo_add(m, e, hi, keep);
	}
	return rc;
}

int cbpf_lower_lo_word(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
{
	return lower_word_memo(m, e, false, sp);
}

int cbpf_lower_hi_word(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
{
	return lower_word_memo(m, e, true, sp);
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

/* 0, or why e has no lowering: -ENOTSUP, -ENOSPC or -ENOMEM. */
static int lower_expr_rc(const struct cbpf_expr *e)
{
	struct cbpf_asm m = { 0 };
	int rc = cbpf_lower_lo_word(&m, e, 0);

	if (!rc && !e->hi_zero)
		rc = cbpf_lower_hi_word(&m, e, 0);
	if (!rc && m.oom)
		rc = -ENOMEM;
	cbpf_asm_free(&m);
	return rc;
}

/* The innermost operation of e with no lowering, in words; NULL if none. */
static const char *lower_expr_why(const struct cbpf_expr *e)
{
	const char *why;
	int rc;

	if (e->a && (why = lower_expr_why(e->a)))
		return why;
	if (e->b && (why = lower_expr_why(e->b)))
		return why;
	rc = lower_expr_rc(e);
	if (!rc)
		return NULL;
	if (rc == -ENOSPC)
		return "an expression nested too deep for cBPF's 16 scratch words";
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
