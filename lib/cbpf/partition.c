// SPDX-License-Identifier: MIT
/*
 * Partitioning nr: where a condition on nr changes its truth inside an
 * interval of nr, so that the exploration can split a cell into pieces on
 * which the condition is constant. Candidates come from affine forms of
 * nr and from bit-level (tnum) reasoning; every piece is checked at both
 * ends, and a disagreement falls back to a residual test.
 */
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf_internal.h"
#include "vm/insn.h"

#define SPLIT_SINGLES_MAX 256	/* split a small interval into values */
#define SPLIT_BLOCKS_MAX 64	/* aligned blocks for nr & mask tests */

/* The comparison key of v: unsigned order of the compared width, with the
 * sign bit flipped for signed compares so that unsigned order is signed. */
static uint64_t cond_key(const struct cbpf_cond *c, uint64_t v)
{
	if (c->is32) {
		v = (uint32_t)v;
		return c->sgn ? v ^ 0x80000000ull : v;
	}
	return c->sgn ? v ^ (1ull << 63) : v;
}

bool cbpf_cond_holds_for(const struct cbpf_cond *c, uint64_t a, uint64_t b)
{
	bool r;

	switch (c->op) {
	case CBPF_C_EQ: r = cond_key(c, a) == cond_key(c, b); break;
	case CBPF_C_GT: r = cond_key(c, a) > cond_key(c, b); break;
	case CBPF_C_GE: r = cond_key(c, a) >= cond_key(c, b); break;
	default:
		r = (c->is32 ? (uint32_t)(a & b) : (a & b)) != 0;
		break;
	}
	return r;
}

/* The normalized condition itself (without neg). */
static bool cond_holds(const struct cbpf_cond *c, const struct seccomp_data *sd)
{
	return cbpf_cond_holds_for(c, cbpf_expr_eval(c->a, sd), cbpf_expr_eval(c->b, sd));
}

static bool cond_at_nr(const struct cbpf_cond *c, uint32_t nr)
{
	struct seccomp_data sd = { .nr = (int)nr };

	return cond_holds(c, &sd);
}

static uint64_t expr_at_nr(const struct cbpf_expr *e, uint32_t nr)
{
	struct seccomp_data sd = { .nr = (int)nr };

	return cbpf_expr_eval(e, &sd);
}

/*
 * Affine forms of nr: e = ext(trunc32(nr + c1)) + c2 (mod 2^64), ext being
 * zero or sign extension. This is what clang emits for `nr - base`, casts
 * between int and long, and compares of nr in either signedness.
 */
struct nr_affine {
	bool sext;
	uint32_t c1;
	uint64_t c2;
};

static bool nr_affine_of(const struct cbpf_expr *nr_field, const struct cbpf_expr *e,
			 struct nr_affine *f)
{
	if (e == nr_field) {
		f->sext = false;
		f->c1 = 0;
		f->c2 = 0;
		return true;
	}
	if (e->kind == CBPF_X_ALU && e->op == BPF_ADD && e->b->kind == CBPF_X_CONST) {
		if (!nr_affine_of(nr_field, e->a, f))
			return false;
		if (e->is32) {
			f->c1 += (uint32_t)f->c2 + (uint32_t)e->b->imm;
			f->c2 = 0;
			f->sext = false;
		} else {
			f->c2 += e->b->imm;
		}
		return true;
	}
	if ((e->kind == CBPF_X_TRUNC || e->kind == CBPF_X_SEXT) && e->width == 32) {
		if (!nr_affine_of(nr_field, e->a, f))
			return false;
		f->c1 += (uint32_t)f->c2;
		f->c2 = 0;
		f->sext = e->kind == CBPF_X_SEXT && !e->is32;
		return true;
	}
	return false;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* First x in [p, q] with pred true, pred monotone (false then true); q + 1
 * (as uint64) if none. */
#define BSEARCH_FIRST(p, q, pred_x, result) do {				\
		uint64_t lo_ = (p), hi_ = (uint64_t)(q) + 1;		\
		while (lo_ < hi_) {					\
			uint32_t x = (uint32_t)(lo_ + (hi_ - lo_) / 2);	\
			if (pred_x)					\
				hi_ = x;				\
			else						\
				lo_ = (uint64_t)x + 1;			\
		}							\
		(result) = lo_;						\
	} while (0)

