// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the cBPF compiler: fuzzer-built programs (raw
 * instructions that pass insn_validate, or nested-if programs generated
 * from the input bytes) are compiled and checked against the interpreter
 * on many inputs; the compiled filter's cells, explored with unknown
 * arguments (lib/cbpf/cell_paths.c, export-oci's view), are checked against
 * the simulator. Any disagreement, internal error or crash aborts.
 */
#include <errno.h>
#include <linux/audit.h>
#include <stdio.h>
#include <stdlib.h>

#include "cbpf/cbpf.h"
#include "cbpf/cell_paths.h"
#include "vm/insn.h"
#include "vm/runtime.h"
#include "../tests/cbpf/diff.h"
#include "../tests/cbpf/gen_prog.h"

/* Raw mode: the bytes are instructions. Backward jumps are dropped so that
 * the interpreter's runs stay short (loops are covered by the tests). */
static bool fuzz_raw(const uint8_t *data, size_t size, struct gen_prog *g)
{
	struct secbpf_err err = { { 0 } };
	size_t i;

	g->n = (uint32_t)(size / sizeof(struct bpf_insn));
	if (g->n == 0 || g->n > 256)
		return false;
	memcpy(g->insns, data, g->n * sizeof(struct bpf_insn));
	for (i = 0; i < g->n; i++) {
		uint8_t cls = BPF_CLASS(g->insns[i].code);

		if ((cls == BPF_JMP || cls == BPF_JMP32) && g->insns[i].off < 0)
			return false;
		if (cls == BPF_JMP32 && BPF_OP(g->insns[i].code) == BPF_JA && g->insns[i].imm < 0)
			return false;
		if (cls == BPF_JMP && BPF_OP(g->insns[i].code) == BPF_CALL)
			return false; /* no helpers or subprograms in the runtime here */
		gen_note(g, (uint64_t)(int64_t)g->insns[i].imm);
	}
	return insn_validate(g->insns, g->n, 0, 1, &err) == 0;
}

/* Programs compiled and those whose filter hands a case to the supervisor
 * (the punt figure of tests/test_cbpf_punts.c), printed at exit. */
static unsigned long fuzz_compiled, fuzz_punted, fuzz_split;
static bool fuzz_at_exit;

static void fuzz_print_punts(void)
{
	fprintf(stderr,
		"fuzz_cbpf: %lu programs compiled, %lu (%.1f%%) hand a case to the supervisor, "
		"%lu split into stacked filters\n",
		fuzz_compiled, fuzz_punted,
		100.0 * (double)fuzz_punted / (double)(fuzz_compiled ? fuzz_compiled : 1),
		fuzz_split);
}

/* The cells of nr 0-3 (x86_64) of one filter, explored, against the simulator on
 * arguments drawn from the program's constants: the simulator's action is
 * one of the paths', an expressible path the arguments meet has it, and a
 * fixed cell always gives it. */
static void check_cells(const struct sock_filter *insns, uint32_t len, const struct gen_prog *g,
			uint64_t seed)
{
	uint64_t r = seed | 1;
	uint32_t nr;

	for (nr = 0; nr < 4; nr++) {
		struct cbpf_cell_paths c;
		unsigned i, k;

		if (cbpf_cell_explore(insns, len, AUDIT_ARCH_X86_64, nr, &c))
			abort(); /* out of memory */
		for (i = 0; i < 16 && c.npaths; i++) {
			struct seccomp_data sd = { .nr = (int)nr, .arch = AUDIT_ARCH_X86_64 };
			uint32_t want;
			bool seen = false;
			size_t p;

			for (k = 0; k < 6; k++)
				sd.args[k] = (i & 1) && g->nconsts
						     ? g->consts[diff_rand(&r) % g->nconsts]
						     : diff_rand(&r) >> (diff_rand(&r) % 64);
			want = cbpf_sim_run(insns, len, &sd);
			if (c.fixed && want != c.action) {
				fprintf(stderr, "cell %u: fixed %#x, the simulator %#x\n", nr,
					c.action, want);
				abort();
			}
			for (p = 0; p < c.npaths; p++) {
				seen |= c.paths[p].action == want;
				if (c.paths[p].expressible &&
				    cbpf_cell_path_matches(&c.paths[p], &sd) &&
				    c.paths[p].action != want) {
					fprintf(stderr,
						"cell %u: path %zu says %#x, the simulator %#x\n",
						nr, p, c.paths[p].action, want);
					abort();
				}
			}
			if (!seen) {
				fprintf(stderr, "cell %u: the simulator's %#x is on no path\n", nr,
					want);
				abort();
			}
		}
		cbpf_cell_paths_free(&c);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gen_prog g;
	struct object_prog prog = { .name = "fuzz", .section = "seccomp" };
	struct object obj = { .path = "fuzz", .progs = &prog, .prog_cnt = 1 };
	struct object_map map;
	struct secbpf_err err = { { 0 } };
	struct cbpf_compile_opts opts = { .sz = sizeof(opts) };
	struct diff_result res;
	struct cbpf_prog cp;
	struct runtime *rt;
	int rc;

	if (!fuzz_at_exit) {
		fuzz_at_exit = true;
		if (atexit(fuzz_print_punts))
			abort();
	}
	if (size < 2)
		return 0;
	if (data[0] & 1) {
		memset(&g, 0, sizeof(g));
		if (!fuzz_raw(data + 1, size - 1, &g))
			return 0;
	} else {
		/* Bit 3: the program may read a .rodata table. */
		struct gen_src src = {
			.data = data + 1, .size = size - 1, .rng = size | 1, .tables = data[0] & 8
		};

		if (!gen_program(&src, &g))
			return 0;
	}
	gen_object(&g, &obj, &map);
	opts.listener_guard = data[0] & 2;
	/* Bit 2: split a program past 4096 instructions into stacked filters,
	 * as secbpf run does (the differential check runs the whole stack). */
	opts.max_filters = data[0] & 4 ? CBPF_MAX_FILTERS : 1;
	prog.insns = g.insns;
	prog.insn_cnt = g.n;
	prog.main_cnt = g.n;
	rc = cbpf_compile(&obj, &prog, &opts, &cp, &err);
	if (rc) {
		/* Refusing a program is fine; an internal error is a bug. */
		if (rc != -EINVAL && rc != -E2BIG) {
			fprintf(stderr, "cbpf_compile: %d %s\n", rc, err.msg);
			abort();
		}
		return 0;
	}
	fuzz_compiled++;
	fuzz_punted += cp.needs_supervisor;
	fuzz_split += cp.nfilters > 1;
	for (uint32_t f = 0; f < (cp.nfilters ? cp.nfilters : 1); f++) {
		if (cbpf_check(cp.nfilters ? cp.filters[f].filter : cp.insns,
			       cp.nfilters ? cp.filters[f].len : cp.len, &err)) {
			fprintf(stderr, "compiled filter %u fails cbpf_check: %s\n", f, err.msg);
			abort();
		}
	}
	rt = runtime_new(&obj, &prog, &err);
	if (rt) {
		if (!diff_check(rt, g.insns, g.n, &cp, g.consts, g.nconsts, 1, 4, size, &res)) {
			fprintf(stderr, "mismatch: %s\n", res.msg);
			abort();
		}
		runtime_free(rt);
	}
	for (uint32_t f = 0; f < (cp.nfilters ? cp.nfilters : 1); f++)
		check_cells(cp.nfilters ? cp.filters[f].filter : cp.insns,
			    cp.nfilters ? cp.filters[f].len : cp.len, &g, size);
	cbpf_prog_free(&cp);
	return 0;
}
