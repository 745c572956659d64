// SPDX-License-Identifier: MIT
/*
 * The punt figure of the cBPF compiler (issue 11): over a fixed set of
 * random stateless programs (tests/cbpf/gen_prog.h; about half of them
 * read a .rodata table, by a context value or at a constant offset), the
 * share whose compiled filter hands some case to the supervisor, and the
 * differential mismatches against the interpreter (tests/cbpf/diff.h),
 * which must be 0.
 * The share may only go down: PUNT_MAX_PERMILLE is the figure of today.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf.h"
#include "object/object.h"
#include "vm/runtime.h"
#include "cbpf/diff.h"
#include "cbpf/gen_prog.h"

#define PUNT_SEEDS 1500
/* Programs per thousand whose filter contains USER_NOTIF, at most: lower
 * it when the compiler lowers more. 4 since the generator makes cpu v4's
 * signed division, byte swaps and sign extensions: 6 programs of 1500
 * whose signed divisions make a filter too large (0 with the programs
 * before). */
#define PUNT_MAX_PERMILLE 4
/* Inputs per program: a few nr, every edge and constant as arguments. */
#define PUNT_NR_UPTO 8
#define PUNT_PER_NR 3	/* argument sets per nr (diff_check) */
#define PUNT_STEP_INPUTS 8

struct punt_reason {
	const char *why;
	unsigned programs;
};

static bool has_user_notif(const struct cbpf_prog *cp)
{
	uint32_t i, k;

	for (k = 0; k < cp->nfilters; k++)
		for (i = 0; i < cp->filters[k].len; i++)
			if (cp->filters[k].filter[i].code == (BPF_RET | BPF_K) &&
			    cp->filters[k].filter[i].k == SECCOMP_RET_USER_NOTIF)
				return true;
	return false;
}

