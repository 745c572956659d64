// SPDX-License-Identifier: MIT
/*
 * The eBPF-to-cBPF compiler, front end (docs/design.md §1): explores the relocated
 * program with nr and arch abstract and the rest of seccomp_data symbolic,
 * partitions the (arch, nr) domain into cells, and gives each cell an
 * outcome: a constant, a residual decision tree on args/ip, or USER_NOTIF.
 * cbpf_emit.c lays the result out as a seccomp filter.
 *
 * Invariant: every outcome is exact for every seccomp_data in its cell, or
 * USER_NOTIF (the supervisor then runs the real program). Anything the
 * exploration cannot follow exactly ends in USER_NOTIF, never in a guess.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf.h"
#include "vm/alu.h"
#include "vm/insn.h"

#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80	/* cpu v4 sign-extending load; older uapi headers lack it */
#endif

/* Budgets: beyond them a cell (or the rest of the domain) is supervised. */
#define CX_MAX_EXPR_SIZE 4096		/* nodes in one expression tree */
#define CX_CELL_STEPS (1u << 20)	/* instructions explored per cell */
#define CX_TOTAL_STEPS (1u << 25)	/* instructions explored in all */
#define CX_CELL_BRANCHES 4096		/* residual branches per cell */
#define CX_MAX_DEPTH 512		/* nested residual branches on a path */
#define CX_MAX_CELLS 20000		/* cells explored */
#define CX_SINGLES_MAX 256		/* split a small interval into values */
#define CX_BLOCKS_MAX 64		/* aligned blocks for nr & mask tests */
#define CX_MAX_PIECES 300
#define CX_MAX_SLOTS 96			/* tracked stack entries per state */
#define CX_MAX_FRAMES 8
#define CX_STACK_SIZE 512

/* Results of the exploration, besides negative errnos (program rejected). */
enum {
	CX_CONT = 0,	/* keep going */
	CX_DONE,	/* *out is the path's outcome */
	CX_NOTIF,	/* the path needs the supervisor */
	CX_SPLIT,	/* the cell must be split first (cc->split) */
	CX_GIVEUP,	/* budget exceeded: the whole cell is supervised */
};

/* ---- memory: everything the compiler builds lives in one arena ---- */

struct cx_chunk {
	struct cx_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

static void *cx_alloc(struct cx_chunk **head, size_t size)
{
	struct cx_chunk *c = *head;
	void *p;

	size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!c || c->cap - c->used < size) {
		size_t cap = size > 65536 ? size : 65536;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = *head;
		c->used = 0;
		c->cap = cap;
		*head = c;
	}
	p = (char *)c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

static void cx_free_chunks(struct cx_chunk *c)
{
	while (c) {
		struct cx_chunk *n = c->next;

		free(c);
		c = n;
	}
}

/* ---- cells of the (arch, nr) domain ---- */

struct cx_cell {
	bool arch_fixed;
	uint32_t arch;
	uint32_t nexcl;		/* !arch_fixed: arch is none of excl[] */
	uint32_t *excl;
	uint32_t lo, hi;	/* nr in [lo, hi] (unsigned) */
};

struct cx_leaf {
	struct cx_cell cell;
	struct cbpf_rnode *out;
};

/* ---- abstract values and states ---- */

enum cx_val_kind {
	CV_UNINIT,
	CV_SCALAR,	/* e */
	CV_CTX,		/* pointer to seccomp_data + off */
	CV_STACK,	/* frame's r10 + off */
	CV_RODATA,	/* .rodata map + off: frozen, loads fold */
	CV_STATE,	/* a map, global data or function: needs the supervisor */
};

struct cx_val {
	uint8_t kind;
	uint8_t frame;
	uint32_t map;
	int64_t off;
	const struct cbpf_expr *e;
};

/* A stack entry: the low size bytes of v (little endian) at frame:off. */
struct cx_slot {
	uint8_t frame;
	uint8_t size;
	int16_t off;
	struct cx_val v;
};

struct cx_state {
	uint32_t pc;
	uint32_t depth;
	struct cx_val r[11];
	struct {
		uint32_t ret_pc;
		struct cx_val saved[4];	/* r6..r9 */
	} frames[CX_MAX_FRAMES];
	uint32_t nslots;
	struct cx_slot slots[CX_MAX_SLOTS];
};

/* A normalized condition: the eBPF condition is (neg ? !c : c). */
struct cx_cond {
	uint8_t op;
	bool sgn, is32, neg;
	const struct cbpf_expr *a, *b;
};

struct cx_split {
	bool arch;		/* split off arch == arch_value */
	uint32_t arch_value;
	uint32_t n;		/* nr pieces: [start[i], start[i + 1] - 1] */
	uint32_t start[CX_MAX_PIECES];
	bool truth[CX_MAX_PIECES];
};

struct cbpf_cc {
	const struct object *obj;
	const struct object_prog *prog;
	struct secbpf_err *err;
	struct cx_chunk *arena;

	struct cbpf_expr **xtab;
	size_t xtab_size, xcount;
	struct cbpf_rnode **rtab;
	size_t rtab_size, rcount;

	const struct cbpf_expr *nr_field, *arch_field;
	struct cbpf_rnode *notif;
	bool oom;
	bool too_big;		/* an expression exceeded CX_MAX_EXPR_SIZE */

	struct cx_cell cell;	/* being explored */
	uint64_t steps, cell_steps;
	uint32_t cell_branches;
	struct cx_split split;

	struct cx_leaf *leaves;
	uint32_t nleaves, leaves_cap;
};

/* ---- expressions ---- */

static uint32_t cx_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return (uint32_t)(h ^ (h >> 32));
}

static uint32_t cx_expr_hash(const struct cbpf_expr *t)
{
	uint64_t h = t->kind | (uint64_t)t->op << 8 | (uint64_t)t->width << 16 |
		     (uint64_t)t->is32 << 24 | (uint64_t)t->sgn << 25;

	h = cx_mix(h, t->imm);
	h = cx_mix(h, (uintptr_t)t->a);
	return cx_mix(h, (uintptr_t)t->b);
}

static bool cx_expr_same(const struct cbpf_expr *x, const struct cbpf_expr *t)
{
	return x->kind == t->kind && x->op == t->op && x->width == t->width &&
	       x->is32 == t->is32 && x->sgn == t->sgn && x->imm == t->imm &&
	       x->a == t->a && x->b == t->b;
}

static bool cx_grow(struct cbpf_cc *cc, void ***tab, size_t *size, size_t count, bool rnode)
{
	size_t nsize, i;
	void **ntab;

	if (count * 2 < *size)
		return true;
	nsize = *size ? *size * 2 : 1024;
	ntab = calloc(nsize, sizeof(*ntab));
	if (!ntab)
		return false;
	for (i = 0; i < *size; i++) {
		void *n = (*tab)[i];

		while (n) {
			void *next;
			uint32_t h;

			if (rnode) {
				struct cbpf_rnode *r = n;

				next = r->hnext;
				h = r->hash;
				r->hnext = (struct cbpf_rnode *)ntab[h & (nsize - 1)];
			} else {
				struct cbpf_expr *x = n;

				next = x->hnext;
				h = x->hash;
				x->hnext = (struct cbpf_expr *)ntab[h & (nsize - 1)];
			}
			ntab[h & (nsize - 1)] = n;
			n = next;
		}
	}
	free(*tab);
	*tab = ntab;
	*size = nsize;
	return true;
}

static bool cx_expr_hi_zero(const struct cbpf_expr *t)
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
		case BPF_MOD:
			return !t->sgn && a->hi_zero;
		}
		return false;
	}
	return false;
}

/* The canonical node equal to t (copied on first sight). NULL when out of
 * memory (cc->oom) or too large (cc->too_big). */
static const struct cbpf_expr *cx_intern(struct cbpf_cc *cc, const struct cbpf_expr *t)
{
	struct cbpf_expr *x;
	uint32_t h = cx_expr_hash(t);
	uint64_t size = 1;

	for (x = cc->xtab ? cc->xtab[h & (cc->xtab_size - 1)] : NULL; x; x = x->hnext)
		if (x->hash == h && cx_expr_same(x, t))
			return x;
	if (t->a)
		size += t->a->size;
	if (t->b)
		size += t->b->size;
	if (size > CX_MAX_EXPR_SIZE) {
		cc->too_big = true;
		return NULL;
	}
	if (!cx_grow(cc, (void ***)&cc->xtab, &cc->xtab_size, cc->xcount, false)) {
		cc->oom = true;
		return NULL;
	}
	x = cx_alloc(&cc->arena, sizeof(*x));
	if (!x) {
		cc->oom = true;
		return NULL;
	}
	*x = *t;
	x->hash = h;
	x->size = (uint32_t)size;
	x->deps = (t->a ? t->a->deps : 0) | (t->b ? t->b->deps : 0);
	if (t->kind == CBPF_X_FIELD)
		x->deps = t->imm < 4 ? CBPF_DEP_NR : t->imm < 8 ? CBPF_DEP_ARCH : CBPF_DEP_DATA;
	x->hi_zero = cx_expr_hi_zero(x);
	x->hnext = cc->xtab[h & (cc->xtab_size - 1)];
	cc->xtab[h & (cc->xtab_size - 1)] = x;
	cc->xcount++;
	return x;
}

