/* SPDX-License-Identifier: MIT */
/*
 * One (arch, nr) cell of a compiled filter, explored with its arguments
 * unknown, for `secbpf export-oci` (docs/containers.md): every feasible
 * path's action and, where a path tests nothing but masked equalities of
 * the arguments, those tests as libseccomp's SCMP_CMP_MASKED_EQ.
 */
#ifndef SECBPF_OCI_CELL_H
#define SECBPF_OCI_CELL_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* (args[arg] & mask) == datum, on all 64 bits. */
struct oci_cond {
	uint8_t arg;
	uint64_t mask, datum;
};

#define OCI_PATH_MAX_CONDS 6 /* one per argument */

struct oci_path {
	uint32_t action;
	bool expressible; /* conds say exactly which calls take this path */
	uint8_t nconds;
	struct oci_cond conds[OCI_PATH_MAX_CONDS]; /* by arg, ascending */
};

struct oci_cell {
	bool fixed;	 /* every call gets action */
	uint32_t action; /* when fixed */
	struct oci_path *paths;
	size_t npaths; /* the feasible paths (0 when the exploration gave up) */
};

/* Explore insns[0..len-1] (a checked filter) for arch audit and number nr.
 * Returns 0 or -ENOMEM. */
int oci_cell_explore(const struct sock_filter *insns, size_t len, uint32_t audit, uint32_t nr,
		     struct oci_cell *out);
void oci_cell_free(struct oci_cell *c);

#endif
