// SPDX-License-Identifier: MIT
/*
 * Abstract states of the verifier and their pruning: copying and freeing
 * states, the pending-path stack, and the checkpoints that let a path stop
 * when an explored state already covers it (or reject it as an infinite
 * loop when it repeats an unfinished one exactly).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vm/helper_protos.h"
#include "vm/insn.h"
#include "verifier/verifier_internal.h"

/* Checkpoints kept per instruction; more only cost time in comparisons. */
#define MAX_STATES_PER_INSN 64

/* ---- states ---- */

struct func_state *frame_new(uint32_t frameno, uint32_t subprog, uint32_t callsite)
{
	struct func_state *f = calloc(1, sizeof(*f));
	int i;

	if (!f)
		return NULL;
	for (i = 0; i < MAX_BPF_REG; i++)
		reg_mark_not_init(&f->regs[i]);
	f->frameno = frameno;
	f->subprog = subprog;
	f->callsite = callsite;
	/* r10: the read-only frame pointer of this frame */
	f->regs[BPF_REG_10].type = REG_PTR_TO_STACK;
	f->regs[BPF_REG_10].frameno = frameno;
	reg_set_var_const(&f->regs[BPF_REG_10], 0);
	return f;
}

void frame_free(struct func_state *f)
{
	if (!f)
		return;
	free(f->slots);
	free(f);
}

static struct func_state *frame_clone(const struct func_state *f)
{
	struct func_state *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *f;
	c->slots = NULL;
	if (f->nslots) {
		c->slots = malloc(f->nslots * sizeof(*c->slots));
		if (!c->slots) {
			free(c);
			return NULL;
		}
		memcpy(c->slots, f->slots, f->nslots * sizeof(*c->slots));
	}
	return c;
}

void state_free(struct vstate *st)
{
	uint32_t i;

	if (!st)
		return;
	for (i = 0; i < VERIFIER_MAX_FRAMES; i++)
		frame_free(st->frames[i]);
	free(st);
}

int state_copy_into(struct vstate *dst, const struct vstate *src)
{
	uint32_t i;

	*dst = *src;
	memset(dst->frames, 0, sizeof(dst->frames));
	for (i = 0; i <= src->curframe; i++) {
		dst->frames[i] = frame_clone(src->frames[i]);
		if (!dst->frames[i])
			return -ENOMEM;
	}
	return 0;
}

struct vstate *state_clone(const struct vstate *st)
{
	struct vstate *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (state_copy_into(c, st)) {
		state_free(c);
		return NULL;
	}
	return c;
}

/* A new pending path hangs below the same checkpoint as the current one.
 * Takes st over: on failure it is freed. */
int push_pending(struct verifier_env *env, struct vstate *st)
{
	if (env->npending == env->cap_pending) {
		uint32_t cap = env->cap_pending ? env->cap_pending * 2 : 64;
		struct vstate **p = realloc(env->pending, cap * sizeof(*p));

		if (!p) {
			state_free(st);
			return -ENOMEM;
		}
		env->pending = p;
		env->cap_pending = cap;
	}
	if (env->npending >= 8192) {
		state_free(st);
		return verr(env, E2BIG,
			    "the program is too complex: more than 8192 "
			    "branches wait to be explored; bound its loops more "
			    "tightly or simplify the conditions");
	}
	env->pending[env->npending++] = st;
	if (st->parent)
		st->parent->branches++;
	return 0;
}

/* A path ended (exit or pruned): checkpoints with no live path below them
 * are complete and may from now on be used for pruning. */
void path_done(struct vstate *st)
{
	struct vstate_node *n = st->parent;

	while (n) {
		if (--n->branches)
			break;
		n = n->parent;
	}
}

/* ---- pruning ---- */

#define IDMAP_SIZE 64

struct idmap {
	uint32_t old[IDMAP_SIZE], cur[IDMAP_SIZE];
	uint32_t n;
};

