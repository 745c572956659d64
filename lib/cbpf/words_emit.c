// SPDX-License-Identifier: MIT
/*
 * Word tests as cBPF: emitted parents first, tracking on each path what
 * A, X and M[] hold (the meet over every jump to a test), so that a word
 * already in a register or slot is not computed again.
 */
#include <errno.h>
#include <string.h>

#include "cbpf/cbpf_internal.h"

static bool val_holds(const struct cbpf_word_val *v, const struct cbpf_expr *e, bool hi)
{
	return v->valid && v->e == e && v->hi == hi;
}

static void val_meet(struct cbpf_word_val *into, const struct cbpf_word_val *v)
{
	if (!into->valid || !v->valid || into->e != v->e || into->hi != v->hi ||
	    into->flip != v->flip)
		memset(into, 0, sizeof(*into));
}

/* What a jump to w brings: every predecessor must agree. */
static void regs_flow_into(struct cbpf_word_node *w, const struct cbpf_word_regs *s)
{
	unsigned i;

	if (!w->has_in) {
		w->has_in = true;
		w->in = *s;
		return;
	}
	val_meet(&w->in.a, &s->a);
	val_meet(&w->in.x, &s->x);
	for (i = 0; i < BPF_MEMWORDS; i++)
		val_meet(&w->in.mem[i], &s->mem[i]);
}

/* Forget what the instructions from `from` on overwrote. */
static void regs_forget_overwritten(const struct cbpf_asm *m, struct cbpf_word_regs *s,
				    uint32_t from)
{
	uint32_t i;

	s->a.valid = false;
	for (i = from; i < m->n; i++) {
		uint16_t code = m->v[i].code;

		if (BPF_CLASS(code) == BPF_ST || BPF_CLASS(code) == BPF_STX)
			s->mem[m->v[i].k % BPF_MEMWORDS].valid = false;
		if (BPF_CLASS(code) == BPF_LDX || code == (BPF_MISC | BPF_TAX))
			s->x.valid = false;
	}
}

/*
 * Whether a node under at reads word (e, hi) when A may no longer hold it
 * (after a test of another word, or at a join); true when the search gets
 * long. kept: A still holds the word when at jumps.
 */
static bool word_needed_below(struct cbpf_words *w, struct cbpf_word_node *at,
			      const struct cbpf_expr *e, bool hi, bool kept)
{
	struct { struct cbpf_word_node *n; bool lost; } stack[256];
	uint32_t sp = 0, visits = 0;

	w->umark++;
	stack[sp].n = at->t;
	stack[sp++].lost = !kept;
	stack[sp].n = at->f;
	stack[sp++].lost = !kept;
	while (sp) {
		struct cbpf_word_node *n = stack[--sp].n;
		bool lost = stack[sp].lost || n->npred > 1, reads;

		/* visited with lost covers visited without */
		if (n->umark == w->umark && (n->ulost || !lost))
			continue;
		n->umark = w->umark;
		n->ulost = lost;
		if (++visits > 1024)
			return true;
		reads = (n->kind == CBPF_W_RET_A && n->a == e && !hi) ||
			(n->kind == CBPF_W_TEST && ((n->a == e && n->hi == hi) ||
						(n->bx && n->b == e && n->bhi == hi)));
		if (reads && lost)
			return true;
		if (n->kind != CBPF_W_TEST)
			continue;
		if (sp + 2 > sizeof(stack) / sizeof(stack[0]))
			return true;
		lost = lost || n->bx || n->a != e || n->hi != hi;
		stack[sp].n = n->t;
		stack[sp++].lost = lost;
		stack[sp].n = n->f;
		stack[sp++].lost = lost;
	}
	return false;
}

/* Keep A (just computed at a cost) in a free M[] slot when a test below
 * at reads it again. Slots count down from 15; the expression code takes
 * its temporaries from 0 up. A slot is free when nothing below reads
 * what it holds. */
