// SPDX-License-Identifier: MIT
/*
 * Planning a stack of filters (stack_plan.h): compile, give runtimes to
 * the stateful programs, and lay out the one listener filter. Deterministic,
 * so that a spawned supervisor recomputes exactly what its caller installed.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "install/stack_plan.h"

/* sock_fprog.len is an unsigned short: never let it truncate. */
static int plan_fprog(struct sock_fprog *out, const struct sock_fprog *f, const char *name,
		      struct secbpf_err *err)
{
	if (f->len == 0 || f->len > CBPF_MAX_INSNS)
		return err_set(err, E2BIG, "%s: the compiled filter has %u instructions (1 to %d)",
			       name, f->len, CBPF_MAX_INSNS);
	*out = *f;
	return 0;
}

/* Compile one target with or without the listener guard, into at most
 * max_filters filters (split by cells past CBPF_MAX_INSNS). */
static int plan_compile(struct stack_plan *plan, size_t i, const struct stack_plan_target *t,
			bool guard, uint32_t max_filters, struct secbpf_err *err)
{
	struct cbpf_compile_opts opts = {
		.sz = sizeof(opts),
		.listener_guard = guard,
		.max_filters = max_filters,
	};
	int rc;

	cbpf_prog_free(&plan->compiled[i]);
	memset(&plan->compiled[i], 0, sizeof(plan->compiled[i]));
	rc = cbpf_compile(t->obj, t->prog, &opts, &plan->compiled[i], err);
	if (rc)
		err_prefix(err, "%s", t->name);
	return rc;
}

/* Whether target i's filters need the supervisor: a path needs state or
 * did not fit, or (run --agent) some filter can return USER_NOTIF. */
static bool plan_needs_supervisor(const struct stack_plan *plan, size_t i,
				  const struct stack_plan_opts *opts)
{
	const struct cbpf_prog *cp = &plan->compiled[i];
	uint32_t k;

	if (cp->needs_supervisor)
		return true;
	if (!opts || !opts->supervise_user_notif)
		return false;
	for (k = 0; k < cp->nfilters; k++)
		if (supervisor_filter_may_notify(cp->filters[k].filter, cp->filters[k].len))
			return true;
	return false;
}

/* plan->plain: every filter of every target, in order. */
static int plan_fill_plain(struct stack_plan *plan, const struct stack_plan_target *targets,
			   struct secbpf_err *err)
{
	size_t i, n = 0;
	uint32_t k;
	int rc;

	for (i = 0; i < plan->n; i++)
		n += plan->compiled[i].nfilters;
	free(plan->plain);
	plan->nplain = 0;
	plan->plain = calloc(n ? n : 1, sizeof(*plan->plain));
	if (!plan->plain)
		return err_set(err, ENOMEM, "out of memory");
	for (i = 0; i < plan->n; i++)
		for (k = 0; k < plan->compiled[i].nfilters; k++) {
			rc = plan_fprog(&plan->plain[plan->nplain++], &plan->compiled[i].filters[k],
					targets[i].name, err);
			if (rc)
				return rc;
		}
	return 0;
}

bool stack_plan_reads_memory(const struct object *obj)
{
	const struct bpf_insn *in;
	uint32_t i, j;

	for (i = 0; i < obj->prog_cnt; i++)
		for (j = 0; j < obj->progs[i].insn_cnt; j++) {
			in = &obj->progs[i].insns[j];
			if (in->code != (BPF_JMP | BPF_CALL) || in->src_reg != 0)
				continue;
			switch (in->imm) {
			case BPF_FUNC_probe_read:
			case BPF_FUNC_probe_read_str:
			case BPF_FUNC_probe_read_user:
			case BPF_FUNC_probe_read_user_str:
			case BPF_FUNC_copy_from_user:
				return true;
			default:
				break;
			}
		}
	return false;
}

/*
 * The supervised layout. A lone stateful filter given last is the listener
 * filter itself and is recompiled with the listener guard, so that a
 * filtered process cannot install a listener of its own once ours is gone
 * (docs/design.md §1); otherwise supervisor_stack_build adds a guarded listener
 * filter after the others.
 */
static int plan_supervision(struct stack_plan *plan, const struct stack_plan_target *targets,
			    struct secbpf_err *err)
{
	size_t i, n = plan->n;
	int rc;

