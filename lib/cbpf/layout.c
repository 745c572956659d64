// SPDX-License-Identifier: MIT
/*
 * The eBPF-to-cBPF compiler, back end: lays a plan (per-arch nr ranges and
 * their outcomes, from explore.c) out as a seccomp filter: the listener
 * guard, an arch dispatch, a balanced search tree on nr per arch, then the
 * residual trees as word tests (words.c), within CBPF_MAX_INSNS: when the
 * result is too long, the largest residuals go to the supervisor.
 *
 * The arch and nr dispatch uses only what seccomp_is_const_allow() emulates
 * (LD W ABS of nr/arch, JEQ/JGE K, JA, RET K), so the kernel's action cache
 * proves every syscall the filter always allows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf_internal.h"

/* ---- residual trees ---- */

/* Whether n's own test (or return value) compiles; tried in a scratch
 * buffer so that unsupported nodes become NOTIF before layout. */
static bool layout_node_supported(struct cbpf_rnode *n)
{
	struct cbpf_asm m = { 0 };
	int rc = 0;

	if (n->kind == CBPF_R_BRANCH) {
		uint32_t lt = cbpf_asm_label(&m), lf = cbpf_asm_label(&m);

		rc = cbpf_lower_cond(&m, n, lt, lf);
	} else if (n->kind == CBPF_R_RET && n->ret->kind != CBPF_X_CONST) {
		rc = cbpf_lower_lo_word(&m, n->ret, 0);
	}
	n->code_size = m.n + 1;
	rc = rc || m.oom || m.n > 2048 ? -ENOTSUP : 0;
	cbpf_asm_free(&m);
	return rc == 0;
}

static bool residual_first_visit(void *node, void *ctx)
{
	struct cbpf_layout *c = ctx;
	struct cbpf_rnode *n = node;

	if (n->mark == c->mark)
		return false;
	n->mark = c->mark;
	n->unsupported = !layout_node_supported(n);
	/* Out of memory only loses the reason, never the NOTIF itself. */
	if (n->unsupported && c->out)
		(void)cbpf_punt_note(c->out, n->insn, cbpf_lower_why(n));
	return true;
}

static void *residual_child(void *node, unsigned i, void *ctx)
{
	struct cbpf_rnode *n = node;

	if (n->kind != CBPF_R_BRANCH || n->unsupported)
		return NULL;
	return i == 0 ? n->t : n->f;
}

static void residual_done(void *node, void *ctx)
{
	struct cbpf_rnode *n = node;

	n->reaches_notif = n->kind == CBPF_R_NOTIF || n->unsupported ||
			   (n->kind == CBPF_R_BRANCH &&
			    (n->t->reaches_notif || n->f->reaches_notif));
}

/* The residual nodes under root into c->order, children first, deciding
 * which are unsupported and which reach a NOTIF on the way. */
static int layout_order_residuals(struct cbpf_layout *c, struct cbpf_rnode *root)
{
	static const struct cbpf_dag_ops ops = {
		.child = residual_child,
		.first_visit = residual_first_visit,
		.done = residual_done,
	};

	return cbpf_postorder_add(&c->order, root, &ops, c);
}

/* ---- dispatch ---- */

/* The label a jump to ranges[a..b] takes: a non-constant single outcome is
 * its residual's label, anything else code emitted at a new label. */
static uint32_t layout_nr_tree_label(struct cbpf_layout *c, const struct cbpf_arch_class *cl,
				     uint32_t a, uint32_t b)
{
	if (a == b && !cbpf_outcome_is_const(cl->ranges[a].out))
		return cl->ranges[a].out->out_label;
	return cbpf_asm_label(&c->m);
}

/* A balanced tree of JGE K on nr over ranges[a..b] (A holds nr), placed at
 * label. Leaves with a constant outcome are RET K in place. */
