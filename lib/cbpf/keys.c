// SPDX-License-Identifier: MIT
/*
 * Keys: a sub-expression of a residual with few possible values (a field
 * masked to a few bits, a byte, a shift count, which eBPF masks to 0..63).
 * A condition or a .rodata index with no cBPF lowering of its own is split
 * on its key: for each value the key may take, the rest folds to a
 * constant or to something that lowers, and a search tree on the key picks
 * the outcome. Exact by construction: every value the key can take is
 * tried, and the tree sends each to its own outcome.
 */
#include <errno.h>
#include <stdlib.h>

#include "cbpf/cbpf_internal.h"

#define KEY_MAX_VISIT 512 /* distinct nodes looked at for keys */
#define KEY_MAX_CANDIDATES 8
#define KEY_NESTED_MAX_VALUES 64 /* a key tried inside another key's split */
#define KEY_MAX_DEPTH 2
/* Conditions that lower to more instructions than this are split on a
 * key when one has few values (cbpf_key_branch). */
#define KEY_COSTLY_INSNS 24
/* A test that lowers (lower.c) is split on a key of more than
 * KEY_WIDE_SPLIT_VALUES values (a shift count has 64, a byte 256, a table
 * index 16) only while the split's code stays within KEY_WIDE_SPLIT_GROWTH
 * times the test's own: 256 copies of a test would crowd the 4096
 * instructions of a filter for a few saved on the path. */
#define KEY_WIDE_SPLIT_VALUES 4
#define KEY_WIDE_SPLIT_GROWTH 4

/*
 * Lowering lengths are asked for again and again (each key tried, each
 * value of a key, each cell that reaches the same test), and a trial
 * lowering walks the whole expression: they are remembered in s->costs,
 * by what was lowered. Expressions are hash-consed, so their pointers
 * name them.
 */
enum key_cost_of {
	KEY_COST_COND,	  /* the condition (op, a, b) */
	KEY_COST_EXPR,	  /* both words of a */
	KEY_COST_LO_WORD, /* the low word of a */
};

struct key_cost {
	struct hashtab_entry h; /* in cbpf_store.costs; first member */
	const struct cbpf_expr *a, *b;
	uint8_t of, op;
	bool sgn, is32;
	int32_t cost;
};

static uint32_t key_cost_hash(const struct key_cost *k)
{
	uint64_t h =
		k->of | (uint64_t)k->op << 8 | (uint64_t)k->sgn << 16 | (uint64_t)k->is32 << 17;

	h = hash_mix(h, (uintptr_t)k->a);
	return hash_mix(h, (uintptr_t)k->b);
}

/* The length of a trial lowering of what k names, -1 if it has none. */
static int key_cost_lower(struct cbpf_store *s, const struct key_cost *k)
{
	struct cbpf_rnode n = { .kind = CBPF_R_BRANCH,
				.op = k->op,
				.sgn = k->sgn,
				.is32 = k->is32,
				.a = k->a,
				.b = k->b };
	struct cbpf_asm m = { 0 };
	uint32_t lt, lf;
	int rc;

	switch (k->of) {
	case KEY_COST_COND:
		lt = cbpf_asm_label(&m);
		lf = cbpf_asm_label(&m);
		rc = cbpf_lower_cond(&m, &n, lt, lf);
		break;
	case KEY_COST_EXPR:
		rc = cbpf_lower_lo_word(&m, k->a, 0);
		if (!rc && !k->a->hi_zero)
			rc = cbpf_lower_hi_word(&m, k->a, 0);
		break;
	default:
		rc = k->a->kind == CBPF_X_CONST ? 0 : cbpf_lower_lo_word(&m, k->a, 0);
		break;
	}
	cbpf_store_work(s, 1 + (uint64_t)m.n);
	rc = rc || m.oom ? -1 : (int)m.n;
	cbpf_asm_free(&m);
	return rc;
}

/* key's cost, remembered (a failed allocation only forgets it). */
static int key_cost_get(struct cbpf_store *s, struct key_cost *key)
{
	struct hashtab_entry *he;
	struct key_cost *x;

	key->h.hash = key_cost_hash(key);
	for (he = hashtab_chain(&s->costs, key->h.hash); he; he = he->next) {
		x = (struct key_cost *)he;
		if (he->hash == key->h.hash && x->of == key->of && x->op == key->op &&
		    x->sgn == key->sgn && x->is32 == key->is32 && x->a == key->a && x->b == key->b)
			return x->cost;
	}
	key->cost = key_cost_lower(s, key);
	x = arena_alloc(&s->arena, sizeof(*x));
	if (x) {
		*x = *key;
		(void)hashtab_insert(&s->costs, &x->h);
	}
	return key->cost;
}

