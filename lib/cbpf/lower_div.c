// SPDX-License-Identifier: MIT
/*
 * Division and modulo in cBPF's 32-bit words (part of the 64-bit lowering,
 * lower.c): by a constant, by 32-bit variables, and 64-bit by a 64-bit
 * variable, with eBPF's rules (x / 0 = 0, x % 0 = x), which cBPF does not
 * have: it ends the filter on a zero divisor.
 */
#include <errno.h>

#include "cbpf/cbpf_internal.h"

/* 32-bit (or 64-bit with both operands below 2^32, or with a dividend
 * below 2^32 and a divisor whose high word is 0 here) unsigned division
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
			return -ENOTSUP; /* folded by the front end */
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
	if (!e->is32 && !e->b->hi_zero && !e->a->hi_zero)
		return -ENOTSUP; /* lo(b) alone does not decide */
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

/* ---- 64-bit division by a constant ---- */

/* A divisor below 2^32 that is not 0: the constant v, or (mem) M[v]. */
struct div_by {
	bool mem;
	uint32_t v;
};

/* A = A / the divisor; X is clobbered when it is in M[]. */
static void lower_div_by(struct cbpf_asm *m, struct div_by by)
{
	if (by.mem) {
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, by.v);
		cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_X, 0);
	} else {
		cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_K, by.v);
	}
}

/* A = M[slot] % the divisor, by M[slot] - M[slot] / d * d. */
static void lower_mod_by(struct cbpf_asm *m, unsigned slot, struct div_by by)
{
	if (by.mem) {
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, by.v);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, slot);
		cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_X, 0);
		cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_X, 0);
	} else {
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, slot);
		cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_K, by.v);
		cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_K, by.v);
	}
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, slot);
	cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_X, 0);
}

/* One step of the long division below: M[cur] and A become
 * (M[cur] % d) << 16 | the high (hi_limb) or low 16 bits of M[lo]. */
static void lower_divmod_digit(struct cbpf_asm *m, unsigned cur, unsigned lo, struct div_by by,
			       bool hi_limb)
{
	lower_mod_by(m, cur, by);
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 16);
	cbpf_asm_stmt(m, BPF_ST, cur);
	cbpf_lower_limb(m, lo, hi_limb);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, cur);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, cur);
}

/*
 * A = lo(n / d) or lo(n % d) for 0 < d < 2^16: long division of hi(n),
 * in M[cur], and the two 16-bit limbs of lo(n), in M[lo], each step
 * dividing a number below d * 2^16 with cBPF's 32-bit division. M[cur]
 * and M[q] are overwritten.
 */
static void lower_limb_division(struct cbpf_asm *m, unsigned cur, unsigned lo, unsigned q,
				struct div_by by, bool mod)
{
	/* n1 = (hi(n) % d) << 16 | lo(n) >> 16; q1 = n1 / d */
	lower_divmod_digit(m, cur, lo, by, true);
	if (!mod) {
		lower_div_by(m, by);
		cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 16);
		cbpf_asm_stmt(m, BPF_ST, q);
	}
	/* n0 = (n1 % d) << 16 | lo(n) & 0xffff; q0 = n0 / d */
	lower_divmod_digit(m, cur, lo, by, false);
	if (mod) {
		lower_mod_by(m, cur, by);
		return;
	}
	lower_div_by(m, by);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, q);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
}

/*
 * lo(a / k) or lo(a % k) for a constant 1 < k < 2^16: long division of
 * hi(a) and the two 16-bit limbs of lo(a), each step dividing a number
 * below k * 2^16 with cBPF's 32-bit division. M[sp..sp + 2] are used.
 */
static int lower_divmod_small(struct cbpf_asm *m, const struct cbpf_expr *e, uint32_t k,
			      unsigned sp)
{
	int rc;

	if (sp + 2 >= BPF_MEMWORDS)
		return -ENOSPC;
	rc = cbpf_lower_word_to(m, cbpf_lower_hi_word, e->a, sp);
	if (!rc)
		rc = cbpf_lower_word_to(m, cbpf_lower_lo_word, e->a, sp + 1);
	if (rc)
		return rc;
	lower_limb_division(m, sp, sp + 1, sp + 2, (struct div_by){ .v = k }, e->op == BPF_MOD);
	return 0;
}