/* ids need not be equal, only used consistently: a pair old<->cur. */
static bool check_ids(struct idmap *m, uint32_t old_id, uint32_t cur_id)
{
	uint32_t i;

	if (!old_id || !cur_id)
		return old_id == cur_id;
	for (i = 0; i < m->n; i++) {
		if (m->old[i] == old_id)
			return m->cur[i] == cur_id;
		if (m->cur[i] == cur_id)
			return false;
	}
	if (m->n == IDMAP_SIZE)
		return false;
	m->old[m->n] = old_id;
	m->cur[m->n] = cur_id;
	m->n++;
	return true;
}

static bool range_within(const struct reg_state *old, const struct reg_state *cur)
{
	return old->umin <= cur->umin && cur->umax <= old->umax && old->smin <= cur->smin &&
	       cur->smax <= old->smax && old->u32_min <= cur->u32_min &&
	       cur->u32_max <= old->u32_max && old->s32_min <= cur->s32_min &&
	       cur->s32_max <= old->s32_max && tnum_in(old->var_off, cur->var_off);
}

static bool var_equal(const struct reg_state *a, const struct reg_state *b)
{
	return a->var_off.value == b->var_off.value && a->var_off.mask == b->var_off.mask &&
	       a->umin == b->umin && a->umax == b->umax && a->smin == b->smin &&
	       a->smax == b->smax && a->u32_min == b->u32_min && a->u32_max == b->u32_max &&
	       a->s32_min == b->s32_min && a->s32_max == b->s32_max;
}

/*
 * Is every run from cur safe because every run from old was? exact asks for
 * the same abstract value (infinite-loop detection).
 */
static bool regsafe(const struct reg_state *old, const struct reg_state *cur, struct idmap *m,
		    bool exact)
{
	if (old->type == REG_NOT_INIT && !exact)
		return true;
	if (old->type != cur->type)
		return false;
	if (old->type == REG_NOT_INIT)
		return true;
	if (old->off != cur->off || old->map != cur->map || old->mem_size != cur->mem_size ||
	    old->frameno != cur->frameno || old->func != cur->func || old->rdonly != cur->rdonly)
		return false;
	/* A link between scalars the old state did not have only makes the
	 * current one more precise; a link it had must exist here too. */
	if (!(old->type == REG_SCALAR && !old->id && !exact) && !check_ids(m, old->id, cur->id))
		return false;
	if (!check_ids(m, old->ref_obj_id, cur->ref_obj_id))
		return false;
	if (exact)
		return var_equal(old, cur);
	switch (old->type) {
	case REG_SCALAR:
	case REG_PTR_TO_MAP_VALUE:
	case REG_PTR_TO_MEM:
		return range_within(old, cur);
	default:
		/* stack, ctx, maybe-NULL pointers: offsets must match exactly */
		return var_equal(old, cur);
	}
}

static uint8_t slot_byte(const struct func_state *f, uint32_t spi, int k)
{
	return spi < f->nslots ? f->slots[spi].bytes[k] : STACK_INVALID;
}

static bool stacksafe(const struct func_state *old, const struct func_state *cur, struct idmap *m,
		      bool exact)
{
	uint32_t n = old->nslots > cur->nslots ? old->nslots : cur->nslots;
	uint32_t spi;
	int k;

	for (spi = 0; spi < n; spi++) {
		bool old_spill = slot_byte(old, spi, 0) == STACK_SPILL;
		bool cur_spill = slot_byte(cur, spi, 0) == STACK_SPILL;

		if (old_spill || cur_spill) {
			if (old_spill && cur_spill) {
				if (!regsafe(&old->slots[spi].spilled, &cur->slots[spi].spilled, m,
					     exact))
					return false;
				continue;
			}
			if (old_spill)
				return false;
			/* cur spilled, old bytes: only a scalar may stand in
			 * for bytes old knew as misc (or nothing). */
			if (cur->slots[spi].spilled.type != REG_SCALAR || exact) {
				for (k = 0; k < 8; k++)
					if (slot_byte(old, spi, k) != STACK_INVALID)
						return false;
				if (exact)
					return false;
				continue;
			}
			for (k = 0; k < 8; k++) {
				uint8_t ob = slot_byte(old, spi, k);

				if (ob == STACK_ZERO)
					return false;
			}
			continue;
		}
		for (k = 0; k < 8; k++) {
			uint8_t ob = slot_byte(old, spi, k), cb = slot_byte(cur, spi, k);

			if (exact) {
				if (ob != cb)
					return false;
				continue;
			}
			if (ob == STACK_INVALID)
				continue;
			if (ob == STACK_MISC && (cb == STACK_MISC || cb == STACK_ZERO))
				continue;
			if (ob == STACK_ZERO && cb == STACK_ZERO)
				continue;
			return false;
		}
	}
	return true;
}

