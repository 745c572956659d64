// SPDX-License-Identifier: MIT
/*
 * Lint "arg32": a compare that looks at the upper 32 bits of an argument
 * the kernel truncates to 32 bits (an int or unsigned int parameter, or
 * any argument on a 32-bit arch). The caller controls those bits and the
 * syscall ignores them, so the filter decides on a value the kernel never
 * uses: socket(AF_NETLINK, SOCK_RAW, 9 | 1ull << 32) is NETLINK_AUDIT.
 */
#include <linux/audit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/syscall_name.h"
#include "lint/lint_internal.h"
#include "lint/syscall_argtypes.h"

/* Cells wider than this are not one syscall's: no name to look up. */
#define ARG32_MAX_CELL_NRS 64

static int syscall_argtypes_cmp(const void *key, const void *entry)
{
	return strcmp(key, ((const struct syscall_argtypes *)entry)->name);
}

const struct syscall_argtypes *syscall_argtypes_find(const char *name)
{
	const struct syscall_argtypes *t;
	char newname[64];

	t = bsearch(name, syscall_argtypes_table, syscall_argtypes_count,
		    sizeof(syscall_argtypes_table[0]), syscall_argtypes_cmp);
	if (t)
		return t;
	/* The kernel's sys_newfstat, sys_newuname... are fstat, uname. */
	if ((size_t)snprintf(newname, sizeof(newname), "new%s", name) >= sizeof(newname))
		return NULL;
	return bsearch(newname, syscall_argtypes_table, syscall_argtypes_count,
		       sizeof(syscall_argtypes_table[0]), syscall_argtypes_cmp);
}

/* One compare event seen in a cell of one arch, for nr: a finding when
 * that syscall's args[arg] is narrow. */
static int arg32_check(struct lint_run *run, uint32_t arch, uint32_t nr,
		       const struct cbpf_event *ev)
{
	const struct syscall_argtypes *t;
	const char *abi = syscall_abi_name(arch, (int32_t)nr);
	char name[64], abibuf[32];

	if (!*syscall_name(arch, (int32_t)nr, name, sizeof(name)))
		return 0;
	if (!(arch & __AUDIT_ARCH_64BIT)) {
		if (!abi) {
			snprintf(abibuf, sizeof(abibuf), "arch 0x%08x", arch);
			abi = abibuf;
		}
		return lint_add(run, "arg32", LINT_WARNING, ev->insn, ev->arg,
				"compares all 64 bits of args[%u] of %s on %s, where every "
				"argument is 32 bits: the kernel drops the upper half, which "
				"int $0x80 from a 64-bit process can fill; compare the low 32 "
				"bits: `(__u32)ctx->args[%u]`",
				ev->arg, name, abi, ev->arg);
	}
	t = syscall_argtypes_find(name);
	if (!t || !(t->narrow >> ev->arg & 1))
		return 0;
	return lint_add(run, "arg32", LINT_WARNING, ev->insn, ev->arg,
			"compares all 64 bits of args[%u], but %s's argument %u is `%s`: the "
			"kernel truncates it to 32 bits, so a caller can set the upper half to "
			"pass this check with the value it denies; compare the low 32 bits: "
			"`(%s)ctx->args[%u]`",
			ev->arg, name, ev->arg, t->decl[ev->arg],
			strncmp(t->decl[ev->arg], "int", 3) ? "__u32" : "int", ev->arg);
}

int lint_arg32_cell(struct lint_run *run, const struct cbpf_cell *cell, const struct cbpf_event *ev,
		    size_t nev)
{
	uint32_t arch = cell->arch_fixed ? cell->arch : run->native_arch;
	uint64_t nr;
	size_t i;
	int rc;

	if (!lint_cell_has_arch(cell, arch) || cell->hi - cell->lo >= ARG32_MAX_CELL_NRS)
		return 0;
	for (i = 0; i < nev; i++) {
		if (ev[i].kind != CBPF_EV_ARG_COMPARE)
			continue;
		for (nr = cell->lo; nr <= cell->hi; nr++) {
			rc = arg32_check(run, arch, (uint32_t)nr, &ev[i]);
			if (rc)
				return rc;
		}
	}
	return 0;
}