/*
 * The divisor of a normalized long division (its top bit set): constants,
 * or (in_mem) the slots of M[] holding them.
 */
struct div_divisor {
	bool in_mem;
	uint32_t v, vn1, vn0; /* v, its high and its low 16 bits */
};

/* A = A op part (one of d's fields); X is clobbered when d is in M[]. */
static void div_alu(struct cbpf_asm *m, const struct div_divisor *d, uint16_t op, uint32_t part)
{
	if (d->in_mem) {
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, part);
		cbpf_asm_stmt(m, BPF_ALU | op | BPF_X, 0);
	} else {
		cbpf_asm_stmt(m, BPF_ALU | op | BPF_K, part);
	}
}

/*
 * One digit of the normalized long division (Knuth's algorithm D with
 * 16-bit digits): M[q] = M[n] / vn1 and M[rh] = its remainder, then the
 * estimate corrected at most twice while q >= 2^16 or q * vn0 > rhat *
 * 2^16 + digit, digit being the high (hi16) or low limb of M[u].
 * M[t] is scratch.
 */
static void lower_div_digit(struct cbpf_asm *m, unsigned n, unsigned u, bool hi16, unsigned q,
			    unsigned rh, unsigned t, const struct div_divisor *d)
{
	uint32_t done = cbpf_asm_label(m);
	int pass;

	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, n);
	div_alu(m, d, BPF_DIV, d->vn1);
	cbpf_asm_stmt(m, BPF_ST, q);
	div_alu(m, d, BPF_MUL, d->vn1);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, n);
	cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, rh);
	for (pass = 0; pass < 2; pass++) {
		uint32_t fix = cbpf_asm_label(m), cmp = cbpf_asm_label(m);

		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, q);
		cbpf_asm_jump(m, BPF_JMP | BPF_JGE | BPF_K, CBPF_LIMB, fix, cmp);
		cbpf_asm_place(m, cmp);
		cbpf_lower_limb(m, u, hi16);
		cbpf_asm_stmt(m, BPF_ST, t);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, rh);
		cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 16);
		cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, t);
		cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
		if (d->in_mem)
			cbpf_asm_stmt(m, BPF_ST, t);
		else
			cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, q);
		div_alu(m, d, BPF_MUL, d->vn0);
		if (d->in_mem)
			cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, t);
		cbpf_asm_jump(m, BPF_JMP | BPF_JGT | BPF_X, 0, fix, done);
		cbpf_asm_place(m, fix);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, q);
		cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_K, 1);
		cbpf_asm_stmt(m, BPF_ST, q);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, rh);
		div_alu(m, d, BPF_ADD, d->vn1);
		cbpf_asm_stmt(m, BPF_ST, rh);
		if (pass == 0) {
			uint32_t again = cbpf_asm_label(m);

			cbpf_asm_jump(m, BPF_JMP | BPF_JGE | BPF_K, CBPF_LIMB, done, again);
			cbpf_asm_place(m, again);
		}
	}
	cbpf_asm_place(m, done);
}

/* M[n] = (M[n] << 16) + limb(M[u]) - M[q] * v, mod 2^32: the partial
 * remainder after a digit. */
