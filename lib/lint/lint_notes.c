// SPDX-License-Identifier: MIT
/*
 * The notes: a denylist, whose default lets every syscall it does not name
 * run (lint "denylist"), and a program that decides uretprobe or uprobe
 * differently from their neighbours, a decision recent kernels never ask
 * it for (lint "uprobe").
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
		return lint_add(run, "denylist", LINT_NOTE, ev[i].insn, 0,
				"a denylist: this default returns %s for every syscall the program "
				"does not name, including those later kernels add; an allowlist "
				"(default deny, e.g. SECCOMP_RET_ERRNO | ENOSYS) fails closed",
				lint_action_name(ev[i].value));
	}
	return 0;
}

/* uprobe_outcome[] slots: x86_64's nrs 334 (rseq), 335, 336, 337. */
#define UPROBE_FIRST_NR 334
#define UPROBE_SLOTS 4

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
	for (s = 0; s < UPROBE_SLOTS; s++) {
		nr = UPROBE_FIRST_NR + s;
		if (nr < cell->lo || nr > cell->hi || run->uprobe_seen[s])
			continue;
		run->uprobe_seen[s] = true;
		run->uprobe_outcome[s] = (uintptr_t)outcome;
		run->uprobe_insn[s] = UINT32_MAX;
		for (i = 0; i < nev; i++)
			if (ev[i].kind == CBPF_EV_EXIT) {
				run->uprobe_insn[s] = ev[i].insn;
				break;
			}
	}
	return 0;
}

int lint_uprobe_finish(struct lint_run *run)
{
	static const char *const names[2] = { "uretprobe", "uprobe" };
	uintptr_t below = run->uprobe_outcome[0], above = run->uprobe_outcome[3];
	unsigned i;
	int rc;

	for (i = 0; i < UPROBE_SLOTS; i++)
		if (!run->uprobe_seen[i])
			return 0;
	for (i = 1; i <= 2; i++) {
		uintptr_t o = run->uprobe_outcome[i];

		if (o == below || o == above)
			continue;
		rc = lint_add(run, "uprobe", LINT_NOTE,
			      run->uprobe_insn[i] == UINT32_MAX ? 0 : run->uprobe_insn[i], i,
			      "decides %s (x86_64 nr %u) apart from its neighbours, but recent "
			      "kernels run uretprobe and uprobe without consulting seccomp "
			      "filters: this decision is never enforced (docs/divergences.md)",
			      names[i - 1], UPROBE_FIRST_NR + i);
		if (rc)
			return rc;
	}
	return 0;
}