static void add_candidate(uint32_t *cands, uint32_t *n, uint64_t x, uint32_t lo, uint32_t hi)
{
	if (x > lo && x <= hi && *n < CBPF_MAX_PIECES)
		cands[(*n)++] = (uint32_t)x;
}

/* Candidate piece starts for an affine compare: the points where the
 * compared key stops being monotone, and where it crosses k and k + 1. */
static bool affine_candidates(const struct cbpf_expr *nr_field, const struct cbpf_cond *c,
			      const struct cbpf_expr *e, uint64_t kval, uint32_t lo, uint32_t hi,
			      uint32_t *cands, uint32_t *n)
{
	struct nr_affine f;
	uint32_t mono[4], nmono = 0, i, j;
	uint64_t kk = cond_key(c, kval), ts[2];

	if (c->op == CBPF_C_SET || !nr_affine_of(nr_field, e, &f))
		return false;
	/* trunc32(nr + c1) wraps at nr = -c1 and crosses the sign bit at
	 * nr = 2^31 - c1: between those it grows by one with nr. */
	add_candidate(mono, &nmono, (uint32_t)(0u - f.c1), lo, hi);
	add_candidate(mono, &nmono, (uint32_t)(0x80000000u - f.c1), lo, hi);
	qsort(mono, nmono, sizeof(mono[0]), cmp_u32);
	ts[0] = kk;
	ts[1] = kk + 1;
	for (i = 0; i <= nmono; i++) {
		uint32_t p = i ? mono[i - 1] : lo;
		uint32_t q = i < nmono ? mono[i] - 1 : hi;
		uint64_t kp = cond_key(c, expr_at_nr(e, p)), w;
		uint32_t sub[2] = { p, q }, sq[2];
		unsigned nsub = 1, s;

		if (i < nmono)
			add_candidate(cands, n, mono[i], lo, hi);
		/* The key can still wrap once inside (the outer + c2). */
		if (cond_key(c, expr_at_nr(e, q)) < kp) {
			BSEARCH_FIRST(p, q, cond_key(c, expr_at_nr(e, x)) < kp, w);
			add_candidate(cands, n, w, lo, hi);
			sub[0] = p;
			sq[0] = (uint32_t)w - 1;
			sub[1] = (uint32_t)w;
			sq[1] = q;
			nsub = 2;
		} else {
			sq[0] = q;
		}
		for (s = 0; s < nsub; s++) {
			for (j = 0; j < 2; j++) {
				uint64_t t = ts[j], r;

				if (j == 1 && kk == (c->is32 ? 0xffffffffull : ~0ull))
					continue;
				BSEARCH_FIRST(sub[s], sq[s], cond_key(c, expr_at_nr(e, x)) >= t, r);
				add_candidate(cands, n, r, lo, hi);
			}
		}
	}
	return true;
}

/* For tests of nr & m, nr >> s, nr vs. a mask: constant on aligned blocks. */
static bool block_candidates(const struct cbpf_expr *nr_field, const struct cbpf_cond *c,
			     const struct cbpf_expr *e, uint64_t kval, uint32_t lo, uint32_t hi,
			     uint32_t *cands, uint32_t *n)
{
	unsigned t;
	uint64_t b;

	if (e == nr_field && c->op == CBPF_C_SET && (uint32_t)kval)
		t = __builtin_ctz((uint32_t)kval);
	else if (e->kind == CBPF_X_ALU && e->a == nr_field && e->b->kind == CBPF_X_CONST &&
		 e->op == BPF_AND && (uint32_t)e->b->imm)
		t = __builtin_ctz((uint32_t)e->b->imm);
	else if (e->kind == CBPF_X_ALU && e->a == nr_field && e->b->kind == CBPF_X_CONST &&
		 e->op == BPF_RSH)
		t = (unsigned)e->b->imm;
	else
		return false;
	if (t >= 32)
		return true;
	if ((hi >> t) - (lo >> t) >= SPLIT_BLOCKS_MAX)
		return false;
	for (b = ((uint64_t)(lo >> t) + 1) << t; b <= hi; b += 1ull << t)
		add_candidate(cands, n, b, lo, hi);
	return true;
}

