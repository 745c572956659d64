// SPDX-License-Identifier: MIT
/*
 * Residual trees as tests of 32-bit words: each 64-bit condition becomes
 * word tests, decided away where what the path already proved settles
 * them; word tests are hash-consed and lowering is memoized on (residual,
 * knowledge). words_emit.c emits them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf_internal.h"

#define WORD_SIGN 0x80000000u

void cbpf_words_free(struct cbpf_words *w)
{
	arena_free(&w->arena);
	hashtab_free(&w->nodes);
	hashtab_free(&w->memo);
	cbpf_postorder_free(&w->order);
	memset(w, 0, sizeof(*w));
}

/* The canonical word test equal to t (copied on first sight); NULL when
 * out of memory (w->oom). */
static struct cbpf_word_node *words_intern(struct cbpf_words *w, const struct cbpf_word_node *t)
{
	uint64_t h0 = t->kind | (uint64_t)t->op << 8 | (uint64_t)t->hi << 16 |
		      (uint64_t)t->bx << 17 | (uint64_t)t->bhi << 18 | (uint64_t)t->flip << 32;
	uint32_t h = hash_mix(h0, t->k);
	struct hashtab_entry *he;
	struct cbpf_word_node *x;

	h = hash_mix(h, (uintptr_t)t->a);
	h = hash_mix(h, (uintptr_t)t->b);
	h = hash_mix(h, (uintptr_t)t->t);
	h = hash_mix(h, (uintptr_t)t->f);
	for (he = hashtab_chain(&w->nodes, h); he; he = he->next) {
		x = (struct cbpf_word_node *)he;
		if (he->hash == h && x->kind == t->kind && x->op == t->op && x->hi == t->hi &&
		    x->bx == t->bx && x->bhi == t->bhi && x->flip == t->flip && x->k == t->k &&
		    x->a == t->a && x->b == t->b && x->t == t->t && x->f == t->f)
			return x;
	}
	x = arena_alloc(&w->arena, sizeof(*x));
	if (!x) {
		w->oom = true;
		return NULL;
	}
	x->kind = t->kind;
	x->op = t->op;
	x->hi = t->hi;
	x->bx = t->bx;
	x->bhi = t->bhi;
	x->flip = t->flip;
	x->k = t->k;
	x->a = t->a;
	x->b = t->b;
	x->t = t->t;
	x->f = t->f;
	x->h.hash = h;
	if (hashtab_insert(&w->nodes, &x->h)) {
		w->oom = true;
		return NULL;
	}
	return x;
}

static struct cbpf_word_node *words_ret(struct cbpf_words *w, uint32_t k)
{
	struct cbpf_word_node t = { .kind = CBPF_W_RET, .k = k };

	return words_intern(w, &t);
}

/* ---- interval sets ---- */

static void set_one(struct cbpf_word_set *s, uint32_t lo, uint32_t hi)
{
	s->n = 1;
	s->iv[0].lo = lo;
	s->iv[0].hi = hi;
}

/* r = x & y, over-approximated to CBPF_WORD_IV_MAX intervals by closing the
 * smallest gaps (a superset of the values stays sound). y has at most
 * three intervals. */
static void set_intersect(const struct cbpf_word_set *x, const struct cbpf_word_set *y,
			  struct cbpf_word_set *r)
{
	struct cbpf_word_iv v[2 * CBPF_WORD_IV_MAX + 4];
	uint32_t n = 0, i = 0, j = 0;

	while (i < x->n && j < y->n) {
		uint32_t lo = x->iv[i].lo > y->iv[j].lo ? x->iv[i].lo : y->iv[j].lo;
		uint32_t hi = x->iv[i].hi < y->iv[j].hi ? x->iv[i].hi : y->iv[j].hi;

		if (lo <= hi) {
			v[n].lo = lo;
			v[n++].hi = hi;
		}
		if (x->iv[i].hi < y->iv[j].hi)
			i++;
		else
			j++;
	}
	while (n > CBPF_WORD_IV_MAX) {
		uint32_t best = 0, k;

		for (k = 1; k + 1 < n; k++)
			if (v[k + 1].lo - v[k].hi < v[best + 1].lo - v[best].hi)
				best = k;
		v[best].hi = v[best + 1].hi;
		memmove(&v[best + 1], &v[best + 2], (n - best - 2) * sizeof(v[0]));
		n--;
	}
	r->n = n;
	memcpy(r->iv, v, n * sizeof(v[0]));
}