static void words_keep_in_mem(struct cbpf_layout *c, struct cbpf_word_node *at, bool kept,
			      struct cbpf_word_regs *s)
{
	int slot = -1, i;

	if (!at || !word_needed_below(&c->words, at, s->a.e, s->a.hi, kept))
		return;
	for (i = BPF_MEMWORDS - 1; i > 0 && slot < 0; i--)
		if (!s->mem[i].valid)
			slot = i;
	for (i = BPF_MEMWORDS - 1; i > 0 && slot < 0; i--)
		if (!word_needed_below(&c->words, at, s->mem[i].e, s->mem[i].hi, false))
			slot = i;
	if (slot < 0)
		return;
	cbpf_asm_stmt(&c->m, BPF_ST, (uint32_t)slot);
	s->mem[slot] = s->a;
}

/* A = word (e, hi) ^ flip, reusing what A, X or M[] hold. Temporaries
 * from M[sp] up. at: the test this is for (NULL: a return value); kept:
 * A still holds the word when at jumps. */
static int words_load(struct cbpf_layout *c, struct cbpf_word_node *at, bool kept,
		      struct cbpf_word_regs *s, const struct cbpf_expr *e, bool hi, uint32_t flip,
		      unsigned sp)
{
	struct cbpf_asm *m = &c->m;
	uint32_t from = m->n;
	int i, rc;

	if (val_holds(&s->a, e, hi))
		goto flip;
	if (val_holds(&s->x, e, hi)) {
		cbpf_asm_stmt(m, BPF_MISC | BPF_TXA, 0);
		s->a = s->x;
		goto flip;
	}
	for (i = BPF_MEMWORDS - 1; i >= 0; i--)
		if (val_holds(&s->mem[i], e, hi)) {
			cbpf_asm_stmt(m, BPF_LD | BPF_MEM, (uint32_t)i);
			s->a = s->mem[i];
			goto flip;
		}
	rc = hi ? cbpf_lower_hi_word(m, e, sp) : cbpf_lower_lo_word(m, e, sp);
	if (rc)
		return rc;
	regs_forget_overwritten(m, s, from);
	s->a = (struct cbpf_word_val){ .e = e, .hi = hi, .valid = true };
	if (m->n - from >= 3)
		words_keep_in_mem(c, at, kept, s);
flip:
	if (s->a.flip != flip) {
		cbpf_asm_stmt(m, BPF_ALU | BPF_XOR | BPF_K, s->a.flip ^ flip);
		s->a.flip = flip;
	}
	return 0;
}

/* Loading word (e, hi) leaves X alone (X about to be overwritten). */
static bool load_keeps_x(const struct cbpf_word_regs *s, const struct cbpf_expr *e, bool hi)
{
	unsigned i;

	if (val_holds(&s->a, e, hi) || e->kind == CBPF_X_CONST ||
	    e->kind == CBPF_X_FIELD || (hi && e->hi_zero))
		return true;
	for (i = 0; i < BPF_MEMWORDS; i++)
		if (val_holds(&s->mem[i], e, hi))
			return true;
	return false;
}

static int words_emit_test(struct cbpf_layout *c, struct cbpf_word_node *w,
			   struct cbpf_word_regs *s)
{
	struct cbpf_asm *m = &c->m;
	uint16_t jop = cbpf_lower_jump_op(w->op);
	uint32_t k = w->k;
	int rc = 0;