static bool states_cover(const struct vstate *old, const struct vstate *cur, bool exact)
{
	struct idmap m = { .n = 0 };
	uint32_t i, r;

	if (old->curframe != cur->curframe || old->nrefs != cur->nrefs)
		return false;
	if (exact && old->cb_iter != cur->cb_iter)
		return false;
	for (i = 0; i < old->nrefs; i++)
		if (!check_ids(&m, old->refs[i].id, cur->refs[i].id))
			return false;
	for (i = 0; i <= old->curframe; i++) {
		const struct func_state *of = old->frames[i], *cf = cur->frames[i];

		if (of->callsite != cf->callsite || of->subprog != cf->subprog ||
		    of->is_callback != cf->is_callback)
			return false;
		for (r = 0; r < MAX_BPF_REG; r++)
			if (!regsafe(&of->regs[r], &cf->regs[r], &m, exact))
				return false;
		if (!stacksafe(of, cf, &m, exact))
			return false;
	}
	return true;
}

/* Re-entering a callback's helper call with a scalar that changed since an
 * earlier iteration: forget its value so the iterations converge. This only
 * loses precision, never safety. */
static void widen_scalars(const struct vstate *old, struct vstate *cur)
{
	uint32_t i, r, spi;

	if (old->curframe != cur->curframe)
		return;
	for (i = 0; i <= cur->curframe; i++) {
		const struct func_state *of = old->frames[i];
		struct func_state *cf = cur->frames[i];

		for (r = 0; r < MAX_BPF_REG; r++)
			if (of->regs[r].type == REG_SCALAR && cf->regs[r].type == REG_SCALAR &&
			    !var_equal(&of->regs[r], &cf->regs[r]))
				reg_mark_unknown(&cf->regs[r]);
		for (spi = 0; spi < cf->nslots && spi < of->nslots; spi++) {
			struct stack_slot *cs = &cf->slots[spi];
			const struct stack_slot *os = &of->slots[spi];

			if (cs->bytes[0] == STACK_SPILL && os->bytes[0] == STACK_SPILL &&
			    cs->spilled.type == REG_SCALAR && os->spilled.type == REG_SCALAR &&
			    !var_equal(&cs->spilled, &os->spilled))
				reg_mark_unknown(&cs->spilled);
		}
	}
}

/*
 * At a prune point: 1 if a complete checkpoint covers the current state (the
 * path is done), 0 to go on (a checkpoint is stored), <0 on an infinite loop.
 */
int is_state_visited(struct verifier_env *env, uint32_t insn)
{
	struct insn_aux *aux = &env->aux[insn];
	bool reentry = (aux->flags & AUX_CALLBACK_CALL) && env->cur->reentry;
	struct vstate_node *n;

	for (n = aux->states; n; n = n->next) {
		if (n->branches == 0 || reentry) {
			if (states_cover(&n->st, env->cur, false))
				return 1;
			continue;
		}
		if (states_cover(&n->st, env->cur, true))
			return verr(env, EACCES,
				    "infinite loop detected: insn %u is "
				    "reached again in the same state; the loop "
				    "makes no progress towards its exit",
				    insn);
	}
	if (reentry)
		for (n = aux->states; n; n = n->next)
			if (n->branches)
				widen_scalars(&n->st, env->cur);
	if (aux->nstates >= MAX_STATES_PER_INSN)
		return 0;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	if (state_copy_into(&n->st, env->cur)) {
		uint32_t i;

		for (i = 0; i < VERIFIER_MAX_FRAMES; i++)
			frame_free(n->st.frames[i]);
		free(n);
		return -ENOMEM;
	}
	n->parent = env->cur->parent;
	n->st.parent = NULL;
	n->branches = 1;
	n->next = aux->states;
	aux->states = n;
	aux->nstates++;
	env->cur->parent = n;
	env->states_stored++;
	return 0;
}