/* r = the complement of x (x has at most two intervals). */
static void set_complement(const struct cbpf_word_set *x, struct cbpf_word_set *r)
{
	uint32_t next = 0, i;		/* the first value not yet covered */
	bool done = false;

	r->n = 0;
	for (i = 0; i < x->n && !done; i++) {
		if (x->iv[i].lo > next) {
			r->iv[r->n].lo = next;
			r->iv[r->n++].hi = x->iv[i].lo - 1;
		}
		if (x->iv[i].hi == UINT32_MAX)
			done = true;
		else
			next = x->iv[i].hi + 1;
	}
	if (!done) {
		r->iv[r->n].lo = next;
		r->iv[r->n++].hi = UINT32_MAX;
	}
}

/* The words v for which (v ^ flip) op k holds (op EQ, GT or GE; flip is
 * 0 or the sign bit, and 0 for EQ; k is in the flipped order). */
static void set_of_test(unsigned op, uint32_t flip, uint32_t k, struct cbpf_word_set *r)
{
	uint32_t lo;

	if (op == CBPF_C_EQ) {
		set_one(r, k, k);
		return;
	}
	if (op == CBPF_C_GT) {
		if (k == UINT32_MAX) {
			r->n = 0;
			return;
		}
		lo = k + 1;
	} else {
		lo = k;
	}
	/* [lo, max] in the flipped order, back in unsigned order */
	if (!flip || lo >= WORD_SIGN) {
		set_one(r, lo ^ flip, UINT32_MAX ^ flip);
		return;
	}
	r->n = 2;
	r->iv[0].lo = 0;
	r->iv[0].hi = WORD_SIGN - 1;
	r->iv[1].lo = lo | WORD_SIGN;
	r->iv[1].hi = UINT32_MAX;
}

/* v & k != 0 for every v in s: 1; for none: 0; else -1. */
static int set_decide_and(const struct cbpf_word_set *s, uint32_t k)
{
	if (!s->n)
		return -1;
	if (s->n == 1 && s->iv[0].lo == s->iv[0].hi)
		return (s->iv[0].lo & k) != 0;
	/* every v < the lowest bit of k has no bit of k */
	if (!k || s->iv[s->n - 1].hi < (k & (0u - k)))
		return 0;
	return -1;
}

/* ---- knowledge ---- */

static uint64_t word_bloom_bit(const struct cbpf_expr *e, bool hi)
{
	uint64_t h = ((uint64_t)(uintptr_t)e ^ hi) * 0x9e3779b97f4a7c15ull;

	return 1ull << (h >> 58);
}

static int word_order(const struct cbpf_expr *e1, bool h1, const struct cbpf_expr *e2, bool h2)
{
	if (e1 != e2)
		return (uintptr_t)e1 < (uintptr_t)e2 ? -1 : 1;
	return (int)h1 - (int)h2;
}

/* The values word (e, hi) may hold on this path. */
static void knowledge_get(const struct cbpf_words *w, const struct cbpf_word_knowledge *kc,
			  const struct cbpf_expr *e, bool hi, struct cbpf_word_set *s)
{
	uint32_t i;

	if (e->kind == CBPF_X_CONST) {
		uint32_t v = hi ? (uint32_t)(e->imm >> 32) : (uint32_t)e->imm;

		set_one(s, v, v);
		return;
	}
	if (hi && e->hi_zero) {
		set_one(s, 0, 0);
		return;
	}
	set_one(s, 0, UINT32_MAX);
	if (!hi && e->kind == CBPF_X_FIELD && e->width < 32)
		s->iv[0].hi = (uint32_t)((1ull << e->width) - 1);
	if (!w->knowledge)
		return;
	for (i = 0; i < kc->n; i++)
		if (kc->k[i].e == e && kc->k[i].hi == hi) {
			set_intersect(&kc->k[i].s, s, s);
			return;
		}
}

