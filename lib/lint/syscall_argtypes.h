/* SPDX-License-Identifier: MIT */
/*
 * Which syscall arguments the kernel declares 32 bits wide or narrower, by
 * syscall name: the table scripts/gen-syscall-argtypes generates from the
 * kernel's prototypes (syscall_argtypes.c), and its lookup.
 */
#ifndef SECBPF_LINT_SYSCALL_ARGTYPES_H
#define SECBPF_LINT_SYSCALL_ARGTYPES_H

#include <stddef.h>
#include <stdint.h>

struct syscall_argtypes {
	const char *name;    /* the kernel's name, without sys_ */
	uint8_t narrow;	     /* bit i: args[i] is 32 bits or narrower */
	const char *decl[6]; /* the declaration of each narrow argument */
};

extern const struct syscall_argtypes syscall_argtypes_table[]; /* sorted by name */
extern const unsigned int syscall_argtypes_count;

/* The entry for a syscall as libseccomp names it (the kernel's sys_newX
 * is libseccomp's X), or NULL when none of its arguments is narrow. */
const struct syscall_argtypes *syscall_argtypes_find(const char *name);

#endif