static void lower_div_remainder(struct cbpf_asm *m, unsigned n, unsigned u, bool hi16, unsigned q,
				const struct div_divisor *d)
{
	cbpf_lower_limb(m, u, hi16);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, n);
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 16);
	cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, n);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, q);
	div_alu(m, d, BPF_MUL, d->v);
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
static int lower_divmod_word(struct cbpf_asm *m, const struct cbpf_expr *e, uint32_t k, unsigned sp)
{
	unsigned shift = (unsigned)__builtin_clz(k);
	uint32_t v = k << shift;
	struct div_divisor d = { .v = v, .vn1 = v >> 16, .vn0 = v & (CBPF_LIMB - 1) };
	unsigned n = sp, u = sp + 1, q1 = sp + 2, q0 = sp + 3, rh = sp + 4, t = sp + 5;
	int rc;

	if (t >= BPF_MEMWORDS)
		return -ENOSPC;
	rc = cbpf_lower_word_to(m, cbpf_lower_hi_word, e->a, n);
	if (!rc)
		rc = cbpf_lower_word_to(m, cbpf_lower_lo_word, e->a, u);
	if (rc)
		return rc;
	/* n = (hi(a) % k) << shift | lo(a) >> (32 - shift); u = lo(a) << shift */
	lower_mod_by(m, n, (struct div_by){ .v = k });
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
	lower_div_digit(m, n, u, true, q1, rh, t, &d);
	lower_div_remainder(m, n, u, true, q1, &d);
	lower_div_digit(m, n, u, false, q0, rh, t, &d);
	if (e->op == BPF_MOD) {
		lower_div_remainder(m, n, u, false, q0, &d);
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
 * front end folds or makes shifts), nor 2^32 <= k < 2^63 (divided as by
 * a variable, lower_divmod64_var).
 */
static int lower_divmod64_const(struct cbpf_asm *m, const struct cbpf_expr *e, bool hi, unsigned sp)
{
	uint64_t k = e->b->imm;

	if (k >> 63)
		return lower_divmod_top(m, e, hi, k, sp);
	if (k >> 32 || k < 2)
		return -ENOTSUP;
	if (hi && e->op == BPF_MOD) {
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0); /* below k < 2^32 */
		return 0;
	}
	if (hi) {
		/* hi(a / k) = hi(a) / k */
		int rc = cbpf_lower_hi_word(m, e->a, sp);

		if (!rc)
			cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_K, (uint32_t)k);
		return rc;
	}
	if (k < CBPF_LIMB)
		return lower_divmod_small(m, e, (uint32_t)k, sp);
	return lower_divmod_word(m, e, (uint32_t)k, sp);
}

/* ---- 64-bit division by a 64-bit variable ---- */

/*
 * The slots of a 64-bit division by a variable, from sp up: the operands'
 * words, the normalization shift and divisor, the long division's words.
 * After the long division, p..p + 3 (= un..rh) and rl, rh2 (= t, vn1)
 * hold the product and remainder of the estimate's check.
 */
struct div_slots {
	unsigned nh, nl, dh, dl, s, v, un, ul, qw, rh, t, vn1, vn0;
};

#define DIV_SLOTS 13
#define DIV_WIDE_FLAG 64 /* in M[s]: the divisor has a high word */

static struct div_slots div_slots(unsigned sp)
{
	return (struct div_slots){ sp,	   sp + 1, sp + 2, sp + 3,  sp + 4,  sp + 5, sp + 6,
				   sp + 7, sp + 8, sp + 9, sp + 10, sp + 11, sp + 12 };
}

/* M[v] = M[from] shifted left until its top bit is set, M[s] = the shift,
 * found in steps of 16 (if from16), 8, 4, 2, 1; M[from] is not 0. */
static void lower_normalize(struct cbpf_asm *m, const struct div_slots *r, unsigned from,
			    bool from16)
{
	unsigned k;

	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, from);
	cbpf_asm_stmt(m, BPF_ST, r->v);
	cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
	cbpf_asm_stmt(m, BPF_ST, r->s);
	for (k = from16 ? 16 : 8; k; k /= 2) {
		uint32_t skip = cbpf_asm_label(m), shift = cbpf_asm_label(m);

		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->v);
		cbpf_asm_jump(m, BPF_JMP | BPF_JGT | BPF_K, 0xffffffffu >> k, skip, shift);
		cbpf_asm_place(m, shift);
		cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, k);
		cbpf_asm_stmt(m, BPF_ST, r->v);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->s);
		cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_K, k);
		cbpf_asm_stmt(m, BPF_ST, r->s);
		cbpf_asm_place(m, skip);
	}
}

/* M[into] |= (M[lo] >> 1) >> (31 - M[s]): the bits that a left shift by
 * M[s] (0..31) carries out of a low word, with no shift count of 32. */