static void layout_nr_tree(struct cbpf_layout *c, const struct cbpf_arch_class *cl, uint32_t a,
			   uint32_t b, uint32_t label)
{
	struct cbpf_asm *m = &c->m;
	uint32_t mid, left, right;

	if (a == b) {
		if (!cbpf_outcome_is_const(cl->ranges[a].out))
			return;
		cbpf_asm_place(m, label);
		cbpf_asm_stmt(m, BPF_RET | BPF_K, cbpf_outcome_value(cl->ranges[a].out));
		return;
	}
	mid = a + (b - a + 1) / 2;
	left = layout_nr_tree_label(c, cl, a, mid - 1);
	right = layout_nr_tree_label(c, cl, mid, b);
	cbpf_asm_place(m, label);
	cbpf_asm_jump(m, BPF_JMP | BPF_JGE | BPF_K, cl->ranges[mid].lo, right, left);
	layout_nr_tree(c, cl, a, mid - 1, left);
	layout_nr_tree(c, cl, mid, b, right);
}

static void layout_arch_class(struct cbpf_layout *c, const struct cbpf_arch_class *cl,
			      uint32_t label)
{
	struct cbpf_asm *m = &c->m;
	uint32_t inner;

	if (cl->nranges == 1 && !cbpf_outcome_is_const(cl->ranges[0].out)) {
		cbpf_asm_place(m, label);
		cbpf_asm_ja(m, cl->ranges[0].out->out_label);
		return;
	}
	cbpf_asm_place(m, label);
	if (cl->nranges > 1)
		cbpf_asm_stmt(m, BPF_LD | BPF_W | BPF_ABS, CBPF_OFF_NR);
	inner = cbpf_asm_label(m);
	cbpf_asm_place(m, inner);
	layout_nr_tree(c, cl, 0, cl->nranges - 1, inner);
}

static int layout_program(struct cbpf_layout *c, bool guard, struct secbpf_err *err)
{
	struct cbpf_plan *plan = c->plan;
	struct cbpf_asm *m = &c->m;
	uint32_t i, j, *class_label, main_label;
	int rc;

	c->mark++;
	c->order.n = 0;
	for (i = 0; i < plan->nclasses; i++)
		for (j = 0; j < plan->classes[i].nranges; j++) {
			struct cbpf_rnode *n = plan->classes[i].ranges[j].out;

			/* Constant outcomes are RET K in the tree itself. */
			if (cbpf_outcome_is_const(n))
				continue;
			rc = layout_order_residuals(c, n);
			if (rc)
				return rc;
		}
	rc = cbpf_words_lower_plan(c);
	if (rc)
		return rc;
	class_label = calloc(plan->nclasses, sizeof(*class_label));
	if (!class_label)
		return -ENOMEM;
	main_label = cbpf_asm_label(m);
	if (guard) {
		rc = cbpf_guard_emit(m, main_label, err);
		if (rc) {
			free(class_label);
			return rc;
		}
	}
	cbpf_asm_place(m, main_label);
	/* The "other" class is last in plan and falls through the chain. */
	if (plan->nclasses > 1)
		cbpf_asm_stmt(m, BPF_LD | BPF_W | BPF_ABS, CBPF_OFF_ARCH);
	for (i = 0; i < plan->nclasses; i++)
		class_label[i] = cbpf_asm_label(m);
	for (i = 0; i + 1 < plan->nclasses; i++) {
		uint32_t next = cbpf_asm_label(m);

		cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, plan->classes[i].arch, class_label[i],
			      next);
		cbpf_asm_place(m, next);
	}
	layout_arch_class(c, &plan->classes[plan->nclasses - 1], class_label[plan->nclasses - 1]);
	for (i = 0; i + 1 < plan->nclasses; i++)
		layout_arch_class(c, &plan->classes[i], class_label[i]);
	free(class_label);
	/* Residuals, parents before children; constant leaves are shared. */
	rc = cbpf_words_emit(c);
	if (rc)
		return rc;
	return m->oom ? -ENOMEM : 0;
}

/* Size of the residual DAG under n (each node once). */
static uint64_t layout_residual_size(struct cbpf_layout *c, struct cbpf_rnode *n)
{
	uint64_t s;

	if (n->mark == c->mark || cbpf_outcome_is_const(n))
		return 0;
	n->mark = c->mark;
	s = n->code_size;
	if (n->kind == CBPF_R_BRANCH && !n->unsupported)
		s += layout_residual_size(c, n->t) + layout_residual_size(c, n->f);
	return s;
}