	if (!w->bx) {
		/* Equality and bit tests do not care for a flip of bits
		 * they can undo (in K). */
		if (w->op == CBPF_C_EQ && val_holds(&s->a, w->a, w->hi))
			k ^= s->a.flip;
		else if (w->op == CBPF_C_SET && val_holds(&s->a, w->a, w->hi) &&
			 !(s->a.flip & k))
			;
		else if (!(rc = words_load(c, w, true, s, w->a, w->hi, w->flip, 0)))
			k ^= w->flip;
		if (!rc)
			cbpf_asm_jump(m, jop | BPF_K, k, w->t->label, w->f->label);
		return rc;
	}
	if (val_holds(&s->a, w->a, w->hi) && val_holds(&s->x, w->b, w->bhi) &&
	    s->a.flip == s->x.flip && (w->op == CBPF_C_EQ || s->a.flip == w->flip)) {
		cbpf_asm_jump(m, jop | BPF_X, 0, w->t->label, w->f->label);
		return 0;
	}
	rc = words_load(c, w, false, s, w->b, w->bhi, w->flip, 0);
	if (rc)
		return rc;
	if (load_keeps_x(s, w->a, w->hi)) {
		cbpf_asm_stmt(m, BPF_MISC | BPF_TAX, 0);
		s->x = s->a;
		rc = words_load(c, w, true, s, w->a, w->hi, w->flip, 0);
	} else {
		struct cbpf_word_val b = s->a;

		rc = cbpf_lower_store_temp(m, 0);
		s->mem[0] = s->a;
		if (!rc)
			rc = words_load(c, w, true, s, w->a, w->hi, w->flip, 1);
		if (!rc) {
			cbpf_asm_stmt(m, BPF_LDX | BPF_MEM, 0);
			s->x = b;
		}
	}
	if (!rc)
		cbpf_asm_jump(m, jop | BPF_X, 0, w->t->label, w->f->label);
	return rc;
}

/* The residual code: word tests, parents first, each knowing what A, X
 * and M[] hold when every jump to it agrees. */
int cbpf_words_emit(struct cbpf_layout *c)
{
	struct cbpf_plan *plan = c->plan;
	struct cbpf_word_regs unknown = { 0 };
	struct cbpf_asm *m = &c->m;
	struct cbpf_word_knowledge none = { 0 };
	unsigned ret_mask = 0;		/* slots valid before the last RET */
	uint32_t i, j;

	/* The dispatch jumps to the outcomes knowing nothing. */
	for (i = 0; i < plan->nclasses; i++)
		for (j = 0; j < plan->classes[i].nranges; j++)
			if (!cbpf_outcome_is_const(plan->classes[i].ranges[j].out))
				regs_flow_into(
					cbpf_words_lower(c, plan->classes[i].ranges[j].out, &none),
					&unknown);
	for (i = c->words.order.n; i-- > 0;) {
		struct cbpf_word_node *w = c->words.order.v[i];
		struct cbpf_word_regs s = w->in;
		unsigned k;

		/* The kernel's check (and cbpf_check) lets the slots known
		 * before a RET flow into the instruction after it, as if it fell
		 * through: a slot counts as written only if it was there too. */
		for (k = 0; k < BPF_MEMWORDS; k++)
			if (!(ret_mask & 1u << k))
				s.mem[k].valid = false;
		ret_mask = 0xffff;
		cbpf_asm_place(m, w->label);
		switch (w->kind) {
		case CBPF_W_RET:
			for (k = 0, ret_mask = 0; k < BPF_MEMWORDS; k++)
				ret_mask |= (unsigned)s.mem[k].valid << k;
			cbpf_asm_stmt(m, BPF_RET | BPF_K, w->k);
			break;
		case CBPF_W_RET_A:
			for (k = 0, ret_mask = 0; k < BPF_MEMWORDS; k++)
				ret_mask |= (unsigned)s.mem[k].valid << k;
			if (words_load(c, NULL, false, &s, w->a, false, 0, 0))
				return -EFAULT;		/* layout_node_supported() said yes */
			cbpf_asm_stmt(m, BPF_RET | BPF_A, 0);
			break;
		default:
			if (words_emit_test(c, w, &s))
				return -EFAULT;
			regs_flow_into(w->t, &s);
			regs_flow_into(w->f, &s);
			break;
		}
	}
	return 0;
}