static void lower_or_carry_out(struct cbpf_asm *m, const struct div_slots *r, unsigned lo,
			       unsigned into)
{
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->s);
	cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, 31);
	cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, 31);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, lo);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 1);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, into);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, into);
}

/*
 * 2^16 <= d < 2^32: (hi(n) % d, lo(n)), both shifted left until d's top
 * bit is set, for the long division (whose quotient is lo(n / d)).
 */
static void lower_setup_narrow(struct cbpf_asm *m, const struct div_slots *r)
{
	lower_normalize(m, r, r->dl, false);
	lower_mod_by(m, r->nh, (struct div_by){ .mem = true, .v = r->dl });
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, r->s);
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, r->un);
	lower_or_carry_out(m, r, r->nl, r->un);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, r->s);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->nl);
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, r->ul);
}

/*
 * d >= 2^32 (Hacker's Delight's divDU): v1 = the top 32 bits of d shifted
 * until its top bit is set, and n >> 1, whose quotient by v1 fits 32 bits,
 * for the long division. M[s] gets DIV_WIDE_FLAG.
 */
static void lower_setup_wide(struct cbpf_asm *m, const struct div_slots *r)
{
	lower_normalize(m, r, r->dh, true);
	lower_or_carry_out(m, r, r->dl, r->v);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->s);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_K, DIV_WIDE_FLAG);
	cbpf_asm_stmt(m, BPF_ST, r->s);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->nh);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 1);
	cbpf_asm_stmt(m, BPF_ST, r->un);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->nh);
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 31);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->nl);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 1);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, r->ul);
}

/*
 * (M[un], M[ul]) / M[v], M[un] < M[v] and M[v]'s top bit set: two 16-bit
 * digits; the quotient is left in M[ul]'s high half and M[qw], the
 * (shifted) remainder in M[un].
 */
static void lower_long_division(struct cbpf_asm *m, const struct div_slots *r)
{
	struct div_divisor d = { .in_mem = true, .v = r->v, .vn1 = r->vn1, .vn0 = r->vn0 };

	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->v);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_K, 16);
	cbpf_asm_stmt(m, BPF_ST, r->vn1);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->v);
	cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, CBPF_LIMB - 1);
	cbpf_asm_stmt(m, BPF_ST, r->vn0);
	lower_div_digit(m, r->un, r->ul, true, r->qw, r->rh, r->t, &d);
	lower_div_remainder(m, r->un, r->ul, true, r->qw, &d);
	/* M[ul] = q1 << 16 | its low limb, still to be divided */
	cbpf_lower_limb(m, r->ul, false);
	cbpf_asm_stmt(m, BPF_ST, r->ul);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->qw);
	cbpf_asm_stmt(m, BPF_ALU | BPF_LSH | BPF_K, 16);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, r->ul);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, r->ul);
	lower_div_digit(m, r->un, r->ul, false, r->qw, r->rh, r->t, &d);
	lower_div_remainder(m, r->un, r->ul, false, r->qw, &d);
}

/* A = the long division's quotient. */
static void lower_long_quotient(struct cbpf_asm *m, const struct div_slots *r)
{
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->ul);
	cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, ~(CBPF_LIMB - 1));
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, r->qw);
	cbpf_asm_stmt(m, BPF_ALU | BPF_OR | BPF_X, 0);
}

/* A = M[hi] - M[xh] - (M[lo] < M[xl]): the high word of a 64-bit
 * difference. */
static void lower_sub_hi(struct cbpf_asm *m, unsigned hi, unsigned lo, unsigned xh, unsigned xl)
{
	uint32_t borrow = cbpf_asm_label(m), plain = cbpf_asm_label(m), join = cbpf_asm_label(m);

	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, xl);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, lo);
	cbpf_asm_jump(m, BPF_JMP | BPF_JGE | BPF_X, 0, plain, borrow);
	cbpf_asm_place(m, borrow);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, hi);
	cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_K, 1);
	cbpf_asm_ja(m, join);
	cbpf_asm_place(m, plain);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, hi);
	cbpf_asm_place(m, join);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, xh);
	cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_X, 0);
}

