/* SPDX-License-Identifier: MIT */
/*
 * Lints for the classic traps of seccomp filters (docs/lints.md), for
 * `secbpf verify` and `secbpf cc`: computed on what the program decides for
 * each (arch, nr) cell as the cBPF compiler's exploration sees it, and
 * reported on the C line (BTF line info) with the fix.
 */
#ifndef SECBPF_LINT_H
#define SECBPF_LINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "object/object.h"

enum lint_severity {
	LINT_NOTE,    /* worth knowing; never an error */
	LINT_WARNING, /* a likely hole: an error with --Werror */
};

#define LINT_MSG_MAX 512

struct lint_finding {
	const char *name; /* the lint: "arch", "x32", "arg32", "denylist", "uprobe" */
	enum lint_severity severity;
	uint32_t insn;	  /* the instruction it is about */
	uint32_t detail;  /* what makes two findings at insn different (an arg) */
	const char *file; /* BTF line info (owned by the object), or NULL */
	uint32_t line;
	char msg[LINT_MSG_MAX]; /* what is wrong, then the fix */
};

struct lint_report {
	struct lint_finding *v;
	size_t n, cap;
	size_t warnings; /* findings with LINT_WARNING */
};

/*
 * Run every lint on prog (relocated, from obj) and append the findings to
 * r, sorted by line, each once per C line. The arch a cell that did not fix the arch
 * is read for (arg32) is the host's. Returns 0, or a negative errno with
 * err set (the program could not be explored: it fails to compile).
 */
int lint_program(const struct object *obj, const struct object_prog *prog, struct lint_report *r,
		 struct secbpf_err *err);

/* "FILE:LINE: warning: MSG [lint-NAME]" (or "OBJ: PROG: insn N: note: ...")
 * for every finding, one per line. */
void lint_report_print(FILE *f, const struct object *obj, const struct object_prog *prog,
		       const struct lint_report *r);

void lint_report_free(struct lint_report *r);

#endif
