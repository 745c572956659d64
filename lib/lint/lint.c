// SPDX-License-Identifier: MIT
/*
 * The lint engine: explores the program with the cBPF compiler's front end
 * (cbpf_observe), hands every (arch, nr) cell to each lint, and keeps the
 * findings, named by the C line of their instruction.
 */
#include <errno.h>
#include <linux/audit.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/syscall_name.h"
#include "lint/lint_internal.h"

/* The line info of insn; clang gives some instructions line 0 (code it
 * made up, like a merged compare): then the closest line before it. */
static const struct object_line *lint_line_of(const struct object_prog *prog, uint32_t insn)
{
	const struct object_line *l = object_prog_line(prog, insn);

	while (l && l->line == 0 && l > prog->lines)
		l--;
	return l && l->line ? l : NULL;
}

uint32_t lint_exit_insn(const struct lint_run *run, const struct cbpf_event *ev)
{
	const struct object_line *l = object_prog_line(run->prog, ev->insn);

	if ((l && l->insn_off == ev->insn && l->line) || ev->branch_insn == UINT32_MAX)
		return ev->insn;
	return ev->branch_insn;
}

int lint_add(struct lint_run *run, const char *name, enum lint_severity sev, uint32_t insn,
	     uint32_t detail, const char *fmt, ...)
{
	struct lint_report *r = run->report;
	const struct object_line *l = lint_line_of(run->prog, insn);
	struct lint_finding *f;
	va_list ap;
	size_t i;

	/* Once per C line (clang spreads one compare over several
	 * instructions), or per instruction without line info. */
	for (i = 0; i < r->n; i++)
		if (r->v[i].name == name && r->v[i].detail == detail &&
		    (l && l->file ? r->v[i].file == l->file && r->v[i].line == l->line
				  : r->v[i].insn == insn))
			return 0;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct lint_finding *n = realloc(r->v, cap * sizeof(*n));

		if (!n)
			return err_set(run->err, ENOMEM, "out of memory");
		r->v = n;
		r->cap = cap;
	}
	f = &r->v[r->n++];
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->severity = sev;
	f->insn = insn;
	f->detail = detail;
	if (l && l->file) {
		f->file = l->file;
		f->line = l->line;
	}
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	if (sev == LINT_WARNING)
		r->warnings++;
	return 0;
}

bool lint_cell_has_arch(const struct cbpf_cell *cell, uint32_t arch)
{
	uint32_t i;

	if (cell->arch_fixed)
		return cell->arch == arch;
	for (i = 0; i < cell->nexcl; i++)
		if (cell->excl[i] == arch)
			return false;
	return true;
}

const char *lint_action_name(uint32_t ret)
{
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS:
		return "KILL_PROCESS";
	case SECCOMP_RET_KILL_THREAD:
		return "KILL_THREAD";
	case SECCOMP_RET_TRAP:
		return "TRAP";
	case SECCOMP_RET_ERRNO:
		return "ERRNO";
	case SECCOMP_RET_USER_NOTIF:
		return "USER_NOTIF";
	case SECCOMP_RET_TRACE:
		return "TRACE";
	case SECCOMP_RET_LOG:
		return "LOG";
	case SECCOMP_RET_ALLOW:
		return "ALLOW";
	}
	return "an unknown action (the kernel kills)";
}

bool lint_action_lets_run(uint32_t ret)
{
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_USER_NOTIF:
	case SECCOMP_RET_TRACE:
	case SECCOMP_RET_LOG:
	case SECCOMP_RET_ALLOW:
		return true;
	}
	return false;
}

static int lint_on_cell(void *ctx, const struct cbpf_cell *cell, const void *outcome,
			bool supervised, const struct cbpf_event *ev, size_t nev)
{
	struct lint_run *run = ctx;
	int rc;

	(void)supervised;
	rc = lint_arch_cell(run, cell, ev, nev);
	if (!rc)
		rc = lint_x32_cell(run, cell, ev, nev);
	if (!rc)
		rc = lint_arg32_cell(run, cell, ev, nev);
	if (!rc)
		rc = lint_denylist_cell(run, cell, ev, nev);
	if (!rc)
		rc = lint_uprobe_cell(run, cell, outcome, ev, nev);
	return rc;
}

static int finding_order(const void *x, const void *y)
{
	const struct lint_finding *a = x, *b = y;

	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->insn != b->insn)
		return a->insn < b->insn ? -1 : 1;
	return a->detail < b->detail ? -1 : a->detail > b->detail;
}

int lint_program(const struct object *obj, const struct object_prog *prog, struct lint_report *r,
		 struct secbpf_err *err)
{
	struct lint_run run = { .obj = obj, .prog = prog, .report = r, .err = err };
	struct cbpf_observer obs = { .ctx = &run, .cell = lint_on_cell };
	size_t first = r->n;
	int rc;

	run.native_arch = syscall_abi_native().audit;
	rc = cbpf_observe(obj, prog, &obs, err);
	if (!rc)
		rc = lint_uprobe_finish(&run);
	if (rc)
		return rc < 0 ? rc : -EFAULT;
	if (r->n > first)
		qsort(r->v + first, r->n - first, sizeof(*r->v), finding_order);
	return 0;
}

void lint_report_print(FILE *f, const struct object *obj, const struct object_prog *prog,
		       const struct lint_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct lint_finding *x = &r->v[i];
		const char *sev = x->severity == LINT_WARNING ? "warning" : "note";

		if (x->file)
			fprintf(f, "%s:%u: %s: %s [lint-%s]\n", x->file, x->line, sev, x->msg,
				x->name);
		else
			fprintf(f, "%s: %s: insn %u: %s: %s [lint-%s]\n", obj->path, prog->name,
				x->insn, sev, x->msg, x->name);
	}
}

void lint_report_free(struct lint_report *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