/*
 * The end of each path of a 64-bit modulo: A = the word asked for (hi or
 * low), M[r->dh] = the other (for mod_other's memo). The words are in
 * M[lo] and M[hi]; a hi of MOD_HI_ZERO is 0, with the low word in A.
 */
#define MOD_HI_ZERO UINT32_MAX

static void lower_mod_words(struct cbpf_asm *m, const struct div_slots *r, bool hi,
			    uint32_t lo_slot, uint32_t hi_slot)
{
	if (hi_slot == MOD_HI_ZERO) {
		if (!hi)
			cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
		else
			cbpf_asm_stmt(m, BPF_ST, r->dh);
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
		if (!hi) {
			cbpf_asm_stmt(m, BPF_ST, r->dh);
			cbpf_asm_stmt(m, BPF_MISC | BPF_TXA, 0);
		}
		return;
	}
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, hi ? lo_slot : hi_slot);
	cbpf_asm_stmt(m, BPF_ST, r->dh);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, hi ? hi_slot : lo_slot);
}

/*
 * d >= 2^32, after the long division of n >> 1 by v1: the estimate q0 =
 * q1 >> (31 - s), less one unless 0, is the quotient or one below it; the
 * remainder n - q0 * d tells which. A = the word asked for, then goto done.
 */
static int lower_finish_wide(struct cbpf_asm *m, const struct div_slots *r, bool mod, bool hi,
			     uint32_t done)
{
	unsigned p = r->un, rl = r->t, rh = r->vn1;
	uint32_t keep = cbpf_asm_label(m), dec = cbpf_asm_label(m);
	uint32_t fix = cbpf_asm_label(m), nofix = cbpf_asm_label(m);
	uint32_t hi_eq = cbpf_asm_label(m), lo_cmp = cbpf_asm_label(m);
	int rc;

	lower_long_quotient(m, r);
	cbpf_asm_stmt(m, BPF_ST, r->t);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->s);
	cbpf_asm_stmt(m, BPF_ALU | BPF_AND | BPF_K, 31);
	cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, 31);
	cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->t);
	cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_X, 0);
	cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, 0, keep, dec);
	cbpf_asm_place(m, dec);
	cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_K, 1);
	cbpf_asm_place(m, keep);
	cbpf_asm_stmt(m, BPF_ST, p);
	/* M[p + 2] = hi(q0 * d), M[p + 3] = lo(q0 * d) */
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->dl);
	cbpf_asm_stmt(m, BPF_ST, p + 1);
	rc = cbpf_lower_mulhi32(m, p);
	if (rc)
		return rc;
	cbpf_asm_stmt(m, BPF_ST, p + 2);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, p);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, r->dh);
	cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, p + 2);
	cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, p + 2);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, p);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, r->dl);
	cbpf_asm_stmt(m, BPF_ALU | BPF_MUL | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, p + 3);
	/* the remainder (M[rh], M[rl]) = n - q0 * d */
	lower_sub_hi(m, r->nh, r->nl, p + 2, p + 3);
	cbpf_asm_stmt(m, BPF_ST, rh);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, p + 3);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r->nl);
	cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, rl);
	/* remainder >= d: q0 + 1, remainder - d */
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, rh);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, r->dh);
	cbpf_asm_jump(m, BPF_JMP | BPF_JGT | BPF_X, 0, fix, hi_eq);
	cbpf_asm_place(m, hi_eq);
	cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_X, 0, lo_cmp, nofix);
	cbpf_asm_place(m, lo_cmp);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, rl);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, r->dl);
	cbpf_asm_jump(m, BPF_JMP | BPF_JGE | BPF_X, 0, fix, nofix);
	cbpf_asm_place(m, fix);
	if (!mod) {
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, p);
		cbpf_asm_stmt(m, BPF_ALU | BPF_ADD | BPF_K, 1);
		cbpf_asm_ja(m, done);
		cbpf_asm_place(m, nofix);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, p);
		cbpf_asm_ja(m, done);
		return 0;
	}
	lower_sub_hi(m, rh, rl, r->dh, r->dl);
	cbpf_asm_stmt(m, BPF_ST, rh);
	cbpf_asm_stmt(m, BPF_LD | BPF_MEM, rl);
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, r->dl);
	cbpf_asm_stmt(m, BPF_ALU | BPF_SUB | BPF_X, 0);
	cbpf_asm_stmt(m, BPF_ST, rl);
	cbpf_asm_place(m, nofix);
	lower_mod_words(m, r, hi, rl, rh);
	cbpf_asm_ja(m, done);
	return 0;
}

