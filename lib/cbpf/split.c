// SPDX-License-Identifier: MIT
/*
 * The eBPF-to-cBPF compiler, splitting: a plan whose filter would exceed
 * CBPF_MAX_INSNS is laid out as several filters, each owning a run of the
 * plan's (arch, nr) cells and returning SECCOMP_RET_ALLOW for the others.
 *
 * Why the stack decides as one filter would: the kernel runs every filter
 * and keeps the return of the lowest action (ACTION_ONLY, signed: KILL_PROCESS
 * lowest, ALLOW highest), the filter run first winning ties. For any
 * (arch, nr) exactly one filter of the program returns the program's value
 * v; the others return ALLOW, which never wins over a lower action, and
 * when v's action is ALLOW the result is ALLOW either way (the kernel
 * keeps no data of an ALLOW). Against other programs' filters, v is ranked
 * from the same place in the stack as the one filter's would be, since the
 * program's filters are installed together. The non-owned cells are RET K
 * of ALLOW behind the arch and nr dispatch, which seccomp_is_const_allow()
 * proves, so the kernel's action cache, the AND of every filter's bitmap,
 * holds the same syscalls as for one filter.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf_internal.h"

/* Fill each filter to about this much of CBPF_MAX_INSNS at first: the
 * sizes are estimates, a filter past the limit is split again. */
#define SPLIT_FILL_PERCENT 98

/* A cell of the plan: range r of class c, with its estimated code. */
struct split_cell {
	uint32_t c, r;
	uint64_t weight;
};

/* A residual made here (a branch with one way ALLOW), freed at the end. */
struct split_node {
	struct split_node *next;
	struct cbpf_rnode n;
};

struct split_ctx {
	struct cbpf_plan *plan;
	struct cbpf_rnode *allow; /* the outcome of cells a filter does not own */
	bool guard;
	uint32_t max_filters;
	struct split_cell *cells;
	uint32_t ncells;
	struct sock_fprog *filters;
	uint32_t nfilters;
	uint64_t total_insns; /* as the kernel counts them for the stack */
	struct split_node *made;
	bool split_cells_by_tests; /* split_outcome() a cell too big alone */
	struct cbpf_prog *out;
	struct secbpf_err *err;
};

static bool split_is_allow(const struct cbpf_rnode *n)
{
	return n->kind == CBPF_R_RET && n->ret->kind == CBPF_X_CONST &&
	       (uint32_t)n->ret->imm == SECCOMP_RET_ALLOW;
}

/* An ALLOW outcome of the plan, for the cells a filter does not own to
 * merge with its own ALLOW ranges; NULL when it has none. */
static struct cbpf_rnode *split_find_allow(const struct cbpf_plan *plan)
{
	uint32_t i, j;

	for (i = 0; i < plan->nclasses; i++)
		for (j = 0; j < plan->classes[i].nranges; j++)
			if (split_is_allow(plan->classes[i].ranges[j].out))
				return plan->classes[i].ranges[j].out;
	return NULL;
}

static void split_plan_free(struct cbpf_plan *sub)
{
	uint32_t i;

	for (i = 0; sub->classes && i < sub->nclasses; i++)
		free(sub->classes[i].ranges);
	free(sub->classes);
	memset(sub, 0, sizeof(*sub));
}

static bool split_class_all_allow(const struct cbpf_arch_class *cl, const struct cbpf_rnode *allow)
{
	return cl->nranges == 1 && cl->ranges[0].out == allow;
}

/*
 * The plan of the filter that owns cells[a..b]: every class, the owned
 * ranges with their outcome and the others ALLOW, adjacent equal outcomes
 * merged. An explicit class that is all ALLOW is dropped when the "other"
 * class (last) is all ALLOW too: its arch then gets ALLOW there as well.
 * With only, the one cell a..a decides as only instead (a part of its
 * outcome, split_outcome()).
 */
static int split_sub_plan(struct split_ctx *s, uint32_t a, uint32_t b, struct cbpf_rnode *only,
			  struct cbpf_plan *sub)
{
	const struct cbpf_plan *plan = s->plan;
	uint32_t i, j, n = 0, flat = 0;

