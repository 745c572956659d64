/* SPDX-License-Identifier: MIT */
/*
 * What the lints share (lint.c runs them): one run over a program's cells,
 * where each lint looks at every cell the exploration reports and, for the
 * lints that compare cells, concludes at the end.
 */
#ifndef SECBPF_LINT_INTERNAL_H
#define SECBPF_LINT_INTERNAL_H

#include "cbpf/cbpf.h"
#include "lint/lint.h"

/* The nr no arch assigns, below x32's bit: a default's cell holds it. */
#define LINT_UNASSIGNED_NR 0x3fff0000u
/* x32's numbers: bit 30 set, then the x32 table (under 1024 entries). */
#define LINT_X32_BIT 0x40000000u
#define LINT_X32_LAST 0x400003ffu
/* The syscalls recent kernels run without consulting seccomp (x86_64). */
#define LINT_NR_URETPROBE 335
#define LINT_NR_UPROBE 336
#define LINT_UPROBE_SLOTS 5

struct lint_run {
	const struct object *obj;
	const struct object_prog *prog;
	struct lint_report *report;
	struct secbpf_err *err;
	uint32_t native_arch; /* AUDIT_ARCH of the host */
	bool denylist_noted;
	/* uprobe: the outcome of x86_64's default (LINT_UNASSIGNED_NR) and
	 * of nrs 334 to 337, and where the cells of each return. */
	uintptr_t uprobe_outcome[LINT_UPROBE_SLOTS];
	bool uprobe_seen[LINT_UPROBE_SLOTS];
	uint32_t uprobe_insn[LINT_UPROBE_SLOTS];
};

/* Add a finding (once per name, detail and C line, or insn without line
 * info). 0 or -ENOMEM. */
int lint_add(struct lint_run *run, const char *name, enum lint_severity sev, uint32_t insn,
	     uint32_t detail, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Where an exit event is in the C source: the instruction that set its
 * value when a line starts there, else the decision that led there (clang
 * merges equal returns into one instruction, with no line of its own). */
uint32_t lint_exit_insn(const struct lint_run *run, const struct cbpf_event *ev);

/* Whether a cell may hold arch (AUDIT_ARCH value). */
bool lint_cell_has_arch(const struct cbpf_cell *cell, uint32_t arch);
/* The action of a return value, by name ("ALLOW", "ERRNO", ...). */
const char *lint_action_name(uint32_t ret);
/* Whether the kernel lets the syscall run (or may: a tracer, the
 * supervisor): ALLOW, LOG, TRACE, USER_NOTIF. KILL, TRAP, ERRNO and the
 * actions the kernel does not know (it kills) deny. */
bool lint_action_lets_run(uint32_t ret);

/* The lints, called for every cell (lint_arch.c, lint_args.c, lint_notes.c). */
int lint_arch_cell(struct lint_run *run, const struct cbpf_cell *cell, const struct cbpf_event *ev,
		   size_t nev);
int lint_x32_cell(struct lint_run *run, const struct cbpf_cell *cell, const struct cbpf_event *ev,
		  size_t nev);
int lint_arg32_cell(struct lint_run *run, const struct cbpf_cell *cell, const struct cbpf_event *ev,
		    size_t nev);
int lint_denylist_cell(struct lint_run *run, const struct cbpf_cell *cell,
		       const struct cbpf_event *ev, size_t nev);
int lint_uprobe_cell(struct lint_run *run, const struct cbpf_cell *cell, const void *outcome,
		     const struct cbpf_event *ev, size_t nev);
/* After every cell: what needs them all. */
int lint_uprobe_finish(struct lint_run *run);

#endif