/* The length of e's cBPF lowering (both words), -1 if it has none. */
static int expr_cost(struct cbpf_store *s, const struct cbpf_expr *e)
{
	struct key_cost k = { .of = KEY_COST_EXPR, .a = e };

	return key_cost_get(s, &k);
}

static bool expr_lowers(struct cbpf_store *s, const struct cbpf_expr *e)
{
	return expr_cost(s, e) >= 0;
}

/* Whether v's low word lowers (a constant always does). */
static bool lo_word_lowers(struct cbpf_store *s, const struct cbpf_expr *v)
{
	struct key_cost k = { .of = KEY_COST_LO_WORD, .a = v };

	return key_cost_get(s, &k) >= 0;
}

/* The length of the condition c's cBPF lowering, -1 if it has none. */
static int cond_cost(struct cbpf_store *s, const struct cbpf_cond *c)
{
	struct key_cost k = { .of = KEY_COST_COND,
			      .op = c->op,
			      .sgn = c->sgn,
			      .is32 = c->is32,
			      .a = c->a,
			      .b = c->b };

	return key_cost_get(s, &k);
}

/* An upper bound of e's value from its shape (the whole range if none). */
static uint64_t key_umax(const struct cbpf_expr *e)
{
	uint64_t a;

	switch (e->kind) {
	case CBPF_X_CONST:
		return e->imm;
	case CBPF_X_FIELD:
	case CBPF_X_TRUNC:
		return cbpf_width_mask(e->width);
	case CBPF_X_ALU:
		if (e->b->kind != CBPF_X_CONST)
			break;
		a = key_umax(e->a);
		if (e->is32)
			a = a > 0xffffffffull ? 0xffffffffull : a;
		if (e->op == BPF_AND)
			return a < e->b->imm ? a : e->b->imm;
		if (e->op == BPF_RSH)
			return a >> e->b->imm;
		break;
	}
	return e->hi_zero ? 0xffffffffull : ~0ull;
}

static bool is_shift(const struct cbpf_expr *e)
{
	return e->kind == CBPF_X_ALU && (e->op == BPF_LSH || e->op == BPF_RSH || e->op == BPF_ARSH);
}

/* The values of the key: a's submasks, or 0..max. */
static void key_fill_values(struct cbpf_key *k, uint64_t mask, uint64_t max, bool by_mask)
{
	uint64_t v = 0;

	k->n = 0;
	if (!by_mask) {
		for (v = 0; v <= max; v++)
			k->vals[k->n++] = v;
		return;
	}
	/* Submasks of mask in increasing order. */
	do {
		k->vals[k->n++] = v;
		v = (v - mask) & mask;
	} while (v);
}

/* Record node e as a key candidate if its values are few. */
static void key_consider(struct cbpf_store *s, const struct cbpf_expr *e, struct cbpf_key *out,
			 uint32_t *n, uint32_t max_values)
{
	struct cbpf_key k = { .node = e, .key = e };
	uint64_t umax, mask = 0;
	bool by_mask = false;
	unsigned count;

	if (*n >= KEY_MAX_CANDIDATES || e->kind == CBPF_X_CONST || !e->deps)
		return;
	if (is_shift(e) && e->b->kind != CBPF_X_CONST) {
		k.node = NULL;
		k.shift_count = e->b;
		k.key = cbpf_expr_alu(s, BPF_AND, false, false, e->b, cbpf_expr_const(s, 63));
		if (!k.key || max_values < 64)
			return;
		key_fill_values(&k, 0, 63, false);
	} else {
		umax = key_umax(e);
		if (e->kind == CBPF_X_ALU && e->op == BPF_AND && e->b->kind == CBPF_X_CONST) {
			mask = e->b->imm & (e->is32 ? 0xffffffffull : ~0ull);
			count = (unsigned)__builtin_popcountll(mask);
			by_mask = count <= 8 && (1ull << count) <= max_values &&
				  (umax >= max_values || (1ull << count) < umax + 1);
		}
		if (!by_mask && umax >= max_values)
			return;
		key_fill_values(&k, mask, umax, by_mask);
	}
	for (count = 0; count < *n; count++)
		if (out[count].key == k.key)
			return;
	if (!expr_lowers(s, k.key))
		return;
	out[(*n)++] = k;
}

