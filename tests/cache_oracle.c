// SPDX-License-Identifier: MIT
/*
 * cache_oracle: the x86_64 syscalls an eBPF seccomp program allows for every
 * argument value, found by running it in secbpf's interpreter (lib/vm), not
 * by the compiler. kernel/boot runs it on the host; the guest compares its
 * output with the kernel's /proc/PID/seccomp_cache (kernel/tests/seccomp_cache.sh).
 *
 * usage: cache_oracle OBJ NR_COUNT
 * For each nr below NR_COUNT, the program runs on argument and instruction
 * pointer vectors built from fixed samples and from every immediate of the
 * program (each value, +-1 and its complement, in each argument alone and in
 * all of them), so that each comparison is seen from both sides. The whole
 * sweep runs twice on the same maps (state left by other syscalls shows in
 * the second). A nr counts as always allowed only if every run returned
 * ALLOW, none failed (a helper that needs a task, e.g.) and no run changed a
 * map (a side effect the kernel's cache would skip). Such a program is
 * supervised, and the listener guard secbpf puts before it reads seccomp()'s
 * arguments, so seccomp() is not always allowed either. A helper call reads
 * something the seccomp_data does not hold (a map a user may write, the
 * task, the clock) or acts, so every call but bpf_loop's (whose callback is
 * the program's own code) is replaced by a load above the frame pointer: a
 * run that reaches it faults, and its nr is not always allowed.
 * Output: "x86_64 NR ALLOW" per always-allowed nr, as the kernel prints it.
 */
#include <errno.h>
#include <linux/audit.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "vm/insn.h"
#include "vm/maps.h"
#include "vm/runtime.h"

#define MAX_VALUES 4096
#define SECCOMP_NR_X86_64 317

static const uint64_t fixed_samples[] = {
	0,	    1,	  2, 3, 16, 45, 999, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
	0x7e020000, ~0ull
};

struct values {
	uint64_t v[MAX_VALUES];
	size_t n;
};

static void add_value(struct values *vs, uint64_t v)
{
	size_t i;

	for (i = 0; i < vs->n; i++)
		if (vs->v[i] == v)
			return;
	if (vs->n < MAX_VALUES)
		vs->v[vs->n++] = v;
}

static void add_around(struct values *vs, uint64_t v)
{
	add_value(vs, v);
	add_value(vs, v + 1);
	add_value(vs, v - 1);
	add_value(vs, ~v);
	add_value(vs, (uint32_t)v);
}

/* Every aligned 32- and 64-bit word of the initial global data (knobs in
 * .rodata such as a marker value the program compares an argument with). */
static void collect_data_values(const struct object *obj, struct values *vs)
{
	uint32_t i, off;

	for (i = 0; i < obj->map_cnt; i++) {
		const struct object_map *m = &obj->maps[i];
		uint32_t w;
		uint64_t d;

		if (!m->init_data || m->kind == OBJECT_MAP_BTF)
			continue;
		for (off = 0; off + 4 <= m->value_size; off += 4) {
			memcpy(&w, m->init_data + off, 4);
			add_around(vs, w);
			if (off % 8 == 0 && off + 8 <= m->value_size) {
				memcpy(&d, m->init_data + off, 8);
				add_around(vs, d);
			}
		}
	}
}

/* The samples, the global data and every immediate of the program
 * (sign-extended as the instructions use it, and as a 32-bit value). */
static void collect_values(const struct object *obj, const struct object_prog *prog,
			   struct values *vs)
{
	uint32_t i;

	for (i = 0; i < sizeof(fixed_samples) / sizeof(fixed_samples[0]); i++)
		add_value(vs, fixed_samples[i]);
	for (i = 0; i < prog->insn_cnt; i++) {
		const struct bpf_insn *in = &prog->insns[i];

		if (insn_is_ld_imm64(in) && i + 1 < prog->insn_cnt) {
			if (in->src_reg == 0)
				add_around(vs, insn_ld_imm64_value(in));
			i++;
			continue;
		}
		add_around(vs, (uint64_t)(int64_t)in->imm);
	}
	collect_data_values(obj, vs);
}

/* Every helper call but bpf_loop faults (see the top of the file). */
static void fault_on_helpers(struct object_prog *prog)
{
	uint32_t i;

	for (i = 0; i < prog->insn_cnt; i++) {
		struct bpf_insn *in = &prog->insns[i];

		if (insn_is_ld_imm64(in)) {
			i++;
			continue;
		}
		if (in->code != (BPF_JMP | BPF_CALL) || in->src_reg != 0 ||
		    in->imm == BPF_FUNC_loop)
			continue;
		*in = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW,
					 .dst_reg = BPF_REG_0,
					 .src_reg = BPF_REG_10,
					 .off = 8 };
	}
}

