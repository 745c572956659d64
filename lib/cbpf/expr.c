// SPDX-License-Identifier: MIT
/*
 * Symbolic expressions over seccomp_data and residual tree nodes, as the
 * front end builds them: hash-consed in a cbpf_store (equal ones are one
 * pointer), constants folded, and evaluated exactly as eBPF defines them.
 */
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf_internal.h"
#include "vm/alu.h"
#include "vm/insn.h"

static uint32_t expr_hash(const struct cbpf_expr *t)
{
	uint64_t h = t->kind | (uint64_t)t->op << 8 | (uint64_t)t->width << 16 |
		     (uint64_t)t->is32 << 24 | (uint64_t)t->sgn << 25;

	h = hash_mix(h, t->imm);
	h = hash_mix(h, (uintptr_t)t->a);
	return hash_mix(h, (uintptr_t)t->b);
}

static bool expr_same(const struct cbpf_expr *x, const struct cbpf_expr *t)
{
	return x->kind == t->kind && x->op == t->op && x->width == t->width &&
	       x->is32 == t->is32 && x->sgn == t->sgn && x->imm == t->imm &&
	       x->a == t->a && x->b == t->b;
}

static bool expr_hi_zero(const struct cbpf_expr *t)
{
	const struct cbpf_expr *a = t->a, *b = t->b;

	switch (t->kind) {
	case CBPF_X_CONST:
		return t->imm >> 32 == 0;
	case CBPF_X_FIELD:
	case CBPF_X_TRUNC:
	case CBPF_X_BSWAP:
		return t->width <= 32;
	case CBPF_X_SEXT:
		return t->is32;
	case CBPF_X_NEG:
		return t->is32;
	case CBPF_X_TABLE:
		return ((const struct cbpf_table *)(uintptr_t)t->imm)->hi_zero;
	case CBPF_X_ALU:
		if (t->is32)
			return true;
		switch (t->op) {
		case BPF_AND:
			return a->hi_zero || b->hi_zero;
		case BPF_OR:
		case BPF_XOR:
			return a->hi_zero && b->hi_zero;
		case BPF_RSH:
			return a->hi_zero ||
			       (b->kind == CBPF_X_CONST && (b->imm & 63) >= 32);
		case BPF_DIV:
			/* by 2^32 or more: the quotient is below 2^32 */
			return !t->sgn && (a->hi_zero || (b->kind == CBPF_X_CONST && b->imm >> 32));
		case BPF_MOD:
			/* by a constant below 2^32 (not 0: folded) the remainder is too */
			return !t->sgn && (a->hi_zero || (b->kind == CBPF_X_CONST && b->imm &&
							  b->imm >> 32 == 0));
		}
		return false;
	}
	return false;
}

/* The canonical node equal to t (copied on first sight). NULL when out of
 * memory (s->oom), too large (s->too_big) or past the work budget
 * (s->out_of_work). */
const struct cbpf_expr *cbpf_expr_intern(struct cbpf_store *s, const struct cbpf_expr *t)
{
	struct hashtab_entry *he;
	struct cbpf_expr *x;
	uint32_t h = expr_hash(t);
	uint64_t size = 1;

	if (!cbpf_store_work(s, 1))
		return NULL;
	for (he = hashtab_chain(&s->exprs, h); he; he = he->next) {
		x = (struct cbpf_expr *)he;
		if (he->hash == h && expr_same(x, t))
			return x;
	}
	if (t->a)
		size += t->a->size;
	if (t->b)
		size += t->b->size;
	if (size > CBPF_MAX_EXPR_SIZE) {
		s->too_big = true;
		return NULL;
	}
	x = arena_alloc(&s->arena, sizeof(*x));
	if (!x) {
		s->oom = true;
		return NULL;
	}
	*x = *t;
	x->h.hash = h;
	x->size = (uint32_t)size;
	x->deps = (t->a ? t->a->deps : 0) | (t->b ? t->b->deps : 0);
	if (t->kind == CBPF_X_FIELD)
		x->deps = t->imm < 4 ? CBPF_DEP_NR : t->imm < 8 ? CBPF_DEP_ARCH : CBPF_DEP_DATA;
	x->hi_zero = expr_hi_zero(x);
	if (hashtab_insert(&s->exprs, &x->h)) {
		s->oom = true;
		return NULL;
	}
	return x;
}

