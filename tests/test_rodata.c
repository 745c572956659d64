// SPDX-License-Identifier: MIT
/*
 * Objects whose constants clang puts in mergeable sections (.rodata.cst16,
 * .rodata.cst32, .rodata.str1.1) while BTF lists them under .rodata: they
 * load, their maps and relocations match what libbpf makes of the same
 * object, their variables sit where their bytes are, and the filters decide
 * as the C says, in `secbpf test` and for a real process.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <criterion/criterion.h>

#include "common.h"
#include "object/object.h"

static char dir[256];
static char out[65536];

static void setup(void)
{
	libbpf_set_print(NULL); /* the reference loader's notes are noise here */
	test_scratch_dir(dir, sizeof(dir), "secbpf-rodata");
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(rodata, .init = setup, .fini = teardown, .timeout = 120);

/* tests/rodata/NAME.bpf.c compiled into dir with the project's bpf flags. */
static const char *build(const char *name)
{
	static char path[4][PATH_MAX];
	static unsigned next;
	char *p = path[next++ % 4];
	const char *src = getenv("SECBPF_SOURCE_DIR") ? getenv("SECBPF_SOURCE_DIR") : ".";

	snprintf(p, PATH_MAX, "%s/%s.bpf.o", dir, name);
	cr_assert_eq(test_shell(out, sizeof(out),
				"clang -O2 -g -target bpf -D__x86_64__ "
				"-I/usr/include/x86_64-linux-gnu -I'%s/include' -c "
				"'%s/tests/rodata/%s.bpf.c' -o '%s'",
				src, src, name, p),
		     0, "%s", out);
	return p;
}

static struct object *open_ok(const char *path)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj = object_open_file(path, &err);

	cr_assert_not_null(obj, "loading %s failed: %s", path, err.msg);
	return obj;
}

/* libbpf's name for our map: ours, or the object's prefix then ours. */
static bool same_map_name(const char *libbpf_name, const char *ours)
{
	size_t a = strlen(libbpf_name), b = strlen(ours);

	if (!strcmp(libbpf_name, ours))
		return true;
	return ours[0] == '.' && a > b && strchr(libbpf_name, '.') == libbpf_name + a - b &&
	       !strcmp(libbpf_name + a - b, ours);
}

/* The index in lo of the map that is our map m, checked to match it. */
static int match_map(struct bpf_object *lo, const struct object_map *m)
{
	struct bpf_map *lm;
	int i = 0;

	bpf_object__for_each_map(lm, lo)
	{
		const uint8_t *init;
		size_t size = 0;
		uint32_t k;

		if (!same_map_name(bpf_map__name(lm), m->name)) {
			i++;
			continue;
		}
		cr_assert_eq(bpf_map__value_size(lm), m->value_size, "%s: value size %u vs %u",
			     m->name, bpf_map__value_size(lm), m->value_size);
		init = bpf_map__initial_value(lm, &size);
		cr_assert_not_null(init, "%s: libbpf has no initial value", m->name);
		cr_assert_eq(size, m->value_size);
		for (k = 0; k < m->value_size; k++)
			cr_assert_eq(init[k], m->init_data ? m->init_data[k] : 0,
				     "%s: byte %u is 0x%02x, libbpf says 0x%02x", m->name, k,
				     m->init_data ? m->init_data[k] : 0, init[k]);
		return i;
	}
	cr_assert_fail("libbpf has no map for our '%s'", m->name);
	return -1;
}

/*
 * Open path with libbpf and with secbpf: the same global data maps (name,
 * size, bytes), and every ld_imm64 of the program relocated to the same map
 * and offset. libbpf relocates at load; its gen_loader mode records the
 * load instead of making it, and leaves (map index, offset) in the code.
 */