/* A map's contents folded into one number: enough to see a change. */
static long fold_elem(struct map *map, const void *key, void *value, void *ctx)
{
	uint64_t *h = ctx;
	const uint8_t *k = key, *v = value;
	uint32_t i;

	for (i = 0; i < map_key_size(map); i++)
		*h = (*h ^ k[i]) * 0x100000001b3ull;
	for (i = 0; i < map_value_size(map); i++)
		*h = (*h ^ v[i]) * 0x100000001b3ull;
	return 0;
}

static uint64_t maps_digest(struct runtime *rt, const struct object *obj)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (i = 0; i < obj->map_cnt; i++) {
		struct map *m = runtime_map(rt, obj->maps[i].name);

		if (m)
			h ^= (uint64_t)map_for_each(m, fold_elem, &h, 0, 0) << 17;
	}
	return h;
}

/* Some run reached a helper or changed a map: the program needs state, so
 * `secbpf run` supervises it. */
static bool stateful;

/* One run: true if it allowed. */
static bool run_allows(struct runtime *rt, struct seccomp_data *sd)
{
	struct secbpf_err err = { { 0 } };
	uint32_t ret;

	if (runtime_run(rt, sd, &ret, &err)) {
		stateful = true;
		return false;
	}
	return ret == SECCOMP_RET_ALLOW;
}

static bool runs_allow(struct runtime *rt, int nr, const struct values *vs)
{
	struct seccomp_data sd;
	size_t i, s;
	unsigned k;

	for (s = 0; s < sizeof(fixed_samples) / sizeof(fixed_samples[0]); s++) {
		memset(&sd, 0, sizeof(sd));
		sd.nr = nr;
		sd.arch = AUDIT_ARCH_X86_64;
		for (k = 0; k < 6; k++)
			sd.args[k] = fixed_samples[(s + k) % 13];
		sd.instruction_pointer = fixed_samples[s];
		if (!run_allows(rt, &sd))
			return false;
	}
	for (i = 0; i < vs->n; i++) {
		memset(&sd, 0, sizeof(sd));
		sd.nr = nr;
		sd.arch = AUDIT_ARCH_X86_64;
		for (k = 0; k < 6; k++)
			sd.args[k] = vs->v[i];
		sd.instruction_pointer = vs->v[i];
		if (!run_allows(rt, &sd))
			return false;
		for (k = 0; k < 6; k++) {
			memset(sd.args, 0, sizeof(sd.args));
			sd.instruction_pointer = 0;
			sd.args[k] = vs->v[i];
			if (!run_allows(rt, &sd))
				return false;
		}
	}
	return true;
}

/* Every run of nr allowed, and together they left the maps as they were. */
static bool always_allows(struct runtime *rt, const struct object *obj, int nr,
			  const struct values *vs)
{
	uint64_t before = maps_digest(rt, obj);
	bool allows = runs_allow(rt, nr, vs);

	if (maps_digest(rt, obj) != before) {
		stateful = true;
		return false;
	}
	return allows;
}

int main(int argc, char **argv)
{
	struct secbpf_err err = { { 0 } };
	struct values *vs;
	struct object *obj;
	struct object_prog *prog;
	struct runtime *rt;
	bool *allowed;
	int nr_count, nr, pass;

	if (argc != 3 || (nr_count = atoi(argv[2])) <= 0 || nr_count > 4096) {
		fprintf(stderr, "usage: cache_oracle OBJ NR_COUNT\n");
		return 2;
	}
	obj = object_open_file(argv[1], &err);
	if (!obj) {
		fprintf(stderr, "cache_oracle: %s: %s\n", argv[1], err.msg);
		return 2;
	}
	prog = object_find_prog(obj, NULL, &err);
	if (prog)
		fault_on_helpers(prog);
	rt = prog ? runtime_new(obj, prog, &err) : NULL;
	vs = calloc(1, sizeof(*vs));
	allowed = calloc(nr_count, sizeof(*allowed));
	if (!rt || !vs || !allowed) {
		fprintf(stderr, "cache_oracle: %s: %s\n", argv[1], rt ? strerror(ENOMEM) : err.msg);
		return 2;
	}
	collect_values(obj, prog, vs);
	for (nr = 0; nr < nr_count; nr++)
		allowed[nr] = true;
	for (pass = 0; pass < 2; pass++)
		for (nr = 0; nr < nr_count; nr++)
			if (allowed[nr] && !always_allows(rt, obj, nr, vs))
				allowed[nr] = false;
	/* A supervised filter starts with the listener guard, which denies
	 * seccomp(SET_MODE_FILTER, NEW_LISTENER) by its arguments
	 * (docs/design.md §1): seccomp() is then never constant. */
	if (stateful && SECCOMP_NR_X86_64 < nr_count)
		allowed[SECCOMP_NR_X86_64] = false;
	for (nr = 0; nr < nr_count; nr++)
		if (allowed[nr])
			printf("x86_64 %d ALLOW\n", nr);
	runtime_free(rt);
	object_free(obj);
	free(allowed);
	free(vs);
	return 0;
}