/*
 * Known-bits (tnum) evaluation of an nr-only expression when nr ranges over
 * an aligned block: decides tests that are neither affine nor on a small
 * interval (masks, bit tests, shifts) by bisecting blocks until each one
 * is decided. Unknown operations give "all bits unknown", never a guess.
 */
struct nr_tnum {
	uint64_t v, m;		/* bit known iff !(m & bit); then it is v's */
};

static struct nr_tnum nr_tnum_unknown(bool is32)
{
	return (struct nr_tnum){ 0, is32 ? 0xffffffffull : ~0ull };
}

static struct nr_tnum nr_tnum_trunc(struct nr_tnum t, unsigned width)
{
	return (struct nr_tnum){ t.v & cbpf_width_mask(width), t.m & cbpf_width_mask(width) };
}

static struct nr_tnum nr_tnum_add(struct nr_tnum a, struct nr_tnum b)
{
	uint64_t sm = a.m + b.m, sv = a.v + b.v, chi = (sm + sv) ^ sv;
	uint64_t mu = chi | a.m | b.m;

	return (struct nr_tnum){ sv & ~mu, mu };
}

static struct nr_tnum nr_tnum_sub(struct nr_tnum a, struct nr_tnum b)
{
	uint64_t dv = a.v - b.v, chi = (dv + a.m) ^ (dv - b.m);
	uint64_t mu = chi | a.m | b.m;

	return (struct nr_tnum){ dv & ~mu, mu };
}

static struct nr_tnum nr_tnum_eval(const struct cbpf_expr *nr_field, const struct cbpf_expr *e,
				   struct nr_tnum nr)
{
	struct nr_tnum a, b, r;
	bool w32 = e->is32;
	uint64_t k64;
	unsigned k;

	switch (e->kind) {
	case CBPF_X_CONST:
		return (struct nr_tnum){ e->imm, 0 };
	case CBPF_X_FIELD:
		return e == nr_field ? nr : nr_tnum_unknown(e->width <= 32);
	case CBPF_X_TRUNC:
		return nr_tnum_trunc(nr_tnum_eval(nr_field, e->a, nr), e->width);
	case CBPF_X_NEG:
		a = nr_tnum_eval(nr_field, e->a, nr);
		r = nr_tnum_sub((struct nr_tnum){ 0, 0 }, a);
		return w32 ? nr_tnum_trunc(r, 32) : r;
	case CBPF_X_SEXT:
		a = nr_tnum_trunc(nr_tnum_eval(nr_field, e->a, nr), e->width);
		if (a.m >> (e->width - 1) & 1)
			r = (struct nr_tnum){ a.v, a.m | ~cbpf_width_mask(e->width) };
		else
			r = (struct nr_tnum){ cbpf_sign_extend(a.v, e->width), a.m };
		return w32 ? nr_tnum_trunc(r, 32) : r;
	case CBPF_X_ALU:
		break;
	case CBPF_X_TABLE:
		a = nr_tnum_eval(nr_field, e->a, nr);
		if (a.m || !cbpf_table_find((const struct cbpf_table *)(uintptr_t)e->imm, a.v, &k64))
			return nr_tnum_unknown(e->hi_zero);
		return (struct nr_tnum){ k64, 0 };
	case CBPF_X_BSWAP:
		a = nr_tnum_eval(nr_field, e->a, nr);
		if (a.m)
			return nr_tnum_unknown(e->width <= 32);
		return (struct nr_tnum){ cbpf_byte_swap(a.v, e->width), 0 };
	default:
		return nr_tnum_unknown(e->hi_zero);
	}
	a = nr_tnum_eval(nr_field, e->a, nr);
	b = nr_tnum_eval(nr_field, e->b, nr);
	if (w32) {
		a = nr_tnum_trunc(a, 32);
		b = nr_tnum_trunc(b, 32);
	}
	if (!a.m && !b.m)
		return (struct nr_tnum){ cbpf_alu_eval(e->op, w32, e->sgn, a.v, b.v), 0 };
	switch (e->op) {
	case BPF_AND:
		r.v = a.v & b.v;
		r.m = (a.v | a.m) & (b.v | b.m) & ~r.v;
		break;
	case BPF_OR:
		r.v = a.v | b.v;
		r.m = (a.m | b.m) & ~r.v;
		break;
	case BPF_XOR:
		r.m = a.m | b.m;
		r.v = (a.v ^ b.v) & ~r.m;
		break;
	case BPF_ADD:
		r = nr_tnum_add(a, b);
		break;
	case BPF_SUB:
		r = nr_tnum_sub(a, b);
		break;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		if (b.m)
			return nr_tnum_unknown(w32);
		k = (unsigned)b.v & (w32 ? 31 : 63);
		if (e->op == BPF_LSH) {
			r = (struct nr_tnum){ a.v << k, a.m << k };
		} else if (e->op == BPF_RSH) {
			r = (struct nr_tnum){ a.v >> k, a.m >> k };
		} else if (w32) {
			r.v = (uint32_t)((int32_t)(uint32_t)a.v >> k);
			r.m = (uint32_t)((int32_t)(uint32_t)a.m >> k);
		} else {
			r.v = (uint64_t)((int64_t)a.v >> k);
			r.m = (uint64_t)((int64_t)a.m >> k);
		}
		break;
	default:
		return nr_tnum_unknown(w32);
	}
	return w32 ? nr_tnum_trunc(r, 32) : r;
}