const struct cbpf_expr *cbpf_expr_const(struct cbpf_store *s, uint64_t v)
{
	struct cbpf_expr t = { .kind = CBPF_X_CONST, .imm = v };

	return cbpf_expr_intern(s, &t);
}

uint64_t cbpf_width_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

uint64_t cbpf_sign_extend(uint64_t v, unsigned width)
{
	uint64_t sign = 1ull << (width - 1);

	v &= cbpf_width_mask(width);
	return (v ^ sign) - sign;
}

uint64_t cbpf_byte_swap(uint64_t v, unsigned width)
{
	switch (width) {
	case 16: return __builtin_bswap16((uint16_t)v);
	case 32: return __builtin_bswap32((uint32_t)v);
	}
	return __builtin_bswap64(v);
}

/* d op s (a two-operand ALU op) exactly as the interpreter computes it:
 * both call vm/alu.h. sgn picks signed div and mod (the ISA's off = 1). */
uint64_t cbpf_alu_eval(unsigned op, bool is32, bool sgn, uint64_t d, uint64_t s)
{
	uint64_t v = 0;

	bpf_alu_eval((uint8_t)((is32 ? BPF_ALU : BPF_ALU64) | op | BPF_X), sgn, 0, d, s, &v);
	return v;
}

uint64_t cbpf_expr_eval(const struct cbpf_expr *e, const struct seccomp_data *sd)
{
	uint64_t v = 0;

	switch (e->kind) {
	case CBPF_X_CONST:
		return e->imm;
	case CBPF_X_FIELD:
		memcpy(&v, (const uint8_t *)sd + e->imm, e->width / 8);
		return v;
	case CBPF_X_ALU:
		return cbpf_alu_eval(e->op, e->is32, e->sgn, cbpf_expr_eval(e->a, sd),
				   cbpf_expr_eval(e->b, sd));
	case CBPF_X_NEG:
		v = 0 - cbpf_expr_eval(e->a, sd);
		return e->is32 ? (uint32_t)v : v;
	case CBPF_X_TRUNC:
		return cbpf_expr_eval(e->a, sd) & cbpf_width_mask(e->width);
	case CBPF_X_SEXT:
		v = cbpf_sign_extend(cbpf_expr_eval(e->a, sd), e->width);
		return e->is32 ? (uint32_t)v : v;
	case CBPF_X_BSWAP:
		return cbpf_byte_swap(cbpf_expr_eval(e->a, sd), e->width);
	case CBPF_X_TABLE:
		cbpf_table_find((const struct cbpf_table *)(uintptr_t)e->imm,
				cbpf_expr_eval(e->a, sd), &v);
		return v;
	}
	return 0;
}

