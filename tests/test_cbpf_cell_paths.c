// SPDX-License-Identifier: MIT
/*
 * The cell explorer (lib/cbpf/cell_paths.c) against the simulator: every
 * seccomp_data of a cell meets exactly one expressible path's conditions,
 * and that path's action is what cbpf_sim_run() returns for it; divisions
 * by zero end a path with 0 as they end the kernel's run.
 */
#include <criterion/criterion.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cbpf/cbpf.h"
#include "cbpf/cell_paths.h"

#define NR_TESTED 7
#define ARG0_LO offsetof(struct seccomp_data, args[0])
#define ARG0_HI (ARG0_LO + 4)
#define ARG1_LO offsetof(struct seccomp_data, args[1])

/* Values that reach every edge of the filters below. */
static const uint64_t edge_values[] = {
	0,
	1,
	2,
	3,
	7,
	0x10,
	0x11,
	0xff,
	0x100,
	0x7fffffff,
	0x80000000,
	0xffffffff,
	0x100000000ULL,
	0x100000001ULL,
	0xffffffff00000000ULL,
	~0ULL,
};
#define NEDGES (sizeof(edge_values) / sizeof(edge_values[0]))

/*
 * Explore the cell (x86_64, NR_TESTED) of f; if every path is expressible,
 * check that every input meets exactly one path and gets its action;
 * otherwise only that the simulator's actions are among the paths'.
 * Returns the explored cell (the caller frees it).
 */
static struct cbpf_cell_paths check_cell(const struct sock_filter *f, size_t len)
{
	struct cbpf_cell_paths c;
	bool all_expressible = true;
	size_t i, j, p;

	cr_assert_eq(cbpf_cell_explore(f, len, AUDIT_ARCH_X86_64, NR_TESTED, &c), 0);
	cr_assert_gt(c.npaths, 0, "the exploration gave up");
	for (p = 0; p < c.npaths; p++)
		all_expressible &= c.paths[p].expressible;
	for (i = 0; i < NEDGES; i++) {
		for (j = 0; j < NEDGES; j++) {
			struct seccomp_data sd = { .nr = NR_TESTED, .arch = AUDIT_ARCH_X86_64 };
			uint32_t want;
			unsigned met = 0;
			bool seen = false;

			sd.args[0] = edge_values[i];
			sd.args[1] = edge_values[j];
			want = cbpf_sim_run(f, len, &sd);
			for (p = 0; p < c.npaths; p++) {
				seen |= c.paths[p].action == want;
				if (!c.paths[p].expressible ||
				    !cbpf_cell_path_matches(&c.paths[p], &sd))
					continue;
				met++;
				cr_assert_eq(
					c.paths[p].action, want,
					"args %#llx %#llx: path %zu says %#x, the simulator %#x",
					(unsigned long long)sd.args[0],
					(unsigned long long)sd.args[1], p, c.paths[p].action, want);
			}
			cr_assert(seen, "action %#x of args %#llx %#llx is on no path", want,
				  (unsigned long long)sd.args[0], (unsigned long long)sd.args[1]);
			if (all_expressible)
				cr_assert_eq(met, 1, "args %#llx %#llx meet %u paths",
					     (unsigned long long)sd.args[0],
					     (unsigned long long)sd.args[1], met);
		}
	}
	return c;
}

Test(cbpf_cell_paths, masked_equalities_are_expressible)
{
	/* args[0] == 0x10 -> ERRNO(1); args[1] & 0x100 -> ERRNO(2); ALLOW */
	const struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_HI),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x10, 3, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LO),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x100, 0, 2),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 2),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct cbpf_cell_paths c = check_cell(f, sizeof(f) / sizeof(f[0]));
	bool found = false;
	size_t p;

	cr_assert_not(c.fixed);
	/* Paths through a "!=" are not masked equalities: only the
	 * ERRNO(1) path is expressible, as args[0] == 0x10. */
	for (p = 0; p < c.npaths; p++) {
		if (c.paths[p].action != (SECCOMP_RET_ERRNO | 1))
			continue;
		cr_assert(c.paths[p].expressible, "path %zu", p);
		cr_assert_eq(c.paths[p].nconds, 1);
		cr_assert_eq(c.paths[p].conds[0].arg, 0);
		cr_assert_eq(c.paths[p].conds[0].mask, ~0ULL);
		cr_assert_eq(c.paths[p].conds[0].datum, 0x10);
		found = true;
	}
	cr_assert(found);
	cbpf_cell_paths_free(&c);
}

Test(cbpf_cell_paths, division_by_an_argument_is_a_path_of_its_own)
{
	/* A = 100 / (args[0] & 0xff); ALLOW. By zero the kernel ends with 0
	 * (KILL_THREAD): the cell is not always allowed. */
	const struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_IMM, 100),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct cbpf_cell_paths c = check_cell(f, sizeof(f) / sizeof(f[0]));
	size_t p;
	bool zero = false;

	cr_assert_not(c.fixed, "a division by a zero argument kills: not always ALLOW");
	for (p = 0; p < c.npaths; p++) {
		if (c.paths[p].action == 0) {
			zero = true;
			cr_assert(c.paths[p].expressible);
			cr_assert_eq(c.paths[p].nconds, 1);
			cr_assert_eq(c.paths[p].conds[0].mask, 0xff);
			cr_assert_eq(c.paths[p].conds[0].datum, 0);
		}
	}
	cr_assert(zero);
	cbpf_cell_paths_free(&c);
}

Test(cbpf_cell_paths, modulo_by_a_computed_divisor)
{
	/* X = args[1] + 1 (not an argument word: not expressible). */
	const struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LO),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 1),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_IMM, 9),
		BPF_STMT(BPF_ALU | BPF_MOD | BPF_X, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 5),
	};
	struct cbpf_cell_paths c = check_cell(f, sizeof(f) / sizeof(f[0]));

	cr_assert_not(c.fixed);
	cbpf_cell_paths_free(&c);
}

Test(cbpf_cell_paths, division_by_a_constant_zero_ends_with_zero)
{
	const struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct cbpf_cell_paths c = check_cell(f, sizeof(f) / sizeof(f[0]));

	cr_assert(c.fixed);
	cr_assert_eq(c.action, 0);
	cbpf_cell_paths_free(&c);
}

Test(cbpf_cell_paths, known_values_use_the_simulators_alu)
{
	/* nr * 3 - 1 == 20 for nr 7; a shift of the arch; JGE on knowns. */
	const struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 3),
		BPF_STMT(BPF_ALU | BPF_SUB | BPF_K, 1),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 20, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 28),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0xc, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 3),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct cbpf_cell_paths c = check_cell(f, sizeof(f) / sizeof(f[0]));

	cr_assert(c.fixed);
	cr_assert_eq(c.action, SECCOMP_RET_KILL_PROCESS, "AUDIT_ARCH_X86_64 >> 28 is 0xc");
	cbpf_cell_paths_free(&c);
}

/* (args[0] & 0) != 2 always holds: it must not be taken for a
 * contradiction by the equalities of its word, which its mask of 0 covers
 * vacuously (the fuzzer's find). The cell is not fixed: args[0] == 7
 * allows, anything else gets ERRNO(13). */
Test(cbpf_cell_paths, an_inequality_outside_its_mask_always_holds)
{
	const struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 7, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 13),
	};
	struct cbpf_cell_paths c = check_cell(f, sizeof(f) / sizeof(f[0]));

	cr_assert_not(c.fixed, "the cell was taken as always %#x", c.action);
	cbpf_cell_paths_free(&c);
}