static void knowledge_set(struct cbpf_word_knowledge *kc, const struct cbpf_expr *e, bool hi,
			  const struct cbpf_word_set *s)
{
	uint32_t i;

	if (e->kind == CBPF_X_CONST || (hi && e->hi_zero))
		return;
	for (i = 0; i < kc->n; i++) {
		int c = word_order(kc->k[i].e, kc->k[i].hi, e, hi);

		if (c == 0) {
			kc->k[i].s = *s;
			return;
		}
		if (c > 0)
			break;
	}
	if (kc->n == CBPF_WORD_KNOWN_MAX)
		return;		/* forgetting is sound */
	memmove(&kc->k[i + 1], &kc->k[i], (kc->n - i) * sizeof(kc->k[0]));
	kc->k[i].e = e;
	kc->k[i].hi = hi;
	kc->k[i].s = *s;
	kc->n++;
}

static uint32_t knowledge_hash(const struct cbpf_rnode *n, const struct cbpf_word_knowledge *kc)
{
	uint32_t h = hash_mix((uintptr_t)n, kc->n), i, j;

	for (i = 0; i < kc->n; i++) {
		h = hash_mix(h, (uintptr_t)kc->k[i].e << 1 | kc->k[i].hi);
		for (j = 0; j < kc->k[i].s.n; j++)
			h = hash_mix(h, (uint64_t)kc->k[i].s.iv[j].lo << 32 | kc->k[i].s.iv[j].hi);
	}
	return h;
}

static bool knowledge_same(const struct cbpf_word_knowledge *x, const struct cbpf_word_knowledge *y)
{
	uint32_t i;

	if (x->n != y->n)
		return false;
	for (i = 0; i < x->n; i++)
		if (x->k[i].e != y->k[i].e || x->k[i].hi != y->k[i].hi ||
		    x->k[i].s.n != y->k[i].s.n ||
		    memcmp(x->k[i].s.iv, y->k[i].s.iv, x->k[i].s.n * sizeof(struct cbpf_word_iv)))
			return false;
	return true;
}

/* ---- lowering ---- */

#define STEP_TRUE (-1)
#define STEP_FALSE (-2)

/* One word test of a lowered condition; t and f are steps or STEP_TRUE/STEP_FALSE. */
struct word_step {
	uint8_t op;
	bool hi;
	uint32_t flip;
	int t, f;
};

/* The word tests of n's condition, as cbpf_lower_cond() emits them. */
static void condition_steps(const struct cbpf_rnode *n, struct word_step *s)
{
	const struct cbpf_expr *a = n->a, *b = n->b;
	bool sgn = n->sgn && n->op != CBPF_C_EQ && n->op != CBPF_C_SET;

	if (n->is32 || (a->hi_zero && b->hi_zero) ||
	    (n->op == CBPF_C_SET && b->kind == CBPF_X_CONST && !(b->imm >> 32))) {
		s[0] = (struct word_step){ n->op, false, n->is32 && sgn ? WORD_SIGN : 0, STEP_TRUE,
					   STEP_FALSE };
		return;
	}
	switch (n->op) {
	case CBPF_C_EQ:
		s[0] = (struct word_step){ CBPF_C_EQ, true, 0, 1, STEP_FALSE };
		s[1] = (struct word_step){ CBPF_C_EQ, false, 0, STEP_TRUE, STEP_FALSE };
		break;
	case CBPF_C_SET:
		s[0] = (struct word_step){ CBPF_C_SET, true, 0, STEP_TRUE, 1 };
		s[1] = (struct word_step){ CBPF_C_SET, false, 0, STEP_TRUE, STEP_FALSE };
		break;
	default:
		/* hi(a) > hi(b) (signed if sgn): true; equal: the low words decide,
		 * unsigned; else false. */
		s[0] = (struct word_step){ CBPF_C_GT, true, sgn ? WORD_SIGN : 0, STEP_TRUE, 1 };
		s[1] = (struct word_step){ CBPF_C_EQ, true, 0, 2, STEP_FALSE };
		s[2] = (struct word_step){ n->op, false, 0, STEP_TRUE, STEP_FALSE };
		break;
	}
}