static void layout_merge_ranges(struct cbpf_arch_class *cl)
{
	uint32_t i, m = 0;

	for (i = 0; i < cl->nranges; i++) {
		if (m && cl->ranges[m - 1].out == cl->ranges[i].out)
			cl->ranges[m - 1].hi = cl->ranges[i].hi;
		else
			cl->ranges[m++] = cl->ranges[i];
	}
	cl->nranges = m;
}

static void layout_replace_outcome(struct cbpf_plan *plan, struct cbpf_rnode *old,
				   struct cbpf_rnode *new, int only_class)
{
	uint32_t i, j;

	for (i = 0; i < plan->nclasses; i++) {
		if (only_class >= 0 && (uint32_t)only_class != i)
			continue;
		for (j = 0; j < plan->classes[i].nranges; j++)
			if (plan->classes[i].ranges[j].out == old)
				plan->classes[i].ranges[j].out = new;
		layout_merge_ranges(&plan->classes[i]);
	}
}

/*
 * Make the next attempt smaller: first the residual with the largest code
 * goes to the supervisor; with no residual left, the class with the most
 * ranges sends every non-ALLOW constant to the supervisor (ALLOW stays
 * in-kernel and cache-provable); then whole classes. Returns false when
 * nothing is left to shrink.
 */
static bool layout_shrink(struct cbpf_layout *c, uint64_t excess)
{
	struct cbpf_plan *plan = c->plan;
	uint64_t removed = 0;
	uint32_t i, j, most = 0;
	int cls = -1;

	/* Largest residual first, as many as the excess needs (each one
	 * costs a full layout otherwise). */
	while (removed < excess) {
		struct cbpf_rnode *best = NULL;
		uint64_t best_size = 0;

		for (i = 0; i < plan->nclasses; i++)
			for (j = 0; j < plan->classes[i].nranges; j++) {
				struct cbpf_rnode *n = plan->classes[i].ranges[j].out;
				uint64_t s;

				if (cbpf_outcome_is_const(n))
					continue;
				c->mark++;
				s = layout_residual_size(c, n);
				if (!best || s > best_size) {
					best = n;
					best_size = s;
				}
			}
		if (!best)
			break;
		(void)cbpf_punt_note(c->out, CBPF_PUNT_NO_INSN,
				     "the filter would exceed 4096 instructions");
		layout_replace_outcome(plan, best, plan->notif, -1);
		removed += best_size ? best_size : 1;
	}
	if (removed)
		return true;
	for (i = 0; i < plan->nclasses; i++)
		if (plan->classes[i].nranges > most) {
			most = plan->classes[i].nranges;
			cls = (int)i;
		}
	if (cls < 0 || most <= 1)
		return false;
	(void)cbpf_punt_note(c->out, CBPF_PUNT_NO_INSN,
			     "the filter would exceed 4096 instructions");
	{
		struct cbpf_arch_class *cl = &plan->classes[cls];
		bool changed = false;

		for (j = 0; j < cl->nranges; j++) {
			struct cbpf_rnode *n = cl->ranges[j].out;

			if (n != plan->notif && cbpf_outcome_value(n) != SECCOMP_RET_ALLOW) {
				cl->ranges[j].out = plan->notif;
				changed = true;
			}
		}
		if (!changed) {
			cl->ranges[0].out = plan->notif;
			cl->ranges[0].hi = UINT32_MAX;
			cl->nranges = 1;
		}
		layout_merge_ranges(cl);
	}
	return true;
}

int cbpf_layout_filter(struct cbpf_plan *plan, bool guard, bool shrink, struct cbpf_prog *notes,
		       struct sock_filter **insnsp, uint32_t *lenp, struct secbpf_err *err)
{
	/* Marks go on from the plan's last layout: a node marked by an
	 * earlier layout of this plan is never taken as visited by this one. */
	struct cbpf_layout c = { .plan = plan, .out = notes, .mark = plan->mark };
	struct sock_filter *insns = NULL;
	uint32_t len = 0;
	int rc;