	memset(sub, 0, sizeof(*sub));
	sub->notif = plan->notif;
	sub->mark = plan->mark;
	sub->classes = calloc(plan->nclasses, sizeof(*sub->classes));
	if (!sub->classes)
		return -ENOMEM;
	for (i = 0; i < plan->nclasses; i++) {
		const struct cbpf_arch_class *cl = &plan->classes[i];
		struct cbpf_arch_class *d = &sub->classes[n];

		*d = *cl;
		d->ranges = malloc(cl->nranges * sizeof(*d->ranges));
		if (!d->ranges) {
			sub->nclasses = n + 1;
			return -ENOMEM;
		}
		d->nranges = 0;
		for (j = 0; j < cl->nranges; j++) {
			struct cbpf_range rg = cl->ranges[j];

			/* s->cells lists every range in this order. */
			if (flat < a || flat > b)
				rg.out = s->allow;
			else if (only)
				rg.out = only;
			flat++;
			if (d->nranges && d->ranges[d->nranges - 1].out == rg.out)
				d->ranges[d->nranges - 1].hi = rg.hi;
			else
				d->ranges[d->nranges++] = rg;
		}
		n++;
	}
	sub->nclasses = n;
	/* Drop the explicit classes that decide as "other" does. */
	if (split_class_all_allow(&sub->classes[n - 1], s->allow)) {
		for (i = 0, j = 0; i < n; i++) {
			if (i + 1 < n && split_class_all_allow(&sub->classes[i], s->allow)) {
				free(sub->classes[i].ranges);
				continue;
			}
			sub->classes[j++] = sub->classes[i];
		}
		sub->nclasses = j;
	}
	return 0;
}

/* Append a laid-out filter; false past the filter count or the stack's
 * instruction budget (the caller then gives up splitting). */
static int split_append(struct split_ctx *s, struct sock_filter *insns, uint32_t len)
{
	struct sock_fprog *v;

	s->total_insns += len + CBPF_STACK_INSN_OVERHEAD;
	if (s->nfilters >= s->max_filters || s->total_insns > CBPF_MAX_STACK_INSNS) {
		free(insns);
		return -ENOSPC;
	}
	v = realloc(s->filters, (s->nfilters + 1) * sizeof(*v));
	if (!v) {
		free(insns);
		return -ENOMEM;
	}
	s->filters = v;
	s->filters[s->nfilters++] =
		(struct sock_fprog){ .len = (unsigned short)len, .filter = insns };
	return 0;
}

static uint32_t split_parts(uint32_t len)
{
	uint32_t fill = CBPF_MAX_INSNS * SPLIT_FILL_PERCENT / 100;

	return (len + fill - 1) / fill;
}

static int split_run(struct split_ctx *s, uint32_t a, uint32_t b);

/* cells[a..b] in parts runs of about equal weight, each laid out. */
static int split_runs(struct split_ctx *s, uint32_t a, uint32_t b, uint32_t parts)
{
	uint64_t total = 0, acc = 0;
	uint32_t i, start = a, done = 0;
	int rc;

	if (parts > b - a + 1)
		parts = b - a + 1;
	for (i = a; i <= b; i++)
		total += s->cells[i].weight;
	for (i = a; i <= b; i++) {
		acc += s->cells[i].weight;
		/* Cut after i once this part has its share, or when the
		 * cells left are just enough for one per part to come:
		 * every part gets a cell, so each run is shorter than a..b. */
		if (i < b && done + 1 < parts &&
		    (acc * parts >= total * (done + 1) || b - i == parts - done - 1)) {
			rc = split_run(s, start, i);
			if (rc)
				return rc;
			start = i + 1;
			done++;
		}
	}
	return split_run(s, start, b);
}

static bool split_is_branch(const struct cbpf_rnode *n)
{
	return n->kind == CBPF_R_BRANCH && !n->unsupported;
}