/*
 * half(n / d) or half(n % d), 64-bit and unsigned, d a variable, split on
 * d's range: 0 (eBPF's rule), below 2^16 (16-bit long division), below
 * 2^32 (normalized long division of 16-bit digits), and from 2^32 (an
 * estimate from the divisor's top word, corrected once). A modulo leaves
 * its other word in M[sp + 2], remembered for the next lowering that asks
 * for it (a 64-bit compare asks for both). The high word of a quotient
 * (nonzero only when d < 2^32, and short) is lower_div64_hi's.
 */
static int lower_divmod64_var(struct cbpf_asm *m, const struct cbpf_expr *e, bool hi, unsigned sp)
{
	struct div_slots r = div_slots(sp);
	/* a constant divisor here is one of 2^32 <= d < 2^63 */
	bool mod = e->op == BPF_MOD, wide = !e->b->hi_zero;
	bool narrow_too = e->b->kind != CBPF_X_CONST;
	uint32_t narrow = cbpf_asm_label(m), zero = cbpf_asm_label(m), nonzero = cbpf_asm_label(m);
	uint32_t by_limb = cbpf_asm_label(m), by_word = cbpf_asm_label(m);
	uint32_t big = cbpf_asm_label(m), longdiv = cbpf_asm_label(m);
	uint32_t finish_wide = cbpf_asm_label(m), finish_narrow = cbpf_asm_label(m);
	uint32_t done = cbpf_asm_label(m);
	int rc;

	if (sp + DIV_SLOTS > BPF_MEMWORDS)
		return -ENOSPC;
	rc = cbpf_lower_word_to(m, cbpf_lower_hi_word, e->a, r.nh);
	if (!rc)
		rc = cbpf_lower_word_to(m, cbpf_lower_lo_word, e->a, r.nl);
	if (!rc)
		rc = cbpf_lower_word_to(m, cbpf_lower_hi_word, e->b, r.dh);
	if (!rc)
		rc = cbpf_lower_word_to(m, cbpf_lower_lo_word, e->b, r.dl);
	if (rc)
		return rc;
	if (narrow_too) {
		if (wide) {
			cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r.dh);
			cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, 0, narrow, big);
		}
		cbpf_asm_place(m, narrow);
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r.dl);
		cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, 0, zero, nonzero);
		cbpf_asm_place(m, nonzero);
		cbpf_asm_jump(m, BPF_JMP | BPF_JGE | BPF_K, CBPF_LIMB, by_word, by_limb);
		cbpf_asm_place(m, by_limb);
		lower_limb_division(m, r.nh, r.nl, r.qw, (struct div_by){ .mem = true, .v = r.dl },
				    mod);
		if (mod)
			lower_mod_words(m, &r, hi, 0, MOD_HI_ZERO);
		cbpf_asm_ja(m, done);
	}
	if (wide) {
		cbpf_asm_place(m, big);
		lower_setup_wide(m, &r);
		if (narrow_too)
			cbpf_asm_ja(m, longdiv);
	}
	if (narrow_too) {
		cbpf_asm_place(m, by_word);
		lower_setup_narrow(m, &r);
	}
	cbpf_asm_place(m, longdiv);
	lower_long_division(m, &r);
	if (wide && narrow_too) {
		cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r.s);
		cbpf_asm_jump(m, BPF_JMP | BPF_JSET | BPF_K, DIV_WIDE_FLAG, finish_wide,
			      finish_narrow);
	}
	if (wide) {
		cbpf_asm_place(m, finish_wide);
		rc = lower_finish_wide(m, &r, mod, hi, done);
		if (rc)
			return rc;
	}
	if (narrow_too) {
		cbpf_asm_place(m, finish_narrow);
		if (mod) {
			cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, r.s);
			cbpf_asm_stmt(m, BPF_LD | BPF_MEM, r.un);
			cbpf_asm_stmt(m, BPF_ALU | BPF_RSH | BPF_X, 0);
			lower_mod_words(m, &r, hi, 0, MOD_HI_ZERO);
		} else {
			lower_long_quotient(m, &r);
		}
		cbpf_asm_ja(m, done);
		cbpf_asm_place(m, zero);
		if (mod)
			lower_mod_words(m, &r, hi, r.nl, r.nh);
		else
			cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
	}
	cbpf_asm_place(m, done);
	if (mod)
		cbpf_asm_memo_add(m, e, !hi, r.dh);
	return 0;
}

