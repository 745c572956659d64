/* SPDX-License-Identifier: MIT */
/*
 * One (arch, nr) cell of a compiled filter, explored with its arguments
 * unknown (used by `secbpf export-oci`, docs/containers.md): every feasible
 * path's action and, where a path tests nothing but masked equalities of
 * the arguments, those tests as libseccomp's SCMP_CMP_MASKED_EQ; and, where
 * every test compares an argument word (plus a constant) with a constant,
 * the values at which some test changes its outcome (the cell's decision is
 * constant between them). Known values are computed by the simulator's ALU
 * and conditions (cbpf_sim.c).
 */
#ifndef SECBPF_CBPF_CELL_PATHS_H
#define SECBPF_CBPF_CELL_PATHS_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* (args[arg] & mask) == datum, on all 64 bits. */
struct cbpf_cell_cond {
	uint8_t arg;
	uint64_t mask, datum;
};

#define CBPF_CELL_MAX_CONDS 6 /* one per argument */

struct cbpf_cell_path {
	uint32_t action;
	bool expressible; /* conds say exactly which calls take this path */
	uint8_t nconds;
	struct cbpf_cell_cond conds[CBPF_CELL_MAX_CONDS]; /* by arg, ascending */
};

#define CBPF_CELL_ARG_WORDS 12	/* args[i].lo is word 2i, args[i].hi word 2i+1 */
#define CBPF_CELL_MAX_BREAKS 64 /* per word */

/*
 * Where the tests of the cell change their outcome. When exact, every test
 * of an unknown value was (word + c) == k, > k or >= k (mod 2^32) for an
 * argument word, so that every test, hence the action, is the same for all
 * calls whose tested words each lie between two consecutive breaks (0 is
 * always a break; at[w] is sorted). Words not in `words` are never tested.
 */
struct cbpf_cell_breaks {
	bool exact;
	uint16_t words; /* bit w: word w is tested */
	uint8_t n[CBPF_CELL_ARG_WORDS];
	uint32_t at[CBPF_CELL_ARG_WORDS][CBPF_CELL_MAX_BREAKS];
};

struct cbpf_cell_paths {
	bool fixed;	 /* every call gets action */
	uint32_t action; /* when fixed */
	struct cbpf_cell_path *paths;
	size_t npaths; /* the feasible paths (0 when the exploration gave up) */
	struct cbpf_cell_breaks breaks;
};

/* Explore insns[0..len-1] (a checked filter) for arch audit and number nr.
 * Returns 0 or -ENOMEM. */
int cbpf_cell_explore(const struct sock_filter *insns, size_t len, uint32_t audit, uint32_t nr,
		      struct cbpf_cell_paths *out);
void cbpf_cell_paths_free(struct cbpf_cell_paths *c);
/* Whether sd's arguments meet every condition of path p. */
bool cbpf_cell_path_matches(const struct cbpf_cell_path *p, const struct seccomp_data *sd);

#endif
