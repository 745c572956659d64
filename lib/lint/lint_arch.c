// SPDX-License-Identifier: MIT
/*
 * The lints on the (arch, nr) domain: a path that lets a syscall run
 * without having checked ctx->arch (lint "arch"), and x32's numbers (bit 30
 * of nr, arch x86_64) reaching such a path by default (lint "x32").
 */
#include <linux/audit.h>

#include "lint/lint_internal.h"

/* The check the fix adds, for the arch the filter is built on. */
static const char *native_arch_macro(uint32_t arch)
{
	switch (arch) {
	case AUDIT_ARCH_X86_64:
		return "AUDIT_ARCH_X86_64";
	case AUDIT_ARCH_AARCH64:
		return "AUDIT_ARCH_AARCH64";
	case AUDIT_ARCH_I386:
		return "AUDIT_ARCH_I386";
	}
	return "AUDIT_ARCH_...";
}

/*
 * A cell whose arch the exploration did not fix holds every arch the
 * program did not compare ctx->arch with: an exit there that lets the
 * syscall run decides by nr alone, and nr means another syscall on
 * another arch (execve is 59 on x86_64, 11 on i386 through int $0x80).
 */
int lint_arch_cell(struct lint_run *run, const struct cbpf_cell *cell, const struct cbpf_event *ev,
		   size_t nev)
{
	size_t i;
	int rc;

	if (cell->arch_fixed)
		return 0;
	for (i = 0; i < nev; i++) {
		if (ev[i].kind != CBPF_EV_EXIT || !ev[i].value_known || ev[i].arch_tested ||
		    !lint_action_lets_run(ev[i].value))
			continue;
		rc = lint_add(run, "arch", LINT_WARNING, lint_exit_insn(run, &ev[i]), 0,
			      "returns %s without having checked ctx->arch%s: the same nr is "
			      "another syscall on another arch (i386's 11 is execve, through "
			      "int $0x80 from a 64-bit process); check the arch first: "
			      "`if (ctx->arch != %s) return SECCOMP_RET_KILL_PROCESS;`",
			      lint_action_name(ev[i].value),
			      cell->nexcl ? " (on this path it is none of the arches the "
					    "program tests)"
					  : "",
			      native_arch_macro(run->native_arch));
		if (rc)
			return rc;
	}
	return 0;
}

/* Whether [lo, hi] holds an x32 number and also numbers outside x32's
 * table: a range the program did not split at x32's bit (a default). */
static bool range_lets_x32_in_by_default(uint32_t lo, uint32_t hi)
{
	bool has_x32 = lo <= LINT_X32_LAST && hi >= LINT_X32_BIT;

	return has_x32 && (lo < LINT_X32_BIT || hi > LINT_X32_LAST);
}

/*
 * The kernel reports x32 syscalls with AUDIT_ARCH_X86_64 and bit 30 set in
 * nr; a program that checks the arch and then switches on nr sends them
 * to its default. When that default lets them run, every syscall the
 * switch denies is still reachable as its x32 twin.
 */
int lint_x32_cell(struct lint_run *run, const struct cbpf_cell *cell, const struct cbpf_event *ev,
		  size_t nev)
{
	size_t i;
	int rc;

	if (!cell->arch_fixed || cell->arch != AUDIT_ARCH_X86_64 ||
	    !range_lets_x32_in_by_default(cell->lo, cell->hi))
		return 0;
	for (i = 0; i < nev; i++) {
		if (ev[i].kind != CBPF_EV_EXIT || !ev[i].value_known ||
		    !lint_action_lets_run(ev[i].value))
			continue;
		rc = lint_add(run, "x32", LINT_WARNING, lint_exit_insn(run, &ev[i]), 0,
			      "returns %s for x32 syscalls too (arch AUDIT_ARCH_X86_64 with nr | "
			      "0x40000000: 0x40000208 is x32's execve), which this default lets "
			      "past every check on nr; after the arch check, deny them: "
			      "`if (ctx->nr >= 0x40000000) return SECCOMP_RET_KILL_PROCESS;`",
			      lint_action_name(ev[i].value));
		if (rc)
			return rc;
	}
	return 0;
}