static const struct cbpf_expr *cx_const(struct cbpf_cc *cc, uint64_t v)
{
	struct cbpf_expr t = { .kind = CBPF_X_CONST, .imm = v };

	return cx_intern(cc, &t);
}

static uint64_t cx_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

static uint64_t cx_sext(uint64_t v, unsigned width)
{
	uint64_t sign = 1ull << (width - 1);

	v &= cx_mask(width);
	return (v ^ sign) - sign;
}

static uint64_t cx_bswap(uint64_t v, unsigned width)
{
	switch (width) {
	case 16: return __builtin_bswap16((uint16_t)v);
	case 32: return __builtin_bswap32((uint32_t)v);
	}
	return __builtin_bswap64(v);
}

/* d op s (a two-operand ALU op) exactly as the interpreter computes it:
 * both call vm/alu.h. sgn picks signed div and mod. */
static uint64_t cx_alu_eval(unsigned op, bool is32, bool sgn, uint64_t d, uint64_t s)
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
		return cx_alu_eval(e->op, e->is32, e->sgn, cbpf_expr_eval(e->a, sd),
				   cbpf_expr_eval(e->b, sd));
	case CBPF_X_NEG:
		v = 0 - cbpf_expr_eval(e->a, sd);
		return e->is32 ? (uint32_t)v : v;
	case CBPF_X_TRUNC:
		return cbpf_expr_eval(e->a, sd) & cx_mask(e->width);
	case CBPF_X_SEXT:
		v = cx_sext(cbpf_expr_eval(e->a, sd), e->width);
		return e->is32 ? (uint32_t)v : v;
	case CBPF_X_BSWAP:
		return cx_bswap(cbpf_expr_eval(e->a, sd), e->width);
	}
	return 0;
}

static const struct cbpf_expr *cx_trunc(struct cbpf_cc *cc, const struct cbpf_expr *a,
					unsigned width)
{
	struct cbpf_expr t = { .kind = CBPF_X_TRUNC, .width = width };

	if (!a)
		return NULL;
	if (width >= 64 || (width == 32 && a->hi_zero))
		return a;
	if (a->kind == CBPF_X_CONST)
		return cx_const(cc, a->imm & cx_mask(width));
	if ((a->kind == CBPF_X_TRUNC || a->kind == CBPF_X_FIELD) && a->width <= width)
		return a;
	if (a->kind == CBPF_X_TRUNC)
		a = a->a;
	t.a = a;
	return cx_intern(cc, &t);
}

static const struct cbpf_expr *cx_unary(struct cbpf_cc *cc, unsigned kind, bool is32,
					unsigned width, const struct cbpf_expr *a)
{
	struct cbpf_expr t = { .kind = kind, .is32 = is32, .width = width, .a = a };

	if (!a)
		return NULL;
	if (a->kind == CBPF_X_CONST) {
		struct seccomp_data sd = { 0 };

		t.a = a;
		return cx_const(cc, cbpf_expr_eval(&t, &sd));
	}
	if (kind == CBPF_X_SEXT && width == 64)
		return is32 ? cx_trunc(cc, a, 32) : a;
	return cx_intern(cc, &t);
}

static bool cx_is_const(const struct cbpf_expr *e, uint64_t v)
{
	return e->kind == CBPF_X_CONST && e->imm == v;
}

static bool cx_commutes(unsigned op)
{
	return op == BPF_ADD || op == BPF_MUL || op == BPF_AND || op == BPF_OR || op == BPF_XOR;
}

/* op(a, b) with constant folding and the few rewrites the partitioning
 * relies on (constants on the right, chains of constant adds folded, the
 * shift pairs clang uses for sign and zero extension recognized). */
static const struct cbpf_expr *cx_alu(struct cbpf_cc *cc, unsigned op, bool is32, bool sgn,
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
		return cx_const(cc, cx_alu_eval(op, is32, sgn, a->imm, b->imm));
	if (cx_commutes(op) && a->kind == CBPF_X_CONST) {
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
			return is32 ? cx_trunc(cc, a, 32) : a;
		if (k == 0 && (op == BPF_AND || op == BPF_MUL || op == BPF_DIV))
			return cx_const(cc, 0);
		if (k == 0 && op == BPF_MOD)
			return is32 ? cx_trunc(cc, a, 32) : a;
		if (op == BPF_AND && !is32 && k == 0xffffffffull)
			return cx_trunc(cc, a, 32);
		if (op == BPF_AND && a->hi_zero && (k & 0xffffffffull) == 0xffffffffull)
			return a;
		/* (x + c1) + c2 */
		if (op == BPF_ADD && a->kind == CBPF_X_ALU && a->op == BPF_ADD &&
		    a->is32 == is32 && a->b->kind == CBPF_X_CONST)
			return cx_alu(cc, BPF_ADD, is32, false, a->a,
				      cx_const(cc, (a->b->imm + k) & m));
		/* (x << 32) s>> 32 and (x << 32) >> 32 */
		if (!is32 && k == 32 && (op == BPF_ARSH || op == BPF_RSH) &&
		    a->kind == CBPF_X_ALU && !a->is32 && a->op == BPF_LSH &&
		    cx_is_const(a->b, 32)) {
			if (op == BPF_RSH)
				return cx_trunc(cc, a->a, 32);
			return cx_unary(cc, CBPF_X_SEXT, false, 32, a->a);
		}
		b = cx_const(cc, k);
		if (!b)
			return NULL;
	}
	t.a = a;
	t.b = b;
	return cx_intern(cc, &t);
}

/* ---- residual nodes ---- */

static uint32_t cx_rnode_hash(const struct cbpf_rnode *t)
{
	uint64_t h = t->kind | (uint64_t)t->op << 8 | (uint64_t)t->sgn << 16 |
		     (uint64_t)t->is32 << 17;

	h = cx_mix(h, (uintptr_t)t->a);
	h = cx_mix(h, (uintptr_t)t->b);
	h = cx_mix(h, (uintptr_t)t->ret);
	h = cx_mix(h, (uintptr_t)t->t);
	return cx_mix(h, (uintptr_t)t->f);
}

static struct cbpf_rnode *cx_rnode(struct cbpf_cc *cc, const struct cbpf_rnode *t)
{
	struct cbpf_rnode *x;
	uint32_t h = cx_rnode_hash(t);

	for (x = cc->rtab ? cc->rtab[h & (cc->rtab_size - 1)] : NULL; x; x = x->hnext)
		if (x->hash == h && x->kind == t->kind && x->op == t->op && x->sgn == t->sgn &&
		    x->is32 == t->is32 && x->a == t->a && x->b == t->b && x->ret == t->ret &&
		    x->t == t->t && x->f == t->f)
			return x;
	if (!cx_grow(cc, (void ***)&cc->rtab, &cc->rtab_size, cc->rcount, true)) {
		cc->oom = true;
		return NULL;
	}
	x = cx_alloc(&cc->arena, sizeof(*x));
	if (!x) {
		cc->oom = true;
		return NULL;
	}
	*x = *t;
	x->hash = h;
	x->hnext = cc->rtab[h & (cc->rtab_size - 1)];
	cc->rtab[h & (cc->rtab_size - 1)] = x;
	cc->rcount++;
	return x;
}

static struct cbpf_rnode *cx_rnode_ret(struct cbpf_cc *cc, const struct cbpf_expr *v)
{
	struct cbpf_rnode t = { .kind = CBPF_R_RET, .ret = v };

	if (!v)
		return NULL;
	return cx_rnode(cc, &t);
}

static struct cbpf_rnode *cx_rnode_branch(struct cbpf_cc *cc, const struct cx_cond *c,
					  struct cbpf_rnode *t, struct cbpf_rnode *f)
{
	struct cbpf_rnode n = {
		.kind = CBPF_R_BRANCH, .op = c->op, .sgn = c->sgn, .is32 = c->is32,
		.a = c->a, .b = c->b,
	};