/* hi(n / d), d a variable: hi(n) / d when 0 < d < 2^32, else 0. */
static int lower_div64_hi(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
{
	uint32_t narrow = cbpf_asm_label(m), zero = cbpf_asm_label(m), divide = cbpf_asm_label(m);
	uint32_t done = cbpf_asm_label(m);
	int rc;

	if (!e->b->hi_zero) {
		rc = cbpf_lower_hi_word(m, e->b, sp);
		if (rc)
			return rc;
		cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, 0, narrow, zero);
	}
	cbpf_asm_place(m, narrow);
	rc = cbpf_lower_word_to(m, cbpf_lower_lo_word, e->b, sp);
	if (rc)
		return rc;
	cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, 0, zero, divide);
	cbpf_asm_place(m, divide);
	rc = cbpf_lower_hi_word(m, e->a, sp + 1);
	if (rc)
		return rc;
	cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, sp);
	cbpf_asm_stmt(m, BPF_ALU | BPF_DIV | BPF_X, 0);
	cbpf_asm_ja(m, done);
	cbpf_asm_place(m, zero);
	cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
	cbpf_asm_place(m, done);
	return 0;
}

/* lo(n / d) or lo(n % d), n < 2^32 and d a 64-bit variable: n / d = 0
 * and n % d = n when d has a high word, else a 32-bit division. */
static int lower_divmod_narrow(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp)
{
	uint32_t wide = cbpf_asm_label(m), narrow = cbpf_asm_label(m), done = cbpf_asm_label(m);
	int rc = cbpf_lower_hi_word(m, e->b, sp);

	if (rc)
		return rc;
	cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, 0, narrow, wide);
	cbpf_asm_place(m, narrow);
	rc = lower_divmod(m, e, sp);
	if (rc)
		return rc;
	cbpf_asm_ja(m, done);
	cbpf_asm_place(m, wide);
	if (e->op == BPF_MOD)
		rc = cbpf_lower_lo_word(m, e->a, sp);
	else
		cbpf_asm_stmt(m, BPF_LD | BPF_IMM, 0);
	cbpf_asm_place(m, done);
	return rc;
}

/* ---- all of them ---- */

int cbpf_lower_divmod(struct cbpf_asm *m, const struct cbpf_expr *e, bool hi, unsigned sp)
{
	if (e->sgn)
		return -ENOTSUP;
	if (e->b->kind == CBPF_X_CONST) {
		uint64_t k = e->b->imm;

		if (!e->is32 && !e->a->hi_zero && k >> 32 && !(k >> 63))
			return lower_divmod64_var(m, e, hi, sp);
		if (!hi && (e->is32 || e->a->hi_zero))
			return lower_divmod(m, e, sp);
		return lower_divmod64_const(m, e, hi, sp);
	}
	if (!hi && (e->is32 || (e->a->hi_zero && e->b->hi_zero)))
		return lower_divmod(m, e, sp);
	if (!hi && e->a->hi_zero)
		return lower_divmod_narrow(m, e, sp);
	if (hi && e->op == BPF_DIV)
		return lower_div64_hi(m, e, sp);
	return lower_divmod64_var(m, e, hi, sp);
}