	*insnsp = NULL;
	*lenp = 0;
	for (;;) {
		cbpf_asm_free(&c.m);
		rc = layout_program(&c, guard, err);
		if (rc == -E2BIG)	/* err set by the guard */
			goto out;
		if (rc == -EFAULT || (!rc && !cbpf_asm_labels_forward(&c.m))) {
			rc = err_set(err, EFAULT, "internal error: cbpf code generation");
			goto out;
		}
		if (rc) {
			rc = err_set(err, -rc, "out of memory");
			goto out;
		}
		free(insns);
		insns = NULL;
		rc = cbpf_asm_resolve(&c.m, &insns, &len);
		if (rc) {
			rc = err_set(err, -rc, "out of memory");
			goto out;
		}
		if (len <= CBPF_MAX_INSNS)
			break;
		if (!shrink) {
			*lenp = len;
			rc = -ENOSPC;
			goto out;
		}
		if (!layout_shrink(&c, len - CBPF_MAX_INSNS)) {
			rc = err_set(err, E2BIG, "the filter does not fit in %d instructions",
				     CBPF_MAX_INSNS);
			goto out;
		}
	}
	rc = cbpf_check(insns, len, err);
	if (rc) {
		err_prefix(err, "internal error: compiled filter rejected");
		rc = -EFAULT;
		goto out;
	}
	*insnsp = insns;
	*lenp = len;
	insns = NULL;
	rc = 0;
out:
	plan->mark = c.mark;
	free(insns);
	cbpf_asm_free(&c.m);
	cbpf_postorder_free(&c.order);
	cbpf_words_free(&c.words);
	return rc;
}

void cbpf_layout_count_cells(const struct cbpf_plan *plan, const struct cbpf_rnode *skip,
			     uint32_t *cells, uint32_t *notif_cells)
{
	uint32_t i, j;

	for (i = 0; i < plan->nclasses; i++)
		for (j = 0; j < plan->classes[i].nranges; j++) {
			const struct cbpf_rnode *n = plan->classes[i].ranges[j].out;

			if (n == skip)
				continue;
			(*cells)++;
			if (cbpf_outcome_is_const(n) ? n->kind == CBPF_R_NOTIF : n->reaches_notif)
				(*notif_cells)++;
		}
}

uint64_t cbpf_layout_outcome_size(struct cbpf_plan *plan, uint32_t mark, struct cbpf_rnode *n)
{
	struct cbpf_layout c = { .plan = plan, .mark = mark };

	return layout_residual_size(&c, n);
}

int cbpf_layout_plan(struct cbpf_plan *plan, const struct cbpf_compile_opts *opts,
		     struct cbpf_prog *out, struct secbpf_err *err)
{
	struct sock_filter *insns;
	uint32_t len, max_filters = 1;
	bool guard = false;
	int rc;

	if (opts && opts->sz >= offsetof(struct cbpf_compile_opts, listener_guard) +
					sizeof(opts->listener_guard))
		guard = opts->listener_guard;
	if (opts && opts->sz >= offsetof(struct cbpf_compile_opts, max_filters) +
					sizeof(opts->max_filters))
		max_filters = opts->max_filters;
	if (max_filters > CBPF_MAX_FILTERS)
		max_filters = CBPF_MAX_FILTERS;
	if (max_filters > 1)
		return cbpf_split_plan(plan, guard, max_filters, out, err);
	rc = cbpf_layout_filter(plan, guard, true, out, &insns, &len, err);
	if (rc)
		return rc;
	out->filters = calloc(1, sizeof(*out->filters));
	if (!out->filters) {
		free(insns);
		return err_set(err, ENOMEM, "out of memory");
	}
	out->insns = insns;
	out->len = len;
	out->filters[0] = (struct sock_fprog){ .len = (unsigned short)len, .filter = insns };
	out->nfilters = 1;
	out->cells = 0;
	out->notif_cells = 0;
	cbpf_layout_count_cells(plan, NULL, &out->cells, &out->notif_cells);
	out->needs_supervisor = out->notif_cells > 0;
	return 0;
}