	/* Both ways end the same: no test needed. */
	if (t == f)
		return t;
	n.t = c->neg ? f : t;
	n.f = c->neg ? t : f;
	return cx_rnode(cc, &n);
}

/* ---- conditions ---- */

/* The comparison key of v: unsigned order of the compared width, with the
 * sign bit flipped for signed compares so that unsigned order is signed. */
static uint64_t cx_key(const struct cx_cond *c, uint64_t v)
{
	if (c->is32) {
		v = (uint32_t)v;
		return c->sgn ? v ^ 0x80000000ull : v;
	}
	return c->sgn ? v ^ (1ull << 63) : v;
}

static bool cx_cond_eval_values(const struct cx_cond *c, uint64_t a, uint64_t b)
{
	bool r;

	switch (c->op) {
	case CBPF_C_EQ: r = cx_key(c, a) == cx_key(c, b); break;
	case CBPF_C_GT: r = cx_key(c, a) > cx_key(c, b); break;
	case CBPF_C_GE: r = cx_key(c, a) >= cx_key(c, b); break;
	default:
		r = (c->is32 ? (uint32_t)(a & b) : (a & b)) != 0;
		break;
	}
	return r;
}

/* The normalized condition itself (without neg). */
static bool cx_cond_eval(const struct cx_cond *c, const struct seccomp_data *sd)
{
	return cx_cond_eval_values(c, cbpf_expr_eval(c->a, sd), cbpf_expr_eval(c->b, sd));
}

static bool cx_cond_at_nr(const struct cx_cond *c, uint32_t nr)
{
	struct seccomp_data sd = { .nr = (int)nr };

	return cx_cond_eval(c, &sd);
}

static uint64_t cx_expr_at_nr(const struct cbpf_expr *e, uint32_t nr)
{
	struct seccomp_data sd = { .nr = (int)nr };

	return cbpf_expr_eval(e, &sd);
}

/*
 * Affine forms of nr: e = ext(trunc32(nr + c1)) + c2 (mod 2^64), ext being
 * zero or sign extension. This is what clang emits for `nr - base`, casts
 * between int and long, and compares of nr in either signedness.
 */
struct cx_affine {
	bool sext;
	uint32_t c1;
	uint64_t c2;
};

static bool cx_affine_of(const struct cbpf_cc *cc, const struct cbpf_expr *e,
			 struct cx_affine *f)
{
	if (e == cc->nr_field) {
		f->sext = false;
		f->c1 = 0;
		f->c2 = 0;
		return true;
	}
	if (e->kind == CBPF_X_ALU && e->op == BPF_ADD && e->b->kind == CBPF_X_CONST) {
		if (!cx_affine_of(cc, e->a, f))
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
		if (!cx_affine_of(cc, e->a, f))
			return false;
		f->c1 += (uint32_t)f->c2;
		f->c2 = 0;
		f->sext = e->kind == CBPF_X_SEXT && !e->is32;
		return true;
	}
	return false;
}

static int cx_cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* First x in [p, q] with pred true, pred monotone (false then true); q + 1
 * (as uint64) if none. */
#define CX_BSEARCH(p, q, pred_x, result) do {				\
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

static void cx_add_cand(uint32_t *cands, uint32_t *n, uint64_t x, uint32_t lo, uint32_t hi)
{
	if (x > lo && x <= hi && *n < CX_MAX_PIECES)
		cands[(*n)++] = (uint32_t)x;
}

/* Candidate piece starts for an affine compare: the points where the
 * compared key stops being monotone, and where it crosses k and k + 1. */
static bool cx_affine_cands(const struct cbpf_cc *cc, const struct cx_cond *c,
			    const struct cbpf_expr *e, uint64_t kval, uint32_t lo, uint32_t hi,
			    uint32_t *cands, uint32_t *n)
{
	struct cx_affine f;
	uint32_t mono[4], nmono = 0, i, j;
	uint64_t kk = cx_key(c, kval), ts[2];

	if (c->op == CBPF_C_SET || !cx_affine_of(cc, e, &f))
		return false;
	/* trunc32(nr + c1) wraps at nr = -c1 and crosses the sign bit at
	 * nr = 2^31 - c1: between those it grows by one with nr. */
	cx_add_cand(mono, &nmono, (uint32_t)(0u - f.c1), lo, hi);
	cx_add_cand(mono, &nmono, (uint32_t)(0x80000000u - f.c1), lo, hi);
	qsort(mono, nmono, sizeof(mono[0]), cx_cmp_u32);
	ts[0] = kk;
	ts[1] = kk + 1;
	for (i = 0; i <= nmono; i++) {
		uint32_t p = i ? mono[i - 1] : lo;
		uint32_t q = i < nmono ? mono[i] - 1 : hi;
		uint64_t kp = cx_key(c, cx_expr_at_nr(e, p)), w;
		uint32_t sub[2] = { p, q }, sq[2];
		unsigned nsub = 1, s;

		if (i < nmono)
			cx_add_cand(cands, n, mono[i], lo, hi);
		/* The key can still wrap once inside (the outer + c2). */
		if (cx_key(c, cx_expr_at_nr(e, q)) < kp) {
			CX_BSEARCH(p, q, cx_key(c, cx_expr_at_nr(e, x)) < kp, w);
			cx_add_cand(cands, n, w, lo, hi);
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
				CX_BSEARCH(sub[s], sq[s], cx_key(c, cx_expr_at_nr(e, x)) >= t, r);
				cx_add_cand(cands, n, r, lo, hi);
			}
		}
	}
	return true;
}

/* For tests of nr & m, nr >> s, nr vs. a mask: constant on aligned blocks. */
static bool cx_block_cands(const struct cbpf_cc *cc, const struct cx_cond *c,
			   const struct cbpf_expr *e, uint64_t kval, uint32_t lo, uint32_t hi,
			   uint32_t *cands, uint32_t *n)
{
	unsigned t;
	uint64_t b;

	if (e == cc->nr_field && c->op == CBPF_C_SET && (uint32_t)kval)
		t = __builtin_ctz((uint32_t)kval);
	else if (e->kind == CBPF_X_ALU && e->a == cc->nr_field && e->b->kind == CBPF_X_CONST &&
		 e->op == BPF_AND && (uint32_t)e->b->imm)
		t = __builtin_ctz((uint32_t)e->b->imm);
	else if (e->kind == CBPF_X_ALU && e->a == cc->nr_field && e->b->kind == CBPF_X_CONST &&
		 e->op == BPF_RSH)
		t = (unsigned)e->b->imm;
	else
		return false;
	if (t >= 32)
		return true;
	if ((hi >> t) - (lo >> t) >= CX_BLOCKS_MAX)
		return false;
	for (b = ((uint64_t)(lo >> t) + 1) << t; b <= hi; b += 1ull << t)
		cx_add_cand(cands, n, b, lo, hi);
	return true;
}

/*
 * Known-bits (tnum) evaluation of an nr-only expression when nr ranges over
 * an aligned block: decides tests that are neither affine nor on a small
 * interval (masks, bit tests, shifts) by bisecting blocks until each one
 * is decided. Unknown operations give "all bits unknown", never a guess.
 */
struct cx_tnum {
	uint64_t v, m;		/* bit known iff !(m & bit); then it is v's */
};

static struct cx_tnum cx_tnum_unknown(bool is32)
{
	return (struct cx_tnum){ 0, is32 ? 0xffffffffull : ~0ull };
}

static struct cx_tnum cx_tnum_trunc(struct cx_tnum t, unsigned width)
{
	return (struct cx_tnum){ t.v & cx_mask(width), t.m & cx_mask(width) };
}

static struct cx_tnum cx_tnum_add(struct cx_tnum a, struct cx_tnum b)
{
	uint64_t sm = a.m + b.m, sv = a.v + b.v, chi = (sm + sv) ^ sv;
	uint64_t mu = chi | a.m | b.m;

	return (struct cx_tnum){ sv & ~mu, mu };
}

static struct cx_tnum cx_tnum_sub(struct cx_tnum a, struct cx_tnum b)
{
	uint64_t dv = a.v - b.v, chi = (dv + a.m) ^ (dv - b.m);
	uint64_t mu = chi | a.m | b.m;

	return (struct cx_tnum){ dv & ~mu, mu };
}

static struct cx_tnum cx_tnum_eval(const struct cbpf_cc *cc, const struct cbpf_expr *e,
				   struct cx_tnum nr)
{
	struct cx_tnum a, b, r;
	bool w32 = e->is32;
	unsigned k;