/* The nodes looked at, as an open-addressed set of pointers (twice
 * KEY_MAX_VISIT slots: never full). */
#define KEY_WALK_SLOTS (2 * KEY_MAX_VISIT)

struct key_walk {
	const struct cbpf_expr *seen[KEY_WALK_SLOTS];
	uint32_t nseen;
};

/* Adds e to w; false when it was there already or w is full. */
static bool key_walk_add(struct key_walk *w, const struct cbpf_expr *e)
{
	uint32_t i = (uint32_t)(((uintptr_t)e >> 4) * 0x9e3779b1u) & (KEY_WALK_SLOTS - 1);

	while (w->seen[i]) {
		if (w->seen[i] == e)
			return false;
		i = (i + 1) & (KEY_WALK_SLOTS - 1);
	}
	if (w->nseen == KEY_MAX_VISIT)
		return false;
	w->seen[i] = e;
	w->nseen++;
	return true;
}

static void key_collect(struct cbpf_store *s, struct key_walk *w, const struct cbpf_expr *e,
			struct cbpf_key *out, uint32_t *n, uint32_t max_values)
{
	if (!e || e->kind == CBPF_X_CONST || e->kind == CBPF_X_FIELD)
		return;
	if (!key_walk_add(w, e))
		return;
	key_consider(s, e, out, n, max_values);
	key_collect(s, w, e->a, out, n, max_values);
	key_collect(s, w, e->b, out, n, max_values);
}

static int cmp_key_size(const void *x, const void *y)
{
	const struct cbpf_key *a = x, *b = y;

	return a->n < b->n ? -1 : a->n > b->n;
}

uint32_t cbpf_keys_find(struct cbpf_store *s, const struct cbpf_expr *a, const struct cbpf_expr *b,
			uint32_t max_values, struct cbpf_key *out)
{
	struct key_walk *w = calloc(1, sizeof(*w));
	uint32_t n = 0;

	if (!w)
		return 0;
	/* A field itself is a key when it is narrow (nr's bytes, say). */
	if (a && a->kind == CBPF_X_FIELD)
		key_consider(s, a, out, &n, max_values);
	if (b && b->kind == CBPF_X_FIELD)
		key_consider(s, b, out, &n, max_values);
	key_collect(s, w, a, out, &n, max_values);
	key_collect(s, w, b, out, &n, max_values);
	cbpf_store_work(s, 1 + w->nseen);
	free(w);
	qsort(out, n, sizeof(*out), cmp_key_size);
	return n;
}

const struct cbpf_expr *cbpf_key_subst(struct cbpf_store *s, const struct cbpf_key *k,
				       const struct cbpf_expr *e, uint64_t v)
{
	if (!e)
		return NULL;
	if (e == k->node)
		return cbpf_expr_const(s, v);
	switch (e->kind) {
	case CBPF_X_CONST:
	case CBPF_X_FIELD:
		return e;
	case CBPF_X_ALU:
		/* A shift by the key's count: eBPF masks the count, so on
		 * count & 63 == v it shifts by v (v & 31 when 32-bit). */
		if (k->shift_count && is_shift(e) && e->b == k->shift_count)
			return cbpf_expr_alu(s, e->op, e->is32, e->sgn,
					     cbpf_key_subst(s, k, e->a, v), cbpf_expr_const(s, v));
		return cbpf_expr_alu(s, e->op, e->is32, e->sgn, cbpf_key_subst(s, k, e->a, v),
				     cbpf_key_subst(s, k, e->b, v));
	case CBPF_X_TRUNC:
		return cbpf_expr_trunc(s, cbpf_key_subst(s, k, e->a, v), e->width);
	case CBPF_X_TABLE:
		return cbpf_expr_table(s, (const struct cbpf_table *)(uintptr_t)e->imm,
				       cbpf_key_subst(s, k, e->a, v));
	default:
		return cbpf_expr_unary(s, e->kind, e->is32, e->width,
				       cbpf_key_subst(s, k, e->a, v));
	}
}

