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

/* How two states are being compared. */
struct cover {
	struct idmap ids;
	bool exact; /* the same abstract values (infinite-loop detection) */
	/* matched only because these values do not matter: registers of
	 * the running frame, and its stack slots (mem) */
	uint16_t loose_regs;
	bool loose_mem;
};

/*
 * Is every run from cur safe because every run from old was? exact asks for
 * the same abstract value (infinite-loop detection).
 */
static bool regsafe(const struct reg_state *old, const struct reg_state *cur, struct cover *c)
{
	bool exact = c->exact;

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
	if (!(old->type == REG_SCALAR && !old->id && !exact) &&
	    !check_ids(&c->ids, old->id, cur->id))
		return false;
	if (!check_ids(&c->ids, old->ref_obj_id, cur->ref_obj_id))
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

/* Does old's value cover cur's, for the facts (verifier.h)? Asked of what
 * the comparison skips: ids are not recorded, and links do not matter. */
static bool regsafe_probe(const struct reg_state *old, const struct reg_state *cur,
			  const struct cover *c)
{
	struct cover tmp = *c;

	if (old->type == REG_SCALAR && cur->type == REG_SCALAR)
		return range_within(old, cur);
	return regsafe(old, cur, &tmp);
}

/*
 * A register of the frame that runs at the prune point. One never read
 * again matches anything; a scalar read again but whose value decides
 * nothing (verifier_live.c) matches any scalar. Either match is loose when
 * the old value does not cover the current one.
 */
static bool frame_reg_safe(const struct reg_state *old, const struct reg_state *cur,
			   struct cover *c, uint32_t regno, bool live, bool need)
{
	if (c->exact || (live && need))
		return regsafe(old, cur, c);
	if (!live || (old->type == REG_SCALAR && cur->type == REG_SCALAR)) {
		if (!regsafe_probe(old, cur, c))
			c->loose_regs |= (uint16_t)(1u << regno);
		return true;
	}
	return regsafe(old, cur, c);
}

static uint8_t slot_byte(const struct func_state *f, uint32_t spi, int k)
{
	return spi < f->nslots ? f->slots[spi].bytes[k] : STACK_INVALID;
}

static bool slot_spilled(const struct func_state *f, uint32_t spi)
{
	return slot_byte(f, spi, 0) == STACK_SPILL;
}

/* Does slot spi of old cover that of cur, byte by byte or spilled register? */
static bool slot_safe(const struct func_state *old, const struct func_state *cur, uint32_t spi,
		      struct cover *c)
{
	bool old_spill = slot_spilled(old, spi), cur_spill = slot_spilled(cur, spi);
	bool exact = c->exact;
	int k;

	if (old_spill || cur_spill) {
		if (old_spill && cur_spill)
			return regsafe(&old->slots[spi].spilled, &cur->slots[spi].spilled, c);
		if (old_spill)
			return false;
		/* cur spilled, old bytes: only a scalar may stand in for bytes
		 * old knew as misc (or nothing). */
		if (cur->slots[spi].spilled.type != REG_SCALAR || exact) {
			for (k = 0; k < 8; k++)
				if (slot_byte(old, spi, k) != STACK_INVALID)
					return false;
			return !exact;
		}
		for (k = 0; k < 8; k++)
			if (slot_byte(old, spi, k) == STACK_ZERO)
				return false;
		return true;
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
	return true;
}

/*
 * The stack of one frame. For the frame that runs at the prune point,
 * live and need give the slots read later and those whose spilled value
 * may decide; the callers' frames are compared in full.
 */
static bool stacksafe(const struct func_state *old, const struct func_state *cur, struct cover *c,
		      uint64_t live, uint64_t need)
{
	uint32_t n = old->nslots > cur->nslots ? old->nslots : cur->nslots;
	uint32_t spi;

	for (spi = 0; spi < n; spi++) {
		uint64_t bit = spi < 64 ? 1ULL << spi : 0;
		struct cover tmp;

		if (c->exact || (live & need & bit)) {
			if (!slot_safe(old, cur, spi, c))
				return false;
			continue;
		}
		if (!(live & bit)) {
			tmp = *c;
			if (!slot_safe(old, cur, spi, &tmp))
				c->loose_mem = true;
			continue;
		}
		if (slot_spilled(old, spi) && slot_spilled(cur, spi) &&
		    old->slots[spi].spilled.type == REG_SCALAR &&
		    cur->slots[spi].spilled.type == REG_SCALAR) {
			if (!regsafe_probe(&old->slots[spi].spilled, &cur->slots[spi].spilled, c))
				c->loose_mem = true;
			continue;
		}
		if (!slot_safe(old, cur, spi, c))
			return false;
	}
	return true;
}

/*
 * Does old cover cur at insn? Not exact: the frame running at insn is
 * compared through what verifier_live.c found live and needed there, and
 * c->loose_* say which values old did not cover that this let through.
 */
static bool states_cover(const struct verifier_env *env, uint32_t insn, const struct vstate *old,
			 const struct vstate *cur, bool exact, struct cover *c)
{
	const struct insn_aux *aux = &env->aux[insn];
	uint32_t i, r;

	c->exact = exact;
	if (old->curframe != cur->curframe || old->nrefs != cur->nrefs)
		return false;
	if (exact && old->cb_iter != cur->cb_iter)
		return false;
	for (i = 0; i < old->nrefs; i++)
		if (!check_ids(&c->ids, old->refs[i].id, cur->refs[i].id))
			return false;
	for (i = 0; i <= old->curframe; i++) {
		const struct func_state *of = old->frames[i], *cf = cur->frames[i];
		bool top = i == old->curframe;

		if (of->callsite != cf->callsite || of->subprog != cf->subprog ||
		    of->is_callback != cf->is_callback)
			return false;
		for (r = 0; r < MAX_BPF_REG; r++) {
			bool live = !top || (aux->live_regs & (1u << r));
			bool need = !top || (aux->need_regs & (1u << r));

			if (!frame_reg_safe(&of->regs[r], &cf->regs[r], c, r, live, need))
				return false;
		}
		if (!stacksafe(of, cf, c, top ? aux->live_slots : ~0ULL,
			       top ? aux->need_slots : ~0ULL))
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

static void node_free(struct vstate_node *n)
{
	uint32_t i;

	for (i = 0; i < VERIFIER_MAX_FRAMES; i++)
		frame_free(n->st.frames[i]);
	free(n);
}

/*
 * The list at insn is full: drop the complete checkpoint that has pruned the
 * fewest paths (of those, the one that failed most), so that a loop running
 * more iterations than the list holds still finds its latest ones. A
 * complete checkpoint has no live path below it: nothing walks its parent
 * links again, and dropping it only costs pruning. With none complete, the
 * oldest is retired: off the list (no pruning or loop detection against it
 * any more), its state freed, the node kept for the paths below it.
 */
static void evict_checkpoint(struct verifier_env *env, struct insn_aux *aux)
{
	struct vstate_node **pp, **victim = NULL, **oldest = NULL, *n;
	uint32_t i;

	for (pp = &aux->states; *pp; pp = &(*pp)->next) {
		n = *pp;
		oldest = pp;
		if (n->branches)
			continue;
		if (!victim || n->hits < (*victim)->hits ||
		    (n->hits == (*victim)->hits && n->misses >= (*victim)->misses))
			victim = pp;
	}
	if (!oldest)
		return;
	aux->nstates--;
	if (victim) {
		n = *victim;
		*victim = n->next;
		node_free(n);
		return;
	}
	n = *oldest;
	*oldest = n->next;
	for (i = 0; i < VERIFIER_MAX_FRAMES; i++) {
		frame_free(n->st.frames[i]);
		n->st.frames[i] = NULL;
	}
	n->next = env->retired;
	env->retired = n;
}

/*
 * At a prune point: 1 if a complete checkpoint covers the current state (the
 * path is done), 0 to go on (a checkpoint is stored), <0 on an infinite loop.
 * A cover that relied on values not mattering widens the facts from insn on
 * (facts_widen_from), so that they still hold on the path cut off.
 */
int is_state_visited(struct verifier_env *env, uint32_t insn)
{
	struct insn_aux *aux = &env->aux[insn];
	bool reentry = (aux->flags & AUX_CALLBACK_CALL) && env->cur->reentry;
	struct vstate_node *n;
	struct cover c;

	for (n = aux->states; n; n = n->next) {
		if (n->branches == 0 || reentry) {
			c = (struct cover){ .exact = false };
			if (states_cover(env, insn, &n->st, env->cur, false, &c)) {
				n->hits++;
				if (c.loose_regs || c.loose_mem)
					facts_widen_from(env, insn, c.loose_regs, c.loose_mem);
				return 1;
			}
			n->misses++;
			continue;
		}
		c = (struct cover){ .exact = true };
		if (states_cover(env, insn, &n->st, env->cur, true, &c))
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
		evict_checkpoint(env, aux);
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	if (state_copy_into(&n->st, env->cur)) {
		node_free(n);
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