	switch (e->kind) {
	case CBPF_X_CONST:
		return (struct cx_tnum){ e->imm, 0 };
	case CBPF_X_FIELD:
		return e == cc->nr_field ? nr : cx_tnum_unknown(e->width <= 32);
	case CBPF_X_TRUNC:
		return cx_tnum_trunc(cx_tnum_eval(cc, e->a, nr), e->width);
	case CBPF_X_NEG:
		a = cx_tnum_eval(cc, e->a, nr);
		r = cx_tnum_sub((struct cx_tnum){ 0, 0 }, a);
		return w32 ? cx_tnum_trunc(r, 32) : r;
	case CBPF_X_SEXT:
		a = cx_tnum_trunc(cx_tnum_eval(cc, e->a, nr), e->width);
		if (a.m >> (e->width - 1) & 1)
			r = (struct cx_tnum){ a.v, a.m | ~cx_mask(e->width) };
		else
			r = (struct cx_tnum){ cx_sext(a.v, e->width), a.m };
		return w32 ? cx_tnum_trunc(r, 32) : r;
	case CBPF_X_ALU:
		break;
	default:
		a = cx_tnum_eval(cc, e->a, nr);
		if (a.m)
			return cx_tnum_unknown(e->width <= 32);
		return (struct cx_tnum){ cx_bswap(a.v, e->width), 0 };
	}
	a = cx_tnum_eval(cc, e->a, nr);
	b = cx_tnum_eval(cc, e->b, nr);
	if (w32) {
		a = cx_tnum_trunc(a, 32);
		b = cx_tnum_trunc(b, 32);
	}
	if (!a.m && !b.m)
		return (struct cx_tnum){ cx_alu_eval(e->op, w32, e->sgn, a.v, b.v), 0 };
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
		r = cx_tnum_add(a, b);
		break;
	case BPF_SUB:
		r = cx_tnum_sub(a, b);
		break;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		if (b.m)
			return cx_tnum_unknown(w32);
		k = (unsigned)b.v & (w32 ? 31 : 63);
		if (e->op == BPF_LSH) {
			r = (struct cx_tnum){ a.v << k, a.m << k };
		} else if (e->op == BPF_RSH) {
			r = (struct cx_tnum){ a.v >> k, a.m >> k };
		} else if (w32) {
			r.v = (uint32_t)((int32_t)(uint32_t)a.v >> k);
			r.m = (uint32_t)((int32_t)(uint32_t)a.m >> k);
		} else {
			r.v = (uint64_t)((int64_t)a.v >> k);
			r.m = (uint64_t)((int64_t)a.m >> k);
		}
		break;
	default:
		return cx_tnum_unknown(w32);
	}
	return w32 ? cx_tnum_trunc(r, 32) : r;
}