/* Count each distinct reason of cp once for this program. */
static void tally(struct punt_reason *r, unsigned *nr, unsigned cap, const struct cbpf_prog *cp)
{
	uint32_t i, j;

	for (i = 0; i < cp->npunts; i++) {
		bool seen = false;

		for (j = 0; j < i; j++)
			seen |= !strcmp(cp->punts[j].why, cp->punts[i].why);
		if (seen)
			continue;
		for (j = 0; j < *nr && strcmp(r[j].why, cp->punts[i].why); j++)
			;
		if (j == *nr) {
			if (*nr == cap)
				continue;
			r[(*nr)++] = (struct punt_reason){ .why = cp->punts[i].why };
		}
		r[j].programs++;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* An unsigned number from the environment, or def. */
static unsigned env_count(const char *name, unsigned def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return def;
	n = strtoul(v, &end, 10);
	cr_assert(!*end && n <= 100000000, "%s=%s: not a count", name, v);
	return (unsigned)n;
}

/*
 * SECBPF_PUNT_SEEDS=N and SECBPF_PUNT_FIRST=S run N programs from seed S
 * instead (by hand, for far more cases: the share is then reported, and
 * the bound, calibrated on the default set, is not applied). No timeout of
 * its own, so that such runs can take hours; meson's bounds the suite.
 */
Test(cbpf_punts, random_stateless_programs)
{
	static struct gen_prog g;
	unsigned nseeds = env_count("SECBPF_PUNT_SEEDS", PUNT_SEEDS);
	unsigned first = env_count("SECBPF_PUNT_FIRST", 0);
	bool by_hand = nseeds != PUNT_SEEDS || first != 0;
	uint32_t *lens = calloc(nseeds ? nseeds : 1, sizeof(*lens));
	uint32_t *steps = calloc((size_t)(nseeds ? nseeds : 1) * PUNT_STEP_INPUTS, sizeof(*steps));
	struct punt_reason reasons[32];
	unsigned seed, compiled = 0, punted = 0, split = 0, mismatches = 0, nreasons = 0, nsteps = 0, i;
	unsigned tables = 0;
	uint64_t cases = 0, notifs = 0;

	cr_assert(lens && steps);
	for (seed = first; seed - first < nseeds; seed++) {
		struct gen_src src = { .rng = 0xd1b54a32d192ed03ull * (seed + 1), .tables = true };
		struct object_prog prog = { .name = "random", .section = "seccomp" };
		struct object obj = { .path = "random", .progs = &prog, .prog_cnt = 1 };
		struct secbpf_err err = { { 0 } };
		/* As secbpf run compiles a stateless program: split by cells
		 * into stacked filters past 4096 instructions. */
		struct cbpf_compile_opts opts = { .sz = sizeof(opts),
						  .max_filters = CBPF_MAX_FILTERS };
		struct diff_result res;
		struct cbpf_prog cp;
		struct runtime *rt;
		uint64_t r = seed | 1;

		struct object_map map;

		if (!gen_program(&src, &g))
			continue;
		gen_object(&g, &obj, &map);
		tables += g.has_table;
		prog.insns = g.insns;
		prog.insn_cnt = g.n;
		prog.main_cnt = g.n;
		cr_assert_eq(cbpf_compile(&obj, &prog, &opts, &cp, &err), 0, "seed %u: %s", seed,
			     err.msg);
		for (i = 0; i < cp.nfilters; i++)
			cr_assert_eq(cbpf_check(cp.filters[i].filter, cp.filters[i].len, &err), 0,
				     "seed %u: %s", seed, err.msg);
		split += cp.nfilters > 1;
		cr_assert(!cp.needs_state, "seed %u: a generated program needs state", seed);
		lens[compiled++] = cp.len;
		if (has_user_notif(&cp)) {
			punted++;
			tally(reasons, &nreasons, 32, &cp);
		}
		rt = runtime_new(&obj, &prog, &err);
		cr_assert(rt != NULL, "%s", err.msg);
		if (!diff_check(rt, g.insns, g.n, &cp, g.consts, g.nconsts, PUNT_PER_NR, PUNT_NR_UPTO, seed,
				&res)) {
			if (mismatches++ < 5)
				fprintf(stderr, "cbpf_punts: seed %u: mismatch: %s\n", seed,
					res.msg);
		}
		cases += res.runs;
		notifs += res.notifs;
		/* Path lengths on a few inputs that the kernel decides. */
		for (i = 0; i < PUNT_STEP_INPUTS; i++) {
			struct seccomp_data sd = { .nr = (int)(diff_rand(&r) % 16),
						   .arch = AUDIT_ARCH_X86_64 };
			struct cbpf_sim_state st;
			unsigned k;

			for (k = 0; k < 6; k++)
				sd.args[k] = (i & 1) ? g.consts[diff_rand(&r) % (g.nconsts | 1)]
						     : diff_rand(&r);
			if (!g.nconsts)
				sd.args[0] = 0;
			if (cp.nfilters == 1 &&
			    cbpf_sim_exec(cp.insns, cp.len, &sd, &st) != SECCOMP_RET_USER_NOTIF)
				steps[nsteps++] = st.steps;
		}
		runtime_free(rt);
		cbpf_prog_free(&cp);
	}
	qsort(lens, compiled, sizeof(lens[0]), cmp_u32);
	qsort(steps, nsteps, sizeof(steps[0]), cmp_u32);
	printf("cbpf_punts: %u of %u programs (%.1f%%) hand a case to the supervisor "
	       "(at most %.1f%%); %llu cases, %llu to the supervisor, %u mismatching programs\n",
	       punted, compiled, 100.0 * punted / (compiled ? compiled : 1),
	       PUNT_MAX_PERMILLE / 10.0, (unsigned long long)cases, (unsigned long long)notifs,
	       mismatches);
	printf("cbpf_punts: filter length median %u, max %u; path length median %u, max %u "
	       "(%u kernel-decided inputs)\n",
	       compiled ? lens[compiled / 2] : 0, compiled ? lens[compiled - 1] : 0,
	       nsteps ? steps[nsteps / 2] : 0, nsteps ? steps[nsteps - 1] : 0, nsteps);
	printf("cbpf_punts: %u programs split into stacked filters, %u read a .rodata table\n",
	       split, tables);
	for (i = 0; i < nreasons; i++)
		printf("cbpf_punts:   %5.1f%% of programs: %s\n",
		       100.0 * reasons[i].programs / compiled, reasons[i].why);
	fflush(stdout);
	free(lens);
	free(steps);
	cr_assert_gt(compiled, nseeds * 9 / 10);
	cr_assert_eq(mismatches, 0, "%u programs disagree with the interpreter", mismatches);
	if (by_hand)
		return;
	cr_assert_leq(punted * 1000, PUNT_MAX_PERMILLE * compiled,
		      "%u of %u programs punt: above %u per mille", punted, compiled,
		      PUNT_MAX_PERMILLE);
}