/* The search tree over runs [lo, hi) of k's values (leaf[i] for vals[i]). */
static struct cbpf_rnode *key_tree(struct cbpf_store *s, const struct cbpf_key *k,
				   struct cbpf_rnode **leaf, const uint32_t *run, uint32_t lo,
				   uint32_t hi)
{
	struct cbpf_rnode n = { .kind = CBPF_R_BRANCH, .op = CBPF_C_GT, .a = k->key };
	uint32_t mid;

	if (hi - lo == 1)
		return leaf[run[lo]];
	mid = lo + (hi - lo) / 2;
	/* key > the last value of the runs on the left */
	n.b = cbpf_expr_const(s, k->vals[run[mid] - 1]);
	n.t = key_tree(s, k, leaf, run, mid, hi);
	n.f = key_tree(s, k, leaf, run, lo, mid);
	if (!n.b || !n.t || !n.f)
		return NULL;
	return n.t == n.f ? n.t : cbpf_rnode_intern(s, &n);
}

struct cbpf_rnode *cbpf_key_dispatch(struct cbpf_store *s, const struct cbpf_key *k,
				     struct cbpf_rnode **leaf)
{
	uint32_t *run = malloc((k->n + 1) * sizeof(*run)), nrun = 0, i;
	struct cbpf_rnode *r;

	if (!run) {
		s->oom = true;
		return NULL;
	}
	/* run[j]: the first value of run j; equal neighbours share a run. */
	for (i = 0; i < k->n; i++)
		if (i == 0 || leaf[i] != leaf[i - 1])
			run[nrun++] = i;
	r = key_tree(s, k, leaf, run, 0, nrun);
	free(run);
	return r;
}

static struct cbpf_rnode *key_branch(struct cbpf_store *s, const struct cbpf_cond *c,
				     struct cbpf_rnode *t, struct cbpf_rnode *f, unsigned depth,
				     uint32_t insn);

/* The code of leaf r of a split, roughly: the lowering of its own test
 * (t and f, and returns, cost none; a test with no lowering counts as a
 * costly one). */
static uint64_t key_leaf_size(struct cbpf_store *s, const struct cbpf_rnode *r,
			      const struct cbpf_rnode *t, const struct cbpf_rnode *f)
{
	struct cbpf_cond leaf;
	int cost;

	if (r == t || r == f || r->kind != CBPF_R_BRANCH)
		return 0;
	leaf = (struct cbpf_cond){
		.op = r->op, .sgn = r->sgn, .is32 = r->is32, .a = r->a, .b = r->b
	};
	cost = cond_cost(s, &leaf);
	return cost < 0 ? KEY_COSTLY_INSNS : (uint64_t)cost;
}

/*
 * c split on key k; NULL if some value leaves a condition that does not
 * lower, if the split's code would exceed max_size (or memory or the work
 * budget ran out). The split's code is estimated as it grows, so that a
 * split too long for its worth stops at the first values that show it,
 * not after all 256: a compare (2 instructions) between neighbouring runs
 * of equal leaves and each run's leaf (key_leaf_size).
 */
static struct cbpf_rnode *key_split_cond(struct cbpf_store *s, const struct cbpf_cond *c,
					 const struct cbpf_key *k, struct cbpf_rnode *t,
					 struct cbpf_rnode *f, unsigned depth, uint32_t insn,
					 uint64_t max_size)
{
	struct cbpf_rnode **leaf = calloc(k->n, sizeof(*leaf)), *r = NULL;
	uint64_t size = 0;
	uint32_t i;

	if (!leaf) {
		s->oom = true;
		return NULL;
	}
	for (i = 0; i < k->n; i++) {
		struct cbpf_cond ci = *c;

		ci.a = cbpf_key_subst(s, k, c->a, k->vals[i]);
		ci.b = cbpf_key_subst(s, k, c->b, k->vals[i]);
		if (!ci.a || !ci.b)
			goto out;
		if (ci.a->kind == CBPF_X_CONST && ci.b->kind == CBPF_X_CONST)
			leaf[i] = cbpf_cond_holds_for(&ci, ci.a->imm, ci.b->imm) != c->neg ? t : f;
		else
			leaf[i] = key_branch(s, &ci, t, f, depth + 1, insn);
		if (!leaf[i])
			goto out;
		if (i && leaf[i] == leaf[i - 1])
			continue;
		size += (i ? 2 : 0) + key_leaf_size(s, leaf[i], t, f);
		if (size > max_size)
			goto out;
	}
	r = cbpf_key_dispatch(s, k, leaf);
out:
	free(leaf);
	return r;
}

/* The branch on c, split on a key if c does not lower; NULL if no key
 * makes it lower. */