/* 1 true, 0 false, -1 unknown. */
static int cx_tnum_cond(const struct cbpf_cc *cc, const struct cx_cond *c, struct cx_tnum nr)
{
	struct cx_tnum a = cx_tnum_eval(cc, c->a, nr), b = cx_tnum_eval(cc, c->b, nr);
	uint64_t sb = c->is32 ? 0x80000000ull : 1ull << 63;

	if (c->is32) {
		a = cx_tnum_trunc(a, 32);
		b = cx_tnum_trunc(b, 32);
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

#define CX_TNUM_EVALS 2048

static bool cx_piece_add(struct cx_split *sp, uint32_t start, bool truth)
{
	if (sp->n && sp->truth[sp->n - 1] == truth)
		return true;
	if (sp->n == CX_MAX_PIECES)
		return false;
	sp->start[sp->n] = start;
	sp->truth[sp->n] = truth;
	sp->n++;
	return true;
}

static bool cx_tnum_block(const struct cbpf_cc *cc, const struct cx_cond *c, uint64_t base,
			  unsigned j, unsigned *evals, struct cx_split *sp)
{
	int r;

	if (++*evals > CX_TNUM_EVALS)
		return false;
	r = cx_tnum_cond(cc, c, (struct cx_tnum){ base, (1ull << j) - 1 });
	if (r < 0 && j == 0)
		r = cx_cond_at_nr(c, (uint32_t)base);
	if (r >= 0)
		return cx_piece_add(sp, (uint32_t)base, r);
	return cx_tnum_block(cc, c, base, j - 1, evals, sp) &&
	       cx_tnum_block(cc, c, base + (1ull << (j - 1)), j - 1, evals, sp);
}

static bool cx_tnum_pieces(const struct cbpf_cc *cc, const struct cx_cond *c, uint32_t lo,
			   uint32_t hi, struct cx_split *sp)
{
	uint64_t x = lo;
	unsigned evals = 0;

	sp->arch = false;
	sp->n = 0;
	while (x <= hi) {
		unsigned j = 0;

		while (j < 32 && !(x & (1ull << j)) && x + (2ull << j) - 1 <= hi)
			j++;
		if (!cx_tnum_block(cc, c, x, j, &evals, sp))
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
static bool cx_nr_pieces(struct cbpf_cc *cc, const struct cx_cond *c, uint32_t lo, uint32_t hi,
			 struct cx_split *sp)
{
	uint32_t cands[CX_MAX_PIECES], n = 0, i;
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
		ok = cx_affine_cands(cc, c, e, kval, lo, hi, cands, &n);
		if (!ok) {
			n = 0;
			ok = cx_block_cands(cc, c, e, kval, lo, hi, cands, &n);
		}
		if (ok && n >= CX_MAX_PIECES)
			ok = false;
	}
	if (!ok && (uint64_t)hi - lo >= CX_SINGLES_MAX) {
		uint32_t i2;

		if (!cx_tnum_pieces(cc, c, lo, hi, sp))
			return false;
		/* Same safety net as below: both ends of every piece. */
		for (i2 = 0; i2 < sp->n; i2++) {
			uint32_t q = i2 + 1 < sp->n ? sp->start[i2 + 1] - 1 : hi;

			if (cx_cond_at_nr(c, sp->start[i2]) != sp->truth[i2] ||
			    cx_cond_at_nr(c, q) != sp->truth[i2])
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
	qsort(cands, n, sizeof(cands[0]), cx_cmp_u32);
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
		tp = cx_cond_at_nr(c, p);
		/* A piece whose ends disagree means the analysis is wrong:
		 * fall back to a residual test rather than trust it. */
		if (cx_cond_at_nr(c, q) != tp)
			return false;
		if (sp->n && sp->truth[sp->n - 1] == tp)
			continue;
		sp->start[sp->n] = p;
		sp->truth[sp->n] = tp;
		sp->n++;
	}
	return true;
}

/* ---- the exploration ---- */

static int cx_reject(struct cbpf_cc *cc, uint32_t pc, const char *why)
{
	const struct object_line *l = object_prog_line(cc->prog, pc);

	if (l && l->file)
		return err_set(cc->err, EINVAL, "%s: insn %u (%s:%u): %s", cc->prog->name, pc,
			       l->file, l->line, why);
	return err_set(cc->err, EINVAL, "%s: insn %u: %s", cc->prog->name, pc, why);
}

/* A NULL expression: out of memory (fatal) or too large (give up). */
static int cx_nullexpr(struct cbpf_cc *cc)
{
	if (cc->oom)
		return err_set(cc->err, ENOMEM, "out of memory");
	return CX_GIVEUP;
}

static struct cx_val cx_scalar(const struct cbpf_expr *e)
{
	struct cx_val v = { .kind = CV_SCALAR, .e = e };

	return v;
}

static bool cx_is_ptr(const struct cx_val *v)
{
	return v->kind != CV_UNINIT && v->kind != CV_SCALAR;
}

/* The value of a context field read: nr and arch narrowed from their
 * abstract value, the others symbolic. Rejects what the seed forbids. */
static int cx_ctx_load(struct cbpf_cc *cc, uint32_t pc, int64_t off, unsigned size,
		       struct cx_val *dst)
{
	unsigned fsize = off < 8 ? 4 : 8;
	const struct cbpf_expr *base, *e;
	struct cbpf_expr t = { .kind = CBPF_X_FIELD };

	if (off < 0 || off + size > (int64_t)sizeof(struct seccomp_data))
		return cx_reject(cc, pc, "read outside struct seccomp_data");
	if (off % size)
		return cx_reject(cc, pc, "unaligned read of struct seccomp_data");
	if (size > fsize)
		return cx_reject(cc, pc, "read of struct seccomp_data spans two fields");
	if (off < 8) {
		if (off < 4)
			base = cc->cell.lo == cc->cell.hi ? cx_const(cc, cc->cell.lo) : cc->nr_field;
		else
			base = cc->cell.arch_fixed ? cx_const(cc, cc->cell.arch) : cc->arch_field;
		e = cx_alu(cc, BPF_RSH, false, false, base, cx_const(cc, (off & 3) * 8));
		e = cx_trunc(cc, e, size * 8);
	} else {
		t.imm = (uint64_t)off;
		t.width = size * 8;
		e = cx_intern(cc, &t);
	}
	if (!e)
		return cx_nullexpr(cc);
	*dst = cx_scalar(e);
	return CX_CONT;
}

static int cx_rodata_load(struct cbpf_cc *cc, uint32_t pc, const struct cx_val *p, int64_t off,
			  unsigned size, struct cx_val *dst)
{
	const struct object_map *m = &cc->obj->maps[p->map];
	uint64_t v = 0;

	if (off < 0 || off + size > m->value_size)
		return cx_reject(cc, pc, "read outside a .rodata section");
	/* Frozen before the program runs: the bytes are final. */
	if (m->init_data)
		memcpy(&v, m->init_data + off, size);
	*dst = cx_scalar(cx_const(cc, v));
	return dst->e ? CX_CONT : cx_nullexpr(cc);
}

static int cx_stack_load(struct cbpf_cc *cc, struct cx_state *st, uint32_t frame, int64_t off,
			 unsigned size, struct cx_val *dst)
{
	const struct cbpf_expr *acc = NULL;
	int64_t pos = off;
	uint32_t i;

	while (pos < off + size) {
		const struct cx_slot *s = NULL;
		const struct cbpf_expr *piece;
		int64_t end;

		for (i = 0; i < st->nslots; i++)
			if (st->slots[i].frame == frame && st->slots[i].off <= pos &&
			    pos < st->slots[i].off + st->slots[i].size) {
				s = &st->slots[i];
				break;
			}
		/* Bytes we do not know (never written, or lost to a partial
		 * overwrite of a pointer): let the supervisor run it. */
		if (!s)
			return CX_NOTIF;
		if (s->v.kind != CV_SCALAR) {
			if (s->off != off || s->size != 8 || size != 8)
				return CX_NOTIF;
			*dst = s->v;
			return CX_CONT;
		}
		end = s->off + s->size < off + size ? s->off + s->size : off + size;
		piece = cx_alu(cc, BPF_RSH, false, false, s->v.e, cx_const(cc, (pos - s->off) * 8));
		piece = cx_trunc(cc, piece, (unsigned)(end - pos) * 8);
		piece = cx_alu(cc, BPF_LSH, false, false, piece, cx_const(cc, (pos - off) * 8));
		acc = acc ? cx_alu(cc, BPF_OR, false, false, acc, piece) : piece;
		if (!acc)
			return cx_nullexpr(cc);
		pos = end;
	}
	*dst = cx_scalar(acc);
	return CX_CONT;
}

/* Store v's low size bytes at frame:off, trimming what it overlaps. */
static int cx_stack_store(struct cbpf_cc *cc, struct cx_state *st, uint32_t frame, int64_t off,
			  unsigned size, const struct cx_val *v)
{
	int64_t end = off + size;
	uint32_t i = 0;

	if (st->nslots + 2 > CX_MAX_SLOTS)
		return CX_GIVEUP;
	while (i < st->nslots) {
		struct cx_slot *s = &st->slots[i];
		int64_t send = s->off + s->size;

		if (s->frame != frame || send <= off || s->off >= end) {
			i++;
			continue;
		}
		if (s->v.kind == CV_SCALAR && send > end) {
			struct cx_slot r = *s;

			r.v.e = cx_alu(cc, BPF_RSH, false, false, s->v.e,
				       cx_const(cc, (end - s->off) * 8));
			if (!r.v.e)
				return cx_nullexpr(cc);
			r.off = (int16_t)end;
			r.size = (uint8_t)(send - end);
			st->slots[st->nslots++] = r;
		}
		if (s->v.kind == CV_SCALAR && s->off < off) {
			s->size = (uint8_t)(off - s->off);
			i++;
			continue;
		}
		*s = st->slots[--st->nslots];
	}
	if (v->kind == CV_SCALAR || size == 8) {
		struct cx_slot n = { .frame = (uint8_t)frame, .size = (uint8_t)size,
				     .off = (int16_t)off, .v = *v };

		if (v->kind != CV_SCALAR && off % 8)
			return CX_CONT;
		st->slots[st->nslots++] = n;
	}
	return CX_CONT;
}

static unsigned cx_size_bytes(uint8_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B: return 1;
	case BPF_H: return 2;
	case BPF_W: return 4;
	}
	return 8;
}

static int cx_ldx(struct cbpf_cc *cc, struct cx_state *st, const struct bpf_insn *in)
{
	const struct cx_val *p = &st->r[in->src_reg];
	unsigned size = cx_size_bytes(in->code);
	struct cx_val v;
	int64_t off;
	int rc;

	if (BPF_MODE(in->code) != BPF_MEM && BPF_MODE(in->code) != BPF_MEMSX)
		return cx_reject(cc, st->pc, "unknown load mode");
	off = p->off + in->off;
	switch (p->kind) {
	case CV_CTX:
		if (BPF_MODE(in->code) == BPF_MEMSX)
			return cx_reject(cc, st->pc, "sign-extending read of struct seccomp_data");
		rc = cx_ctx_load(cc, st->pc, off, size, &v);
		break;
	case CV_STACK:
		if (off < -CX_STACK_SIZE || off + size > 0)
			return cx_reject(cc, st->pc, "stack read out of bounds");
		rc = cx_stack_load(cc, st, p->frame, off, size, &v);
		if (rc == CX_CONT && v.kind == CV_SCALAR)
			v.e = cx_trunc(cc, v.e, size * 8);
		break;
	case CV_RODATA:
		rc = cx_rodata_load(cc, st->pc, p, off, size, &v);
		break;
	case CV_STATE:
		return CX_NOTIF;
	default:
		return cx_reject(cc, st->pc, "read through a register that is not a pointer");
	}
	if (rc != CX_CONT)
		return rc;
	if (BPF_MODE(in->code) == BPF_MEMSX && v.kind == CV_SCALAR)
		v.e = cx_unary(cc, CBPF_X_SEXT, false, size * 8, v.e);
	if (v.kind == CV_SCALAR && !v.e)
		return cx_nullexpr(cc);
	st->r[in->dst_reg] = v;
	return CX_CONT;
}

static int cx_store(struct cbpf_cc *cc, struct cx_state *st, const struct bpf_insn *in)
{
	const struct cx_val *p = &st->r[in->dst_reg];
	unsigned size = cx_size_bytes(in->code);
	int64_t off = p->off + in->off;
	struct cx_val v;

	switch (p->kind) {
	case CV_CTX:
		return cx_reject(cc, st->pc, "write to struct seccomp_data (it is read-only)");
	case CV_RODATA:
		return cx_reject(cc, st->pc, "write to .rodata (it is read-only)");
	case CV_STATE:
		return CX_NOTIF;
	case CV_STACK:
		break;
	default:
		return cx_reject(cc, st->pc, "write through a register that is not a pointer");
	}
	if (off < -CX_STACK_SIZE || off + size > 0)
		return cx_reject(cc, st->pc, "stack write out of bounds");
	if (BPF_CLASS(in->code) == BPF_STX && BPF_MODE(in->code) == BPF_ATOMIC)
		return CX_NOTIF;	/* atomics on the stack: not modelled */
	if (BPF_MODE(in->code) != BPF_MEM)
		return cx_reject(cc, st->pc, "unknown store mode");
	if (BPF_CLASS(in->code) == BPF_ST) {
		v = cx_scalar(cx_const(cc, (uint64_t)(int64_t)in->imm));
		if (!v.e)
			return cx_nullexpr(cc);
	} else {
		v = st->r[in->src_reg];
		if (v.kind == CV_UNINIT)
			return cx_reject(cc, st->pc, "store of an uninitialized register");
	}
	return cx_stack_store(cc, st, p->frame, off, size, &v);
}

static int cx_alu_insn(struct cbpf_cc *cc, struct cx_state *st, const struct bpf_insn *in)
{
	bool is32 = BPF_CLASS(in->code) == BPF_ALU;
	unsigned op = BPF_OP(in->code);
	struct cx_val *dst = &st->r[in->dst_reg];
	struct cx_val src;
	const struct cbpf_expr *e;

	if (in->dst_reg >= 10)
		return cx_reject(cc, st->pc, "write to r10");
	if (op == BPF_END || op == BPF_NEG) {
		if (dst->kind != CV_SCALAR)
			return dst->kind == CV_UNINIT ?
				cx_reject(cc, st->pc, "use of an uninitialized register") : CX_NOTIF;
		if (op == BPF_NEG)
			e = cx_unary(cc, CBPF_X_NEG, is32, 0, dst->e);
		else if (is32 && BPF_SRC(in->code) == BPF_K)	/* to little endian */
			e = cx_trunc(cc, dst->e, (unsigned)in->imm);
		else
			e = cx_unary(cc, CBPF_X_BSWAP, false, (unsigned)in->imm, dst->e);
		if (!e)
			return cx_nullexpr(cc);
		*dst = cx_scalar(e);
		return CX_CONT;
	}
	if (BPF_SRC(in->code) == BPF_K) {
		src = cx_scalar(cx_const(cc, is32 ? (uint32_t)in->imm : (uint64_t)(int64_t)in->imm));
		if (!src.e)
			return cx_nullexpr(cc);
	} else {
		src = st->r[in->src_reg];
		if (src.kind == CV_UNINIT)
			return cx_reject(cc, st->pc, "use of an uninitialized register");
	}
	if (op == BPF_MOV) {
		if (in->off) {		/* movsx */
			if (src.kind != CV_SCALAR)
				return CX_NOTIF;
			e = cx_unary(cc, CBPF_X_SEXT, is32, (unsigned)in->off, src.e);
			if (!e)
				return cx_nullexpr(cc);
			*dst = cx_scalar(e);
		} else if (!is32) {
			*dst = src;
		} else if (src.kind == CV_SCALAR) {
			e = cx_trunc(cc, src.e, 32);
			if (!e)
				return cx_nullexpr(cc);
			*dst = cx_scalar(e);
		} else {
			return CX_NOTIF;
		}
		return CX_CONT;
	}
	if (dst->kind == CV_UNINIT)
		return cx_reject(cc, st->pc, "use of an uninitialized register");
	if (cx_is_ptr(dst) || cx_is_ptr(&src)) {
		struct cx_val *ptr = cx_is_ptr(dst) ? dst : &src;
		struct cx_val *num = cx_is_ptr(dst) ? &src : dst;
		struct cx_val res;

		/* Pointer plus or minus a constant. A state pointer (map value,
		 * global data) stays one whatever is added: any use of it is
		 * the supervisor's. Anything else (variable offsets into the
		 * context or stack) is left to the supervisor too. */
		if (ptr->kind == CV_STATE && !is32 && (op == BPF_ADD || op == BPF_SUB) &&
		    num->kind == CV_SCALAR) {
			*dst = *ptr;
			return CX_CONT;
		}
		if (is32 || num->kind != CV_SCALAR || num->e->kind != CBPF_X_CONST ||
		    (op != BPF_ADD && !(op == BPF_SUB && ptr == dst)))
			return CX_NOTIF;
		res = *ptr;
		res.off += op == BPF_ADD ? (int64_t)num->e->imm : -(int64_t)num->e->imm;
		if (res.off > (1 << 29) || res.off < -(1 << 29))
			return CX_NOTIF;
		*dst = res;
		return CX_CONT;
	}
	e = cx_alu(cc, op, is32, in->off == 1, dst->e, src.e);
	if (!e)
		return cx_nullexpr(cc);
	*dst = cx_scalar(e);
	return CX_CONT;
}

static int cx_ld_imm64(struct cbpf_cc *cc, struct cx_state *st, const struct bpf_insn *in)
{
	struct cx_val v = { .kind = CV_STATE };

	if (in->code != (BPF_LD | BPF_IMM | BPF_DW) || st->pc + 1 >= cc->prog->insn_cnt)
		return cx_reject(cc, st->pc, "legacy packet loads are not allowed in seccomp");
	switch (in->src_reg) {
	case 0:
		v = cx_scalar(cx_const(cc, insn_ld_imm64_value(in)));
		if (!v.e)
			return cx_nullexpr(cc);
		break;
	case BPF_PSEUDO_MAP_VALUE:
		if ((uint32_t)in->imm < cc->obj->map_cnt &&
		    cc->obj->maps[in->imm].kind == OBJECT_MAP_RODATA) {
			v.kind = CV_RODATA;
			v.map = (uint32_t)in->imm;
			v.off = (uint32_t)in[1].imm;
		}
		break;
	default:
		break;		/* maps, .data/.bss, functions: the supervisor's */
	}
	if (in->dst_reg >= 10)
		return cx_reject(cc, st->pc, "write to r10");
	st->r[in->dst_reg] = v;
	st->pc += 2;
	return CX_CONT;
}

/* An upper bound of e (unsigned), from its shape. */
static uint64_t cx_umax(const struct cbpf_expr *e)
{
	uint64_t m = e->hi_zero ? 0xffffffffull : ~0ull, a;

	switch (e->kind) {
	case CBPF_X_CONST:
		return e->imm;
	case CBPF_X_FIELD:
	case CBPF_X_TRUNC:
		return cx_mask(e->width);
	case CBPF_X_ALU:
		if (e->b->kind != CBPF_X_CONST)
			break;
		a = cx_umax(e->a);
		if (e->is32 && a > 0xffffffffull)
			break;
		if (e->op == BPF_AND)
			return a < e->b->imm ? a : e->b->imm & m;
		if (e->op == BPF_RSH)
			return a >> e->b->imm;
		break;
	}
	return m;
}

/* Compares of a bounded value with a constant out of its range: 1 true,
 * 0 false, -1 not decided. */
static int cx_decide_by_range(const struct cx_cond *c)
{
	uint64_t max = cx_umax(c->a), k, sb = c->is32 ? 0x80000000ull : 1ull << 63;

	if (c->b->kind != CBPF_X_CONST || c->op == CBPF_C_SET)
		return -1;
	k = c->b->imm;
	if (c->is32) {
		if (max > 0xffffffffull)
			return -1;
		k = (uint32_t)k;
	}
	if (c->sgn) {
		if (max >= sb)
			return -1;	/* may be negative */
		if (k & sb)		/* a >= 0 > k */
			return c->op != CBPF_C_EQ;
	}
	switch (c->op) {
	case CBPF_C_EQ:
		return k > max ? 0 : -1;
	case CBPF_C_GT:
		return max <= k ? 0 : -1;
	default:
		return k == 0 ? 1 : max < k ? 0 : -1;
	}
}

/* How c (without its neg) comes out in the current cell: constant, to be
 * tested at run time, or the cell must be split first (cc->split). */
enum { CD_FALSE, CD_TRUE, CD_RESIDUAL, CD_SPLIT };

static int cx_decide(struct cbpf_cc *cc, const struct cx_cond *c)
{
	const struct cbpf_expr *ka, *kb;
	struct cx_cell *cell = &cc->cell;
	unsigned deps = c->a->deps | c->b->deps;
	uint32_t i;
	int d;

	if (c->a->kind == CBPF_X_CONST && c->b->kind == CBPF_X_CONST)
		return cx_cond_eval_values(c, c->a->imm, c->b->imm);
	if (c->a == c->b && c->op != CBPF_C_SET)
		return c->op != CBPF_C_GT;
	d = cx_decide_by_range(c);
	if (d >= 0)
		return d;
	if (deps == CBPF_DEP_NR) {
		if (!cx_nr_pieces(cc, c, cell->lo, cell->hi, &cc->split))
			return CD_RESIDUAL;
		if (cc->split.n == 1)
			return cc->split.truth[0];
		return CD_SPLIT;
	}
	if (deps == CBPF_DEP_ARCH && c->op == CBPF_C_EQ && !cell->arch_fixed) {
		ka = c->a->kind == CBPF_X_CONST ? c->a : NULL;
		kb = c->b->kind == CBPF_X_CONST ? c->b : NULL;
		if ((c->a == cc->arch_field && kb) || (c->b == cc->arch_field && ka)) {
			uint64_t k = (ka ? ka : kb)->imm;

			if (c->is32)
				k = (uint32_t)k;
			if (k > 0xffffffffull)
				return CD_FALSE;
			for (i = 0; i < cell->nexcl; i++)
				if (cell->excl[i] == k)
					return CD_FALSE;
			cc->split.arch = true;
			cc->split.arch_value = (uint32_t)k;
			return CD_SPLIT;
		}
	}
	return CD_RESIDUAL;
}

static void cx_normalize(const struct bpf_insn *in, struct cx_cond *c)
{
	unsigned op = BPF_OP(in->code);

	c->is32 = BPF_CLASS(in->code) == BPF_JMP32;
	c->sgn = op == BPF_JSGT || op == BPF_JSGE || op == BPF_JSLT || op == BPF_JSLE;
	c->neg = op == BPF_JNE || op == BPF_JLT || op == BPF_JLE || op == BPF_JSLT ||
		 op == BPF_JSLE;
	switch (op) {
	case BPF_JEQ:
	case BPF_JNE:
		c->op = CBPF_C_EQ;
		break;
	case BPF_JGT:
	case BPF_JLE:
	case BPF_JSGT:
	case BPF_JSLE:
		c->op = CBPF_C_GT;
		break;
	case BPF_JGE:
	case BPF_JLT:
	case BPF_JSGE:
	case BPF_JSLT:
		c->op = CBPF_C_GE;
		break;
	default:
		c->op = CBPF_C_SET;
		break;
	}
}

static int cx_run(struct cbpf_cc *cc, struct cx_state *st, struct cbpf_rnode **out,
		  unsigned depth);

static bool cx_jmp_op_known(unsigned op)
{
	switch (op) {
	case BPF_JEQ: case BPF_JNE: case BPF_JGT: case BPF_JGE: case BPF_JLT: case BPF_JLE:
	case BPF_JSGT: case BPF_JSGE: case BPF_JSLT: case BPF_JSLE: case BPF_JSET:
		return true;
	}
	return false;
}

static int cx_cond_jump(struct cbpf_cc *cc, struct cx_state *st, const struct bpf_insn *in,
			struct cbpf_rnode **out, unsigned depth)
{
	uint32_t target = st->pc + 1 + in->off;
	struct cx_val a = st->r[in->dst_reg], b;
	struct cbpf_rnode *t = NULL, *f = NULL;
	struct cx_state *fork;
	struct cx_cond c;
	int d, rc;

	if (!cx_jmp_op_known(BPF_OP(in->code)))
		return cx_reject(cc, st->pc, "unknown jump");
	if (BPF_SRC(in->code) == BPF_K) {
		b = cx_scalar(cx_const(cc, BPF_CLASS(in->code) == BPF_JMP32 ?
					   (uint32_t)in->imm : (uint64_t)(int64_t)in->imm));
		if (!b.e)
			return cx_nullexpr(cc);
	} else {
		b = st->r[in->src_reg];
	}
	if (a.kind == CV_UNINIT || b.kind == CV_UNINIT)
		return cx_reject(cc, st->pc, "compare of an uninitialized register");
	if (a.kind != CV_SCALAR || b.kind != CV_SCALAR)
		return CX_NOTIF;	/* pointer compares: the supervisor's */
	if (target >= cc->prog->insn_cnt)
		return cx_reject(cc, st->pc, "jump out of the program");
	cx_normalize(in, &c);
	c.a = a.e;
	c.b = b.e;
	/* Constants on the right, where cBPF's K operand takes them:
	 * k > x is !(x >= k), k >= x is !(x > k). */
	if (c.a->kind == CBPF_X_CONST && c.b->kind != CBPF_X_CONST) {
		c.a = b.e;
		c.b = a.e;
		if (c.op == CBPF_C_GT || c.op == CBPF_C_GE) {
			c.op = c.op == CBPF_C_GT ? CBPF_C_GE : CBPF_C_GT;
			c.neg = !c.neg;
		}
	}
	d = cx_decide(cc, &c);
	if (d == CD_SPLIT)
		return CX_SPLIT;
	if (d != CD_RESIDUAL) {
		st->pc = (d == CD_TRUE) != c.neg ? target : st->pc + 1;
		return CX_CONT;
	}
	if (++cc->cell_branches > CX_CELL_BRANCHES || depth >= CX_MAX_DEPTH)
		return CX_GIVEUP;
	fork = malloc(sizeof(*fork));
	if (!fork)
		return err_set(cc->err, ENOMEM, "out of memory");
	*fork = *st;
	fork->pc = target;
	rc = cx_run(cc, fork, &t, depth + 1);
	free(fork);
	if (rc != CX_DONE)
		return rc;
	st->pc++;
	rc = cx_run(cc, st, &f, depth + 1);
	if (rc != CX_DONE)
		return rc;
	/* t is where the eBPF condition holds (c.neg is applied there). */
	*out = cx_rnode_branch(cc, &c, t, f);
	if (!*out)
		return err_set(cc->err, ENOMEM, "out of memory");
	return CX_DONE;
}

static int cx_call(struct cbpf_cc *cc, struct cx_state *st, const struct bpf_insn *in)
{
	uint32_t target = st->pc + 1 + in->imm, i;

	if (in->src_reg != BPF_PSEUDO_CALL)
		return CX_NOTIF;	/* helpers and kfuncs: the supervisor's */
	if (target >= cc->prog->insn_cnt)
		return cx_reject(cc, st->pc, "call out of the program");
	if (st->depth + 1 >= CX_MAX_FRAMES)
		return cx_reject(cc, st->pc, "calls nested too deeply");
	st->frames[st->depth].ret_pc = st->pc + 1;
	for (i = 0; i < 4; i++) {
		st->frames[st->depth].saved[i] = st->r[6 + i];
		st->r[6 + i].kind = CV_UNINIT;
	}
	st->r[0].kind = CV_UNINIT;
	st->depth++;
	st->r[10] = (struct cx_val){ .kind = CV_STACK, .frame = (uint8_t)st->depth };
	st->pc = target;
	return CX_CONT;
}

static int cx_exit(struct cbpf_cc *cc, struct cx_state *st, struct cbpf_rnode **out)
{
	const struct cbpf_expr *e;
	uint32_t i;

	if (st->r[0].kind == CV_UNINIT)
		return cx_reject(cc, st->pc, "R0 is not initialized at exit");
	if (st->depth > 0) {
		for (i = 0; i < st->nslots;)
			if (st->slots[i].frame == st->depth)
				st->slots[i] = st->slots[--st->nslots];
			else
				i++;
		st->depth--;
		for (i = 1; i <= 5; i++)
			st->r[i].kind = CV_UNINIT;
		for (i = 0; i < 4; i++)
			st->r[6 + i] = st->frames[st->depth].saved[i];
		st->r[10] = (struct cx_val){ .kind = CV_STACK, .frame = (uint8_t)st->depth };
		st->pc = st->frames[st->depth].ret_pc;
		return CX_CONT;
	}
	if (st->r[0].kind != CV_SCALAR)
		return cx_reject(cc, st->pc, "R0 is a pointer at exit");
	e = cx_trunc(cc, st->r[0].e, 32);
	if (!e)
		return cx_nullexpr(cc);
	*out = cx_rnode_ret(cc, e);
	if (!*out)
		return err_set(cc->err, ENOMEM, "out of memory");
	return CX_DONE;
}

/* Explore from st until every path ends; *out is the residual tree. */
static int cx_run(struct cbpf_cc *cc, struct cx_state *st, struct cbpf_rnode **out,
		  unsigned depth)
{
	for (;;) {
		const struct bpf_insn *in;
		int rc;

		if (++cc->cell_steps > CX_CELL_STEPS || ++cc->steps > CX_TOTAL_STEPS)
			return CX_GIVEUP;
		if (st->pc >= cc->prog->insn_cnt)
			return cx_reject(cc, st->pc, "execution falls off the program");
		in = &cc->prog->insns[st->pc];
		switch (BPF_CLASS(in->code)) {
		case BPF_ALU:
		case BPF_ALU64:
			rc = cx_alu_insn(cc, st, in);
			st->pc++;
			break;
		case BPF_LDX:
			if (in->dst_reg >= 10)
				return cx_reject(cc, st->pc, "write to r10");
			rc = cx_ldx(cc, st, in);
			st->pc++;
			break;
		case BPF_ST:
		case BPF_STX:
			rc = cx_store(cc, st, in);
			st->pc++;
			break;
		case BPF_LD:
			rc = cx_ld_imm64(cc, st, in);
			break;
		case BPF_JMP:
		case BPF_JMP32:
			switch (BPF_OP(in->code)) {
			case BPF_JA:
				st->pc += 1 + (BPF_CLASS(in->code) == BPF_JMP32 ? in->imm : in->off);
				rc = CX_CONT;
				break;
			case BPF_CALL:
				rc = cx_call(cc, st, in);
				break;
			case BPF_EXIT:
				rc = cx_exit(cc, st, out);
				break;
			default:
				rc = cx_cond_jump(cc, st, in, out, depth);
				break;
			}
			break;
		default:
			return cx_reject(cc, st->pc, "unknown instruction class");
		}
		if (rc == CX_CONT)
			continue;
		if (rc == CX_NOTIF) {
			*out = cc->notif;
			return CX_DONE;
		}
		return rc;
	}
}

/* ---- the cells ---- */

static int cx_add_leaf(struct cbpf_cc *cc, const struct cx_cell *cell, struct cbpf_rnode *out)
{
	if (cc->nleaves == cc->leaves_cap) {
		uint32_t cap = cc->leaves_cap ? cc->leaves_cap * 2 : 256;
		struct cx_leaf *n = realloc(cc->leaves, cap * sizeof(*n));

		if (!n)
			return err_set(cc->err, ENOMEM, "out of memory");
		cc->leaves = n;
		cc->leaves_cap = cap;
	}
	cc->leaves[cc->nleaves].cell = *cell;
	cc->leaves[cc->nleaves].out = out;
	cc->nleaves++;
	return 0;
}

struct cx_work {
	struct cx_cell *v;
	uint32_t n, cap;
};

static int cx_push(struct cbpf_cc *cc, struct cx_work *w, const struct cx_cell *cell)
{
	if (w->n == w->cap) {
		uint32_t cap = w->cap ? w->cap * 2 : 256;
		struct cx_cell *n = realloc(w->v, cap * sizeof(*n));

		if (!n)
			return err_set(cc->err, ENOMEM, "out of memory");
		w->v = n;
		w->cap = cap;
	}
	w->v[w->n++] = *cell;
	return 0;
}

/* Explore one cell; on a split push the pieces instead. */
static int cx_explore_cell(struct cbpf_cc *cc, const struct cx_cell *cell, struct cx_work *w)
{
	struct cbpf_rnode *out = NULL;
	struct cx_state *st;
	int rc;
	uint32_t i;

	cc->cell = *cell;
	cc->cell_steps = 0;
	cc->cell_branches = 0;
	cc->too_big = false;
	st = calloc(1, sizeof(*st));
	if (!st)
		return err_set(cc->err, ENOMEM, "out of memory");
	st->r[1] = (struct cx_val){ .kind = CV_CTX };
	st->r[10] = (struct cx_val){ .kind = CV_STACK };
	rc = cx_run(cc, st, &out, 0);
	free(st);
	if (rc < 0)
		return rc;
	if (rc == CX_DONE)
		return cx_add_leaf(cc, cell, out);
	if (rc == CX_GIVEUP)
		return cx_add_leaf(cc, cell, cc->notif);
	/* CX_SPLIT: pieces pushed last-first so that they are explored in
	 * increasing nr order (only for readable output). */
	if (cc->split.arch) {
		struct cx_cell fixed = *cell, rest = *cell;
		uint32_t *excl = cx_alloc(&cc->arena, (cell->nexcl + 1) * sizeof(*excl));

		if (!excl)
			return err_set(cc->err, ENOMEM, "out of memory");
		if (cell->nexcl)
			memcpy(excl, cell->excl, cell->nexcl * sizeof(*excl));
		excl[cell->nexcl] = cc->split.arch_value;
		rest.excl = excl;
		rest.nexcl++;
		fixed.arch_fixed = true;
		fixed.arch = cc->split.arch_value;
		fixed.nexcl = 0;
		fixed.excl = NULL;
		rc = cx_push(cc, w, &rest);
		return rc ? rc : cx_push(cc, w, &fixed);
	}
	for (i = cc->split.n; i-- > 0;) {
		struct cx_cell piece = *cell;

		piece.lo = cc->split.start[i];
		piece.hi = i + 1 < cc->split.n ? cc->split.start[i + 1] - 1 : cell->hi;
		rc = cx_push(cc, w, &piece);
		if (rc)
			return rc;
	}
	return 0;
}

static bool cx_cell_has_arch(const struct cx_cell *c, bool other, uint32_t arch)
{
	uint32_t i;

	if (c->arch_fixed)
		return !other && c->arch == arch;
	for (i = 0; !other && i < c->nexcl; i++)
		if (c->excl[i] == arch)
			return false;
	return true;
}

static int cx_cmp_range(const void *x, const void *y)
{
	const struct cbpf_range *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Gather one arch class's cells into sorted, merged ranges covering all nr. */
static int cx_build_class(struct cbpf_cc *cc, struct cbpf_arch_class *cl)
{
	struct cbpf_range *r;
	uint32_t i, n = 0, m = 0;

	r = cx_alloc(&cc->arena, (cc->nleaves + 1) * sizeof(*r));
	if (!r)
		return err_set(cc->err, ENOMEM, "out of memory");
	for (i = 0; i < cc->nleaves; i++) {
		const struct cx_leaf *l = &cc->leaves[i];

		if (!cx_cell_has_arch(&l->cell, cl->other, cl->arch))
			continue;
		r[n].lo = l->cell.lo;
		r[n].hi = l->cell.hi;
		r[n].out = l->out;
		n++;
	}
	qsort(r, n, sizeof(*r), cx_cmp_range);
	for (i = 0; i < n; i++) {
		uint32_t expect = m ? r[m - 1].hi + 1 : 0;

		if (r[i].lo != expect || (m && r[m - 1].hi == UINT32_MAX))
			return err_set(cc->err, EFAULT,
				       "internal error: cells of arch 0x%x do not cover nr %u",
				       cl->arch, expect);
		if (m && r[m - 1].out == r[i].out)
			r[m - 1].hi = r[i].hi;
		else
			r[m++] = r[i];
	}
	if (!m || r[m - 1].hi != UINT32_MAX)
		return err_set(cc->err, EFAULT, "internal error: cells of arch 0x%x incomplete",
			       cl->arch);
	cl->ranges = r;
	cl->nranges = m;
	return 0;
}

static int cx_build_plan(struct cbpf_cc *cc, struct cbpf_plan *plan)
{
	uint32_t i, j, n = 0;
	int rc;

	plan->classes = cx_alloc(&cc->arena, (cc->nleaves + 1) * sizeof(*plan->classes));
	if (!plan->classes)
		return err_set(cc->err, ENOMEM, "out of memory");
	for (i = 0; i < cc->nleaves; i++) {
		const struct cx_cell *c = &cc->leaves[i].cell;

		if (!c->arch_fixed)
			continue;
		for (j = 0; j < n && plan->classes[j].arch != c->arch; j++)
			;
		if (j == n) {
			plan->classes[n].arch = c->arch;
			plan->classes[n].other = false;
			n++;
		}
	}
	plan->classes[n].other = true;
	plan->nclasses = n + 1;
	for (i = 0; i < plan->nclasses; i++) {
		rc = cx_build_class(cc, &plan->classes[i]);
		if (rc)
			return rc;
	}
	plan->notif = cc->notif;
	return 0;
}

int cbpf_compile(const struct object *obj, const struct object_prog *prog,
		 const struct cbpf_compile_opts *opts, struct cbpf_prog *out,
		 struct secbpf_err *err)
{
	struct cbpf_cc cc = { .obj = obj, .prog = prog, .err = err };
	struct cbpf_expr field = { .kind = CBPF_X_FIELD, .width = 32 };
	struct cbpf_rnode notif = { .kind = CBPF_R_NOTIF };
	struct cx_cell all = { .lo = 0, .hi = UINT32_MAX };
	struct cx_work w = { 0 };
	struct cbpf_plan plan = { 0 };
	uint32_t explored = 0;
	int rc = 0;

	if (!out)
		return err_set(err, EINVAL, "cbpf_compile: no output");
	memset(out, 0, sizeof(*out));
	if (!obj || !prog || !prog->insns || !prog->insn_cnt)
		return err_set(err, EINVAL, "cbpf_compile: no program");
	cc.nr_field = cx_intern(&cc, &field);
	field.imm = 4;
	cc.arch_field = cx_intern(&cc, &field);
	cc.notif = cx_rnode(&cc, &notif);
	if (!cc.nr_field || !cc.arch_field || !cc.notif) {
		rc = err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	rc = cx_push(&cc, &w, &all);
	while (!rc && w.n) {
		struct cx_cell cell = w.v[--w.n];

		/* Past the budgets the rest of the domain is supervised. */
		if (++explored > CX_MAX_CELLS || cc.steps > CX_TOTAL_STEPS)
			rc = cx_add_leaf(&cc, &cell, cc.notif);
		else
			rc = cx_explore_cell(&cc, &cell, &w);
	}
	if (!rc)
		rc = cx_build_plan(&cc, &plan);
	if (!rc)
		rc = cbpf_emit_plan(&plan, opts, out, err);
out:
	free(w.v);
	free(cc.leaves);
	free(cc.xtab);
	free(cc.rtab);
	cx_free_chunks(cc.arena);
	return rc < 0 ? rc : 0;
}

void cbpf_prog_free(struct cbpf_prog *p)
{
	if (!p)
		return;
	free(p->insns);
	p->insns = NULL;
	p->len = 0;
}