	plan->sv_progs = calloc(n, sizeof(*plan->sv_progs));
	if (!plan->sv_progs)
		return err_set(err, ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		plan->sv_progs[i].rt = plan->runtimes[i];
		plan->sv_progs[i].name = targets[i].name;
		plan->sv_progs[i].reads_memory = stack_plan_reads_memory(targets[i].obj);
		plan->sv_progs[i].obj = targets[i].obj;
		plan->sv_progs[i].prog = targets[i].prog;
	}
	if (supervisor_stack_single(plan->sv_progs, n)) {
		rc = plan_compile(plan, n - 1, &targets[n - 1], true, 1, err);
		if (rc)
			return rc;
	}
	for (i = 0; i < n; i++) {
		plan->sv_progs[i].insns = plan->compiled[i].insns;
		plan->sv_progs[i].len = plan->compiled[i].len;
	}
	rc = supervisor_stack_build(plan->sv_progs, n, &plan->stack, err);
	if (rc)
		return rc;
	plan->install = plan->stack.progs;
	plan->ninstall = plan->stack.n;
	return 0;
}

int stack_plan_build(struct stack_plan *plan, const struct stack_plan_target *targets, size_t n,
		     const struct stack_plan_opts *opts, struct secbpf_err *err)
{
	struct runtime_opts rt_opts = { .sz = sizeof(rt_opts) };
	size_t i;
	int rc;

	memset(plan, 0, sizeof(*plan));
	if (n == 0)
		return err_set(err, EINVAL, "no program to install");
	rt_opts.ncpus = opts && opts->ncpus ? opts->ncpus : supervisor_default_workers();
	rt_opts.loader_cap_sys_ptrace = opts && opts->loader_cap_sys_ptrace;
	rt_opts.trace_log = opts ? opts->trace_log : NULL;
	plan->n = n;
	plan->compiled = calloc(n, sizeof(*plan->compiled));
	plan->runtimes = calloc(n, sizeof(*plan->runtimes));
	if (!plan->compiled || !plan->runtimes) {
		rc = err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++) {
		rc = plan_compile(plan, i, &targets[i], false, CBPF_MAX_FILTERS, err);
		if (rc)
			goto fail;
		plan->stateful |= plan_needs_supervisor(plan, i, opts);
	}
	/*
	 * The supervised layout takes one filter per program (the supervisor
	 * simulates each to combine their actions, and the program it runs
	 * answers for its one filter): with a supervisor, a program split by
	 * cells is compiled as one filter again, its largest cells handed to
	 * the supervisor as before splitting existed (docs/architecture.md, Split).
	 */
	for (i = 0; plan->stateful && i < n; i++) {
		if (plan->compiled[i].nfilters <= 1)
			continue;
		rc = plan_compile(plan, i, &targets[i], false, 1, err);
		if (rc)
			goto fail;
	}
	for (i = 0; i < n; i++) {
		if (!plan_needs_supervisor(plan, i, opts))
			continue;
		plan->runtimes[i] = runtime_new_opts(targets[i].obj, targets[i].prog, &rt_opts, err);
		if (!plan->runtimes[i]) {
			err_prefix(err, "%s: cannot prepare the program for the supervisor",
				   targets[i].name);
			rc = -EINVAL;
			goto fail;
		}
	}
	if (plan->stateful) {
		rc = plan_supervision(plan, targets, err);
		if (rc)
			goto fail;
	}
	rc = plan_fill_plain(plan, targets, err);
	if (rc)
		goto fail;
	if (!plan->stateful) {
		plan->install = plan->plain;
		plan->ninstall = plan->nplain;
	}
	return 0;
fail:
	stack_plan_free(plan);
	return rc;
}

void stack_plan_free(struct stack_plan *plan)
{
	size_t i;

	supervisor_stack_free(&plan->stack);
	for (i = 0; plan->runtimes && i < plan->n; i++)
		runtime_free(plan->runtimes[i]);
	for (i = 0; plan->compiled && i < plan->n; i++)
		cbpf_prog_free(&plan->compiled[i]);
	free(plan->runtimes);
	free(plan->compiled);
	free(plan->plain);
	free(plan->sv_progs);
	memset(plan, 0, sizeof(*plan));
}

/* FNV-1a over bytes: not a security digest (the supervisor is spawned by
 * the caller, who is trusted with its own filters); it detects a version
 * skew between the library and the supervisor executable. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t stack_plan_digest(const struct stack_plan *plan)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t len;
	size_t i, j;

	h = fnv1a(h, &plan->ninstall, sizeof(plan->ninstall));
	for (i = 0; i < plan->ninstall; i++) {
		len = plan->install[i].len;
		h = fnv1a(h, &len, sizeof(len));
		for (j = 0; j < len; j++) {
			const struct sock_filter *f = &plan->install[i].filter[j];

			h = fnv1a(h, &f->code, sizeof(f->code));
			h = fnv1a(h, &f->jt, 1);
			h = fnv1a(h, &f->jf, 1);
			h = fnv1a(h, &f->k, sizeof(f->k));
		}
	}
	return h;
}