static struct cbpf_rnode *split_branch(struct split_ctx *s, const struct cbpf_rnode *like,
				       struct cbpf_rnode *t, struct cbpf_rnode *f)
{
	struct split_node *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->n.kind = CBPF_R_BRANCH;
	m->n.op = like->op;
	m->n.sgn = like->sgn;
	m->n.is32 = like->is32;
	m->n.a = like->a;
	m->n.b = like->b;
	m->n.insn = like->insn;
	m->n.t = t;
	m->n.f = f;
	m->next = s->made;
	s->made = m;
	return &m->n;
}

/*
 * Two outcomes that partition n's inputs: each decides as n on its part
 * and returns ALLOW on the other. Along the branches whose other way is
 * ALLOW (the parts of earlier splits), the first branch with two real ways
 * is cut: n1 takes its true way, n2 its false way. Returns false when n
 * has no such branch (one return, or a test without cBPF).
 */
static bool split_outcome(struct split_ctx *s, struct cbpf_rnode *n, struct cbpf_rnode **n1,
			  struct cbpf_rnode **n2)
{
	struct cbpf_rnode *a, *b;
	bool t_allow, f_allow;

	if (!split_is_branch(n))
		return false;
	t_allow = split_is_allow(n->t);
	f_allow = split_is_allow(n->f);
	if (t_allow == f_allow) {
		if (t_allow)
			return false;
		*n1 = split_branch(s, n, n->t, s->allow);
		*n2 = split_branch(s, n, s->allow, n->f);
		return *n1 && *n2;
	}
	if (!split_outcome(s, t_allow ? n->f : n->t, &a, &b))
		return false;
	*n1 = t_allow ? split_branch(s, n, s->allow, a) : split_branch(s, n, a, s->allow);
	*n2 = t_allow ? split_branch(s, n, s->allow, b) : split_branch(s, n, b, s->allow);
	return *n1 && *n2;
}

/*
 * Lay out the filter owning cells[a..b] (deciding as only for a single
 * cell when only is given). Past CBPF_MAX_INSNS it is split again: runs
 * of cells by cells, a single cell by its residual's tests
 * (split_outcome()). A part that cannot be split is laid out with its
 * largest residuals given to the supervisor: only that part is punted.
 */
static int split_run_part(struct split_ctx *s, uint32_t a, uint32_t b, struct cbpf_rnode *only)
{
	struct cbpf_rnode *n1, *n2, *own;
	struct cbpf_plan sub;
	struct sock_filter *insns;
	uint32_t len;
	int rc;

	rc = split_sub_plan(s, a, b, only, &sub);
	if (rc) {
		split_plan_free(&sub);
		return rc;
	}
	rc = cbpf_layout_filter(&sub, s->guard, false, s->out, &insns, &len, s->err);
	s->plan->mark = sub.mark;
	if (rc == -ENOSPC && a < b) {
		split_plan_free(&sub);
		return split_runs(s, a, b, split_parts(len) > 2 ? split_parts(len) : 2);
	}
	if (rc == -ENOSPC) {
		own = only ? only : s->plan->classes[s->cells[a].c].ranges[s->cells[a].r].out;
		if (s->split_cells_by_tests && split_outcome(s, own, &n1, &n2)) {
			split_plan_free(&sub);
			rc = split_run_part(s, a, a, n1);
			return rc ? rc : split_run_part(s, a, a, n2);
		}
		rc = cbpf_layout_filter(&sub, s->guard, true, s->out, &insns, &len, s->err);
		s->plan->mark = sub.mark;
	}
	if (!rc) {
		cbpf_layout_count_cells(&sub, s->allow, &s->out->cells, &s->out->notif_cells);
		rc = split_append(s, insns, len);
	}
	split_plan_free(&sub);
	return rc;
}

static int split_run(struct split_ctx *s, uint32_t a, uint32_t b)
{
	return split_run_part(s, a, b, NULL);
}

/* The cells of the plan in dispatch order, weighted by their estimated
 * code: the dispatch's few instructions, and their residual where no
 * earlier cell has it (hash-consed outcomes are laid out once per filter). */