static void compare_with_libbpf(const char *path)
{
	LIBBPF_OPTS(gen_loader_opts, gen);
	struct object *obj = open_ok(path);
	struct bpf_object *lo = bpf_object__open_file(path, NULL);
	struct bpf_program *lp;
	struct bpf_map *lm;
	const struct bpf_insn *li;
	const struct object_prog *p;
	uint32_t i, relocated = 0;
	int *map_of;

	cr_assert_not_null(lo, "libbpf cannot open %s: %s", path, strerror(errno));
	map_of = calloc(obj->map_cnt + 1, sizeof(*map_of));
	cr_assert_not_null(map_of);
	for (i = 0; i < obj->map_cnt; i++)
		map_of[i] = match_map(lo, &obj->maps[i]);
	i = 0;
	bpf_object__for_each_map(lm, lo) /* no map libbpf makes that we do not */
		i++;
	cr_assert_eq(i, obj->map_cnt, "libbpf has %u maps, secbpf %u", i, obj->map_cnt);

	cr_assert_eq(obj->prog_cnt, 1);
	p = &obj->progs[0];
	lp = bpf_object__next_program(lo, NULL);
	bpf_program__set_type(lp, BPF_PROG_TYPE_SOCKET_FILTER);
	cr_assert_eq(bpf_object__gen_loader(lo, &gen), 0);
	cr_assert_eq(bpf_object__load(lo), 0, "libbpf (gen_loader) cannot load %s", path);
	li = bpf_program__insns(lp);
	cr_assert_eq(bpf_program__insn_cnt(lp), p->insn_cnt);
	for (i = 0; i + 1 < p->insn_cnt; i++) {
		const struct bpf_insn *o = &p->insns[i];

		if (o->code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (li[i].src_reg == BPF_PSEUDO_MAP_IDX_VALUE) {
			cr_assert_eq(o->src_reg, BPF_PSEUDO_MAP_VALUE, "insn %u", i);
			cr_assert_lt((uint32_t)o->imm, obj->map_cnt);
			cr_assert_eq(map_of[o->imm], li[i].imm,
				     "insn %u: secbpf points at '%s', libbpf at its map %d", i,
				     obj->maps[o->imm].name, li[i].imm);
			cr_assert_eq(o[1].imm, li[i + 1].imm, "insn %u: offset %d vs libbpf's %d",
				     i, o[1].imm, li[i + 1].imm);
			relocated++;
		}
		i++;
	}
	cr_assert_gt(relocated, 0, "no relocated ld_imm64 in %s", path);
	free(map_of);
	bpf_object__close(lo);
	object_free(obj);
}

/* The variable name of obj: in the map called map_name, at offset and size. */
static void expect_var(const struct object *obj, const char *name, const char *map_name,
		       uint32_t offset, uint32_t size)
{
	uint32_t i;

	for (i = 0; i < obj->var_cnt; i++) {
		const struct object_var *v = &obj->vars[i];

		if (strcmp(v->name, name))
			continue;
		cr_assert_str_eq(obj->maps[v->map].name, map_name, "variable %s", name);
		cr_assert_eq(v->offset, offset, "variable %s", name);
		cr_assert_eq(v->size, size, "variable %s", name);
		return;
	}
	cr_assert_fail("no variable '%s'", name);
}

/* `secbpf test OBJ --nr NR ARGS` prints want. */
static void expect_action(const char *obj, const char *args, const char *want)
{
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' test '%s' --nr fsync %s", getenv("SECBPF"),
				obj, args),
		     0, "%s", out);
	cr_assert_str_eq(out, want, "%s with %s", obj, args);
}

/* The compiled filter decides everything in the kernel. */
static void expect_no_punt(const char *obj)
{
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' compile '%s' --format asm",
				getenv("SECBPF"), obj),
		     0, "%s", out);
	cr_assert(strstr(out, " 0 decided by the supervisor"), "%s", out);
	cr_assert_null(strstr(out, "USER_NOTIF"), "%s", out);
}

Test(rodata, reproducer_loads_like_libbpf)
{
	const char *o = build("repro");
	struct object *obj;

	compare_with_libbpf(o);
	obj = open_ok(o);
	expect_var(obj, "tbl", ".rodata.cst32", 0, 32);
	expect_var(obj, "other", ".rodata", 0, 12);
	object_free(obj);
}

Test(rodata, reproducer_decides_as_written)
{
	const char *o = build("repro");

	expect_no_punt(o);
	expect_action(o, "--arg 0x7ffffffffffffffe", "ERRNO(1)\n");
	expect_action(o, "--arg 3", "ERRNO(1)\n");
	expect_action(o, "--arg 0x7fffffffffffffff", "ALLOW\n");
	expect_action(o, "--arg 0xfffffffe", "ALLOW\n");
	expect_action(o, "--arg 0 --arg 6", "ERRNO(2)\n");
	expect_action(o, "--arg 0 --arg 0x100000006", "ALLOW\n");
	expect_action(o, "--arg 0 --arg 8", "ALLOW\n");
}

Test(rodata, cst16_cst32_and_strings_load_like_libbpf)
{
	const char *o = build("cst16");
	struct object *obj;

	compare_with_libbpf(o);
	obj = open_ok(o);
	expect_var(obj, "pair", ".rodata.cst16", 0, 16);
	expect_var(obj, "quad", ".rodata.cst32", 0, 32);
	expect_var(obj, "odd", ".rodata", 0, 6);
	object_free(obj);
	expect_no_punt(o);
	expect_action(o, "--arg 0xdeadbeefcafef00d", "ERRNO(3)\n");
	expect_action(o, "--arg 41", "ERRNO(3)\n");
	expect_action(o, "--arg 0 --arg 800", "ERRNO(4)\n");
	expect_action(o, "--arg 0 --arg 0 --arg 0x72", "ERRNO(5)\n"); /* 'r' */
	expect_action(o, "--arg 0 --arg 0 --arg 0x100 --arg 999", "ERRNO(6)\n");
	expect_action(o, "--arg 0 --arg 0 --arg 0x100 --arg 998", "ALLOW\n");
}

/* --set writes the knob in .rodata, not the bytes of the table clang
 * listed at the same BTF offset but put in .rodata.cst32. */