/* 1 true, 0 false, -1 unknown. */
static int nr_tnum_cond(const struct cbpf_expr *nr_field, const struct cbpf_cond *c,
			struct nr_tnum nr)
{
	struct nr_tnum a = nr_tnum_eval(nr_field, c->a, nr), b = nr_tnum_eval(nr_field, c->b, nr);
	uint64_t sb = c->is32 ? 0x80000000ull : 1ull << 63;

	if (c->is32) {
		a = nr_tnum_trunc(a, 32);
		b = nr_tnum_trunc(b, 32);
	}
	if (c->op == CBPF_C_SET) {
		uint64_t v = a.v & b.v, m = (a.v | a.m) & (b.v | b.m) & ~v;

		return v ? 1 : (v | m) == 0 ? 0 : -1;
	}
	if (c->sgn) {
		a.v ^= sb & ~a.m;
		b.v ^= sb & ~b.m;
		/* an unknown sign bit: both halves of the order possible */
		if ((a.m | b.m) & sb)
			return c->op == CBPF_C_EQ && ((a.v ^ b.v) & ~(a.m | b.m)) ? 0 : -1;
	}
	switch (c->op) {
	case CBPF_C_EQ:
		if ((a.v ^ b.v) & ~(a.m | b.m))
			return 0;
		return !a.m && !b.m ? 1 : -1;
	case CBPF_C_GT:
		return a.v > (b.v | b.m) ? 1 : (a.v | a.m) <= b.v ? 0 : -1;
	default:
		return a.v >= (b.v | b.m) ? 1 : (a.v | a.m) < b.v ? 0 : -1;
	}
}

#define NR_TNUM_EVALS 2048

static bool split_add_piece(struct cbpf_nr_split *sp, uint32_t start, bool truth)
{
	if (sp->n && sp->truth[sp->n - 1] == truth)
		return true;
	if (sp->n == CBPF_MAX_PIECES)
		return false;
	sp->start[sp->n] = start;
	sp->truth[sp->n] = truth;
	sp->n++;
	return true;
}

