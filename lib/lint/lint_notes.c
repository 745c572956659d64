// SPDX-License-Identifier: MIT
/*
 * The notes: a denylist, whose default lets every syscall it does not name
 * run (lint "denylist"), and a program that decides uretprobe or uprobe
 * otherwise than its default, a decision recent kernels never ask it for
 * (lint "uprobe").
 */
#include <linux/audit.h>
#include <stdint.h>

#include "lint/lint_internal.h"

/* The default's cell holds a number no arch assigns: if it returns ALLOW
 * (or LOG), so will syscalls the kernel adds after the filter is written. */
int lint_denylist_cell(struct lint_run *run, const struct cbpf_cell *cell,
		       const struct cbpf_event *ev, size_t nev)
{
	size_t i;

	if (run->denylist_noted || cell->lo > LINT_UNASSIGNED_NR || cell->hi < LINT_UNASSIGNED_NR)
		return 0;
	for (i = 0; i < nev; i++) {
		uint32_t action = ev[i].value & SECCOMP_RET_ACTION_FULL;

		if (ev[i].kind != CBPF_EV_EXIT || !ev[i].value_known ||
		    (action != SECCOMP_RET_ALLOW && action != SECCOMP_RET_LOG))
			continue;
		run->denylist_noted = true;
		return lint_add(run, "denylist", LINT_NOTE, lint_exit_insn(run, &ev[i]), 0,
				"a denylist: this default returns %s for every syscall the program "
				"does not name, including those later kernels add; an allowlist "
				"(default deny, e.g. SECCOMP_RET_ERRNO | ENOSYS) fails closed",
				lint_action_name(ev[i].value));
	}
	return 0;
}

/* uprobe_outcome[] slots: x86_64's default (an unassigned nr), then
 * 334 (rseq), 335 (uretprobe), 336 (uprobe) and 337 (unassigned). */
static const uint32_t uprobe_slot_nr[LINT_UPROBE_SLOTS] = {
	LINT_UNASSIGNED_NR, LINT_NR_URETPROBE - 1, LINT_NR_URETPROBE,
	LINT_NR_UPROBE,	    LINT_NR_UPROBE + 1,
};

int lint_uprobe_cell(struct lint_run *run, const struct cbpf_cell *cell, const void *outcome,
		     const struct cbpf_event *ev, size_t nev)
{
	uint32_t nr, s;
	size_t i;

	if (!lint_cell_has_arch(cell, AUDIT_ARCH_X86_64))
		return 0;
	/* A cell that did not fix the arch is x86_64's only on an x86_64
	 * host: elsewhere 335 is another syscall, and arch would be checked. */
	if (!cell->arch_fixed && run->native_arch != AUDIT_ARCH_X86_64)
		return 0;
	for (s = 0; s < LINT_UPROBE_SLOTS; s++) {
		nr = uprobe_slot_nr[s];
		if (nr < cell->lo || nr > cell->hi || run->uprobe_seen[s])
			continue;
		run->uprobe_seen[s] = true;
		run->uprobe_outcome[s] = (uintptr_t)outcome;
		run->uprobe_insn[s] = 0;
		for (i = 0; i < nev; i++)
			if (ev[i].kind == CBPF_EV_EXIT) {
				run->uprobe_insn[s] = lint_exit_insn(run, &ev[i]);
				break;
			}
	}
	return 0;
}

/*
 * 335 or 336 is singled out when its decision is neither the program's
 * default nor that of the numbers around the pair (334, 337): a case of
 * its own, not the default of an allowlist or part of a range.
 */
int lint_uprobe_finish(struct lint_run *run)
{
	static const char *const names[2] = { "uretprobe", "uprobe" };
	unsigned s;
	int rc;

	for (s = 0; s < LINT_UPROBE_SLOTS; s++)
		if (!run->uprobe_seen[s])
			return 0;
	for (s = 2; s <= 3; s++) {
		uintptr_t o = run->uprobe_outcome[s];

		if (o == run->uprobe_outcome[0] || o == run->uprobe_outcome[1] ||
		    o == run->uprobe_outcome[4])
			continue;
		rc = lint_add(run, "uprobe", LINT_NOTE, run->uprobe_insn[s], s,
			      "decides %s (x86_64 nr %u) apart from its default and its "
			      "neighbours, but recent kernels run uretprobe and uprobe without "
			      "consulting seccomp filters: this decision is never enforced "
			      "(docs/lints.md)",
			      names[s - 2], uprobe_slot_nr[s]);
		if (rc)
			return rc;
	}
	return 0;
}