static struct cbpf_word_node *words_lower_steps(struct cbpf_layout *c, struct cbpf_rnode *n,
						const struct word_step *st, int i,
						const struct cbpf_word_knowledge *kc)
{
	const struct word_step *s;
	struct cbpf_word_node t = { .kind = CBPF_W_TEST };
	struct cbpf_word_knowledge kt, kf;

	if (i == STEP_TRUE)
		return cbpf_words_lower(c, n->t, kc);
	if (i == STEP_FALSE)
		return cbpf_words_lower(c, n->f, kc);
	s = &st[i];
	t.op = s->op;
	t.hi = s->hi;
	t.flip = s->flip;
	t.a = n->a;
	if (n->b->kind == CBPF_X_CONST) {
		struct cbpf_word_set known, yes, no, tmp, cmp;
		int d = -1;

		t.k = s->hi ? (uint32_t)(n->b->imm >> 32) : (uint32_t)n->b->imm;
		knowledge_get(&c->words, kc, n->a, s->hi, &known);
		kt = *kc;
		kf = *kc;
		if (s->op == CBPF_C_SET) {
			d = set_decide_and(&known, t.k);
		} else {
			set_of_test(s->op, s->flip, t.k ^ s->flip, &tmp);
			set_intersect(&known, &tmp, &yes);
			set_complement(&tmp, &cmp);
			set_intersect(&known, &cmp, &no);
			if (!no.n)
				d = 1;
			else if (!yes.n)
				d = 0;
			knowledge_set(&kt, n->a, s->hi, &yes);
			knowledge_set(&kf, n->a, s->hi, &no);
		}
		if (d >= 0)
			return words_lower_steps(c, n, st, d ? s->t : s->f, kc);
	} else {
		t.bx = true;
		t.b = n->b;
		t.bhi = s->hi;
		kt = *kc;
		kf = *kc;
	}
	t.t = words_lower_steps(c, n, st, s->t, &kt);
	t.f = t.t ? words_lower_steps(c, n, st, s->f, &kf) : NULL;
	if (!t.t || !t.f)
		return NULL;
	if (t.t == t.f)		/* both ways end the same: no test */
		return t.t;
	return words_intern(&c->words, &t);
}

/* n lowered under what kc proves, memoized on (n, the part of kc about
 * words tested under n). NULL when out of memory or over budget. */
struct cbpf_word_node *cbpf_words_lower(struct cbpf_layout *c, struct cbpf_rnode *n,
					const struct cbpf_word_knowledge *kc)
{
	struct cbpf_words *w = &c->words;
	struct word_step st[3];
	struct hashtab_entry *he;
	struct cbpf_word_memo *e;
	struct cbpf_word_knowledge k = { 0 };
	struct cbpf_word_node *r;
	uint32_t h, i;

	if (n->unsupported || n->kind == CBPF_R_NOTIF)
		return words_ret(w, SECCOMP_RET_USER_NOTIF);
	if (n->kind == CBPF_R_RET) {
		struct cbpf_word_node t = { .kind = CBPF_W_RET_A, .a = n->ret };

		if (n->ret->kind == CBPF_X_CONST)
			return words_ret(w, (uint32_t)n->ret->imm);
		return words_intern(w, &t);
	}
	/* Without knowledge (the second pass) the result does not depend on
	 * kc: one memo per node. */
	for (i = 0; w->knowledge && i < kc->n; i++)
		if (n->tested_words & word_bloom_bit(kc->k[i].e, kc->k[i].hi))
			k.k[k.n++] = kc->k[i];
	h = knowledge_hash(n, &k);
	for (he = hashtab_chain(&w->memo, h); he; he = he->next) {
		e = (struct cbpf_word_memo *)he;
		if (he->hash == h && e->n == n && knowledge_same(&e->kc, &k))
			return e->res;
	}
	if (++w->lowered > w->budget) {
		w->over = true;
		return NULL;
	}
	condition_steps(n, st);
	r = words_lower_steps(c, n, st, 0, &k);
	if (!r)
		return NULL;
	e = arena_alloc(&w->arena, sizeof(*e));
	if (!e) {
		w->oom = true;
		return NULL;
	}
	e->n = n;
	e->h.hash = h;
	e->kc = k;
	e->res = r;
	if (hashtab_insert(&w->memo, &e->h)) {
		w->oom = true;
		return NULL;
	}
	return r;
}