static struct cbpf_rnode *key_branch(struct cbpf_store *s, const struct cbpf_cond *c,
				     struct cbpf_rnode *t, struct cbpf_rnode *f, unsigned depth,
				     uint32_t insn)
{
	struct cbpf_rnode n = { .kind = CBPF_R_BRANCH,
				.op = c->op,
				.sgn = c->sgn,
				.is32 = c->is32,
				.a = c->a,
				.b = c->b,
				.insn = insn };
	struct cbpf_key *keys;
	uint32_t nk, i;
	struct cbpf_rnode *r = NULL;
	int cost;

	if (t == f)
		return t;
	cost = cond_cost(s, c);
	/* A long lowering (a 64-bit product or quotient) is split on a key
	 * of few values when there is one: the search is a shorter path. */
	if (cost >= 0 && (cost <= KEY_COSTLY_INSNS || depth)) {
		n.t = c->neg ? f : t;
		n.f = c->neg ? t : f;
		return cbpf_rnode_intern(s, &n);
	}
	if (depth >= KEY_MAX_DEPTH)
		return NULL;
	keys = calloc(KEY_MAX_CANDIDATES, sizeof(*keys));
	if (!keys) {
		s->oom = true;
		return NULL;
	}
	nk = cbpf_keys_find(s, c->a, c->b, depth ? KEY_NESTED_MAX_VALUES : CBPF_KEY_MAX_VALUES,
			    keys);
	for (i = 0; i < nk && !r && !s->oom && !s->out_of_work; i++) {
		uint64_t max_size = UINT64_MAX;

		/* splitting a costly test on a costly key gains nothing */
		if (cost >= 0 && expr_cost(s, keys[i].key) > KEY_COSTLY_INSNS)
			continue;
		if (cost >= 0 && keys[i].n > KEY_WIDE_SPLIT_VALUES)
			max_size = KEY_WIDE_SPLIT_GROWTH * (uint64_t)cost;
		r = key_split_cond(s, c, &keys[i], t, f, depth, insn, max_size);
	}
	free(keys);
	if (!r && !s->oom && !s->out_of_work && cost >= 0) {
		s->too_big = false;
		n.t = c->neg ? f : t;
		n.f = c->neg ? t : f;
		return cbpf_rnode_intern(s, &n);
	}
	return r;
}

/* Whether c is "(x + C) op K" with constants C and K (x not constant), of
 * a width offset_branch() can rewrite: a 32-bit sum only in a 32-bit
 * compare, where its zero-extension does not matter. */
static bool offset_form(const struct cbpf_cond *c)
{
	const struct cbpf_expr *a = c->a;

	return c->op != CBPF_C_SET && c->b->kind == CBPF_X_CONST && a->kind == CBPF_X_ALU &&
	       (a->op == BPF_ADD || a->op == BPF_SUB) && a->b->kind == CBPF_X_CONST &&
	       a->a->kind != CBPF_X_CONST && (c->is32 || !a->is32);
}

/*
 * "(x + C) op K" as a range test of x. The sum wraps modulo 2^w (w the
 * compare's width), so the x for which it holds form one interval of x
 * modulo 2^w: one or two compares of x itself. clang writes such sums
 * for "a < 38 || a == 39 || a > 40"; tested as written, the 64-bit sum of
 * an argument needs a carry between its words. A signed order is the
 * unsigned one with the sign bit flipped, which moves into C and K.
 * NULL when out of memory.
 */
static struct cbpf_rnode *offset_branch(struct cbpf_store *s, const struct cbpf_cond *c,
					struct cbpf_rnode *t, struct cbpf_rnode *f, uint32_t insn)
{
	const uint64_t mask = c->is32 ? 0xffffffffull : ~0ull;
	const struct cbpf_expr *a = c->a, *lo_e, *hi_e;
	struct cbpf_rnode *yes = c->neg ? f : t, *no = c->neg ? t : f, *r;
	uint64_t off = (a->op == BPF_ADD ? a->b->imm : 0 - a->b->imm) & mask;
	uint64_t k = c->b->imm & mask, lo, hi;
	struct cbpf_cond x_ge = { .op = CBPF_C_GE, .is32 = c->is32, .a = a->a };
	struct cbpf_cond x_gt = { .op = CBPF_C_GT, .is32 = c->is32, .a = a->a };