bool cbpf_table_find(const struct cbpf_table *t, uint64_t v, uint64_t *val)
{
	uint32_t lo = 0, hi = t->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->keys[mid] == v) {
			*val = t->vals[mid];
			return true;
		}
		if (t->keys[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	*val = 0;
	return false;
}

const struct cbpf_expr *cbpf_expr_table(struct cbpf_store *s, const struct cbpf_table *t,
					const struct cbpf_expr *key)
{
	struct cbpf_expr x = { .kind = CBPF_X_TABLE, .imm = (uintptr_t)t, .a = key };
	uint64_t v;

	if (!key)
		return NULL;
	if (key->kind == CBPF_X_CONST) {
		if (!cbpf_table_find(t, key->imm, &v)) {
			s->too_big = true;
			return NULL;
		}
		return cbpf_expr_const(s, v);
	}
	return cbpf_expr_intern(s, &x);
}

const struct cbpf_expr *cbpf_expr_trunc(struct cbpf_store *s, const struct cbpf_expr *a,
					unsigned width)
{
	struct cbpf_expr t = { .kind = CBPF_X_TRUNC, .width = width };

	if (!a)
		return NULL;
	if (width >= 64 || (width == 32 && a->hi_zero))
		return a;
	if (a->kind == CBPF_X_CONST)
		return cbpf_expr_const(s, a->imm & cbpf_width_mask(width));
	if ((a->kind == CBPF_X_TRUNC || a->kind == CBPF_X_FIELD) && a->width <= width)
		return a;
	if (a->kind == CBPF_X_TRUNC)
		a = a->a;
	t.a = a;
	return cbpf_expr_intern(s, &t);
}

const struct cbpf_expr *cbpf_expr_unary(struct cbpf_store *s, unsigned kind, bool is32,
					unsigned width, const struct cbpf_expr *a)
{
	struct cbpf_expr t = { .kind = kind, .is32 = is32, .width = width, .a = a };

	if (!a)
		return NULL;
	if (a->kind == CBPF_X_CONST) {
		struct seccomp_data sd = { 0 };

		t.a = a;
		return cbpf_expr_const(s, cbpf_expr_eval(&t, &sd));
	}
	if (kind == CBPF_X_SEXT && width == 64)
		return is32 ? cbpf_expr_trunc(s, a, 32) : a;
	return cbpf_expr_intern(s, &t);
}

static bool expr_is_value(const struct cbpf_expr *e, uint64_t v)
{
	return e->kind == CBPF_X_CONST && e->imm == v;
}

static bool op_commutes(unsigned op)
{
	return op == BPF_ADD || op == BPF_MUL || op == BPF_AND || op == BPF_OR || op == BPF_XOR;
}

/* x s>> (width - 1): 0 when x is non-negative, all ones when negative. */
static const struct cbpf_expr *expr_sign(struct cbpf_store *s, bool is32, const struct cbpf_expr *x)
{
	if (x && !is32 && x->hi_zero)
		return cbpf_expr_const(s, 0);
	return cbpf_expr_alu(s, BPF_ARSH, is32, false, x, cbpf_expr_const(s, is32 ? 31 : 63));
}

/* (x ^ sign) - sign: |x| for the sign of x (as an unsigned value, so that
 * |INT_MIN| = 2^(width - 1)), and -x or x again for a sign of all ones or 0. */
static const struct cbpf_expr *expr_flip(struct cbpf_store *s, bool is32, const struct cbpf_expr *x,
					 const struct cbpf_expr *sign)
{
	return cbpf_expr_alu(s, BPF_SUB, is32, false,
			     cbpf_expr_alu(s, BPF_XOR, is32, false, x, sign), sign);
}

/*
 * Signed division and modulo (cpu v4, off = 1) as the unsigned ones of the
 * magnitudes, the sign put back: a s/ b = flip(|a| / |b|, sa ^ sb) and
 * a s% b = flip(|a| % |b|, sa), sa and sb the signs of a and b. eBPF's
 * edge cases come out of it: b = 0 gives 0 and a (x / 0 = 0, x % 0 = x),
 * INT_MIN / -1 gives |INT_MIN| = INT_MIN, INT_MIN % -1 gives 0. The
 * unsigned operations lower word by word; divisors 0, 1 and -1 are folded.
 */
static const struct cbpf_expr *expr_signed_divmod(struct cbpf_store *s, unsigned op, bool is32,
						  const struct cbpf_expr *a,
						  const struct cbpf_expr *b)
{
	uint64_t m = is32 ? 0xffffffffull : ~0ull;
	const struct cbpf_expr *sa, *sb, *q;

	if (b->kind == CBPF_X_CONST) {
		uint64_t k = b->imm & m;

		if ((k == 0 && op == BPF_MOD) || (k == 1 && op == BPF_DIV))
			return is32 ? cbpf_expr_trunc(s, a, 32) : a;
		if (k == 0 || k == 1 || k == m)
			return op == BPF_DIV && k == m ? cbpf_expr_unary(s, CBPF_X_NEG, is32, 0, a)
						       : cbpf_expr_const(s, 0);
	}
	sa = expr_sign(s, is32, a);
	sb = expr_sign(s, is32, b);
	q = cbpf_expr_alu(s, op, is32, false, expr_flip(s, is32, a, sa), expr_flip(s, is32, b, sb));
	return expr_flip(s, is32, q,
			 op == BPF_MOD ? sa : cbpf_expr_alu(s, BPF_XOR, is32, false, sa, sb));
}

/* Whether q is x / y, of the same width: unsigned, or (*sgn) the signed
 * quotient as expr_signed_divmod builds it, (flip(|x| / |y|, ...)), found
 * by building that and comparing pointers. */
static bool expr_quotient_of(struct cbpf_store *s, const struct cbpf_expr *x,
			     const struct cbpf_expr *q, const struct cbpf_expr *y, bool is32,
			     bool *sgn)
{
	const struct cbpf_expr *u = q->a ? q->a->a : NULL;
	bool too_big = s->too_big;

	*sgn = false;
	if (q->kind != CBPF_X_ALU || q->is32 != is32)
		return false;
	if (q->op == BPF_DIV)
		return q->a == x && q->b == y;
	/* (u ^ sign) - sign with u an unsigned division */
	if (q->op != BPF_SUB || q->a->kind != CBPF_X_ALU || q->a->op != BPF_XOR ||
	    u->kind != CBPF_X_ALU || u->op != BPF_DIV)
		return false;
	*sgn = true;
	q = q == expr_signed_divmod(s, BPF_DIV, is32, x, y) ? q : NULL;
	s->too_big = too_big; /* a failed guess is no reason to give up */
	return q != NULL;
}

/* op(a, b) with constant folding and the few rewrites the partitioning
 * relies on (constants on the right, chains of constant adds folded, the
 * shift pairs clang uses for sign and zero extension recognized, and
 * clang's x - x / y * y for a modulo). Signed division and modulo become
 * unsigned ones (expr_signed_divmod). */
const struct cbpf_expr *cbpf_expr_alu(struct cbpf_store *s, unsigned op, bool is32, bool sgn,
				      const struct cbpf_expr *a, const struct cbpf_expr *b)
{
	struct cbpf_expr t = { .kind = CBPF_X_ALU, .op = op, .is32 = is32 };
	uint64_t k, m = is32 ? 0xffffffffull : ~0ull;

	if (!a || !b)
		return NULL;
	if (op != BPF_DIV && op != BPF_MOD)
		sgn = false;
	t.sgn = sgn;
	if (a->kind == CBPF_X_CONST && b->kind == CBPF_X_CONST)
		return cbpf_expr_const(s, cbpf_alu_eval(op, is32, sgn, a->imm, b->imm));
	if (sgn)
		return expr_signed_divmod(s, op, is32, a, b);
	if (op_commutes(op) && a->kind == CBPF_X_CONST) {
		const struct cbpf_expr *s = a;

		a = b;
		b = s;
	}
	if (b->kind == CBPF_X_CONST) {
		k = b->imm & m;
		if (op == BPF_SUB) {
			op = BPF_ADD;
			k = (0 - k) & m;
			t.op = op;
		}
		if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH)
			k &= is32 ? 31 : 63;
		if ((k == 0 && (op == BPF_ADD || op == BPF_OR || op == BPF_XOR || op == BPF_LSH ||
				op == BPF_RSH || op == BPF_ARSH)) ||
		    (k == 1 && (op == BPF_MUL || (op == BPF_DIV && !sgn))) ||
		    (k == m && op == BPF_AND))
			return is32 ? cbpf_expr_trunc(s, a, 32) : a;
		if (k == 0 && (op == BPF_AND || op == BPF_MUL || op == BPF_DIV))
			return cbpf_expr_const(s, 0);
		if (k == 0 && op == BPF_MOD)
			return is32 ? cbpf_expr_trunc(s, a, 32) : a;
		/* a < 2^32 <= k: a / k = 0, a % k = a */
		if (!sgn && !is32 && a->hi_zero && k >> 32 && (op == BPF_DIV || op == BPF_MOD))
			return op == BPF_DIV ? cbpf_expr_const(s, 0) : a;
		/* Unsigned division, modulo and multiplication by 2^n are
		 * shifts and masks, which lower word by word. */
		if (!sgn && k && !(k & (k - 1)) && (op == BPF_DIV || op == BPF_MUL)) {
			b = cbpf_expr_const(s, (uint64_t)__builtin_ctzll(k));
			return b ? cbpf_expr_alu(s, op == BPF_DIV ? BPF_RSH : BPF_LSH, is32, false,
						 a, b)
				 : NULL;
		}
		if (!sgn && k && !(k & (k - 1)) && op == BPF_MOD)
			return cbpf_expr_alu(s, BPF_AND, is32, false, a, cbpf_expr_const(s, k - 1));
		if (op == BPF_AND && !is32 && k == 0xffffffffull)
			return cbpf_expr_trunc(s, a, 32);
		if (op == BPF_AND && a->hi_zero && (k & 0xffffffffull) == 0xffffffffull)
			return a;
		/* (x >> k) & m where m keeps only bits below 32 - k: only the
		 * low word of x matters, and a 32-bit shift of it is cheaper. */
		if (op == BPF_AND && !is32 && a->kind == CBPF_X_ALU && a->op == BPF_RSH &&
		    !a->is32 && a->b->kind == CBPF_X_CONST && a->b->imm < 32 &&
		    (k << a->b->imm) >> 32 == 0)
			return cbpf_expr_alu(s, BPF_AND, false, false,
					     cbpf_expr_alu(s, BPF_RSH, true, false,
							   cbpf_expr_trunc(s, a->a, 32), a->b),
					     cbpf_expr_const(s, k));
		/* (x + c1) + c2 */
		if (op == BPF_ADD && a->kind == CBPF_X_ALU && a->op == BPF_ADD &&
		    a->is32 == is32 && a->b->kind == CBPF_X_CONST)
			return cbpf_expr_alu(s, BPF_ADD, is32, false, a->a,
					     cbpf_expr_const(s, (a->b->imm + k) & m));
		/* (x << 32) s>> 32 and (x << 32) >> 32 */
		if (!is32 && k == 32 && (op == BPF_ARSH || op == BPF_RSH) &&
		    a->kind == CBPF_X_ALU && !a->is32 && a->op == BPF_LSH &&
		    expr_is_value(a->b, 32)) {
			if (op == BPF_RSH)
				return cbpf_expr_trunc(s, a->a, 32);
			return cbpf_expr_unary(s, CBPF_X_SEXT, false, 32, a->a);
		}
		b = cbpf_expr_const(s, k);
		if (!b)
			return NULL;
	}
	/* x - (x / y) * y, which clang writes for x % y: the modulo itself */
	if (op == BPF_SUB && b->kind == CBPF_X_ALU && b->op == BPF_MUL && b->is32 == is32) {
		bool q_sgn;

		if (expr_quotient_of(s, a, b->a, b->b, is32, &q_sgn))
			return cbpf_expr_alu(s, BPF_MOD, is32, q_sgn, a, b->b);
		if (expr_quotient_of(s, a, b->b, b->a, is32, &q_sgn))
			return cbpf_expr_alu(s, BPF_MOD, is32, q_sgn, a, b->a);
	}
	t.a = a;
	t.b = b;
	return cbpf_expr_intern(s, &t);
}