static bool nr_tnum_block(const struct cbpf_expr *nr_field, const struct cbpf_cond *c,
			  uint64_t base, unsigned j, unsigned *evals, struct cbpf_nr_split *sp)
{
	int r;

	if (++*evals > NR_TNUM_EVALS)
		return false;
	r = nr_tnum_cond(nr_field, c, (struct nr_tnum){ base, (1ull << j) - 1 });
	if (r < 0 && j == 0)
		r = cond_at_nr(c, (uint32_t)base);
	if (r >= 0)
		return split_add_piece(sp, (uint32_t)base, r);
	return nr_tnum_block(nr_field, c, base, j - 1, evals, sp) &&
	       nr_tnum_block(nr_field, c, base + (1ull << (j - 1)), j - 1, evals, sp);
}

static bool nr_tnum_pieces(const struct cbpf_expr *nr_field, const struct cbpf_cond *c, uint32_t lo,
			   uint32_t hi, struct cbpf_nr_split *sp)
{
	uint64_t x = lo;
	unsigned evals = 0;

	sp->arch = false;
	sp->n = 0;
	while (x <= hi) {
		unsigned j = 0;

		while (j < 32 && !(x & (1ull << j)) && x + (2ull << j) - 1 <= hi)
			j++;
		if (!nr_tnum_block(nr_field, c, x, j, &evals, sp))
			return false;
		x += 1ull << j;
	}
	return true;
}

/*
 * Split [lo, hi] into pieces on which c (depending on nr only) is constant.
 * Returns false when the shape is not understood and the interval is too
 * large to split into single values. Every piece is checked at both ends.
 */
bool cbpf_split_nr(const struct cbpf_expr *nr_field, const struct cbpf_cond *c, uint32_t lo,
		   uint32_t hi, struct cbpf_nr_split *sp)
{
	uint32_t cands[CBPF_MAX_PIECES], n = 0, i;
	const struct cbpf_expr *e = NULL;
	uint64_t kval = 0;
	bool ok = false;

	if (c->b->kind == CBPF_X_CONST) {
		e = c->a;
		kval = c->b->imm;
	} else if (c->a->kind == CBPF_X_CONST) {
		e = c->b;
		kval = c->a->imm;
	}
	if (e) {
		ok = affine_candidates(nr_field, c, e, kval, lo, hi, cands, &n);
		if (!ok) {
			n = 0;
			ok = block_candidates(nr_field, c, e, kval, lo, hi, cands, &n);
		}
		if (ok && n >= CBPF_MAX_PIECES)
			ok = false;
	}
	if (!ok && (uint64_t)hi - lo >= SPLIT_SINGLES_MAX) {
		uint32_t i2;

		if (!nr_tnum_pieces(nr_field, c, lo, hi, sp))
			return false;
		/* Same safety net as below: both ends of every piece. */
		for (i2 = 0; i2 < sp->n; i2++) {
			uint32_t q = i2 + 1 < sp->n ? sp->start[i2 + 1] - 1 : hi;

			if (cond_at_nr(c, sp->start[i2]) != sp->truth[i2] ||
			    cond_at_nr(c, q) != sp->truth[i2])
				return false;
		}
		return true;
	}
	if (!ok) {
		uint64_t x;

		n = 0;
		for (x = (uint64_t)lo + 1; x <= hi; x++)
			cands[n++] = (uint32_t)x;
	}
	qsort(cands, n, sizeof(cands[0]), cmp_u32);
	sp->arch = false;
	sp->n = 0;
	for (i = 0; i <= n; i++) {
		uint32_t p = i ? cands[i - 1] : lo;
		uint32_t q = i < n ? cands[i] - 1 : hi;
		bool tp;

		if (i && i < n && cands[i] == cands[i - 1])
			continue;
		if (i == n && n && cands[n - 1] > hi)
			continue;
		tp = cond_at_nr(c, p);
		/* A piece whose ends disagree means the analysis is wrong:
		 * fall back to a residual test rather than trust it. */
		if (cond_at_nr(c, q) != tp)
			return false;
		if (sp->n && sp->truth[sp->n - 1] == tp)
			continue;
		sp->start[sp->n] = p;
		sp->truth[sp->n] = tp;
		sp->n++;
	}
	return true;
}