	if (c->op == CBPF_C_EQ) {
		/* x + C == K exactly where x == K - C */
		struct cbpf_cond x_eq = { .op = CBPF_C_EQ, .is32 = c->is32, .a = a->a };

		x_eq.b = cbpf_expr_const(s, (k - off) & mask);
		return x_eq.b ? cbpf_key_branch(s, &x_eq, yes, no, insn) : NULL;
	}
	if (c->sgn) {
		uint64_t sign = (mask >> 1) + 1;

		off = (off + sign) & mask;
		k ^= sign;
	}
	if (c->op == CBPF_C_GT) {
		if (k == mask)
			return no; /* nothing is above the top */
		k++;	/* y > K is y >= K + 1 */
	}
	if (k == 0)
		return yes;
	/* The sum is in [k, mask]: x in [lo, hi] modulo 2^w. */
	lo = (k - off) & mask;
	hi = (mask - off) & mask;
	lo_e = cbpf_expr_const(s, lo);
	hi_e = cbpf_expr_const(s, hi);
	if (!lo_e || !hi_e)
		return NULL;
	x_ge.b = lo_e;
	x_gt.b = hi_e;
	if (lo <= hi) {
		/* x >= lo && !(x > hi) */
		r = hi == mask ? yes : cbpf_key_branch(s, &x_gt, no, yes, insn);
		return !r || lo == 0 ? r : cbpf_key_branch(s, &x_ge, r, no, insn);
	}
	/* wrapped: x >= lo || !(x > hi) */
	r = cbpf_key_branch(s, &x_gt, no, yes, insn);
	return r ? cbpf_key_branch(s, &x_ge, yes, r, insn) : NULL;
}

struct cbpf_rnode *cbpf_key_branch(struct cbpf_store *s, const struct cbpf_cond *c,
				   struct cbpf_rnode *t, struct cbpf_rnode *f, uint32_t insn)
{
	struct cbpf_rnode n = { .kind = CBPF_R_BRANCH,
				.op = c->op,
				.sgn = c->sgn,
				.is32 = c->is32,
				.a = c->a,
				.b = c->b,
				.insn = insn };
	struct cbpf_rnode *r;

	if (t == f)
		return t;
	if (offset_form(c))
		return offset_branch(s, c, t, f, insn);
	r = key_branch(s, c, t, f, 0, insn);
	if (r || s->oom)
		return r;
	s->too_big = false;
	/* No key helps: the plain branch, which the layout supervises. */
	n.t = c->neg ? f : t;
	n.f = c->neg ? t : f;
	return cbpf_rnode_intern(s, &n);
}

/* A return of v, split on a key while v's low word does not lower. */
static struct cbpf_rnode *key_ret(struct cbpf_store *s, const struct cbpf_expr *v, unsigned depth,
				  uint32_t insn)
{
	struct cbpf_rnode n = { .kind = CBPF_R_RET, .ret = v, .insn = insn };
	struct cbpf_rnode **leaf = NULL, *r = NULL;
	struct cbpf_key *keys;
	uint32_t nk, i, j;

	if (lo_word_lowers(s, v))
		return cbpf_rnode_intern(s, &n);
	if (depth >= KEY_MAX_DEPTH)
		return NULL;
	keys = calloc(KEY_MAX_CANDIDATES, sizeof(*keys));
	leaf = calloc(CBPF_KEY_MAX_VALUES, sizeof(*leaf));
	if (!keys || !leaf) {
		s->oom = true;
		goto out;
	}
	nk = cbpf_keys_find(s, v, NULL, depth ? KEY_NESTED_MAX_VALUES : CBPF_KEY_MAX_VALUES, keys);
	for (i = 0; i < nk && !r && !s->oom && !s->out_of_work; i++) {
		for (j = 0; j < keys[i].n; j++) {
			const struct cbpf_expr *vi =
				cbpf_key_subst(s, &keys[i], v, keys[i].vals[j]);

			leaf[j] =
				vi ? key_ret(s, cbpf_expr_trunc(s, vi, 32), depth + 1, insn) : NULL;
			if (!leaf[j])
				break;
		}
		if (j == keys[i].n)
			r = cbpf_key_dispatch(s, &keys[i], leaf);
	}
out:
	free(leaf);
	free(keys);
	return r;
}

struct cbpf_rnode *cbpf_key_ret(struct cbpf_store *s, const struct cbpf_expr *v, uint32_t insn)
{
	struct cbpf_rnode n = { .kind = CBPF_R_RET, .ret = v, .insn = insn };
	struct cbpf_rnode *r;

	if (!v)
		return NULL;
	r = key_ret(s, v, 0, insn);
	if (r || s->oom)
		return r;
	s->too_big = false;
	/* No key helps: the plain return, which the layout supervises. */
	return cbpf_rnode_intern(s, &n);
}