/* ---- residual nodes ---- */

static uint32_t rnode_hash(const struct cbpf_rnode *t)
{
	uint64_t h = t->kind | (uint64_t)t->op << 8 | (uint64_t)t->sgn << 16 |
		     (uint64_t)t->is32 << 17;

	h = hash_mix(h, (uintptr_t)t->a);
	h = hash_mix(h, (uintptr_t)t->b);
	h = hash_mix(h, (uintptr_t)t->ret);
	h = hash_mix(h, (uintptr_t)t->t);
	return hash_mix(h, (uintptr_t)t->f);
}

struct cbpf_rnode *cbpf_rnode_intern(struct cbpf_store *s, const struct cbpf_rnode *t)
{
	struct hashtab_entry *he;
	struct cbpf_rnode *x;
	uint32_t h = rnode_hash(t);

	for (he = hashtab_chain(&s->rnodes, h); he; he = he->next) {
		x = (struct cbpf_rnode *)he;
		if (he->hash == h && x->kind == t->kind && x->op == t->op && x->sgn == t->sgn &&
		    x->is32 == t->is32 && x->a == t->a && x->b == t->b && x->ret == t->ret &&
		    x->t == t->t && x->f == t->f)
			return x;
	}
	x = arena_alloc(&s->arena, sizeof(*x));
	if (!x) {
		s->oom = true;
		return NULL;
	}
	*x = *t;
	x->h.hash = h;
	if (hashtab_insert(&s->rnodes, &x->h)) {
		s->oom = true;
		return NULL;
	}
	return x;
}

struct cbpf_rnode *cbpf_rnode_ret(struct cbpf_store *s, const struct cbpf_expr *v)
{
	struct cbpf_rnode t = { .kind = CBPF_R_RET, .ret = v };

	if (!v)
		return NULL;
	return cbpf_rnode_intern(s, &t);
}

void cbpf_store_free(struct cbpf_store *s)
{
	hashtab_free(&s->exprs);
	hashtab_free(&s->rnodes);
	hashtab_free(&s->costs);
	arena_free(&s->arena);
}