/* ---- the whole plan ---- */

static bool word_first_visit(void *node, void *ctx)
{
	struct cbpf_words *w = ctx;
	struct cbpf_word_node *n = node;

	if (n->mark == w->mark)
		return false;
	n->mark = w->mark;
	return true;
}

/* Counts the jumps to each word test on the way. */
static void *word_child(void *node, unsigned i, void *ctx)
{
	struct cbpf_word_node *n = node, *child;

	if (n->kind != CBPF_W_TEST)
		return NULL;
	child = i == 0 ? n->t : n->f;
	child->npred++;
	return child;
}

/* Word tests reachable from root into w->order, children first. */
static int words_order(struct cbpf_words *w, struct cbpf_word_node *root)
{
	static const struct cbpf_dag_ops ops = {
		.child = word_child,
		.first_visit = word_first_visit,
	};

	return cbpf_postorder_add(&w->order, root, &ops, w);
}

/* The Bloom sets of words tested under each residual node (c->order is
 * children first). */
static void words_bloom(struct cbpf_layout *c)
{
	uint32_t i;

	for (i = 0; i < c->order.n; i++) {
		struct cbpf_rnode *n = c->order.v[i];

		n->tested_words = 0;
		if (n->kind != CBPF_R_BRANCH || n->unsupported)
			continue;
		n->tested_words = n->t->tested_words | n->f->tested_words;
		if (n->b->kind == CBPF_X_CONST)
			n->tested_words |= word_bloom_bit(n->a, true) | word_bloom_bit(n->a, false);
	}
}

/* Lower every residual outcome of the plan; with knowledge first, and
 * without it when that grows past the budget. Labels the outcomes. */
int cbpf_words_lower_plan(struct cbpf_layout *c)
{
	struct cbpf_plan *plan = c->plan;
	struct cbpf_word_knowledge none = { 0 };
	uint32_t i, j, pass;

	words_bloom(c);
	for (pass = 0; pass < 2; pass++) {
		bool over = false;

		cbpf_words_free(&c->words);
		c->words.knowledge = pass == 0;
		c->words.budget = pass == 0 ? 2 * c->order.n + 4096 : UINT32_MAX;
		c->words.mark = 1;
		for (i = 0; i < plan->nclasses && !over; i++)
			for (j = 0; j < plan->classes[i].nranges && !over; j++) {
				struct cbpf_rnode *n = plan->classes[i].ranges[j].out;
				struct cbpf_word_node *r;

				if (cbpf_outcome_is_const(n))
					continue;
				r = cbpf_words_lower(c, n, &none);
				if (!r && !c->words.over)
					return -ENOMEM;
				over = !r;
				if (r)	/* the dispatch jumps there knowing nothing */
					r->npred += 2;
				if (r && words_order(&c->words, r))
					return -ENOMEM;
			}
		if (!over)
			break;
	}
	for (i = 0; i < c->words.order.n; i++) {
		struct cbpf_word_node *w = c->words.order.v[i];

		w->label = cbpf_asm_label(&c->m);
	}
	for (i = 0; i < plan->nclasses; i++)
		for (j = 0; j < plan->classes[i].nranges; j++) {
			struct cbpf_rnode *n = plan->classes[i].ranges[j].out;

			if (!cbpf_outcome_is_const(n))
				n->out_label = cbpf_words_lower(c, n, &none)->label;
		}
	return c->words.oom ? -ENOMEM : 0;
}