Test(rodata, set_writes_the_knob_not_the_table)
{
	const char *o = build("knob");
	struct object *obj;

	compare_with_libbpf(o);
	obj = open_ok(o);
	expect_var(obj, "knob", ".rodata", 0, 4);
	expect_var(obj, "tbl", ".rodata.cst32", 0, 32);
	expect_var(obj, "small", ".rodata", 4, 6);
	object_free(obj);
	expect_action(o, "--arg 10", "ERRNO(7)\n");
	expect_action(o, "--arg 0 --arg 0 --arg 6", "ERRNO(6)\n");
	cr_assert_eq(test_shell(out, sizeof(out),
				"'%s' test '%s' --nr fsync --set knob=40 --arg 0 "
				"--arg 0 --arg 40",
				getenv("SECBPF"), o),
		     0, "%s", out);
	cr_assert_str_eq(out, "ERRNO(6)\n");
	/* The table still holds 10 after the knob was set. */
	cr_assert_eq(test_shell(out, sizeof(out),
				"'%s' test '%s' --nr fsync --set knob=40 --arg 10",
				getenv("SECBPF"), o),
		     0, "%s", out);
	cr_assert_str_eq(out, "ERRNO(7)\n");
}

/* The regrouped BTF is valid for the kernel too (secbpf loads it with the
 * maps): it needs CAP_BPF or CAP_SYS_ADMIN. */
Test(rodata, regrouped_btf_loads_into_the_kernel)
{
	struct object *obj = open_ok(build("cst16"));
	int id;

	id = btf__find_by_name_kind(obj->btf, ".rodata.cst32", BTF_KIND_DATASEC);
	cr_assert_gt(id, 0, "no DATASEC for .rodata.cst32");
	if (geteuid() != 0) {
		object_free(obj);
		test_skip_unless_ci("loading BTF into the kernel needs root");
	}
	cr_assert_eq(btf__load_into_kernel(obj->btf), 0, "the kernel refuses the BTF: %s",
		     strerror(errno));
	object_free(obj);
}

/* A real process under `secbpf run` gets the errnos the tables say. */
Test(rodata, real_process_gets_the_errnos)
{
	char probe[PATH_MAX];
	const char *o = build("fsync");
	static const struct {
		const char *args, *want;
	} cases[] = {
		{ "0x7ffffffffffffffe 0", "errno=1\n" }, /* EPERM from the filter */
		{ "1 0", "errno=1\n" },
		{ "0x7fffffffffffffff 6", "errno=2\n" }, /* ENOENT from the filter */
		{ "0x7fffffffffffffff 8", "errno=9\n" }, /* EBADF from the kernel */
	};
	size_t i;

	test_probe(probe, sizeof(probe), "SECBPF_SYSCALL_PROBE", dir, "syscall_probe", "");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(
			test_shell(out, sizeof(out),
				   "ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' -- '%s' %d %s",
				   getenv("SECBPF"), o, probe, SYS_fsync, cases[i].args),
			0, "%s", out);
		cr_assert_str_eq(out, cases[i].want, "fsync(%s)", cases[i].args);
	}
}

/*
 * A .rodata.cst16 table read by a subprogram: the object loads with its
 * line info (read against the strings clang wrote, not the rebuilt BTF's),
 * every instruction of both functions has its C line, and the table
 * decides as written, in the kernel.
 */
Test(rodata, regrouped_table_keeps_its_line_info)
{
	const char *o = build("cst16_subprog");
	const struct object_line *l;
	struct object *obj;
	uint32_t i;

	obj = open_ok(o);
	expect_var(obj, "acts", ".rodata.cst16", 0, 16);
	cr_assert_eq(obj->prog_cnt, 1);
	cr_assert_gt(obj->progs[0].line_cnt, 0, "no line info");
	for (i = 0; i < obj->progs[0].insn_cnt; i++) {
		l = object_prog_line(&obj->progs[0], i);
		cr_assert_not_null(l, "insn %u has no line", i);
		cr_expect(strstr(l->file, "tests/rodata/cst16_subprog.bpf.c"), "insn %u: %s", i,
			  l->file);
	}
	/* The table read, the first 32-bit load of pick(), is on line 15. */
	cr_assert_eq(obj->progs[0].func_cnt, 2);
	for (i = obj->progs[0].funcs[1].start; i < obj->progs[0].insn_cnt; i++)
		if (obj->progs[0].insns[i].code == (BPF_LDX | BPF_MEM | BPF_W))
			break;
	cr_assert_lt(i, obj->progs[0].insn_cnt, "no 32-bit load");
	cr_expect_eq(object_prog_line(&obj->progs[0], i)->line, 15);
	object_free(obj);
	expect_no_punt(o);
	expect_action(o, "--arg 0 --arg 0 --arg 0 --arg 0", "KILL_PROCESS\n");
	expect_action(o, "--arg 0 --arg 0 --arg 0 --arg 5", "TRAP(7)\n");
	expect_action(o, "--arg 0 --arg 0 --arg 0 --arg 6", "TRACE(3)\n");
	expect_action(o, "--arg 0 --arg 0 --arg 0 --arg 0x7", "ALLOW\n");
}