static int split_cells(struct split_ctx *s)
{
	struct cbpf_plan *plan = s->plan;
	uint32_t i, j, n = 0, mark = ++plan->mark;

	for (i = 0; i < plan->nclasses; i++)
		n += plan->classes[i].nranges;
	s->cells = calloc(n, sizeof(*s->cells));
	if (!s->cells)
		return -ENOMEM;
	for (i = 0; i < plan->nclasses; i++)
		for (j = 0; j < plan->classes[i].nranges; j++) {
			struct cbpf_rnode *o = plan->classes[i].ranges[j].out;

			s->cells[s->ncells++] = (struct split_cell){
				.c = i,
				.r = j,
				.weight = 3 + cbpf_layout_outcome_size(plan, mark, o),
			};
		}
	return 0;
}

/* Forget the filters laid out so far, for another try. */
static void split_ctx_reset(struct split_ctx *s)
{
	uint32_t i;

	for (i = 0; i < s->nfilters; i++)
		free(s->filters[i].filter);
	s->nfilters = 0;
	s->total_insns = 0;
	s->out->cells = 0;
	s->out->notif_cells = 0;
}

static void split_ctx_free(struct split_ctx *s)
{
	uint32_t i;

	for (i = 0; i < s->nfilters; i++)
		free(s->filters[i].filter);
	free(s->filters);
	free(s->cells);
	while (s->made) {
		struct split_node *m = s->made;

		s->made = m->next;
		free(m);
	}
}

/* Move the filters of s into out. */
static void split_output(struct split_ctx *s, struct cbpf_prog *out)
{
	out->filters = s->filters;
	out->nfilters = s->nfilters;
	out->insns = s->filters[0].filter;
	out->len = s->filters[0].len;
	out->needs_supervisor = out->notif_cells > 0;
	s->filters = NULL;
	s->nfilters = 0;
}

int cbpf_split_plan(struct cbpf_plan *plan, bool guard, uint32_t max_filters, struct cbpf_prog *out,
		    struct secbpf_err *err)
{
	struct cbpf_rnode allow = { .kind = CBPF_R_RET };
	struct cbpf_expr allow_value = { .kind = CBPF_X_CONST, .imm = SECCOMP_RET_ALLOW };
	struct split_ctx s = {
		.plan = plan,
		.guard = guard,
		.max_filters = max_filters,
		.out = out,
		.err = err,
	};
	struct cbpf_compile_opts one = { .sz = sizeof(one), .listener_guard = guard };
	struct sock_filter *insns;
	uint32_t len;
	int rc;

	allow.ret = &allow_value;
	s.allow = split_find_allow(plan);
	if (!s.allow)
		s.allow = &allow;
	out->cells = 0;
	out->notif_cells = 0;
	rc = cbpf_layout_filter(plan, guard, false, out, &insns, &len, err);
	if (!rc) {
		cbpf_layout_count_cells(plan, NULL, &out->cells, &out->notif_cells);
		rc = split_append(&s, insns, len);
		if (!rc)
			split_output(&s, out);
		split_ctx_free(&s);
		return rc ? err_set(err, -rc, "out of memory") : 0;
	}
	if (rc != -ENOSPC)
		return rc;
	rc = split_cells(&s);
	/* First with the cells that do not fit alone split by their tests;
	 * when that takes too many filters (a residual DAG that shares much
	 * grows as trees), with those cells supervised instead. */
	for (s.split_cells_by_tests = true; !rc; s.split_cells_by_tests = false) {
		rc = split_runs(&s, 0, s.ncells - 1, split_parts(len) > 2 ? split_parts(len) : 2);
		if (!rc) {
			split_output(&s, out);
			split_ctx_free(&s);
			return 0;
		}
		if (rc != -ENOSPC || !s.split_cells_by_tests)
			break;
		split_ctx_reset(&s);
		rc = 0;
	}
	split_ctx_free(&s);
	if (rc == -ENOMEM)
		return err_set(err, ENOMEM, "out of memory");
	if (rc != -ENOSPC)
		return rc;
	/* More filters than allowed: one filter, the largest outcomes
	 * supervised, as without splitting. */
	(void)cbpf_punt_note(out, CBPF_PUNT_NO_INSN,
			     "the program needs more stacked filters than secbpf installs");
	return cbpf_layout_plan(plan, &one, out, err);
}
