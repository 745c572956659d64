// SPDX-License-Identifier: MIT
/*
 * Compiled size and path length of classic-BPF filters: for each object
 * given, the filter secbpf compiles (with the listener guard, as `secbpf
 * run` installs it), its length, its cells and those left to the
 * supervisor, and the instructions the kernel runs per syscall (median and
 * worst) over every nr of x86_64, i386 and x32 with several argument sets.
 * Run on two builds to compare a compiler change (bench/README.md).
 */
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf.h"
#include "object/object.h"

#define NR_UPTO 460
#define X32_BIT 0x40000000u
#define ARG_SETS 4

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Argument set i: zeros, all ones, small values, random words. */
static void fill_args(struct seccomp_data *sd, unsigned set, uint64_t *rng)
{
	unsigned k;

	for (k = 0; k < 6; k++)
		sd->args[k] = set == 0 ? 0 : set == 1 ? ~0ULL : set == 2 ? k + 1 : next_rand(rng);
}

static int bench_object(const char *path)
{
	static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_X86_64 };
	static uint32_t steps[3 * NR_UPTO * ARG_SETS];
	struct cbpf_compile_opts opts = { .sz = sizeof(opts), .listener_guard = true };
	struct secbpf_err err = { { 0 } };
	struct object_prog *prog;
	struct cbpf_prog cp;
	struct object *obj;
	unsigned a, nr, set, n = 0, notified = 0;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	obj = object_open_file(path, &err);
	if (!obj) {
		fprintf(stderr, "bench_cbpf_paths: %s: %s\n", path, err.msg);
		return -1;
	}
	prog = object_find_prog(obj, NULL, &err);
	if (!prog || cbpf_compile(obj, prog, &opts, &cp, &err)) {
		fprintf(stderr, "bench_cbpf_paths: %s: %s\n", path, err.msg);
		object_free(obj);
		return -1;
	}
	for (a = 0; a < 3; a++) {
		for (nr = 0; nr < NR_UPTO; nr++) {
			for (set = 0; set < ARG_SETS; set++) {
				struct seccomp_data sd = {
					.arch = arches[a], .nr = (int)(a == 2 ? nr | X32_BIT : nr)
				};
				struct cbpf_sim_state st;

				fill_args(&sd, set, &rng);
				if (cbpf_sim_exec(cp.insns, cp.len, &sd, &st) ==
				    SECCOMP_RET_USER_NOTIF)
					notified++;
				else
					steps[n++] = st.steps;
			}
		}
	}
	qsort(steps, n, sizeof(steps[0]), cmp_u32);
	printf("%-28s %6u %6u %6u %8u %7u %6u\n", name, cp.len, cp.cells, cp.notif_cells, notified,
	       n ? steps[n / 2] : 0, n ? steps[n - 1] : 0);
	cbpf_prog_free(&cp);
	object_free(obj);
	return 0;
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_cbpf_paths OBJECT.bpf.o...\n");
		return 2;
	}
	printf("# per syscall over nr 0-%d of x86_64, i386 and x32, %d argument sets\n",
	       NR_UPTO - 1, ARG_SETS);
	printf("%-28s %6s %6s %6s %8s %7s %6s\n", "program", "insns", "cells", "notif", "notified",
	       "median", "worst");
	for (i = 1; i < argc; i++)
		if (bench_object(argv[i]))
			rc = 1;
	return rc;
}
