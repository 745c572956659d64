// SPDX-License-Identifier: MIT
/*
 * Tests for the object loader (lib/object/): filters under tests/objects/
 * are compiled with clang into a temporary directory, loaded, and checked;
 * corrupted and truncated copies must fail with a message, never crash.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <criterion/criterion.h>
#include <linux/seccomp.h>

#include "vm/insn.h"
#include "object/object.h"

static char tmpdir[64];

/* The repository root: meson sets SECBPF_SOURCE_DIR; else run from the root. */
static const char *source_dir(void)
{
	const char *dir = getenv("SECBPF_SOURCE_DIR");

	return dir && dir[0] ? dir : ".";
}

static void setup(void)
{
	strcpy(tmpdir, "/tmp/secbpf-test-object.XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		cr_log_warn("could not remove %s", tmpdir);
}

TestSuite(object, .init = setup, .fini = teardown, .timeout = 120);

/* Compile SECBPF_SOURCE_DIR/src (with extra clang flags) into tmpdir/out. */
static const char *compile(const char *src, const char *out, const char *extra)
{
	static char path[8][PATH_MAX];
	static unsigned next;
	char cmd[PATH_MAX * 3];
	char *p = path[next++ % 8];
	int ret;

	snprintf(p, PATH_MAX, "%s/%s", tmpdir, out);
	snprintf(cmd, sizeof(cmd),
		 "clang -O2 -g -target bpf -D__x86_64__ -I/usr/include/x86_64-linux-gnu "
		 "-I%s/include %s -c %s/%s -o %s",
		 source_dir(), extra ? extra : "", source_dir(), src, p);
	ret = system(cmd);
	cr_assert_eq(ret, 0, "failed: %s", cmd);
	return p;
}

static const char *cpu_flag(int v3)
{
	return v3 ? "-mcpu=v3" : "-mcpu=v2";
}

static struct object *open_ok(const char *path)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj = object_open_file(path, &err);

	cr_assert_not_null(obj, "loading %s failed: %s", path, err.msg);
	return obj;
}

static uint8_t *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	cr_assert_not_null(f, "open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

/* Loading buf must fail with a message that contains want. */
static void expect_fail(const void *buf, size_t size, const char *want)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj = object_open_mem(buf, size, "bad.o", &err);

	if (obj)
		object_free(obj);
	cr_assert_null(obj, "a corrupt object loaded (expected '%s')", want);
	cr_assert(strncmp(err.msg, "bad.o: ", 7) == 0, "message does not name the object: %s",
		  err.msg);
	cr_assert_not_null(strstr(err.msg, want), "message '%s' lacks '%s'", err.msg, want);
}

/* The 1-based number of the first line of file that contains needle. */
static unsigned line_of(const char *file, const char *needle)
{
	char path[PATH_MAX], line[512];
	unsigned n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", source_dir(), file);
	f = fopen(path, "r");
	cr_assert_not_null(f, "open %s", path);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, needle)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	cr_assert_fail("'%s' not in %s", needle, file);
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* Raw ELF access for building corrupt copies. */
static Elf64_Shdr *shdr_at(uint8_t *buf, size_t i)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;

	return (Elf64_Shdr *)(buf + eh->e_shoff) + i;
}

static Elf64_Shdr *shdr_by_name(uint8_t *buf, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Shdr *strs = shdr_at(buf, eh->e_shstrndx);
	size_t i;

	for (i = 1; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = shdr_at(buf, i);

		if (!strcmp((char *)buf + strs->sh_offset + sh->sh_name, name))
			return sh;
	}
	cr_assert_fail("no section %s", name);
	return NULL;
}

static Elf64_Sym *sym_by_name(uint8_t *buf, const char *name)
{
	Elf64_Shdr *symtab = shdr_by_name(buf, ".symtab");
	Elf64_Shdr *strtab = shdr_at(buf, symtab->sh_link);
	Elf64_Sym *syms = (Elf64_Sym *)(buf + symtab->sh_offset);
	size_t i;

	for (i = 0; i < symtab->sh_size / sizeof(*syms); i++)
		if (!strcmp((char *)buf + strtab->sh_offset + syms[i].st_name, name))
			return &syms[i];
	cr_assert_fail("no symbol %s", name);
	return NULL;
}

static Elf64_Rel *rel_first(uint8_t *buf, const char *relsec)
{
	return (Elf64_Rel *)(buf + shdr_by_name(buf, relsec)->sh_offset);
}

/* Every call and function address in prog lands on a function start. */
static void check_targets(const struct object_prog *p)
{
	uint32_t i, j;

	for (i = 0; i < p->insn_cnt; i++) {
		const struct bpf_insn *in = &p->insns[i];
		bool local = (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL) ||
			     (insn_is_ld_imm64(in) && in->src_reg == BPF_PSEUDO_FUNC);
		int64_t t = (int64_t)i + in->imm + 1;

		if (!local)
			continue;
		cr_assert(t >= 0 && t < p->insn_cnt, "%s: slot %u targets %lld", p->name, i,
			  (long long)t);
		for (j = 0; j < p->func_cnt; j++)
			if (p->funcs[j].start == (uint32_t)t)
				break;
		cr_assert_lt(j, p->func_cnt, "%s: slot %u targets %lld, not a function", p->name, i,
			     (long long)t);
	}
}

static uint32_t count_func(const struct object_prog *p, const char *name)
{
	uint32_t i, n = 0;

	for (i = 0; i < p->func_cnt; i++)
		n += !strcmp(p->funcs[i].name, name);
	return n;
}

static uint32_t func_start(const struct object_prog *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->func_cnt; i++)
		if (!strcmp(p->funcs[i].name, name))
			return p->funcs[i].start;
	cr_assert_fail("%s has no function %s", p->name, name);
	return 0;
}

static const struct object_map *map_by_name(const struct object *obj, const char *name,
					    uint32_t *idx)
{
	uint32_t i;

	for (i = 0; i < obj->map_cnt; i++) {
		if (!strcmp(obj->maps[i].name, name)) {
			if (idx)
				*idx = i;
			return &obj->maps[i];
		}
	}
	cr_assert_fail("no map %s", name);
	return NULL;
}

static const struct object_var *var_by_name(const struct object *obj, const char *name)
{
	uint32_t i;

	for (i = 0; i < obj->var_cnt; i++)
		if (!strcmp(obj->vars[i].name, name))
			return &obj->vars[i];
	cr_assert_fail("no variable %s", name);
	return NULL;
}

/* The little-endian value of var in its map's initial data (0 for bss). */
static uint64_t var_value(const struct object *obj, const char *name)
{
	const struct object_var *v = var_by_name(obj, name);
	const struct object_map *m = &obj->maps[v->map];
	uint64_t x = 0;
	uint32_t i;

	if (!m->init_data)
		return 0;
	for (i = 0; i < v->size; i++)
		x |= (uint64_t)m->init_data[v->offset + i] << (8 * i);
	return x;
}

Test(object, seed_sample)
{
	int v3;

	for (v3 = 0; v3 < 2; v3++) {
		const char *o = compile("samples/seed_close.bpf.c", "seed.o", cpu_flag(v3));
		struct object *obj = open_ok(o);
		struct secbpf_err err = { { 0 } };
		struct object_prog *p = object_find_prog(obj, NULL, &err);
		const struct object_line *l;
		unsigned decl = line_of("samples/seed_close.bpf.c", "int bpf_prog1(");
		unsigned arch = line_of("samples/seed_close.bpf.c", "ctx->arch != ARCH");
		bool saw_arch = false;
		uint32_t i;

		cr_assert_not_null(p, "%s", err.msg);
		cr_assert_str_eq(p->name, "bpf_prog1");
		cr_assert_str_eq(p->section, "seccomp");
		cr_assert_str_eq(obj->license, "GPL");
		cr_assert_eq(obj->map_cnt, 0);
		cr_assert_eq(obj->var_cnt, 0);
		cr_assert_eq(p->insn_cnt, p->main_cnt);
		cr_assert_eq(p->func_cnt, 1);
		cr_assert_str_eq(object_prog_func(p, 0), "bpf_prog1");
		cr_assert_eq(p->insns[p->insn_cnt - 1].code, BPF_JMP | BPF_EXIT);
		cr_assert_eq(insn_validate(p->insns, p->insn_cnt, INSN_ALLOW_PSEUDO, 1, &err), 0,
			     "%s", err.msg);
		l = object_prog_line(p, 0);
		cr_assert_not_null(l);
		cr_assert(ends_with(l->file, "samples/seed_close.bpf.c"), "file %s", l->file);
		cr_assert_eq(l->line, decl);
		for (i = 0; i < p->insn_cnt; i++) {
			l = object_prog_line(p, i);
			if (l && l->line == arch) {
				saw_arch = true;
				cr_assert_not_null(strstr(l->source, "ctx->arch != ARCH"));
			}
		}
		cr_assert(saw_arch, "no line info for line %u", arch);
		cr_assert_null(object_prog_line(p, p->insn_cnt));
		object_free(obj);
	}
}

Test(object, several_programs)
{
	int v3;

	for (v3 = 0; v3 < 2; v3++) {
		struct object *obj =
			open_ok(compile("tests/objects/multi.bpf.c", "multi.o", cpu_flag(v3)));
		struct secbpf_err err = { { 0 } };
		struct object_prog *p;
		unsigned decl;

		cr_assert_eq(obj->prog_cnt, 3, "the socket program must be ignored");
		cr_assert_null(object_find_prog(obj, NULL, &err));
		cr_assert_not_null(strstr(err.msg, "allow_all, deny_close, kill_ptrace"), "%s",
				   err.msg);
		cr_assert_not_null(strstr(err.msg, ":PROG"), "%s", err.msg);
		p = object_find_prog(obj, "allow_all", &err);
		cr_assert_not_null(p);
		cr_assert_str_eq(p->section, "seccomp");
		cr_assert_eq(p->insn_cnt, 2);
		cr_assert_eq(p->insns[0].imm, (int32_t)SECCOMP_RET_ALLOW);
		p = object_find_prog(obj, "deny_close", &err);
		cr_assert_not_null(p);
		cr_assert_str_eq(p->section, "seccomp");
		cr_assert_eq(p->func_cnt, 1);
		p = object_find_prog(obj, "kill_ptrace", &err);
		cr_assert_not_null(p);
		cr_assert_str_eq(p->section, "seccomp/strict");
		/* The first record is the declaration or the first statement. */
		decl = line_of("tests/objects/multi.bpf.c", "int kill_ptrace(");
		cr_assert(object_prog_line(p, 0)->line >= decl &&
			  object_prog_line(p, 0)->line <= decl + 3);
		cr_assert_null(object_find_prog(obj, "not_a_filter", &err));
		cr_assert_not_null(strstr(err.msg, "no program 'not_a_filter'"), "%s", err.msg);
		object_free(obj);
	}
}

/* Found by fuzz_object: two programs of one name made OBJ:PROG ambiguous. */
Test(object, duplicate_program_names)
{
	size_t size;
	uint8_t *buf = read_all(compile("tests/objects/multi.bpf.c", "multi.o", NULL), &size);

	sym_by_name(buf, "deny_close")->st_name = sym_by_name(buf, "allow_all")->st_name;
	expect_fail(buf, size, "two programs are named 'allow_all'");
	free(buf);
}

Test(object, subprograms_and_callbacks)
{
	const char *src = "tests/objects/calls.bpf.c";
	int v3;

	for (v3 = 0; v3 < 2; v3++) {
		struct object *obj = open_ok(compile(src, "calls.o", cpu_flag(v3)));
		struct secbpf_err err = { { 0 } };
		struct object_prog *loop = object_find_prog(obj, "with_loop", &err);
		struct object_prog *plain = object_find_prog(obj, "plain", &err);
		const struct object_line *l;
		uint32_t i, start, cb = 0;

		cr_assert_eq(obj->prog_cnt, 2, "global functions in .text are not programs");
		cr_assert_not_null(loop);
		cr_assert_not_null(plain);
		check_targets(loop);
		check_targets(plain);
		cr_assert_eq(count_func(loop, "check_one"), 1);
		cr_assert_eq(count_func(loop, "global_twice"), 1);
		cr_assert_eq(count_func(loop, "decide"), 1);
		cr_assert_eq(count_func(loop, "is_denied"), 1);
		cr_assert_eq(plain->func_cnt, 3, "plain links only what it calls");
		cr_assert_eq(count_func(plain, "check_one"), 0);
		cr_assert_gt(plain->insn_cnt, plain->main_cnt);
		cr_assert_str_eq(loop->funcs[0].name, "with_loop");
		cr_assert_eq(loop->funcs[0].start, 0);

		/* The bpf_loop callback is a pseudo-func ld_imm64 to check_one. */
		for (i = 0; i < loop->insn_cnt; i++) {
			if (insn_is_ld_imm64(&loop->insns[i]) &&
			    loop->insns[i].src_reg == BPF_PSEUDO_FUNC) {
				cr_assert_eq(i + loop->insns[i].imm + 1,
					     func_start(loop, "check_one"));
				cr_assert_eq(loop->insns[i + 1].imm, 0);
				cb++;
			}
		}
		cr_assert_eq(cb, 1);

		start = func_start(plain, "is_denied");
		cr_assert_str_eq(object_prog_func(plain, start), "is_denied");
		cr_assert_str_eq(object_prog_func(plain, start - 1), "decide");
		l = object_prog_line(plain, start);
		cr_assert_not_null(l);
		cr_assert(ends_with(l->file, src), "%s", l->file);
		cr_assert_eq(l->line, line_of(src, "int is_denied(int nr)"));
		l = object_prog_line(loop, func_start(loop, "check_one"));
		cr_assert(l->line >= line_of(src, "static int check_one(") &&
				  l->line <= line_of(src, "c->found = 1;"),
			  "line %u", l->line);
		cr_assert_eq(insn_validate(loop->insns, loop->insn_cnt, INSN_ALLOW_PSEUDO, 1, &err),
			     0, "%s", err.msg);
		for (i = 1; i < loop->line_cnt; i++)
			cr_assert_leq(loop->lines[i - 1].insn_off, loop->lines[i].insn_off);
		object_free(obj);
	}
}

Test(object, btf_maps)
{
	int v3;

	for (v3 = 0; v3 < 2; v3++) {
		struct object *obj =
			open_ok(compile("tests/objects/maps.bpf.c", "maps.o", cpu_flag(v3)));
		const struct object_map *m;
		const struct btf_type *t;
		bool used[8] = { false };
		struct object_prog *p = &obj->progs[0];
		uint32_t i;

		cr_assert_eq(obj->map_cnt, 5);
		m = map_by_name(obj, "per_nr", NULL);
		cr_assert_eq(m->kind, OBJECT_MAP_BTF);
		cr_assert_eq(m->type, BPF_MAP_TYPE_HASH);
		cr_assert_eq(m->key_size, 4);
		cr_assert_eq(m->value_size, 16);
		cr_assert_eq(m->max_entries, 512);
		cr_assert_null(m->init_data);
		t = btf__type_by_id(obj->btf, m->btf_value_type_id);
		cr_assert_str_eq(btf__name_by_offset(obj->btf, t->name_off), "stats");
		m = map_by_name(obj, "totals", NULL);
		cr_assert_eq(m->type, BPF_MAP_TYPE_ARRAY);
		cr_assert_eq(m->key_size, 4);
		cr_assert_eq(m->value_size, 8);
		cr_assert_eq(m->max_entries, 4);
		cr_assert_eq(m->btf_key_type_id, 0);
		m = map_by_name(obj, "recent", NULL);
		cr_assert_eq(m->type, BPF_MAP_TYPE_LRU_HASH);
		cr_assert_eq(m->map_flags, BPF_F_NO_COMMON_LRU);
		cr_assert_eq(m->key_size, 8);
		cr_assert_eq(m->value_size, 4);
		m = map_by_name(obj, "events", NULL);
		cr_assert_eq(m->type, BPF_MAP_TYPE_QUEUE);
		cr_assert_eq(m->key_size, 0);
		cr_assert_eq(m->value_size, 4);
		m = map_by_name(obj, "ring", NULL);
		cr_assert_eq(m->type, BPF_MAP_TYPE_RINGBUF);
		cr_assert_eq(m->max_entries, 4096);

		for (i = 0; i < p->insn_cnt; i++) {
			if (!insn_is_ld_imm64(&p->insns[i]))
				continue;
			cr_assert_eq(p->insns[i].src_reg, BPF_PSEUDO_MAP_FD);
			cr_assert_lt((uint32_t)p->insns[i].imm, obj->map_cnt);
			used[p->insns[i].imm] = true;
			i++;
		}
		for (i = 0; i < obj->map_cnt; i++)
			cr_assert(used[i], "map %s is never referenced", obj->maps[i].name);
		object_free(obj);
	}
}

Test(object, global_data)
{
	int v3;

	for (v3 = 0; v3 < 2; v3++) {
		struct object *obj =
			open_ok(compile("tests/objects/globals.bpf.c", "globals.o", cpu_flag(v3)));
		const struct object_map *m;
		const struct object_var *v;
		struct object_prog *p = &obj->progs[0];
		uint32_t i, rodata, bss, str;
		bool saw_bss = false, saw_str = false;

		m = map_by_name(obj, ".rodata", &rodata);
		cr_assert_eq(m->kind, OBJECT_MAP_RODATA);
		cr_assert_eq(m->type, BPF_MAP_TYPE_ARRAY);
		cr_assert_eq(m->map_flags, BPF_F_RDONLY_PROG);
		cr_assert_eq(m->key_size, 4);
		cr_assert_eq(m->max_entries, 1);
		cr_assert_not_null(m->init_data);
		cr_assert_neq(m->btf_value_type_id, 0);
		m = map_by_name(obj, ".data", NULL);
		cr_assert_eq(m->kind, OBJECT_MAP_DATA);
		cr_assert_eq(m->map_flags, 0);
		m = map_by_name(obj, ".bss", &bss);
		cr_assert_eq(m->kind, OBJECT_MAP_BSS);
		cr_assert_null(m->init_data);
		cr_assert_eq(m->value_size, 8);
		m = map_by_name(obj, ".rodata.str1.1", &str);
		cr_assert_eq(m->kind, OBJECT_MAP_RODATA);
		cr_assert(memmem(m->init_data, m->value_size, "many calls\n", 11));
		m = map_by_name(obj, ".data.custom", NULL);
		cr_assert_eq(m->value_size, 16);

		/* Offsets come from the symbol table (clang leaves them 0 in BTF). */
		cr_assert_eq(var_value(obj, "enabled"), 1);
		cr_assert_eq(var_value(obj, "letter"), 'x');
		cr_assert_eq(var_value(obj, "small"), 200);
		cr_assert_eq((int16_t)var_value(obj, "delta"), -5);
		cr_assert_eq(var_value(obj, "denied_nr"), 3);
		cr_assert_eq(var_value(obj, "big"), UINT64_MAX);
		cr_assert_eq(var_value(obj, "ubig"), 0x1122334455667788ULL);
		cr_assert_eq(var_value(obj, "mode"), 1);
		cr_assert_eq(var_value(obj, "port"), 80);
		cr_assert_eq(var_value(obj, "counter"), 3);
		m = map_by_name(obj, ".data.custom", NULL);
		cr_assert(!memcmp(m->init_data + var_by_name(obj, "table")->offset,
				  "\1\0\0\0\2\0\0\0\3\0\0\0\4\0\0\0", 16));

		v = var_by_name(obj, "enabled");
		cr_assert(v->is_const_volatile && v->is_integer && !v->is_signed);
		cr_assert_eq(v->map, rodata);
		v = var_by_name(obj, "delta");
		cr_assert(v->is_integer && v->is_signed && v->size == 2);
		v = var_by_name(obj, "port");
		cr_assert(v->is_const_volatile && v->is_integer, "typedefs are seen through");
		v = var_by_name(obj, "mode");
		cr_assert(v->is_integer, "enums are integers");
		v = var_by_name(obj, "limits");
		cr_assert(v->is_const_volatile && !v->is_integer);
		v = var_by_name(obj, "counter");
		cr_assert(!v->is_const_volatile && v->is_integer && v->is_signed);
		v = var_by_name(obj, "hits");
		cr_assert_eq(v->map, bss);

		for (i = 0; i < p->insn_cnt; i++) {
			const struct bpf_insn *in = &p->insns[i];

			if (!insn_is_ld_imm64(in))
				continue;
			cr_assert_eq(in->src_reg, BPF_PSEUDO_MAP_VALUE);
			cr_assert_lt((uint32_t)in->imm, obj->map_cnt);
			cr_assert_lt((uint32_t)in[1].imm, obj->maps[in->imm].value_size);
			saw_bss |= (uint32_t)in->imm == bss;
			if ((uint32_t)in->imm == str) {
				saw_str = true;
				cr_assert(!memcmp(obj->maps[str].init_data + in[1].imm,
						  "many calls\n", 11));
			}
			i++;
		}
		cr_assert(saw_bss && saw_str);
		object_free(obj);
	}
}

Test(object, set_var)
{
	struct object *obj = open_ok(compile("tests/objects/globals.bpf.c", "globals.o", NULL));
	struct secbpf_err err = { { 0 } };
	static const struct {
		const char *name, *value;
		int ret;
		uint64_t expect;
	} cases[] = {
		{ "small", "255", 0, 255 },
		{ "small", "256", -EINVAL, 255 },
		{ "small", "-1", -EINVAL, 255 },
		{ "small", "0x7f", 0, 0x7f },
		{ "small", "12abc", -EINVAL, 0x7f },
		{ "small", "", -EINVAL, 0x7f },
		{ "small", "0x", -EINVAL, 0x7f },
		{ "delta", "-32768", 0, 0x8000 },
		{ "delta", "32768", -EINVAL, 0x8000 },
		{ "delta", "0x7fff", 0, 0x7fff },
		{ "letter", "-128", 0, 0x80 },
		{ "letter", "128", -EINVAL, 0x80 },
		{ "enabled", "false", 0, 0 },
		{ "enabled", "2", -EINVAL, 0 },
		{ "enabled", "true", 0, 1 },
		{ "denied_nr", "4294967295", 0, 0xffffffff },
		{ "denied_nr", "4294967296", -EINVAL, 0xffffffff },
		{ "big", "-9223372036854775808", 0, 0x8000000000000000ULL },
		{ "big", "9223372036854775808", -EINVAL, 0x8000000000000000ULL },
		{ "ubig", "0xffffffffffffffff", 0, UINT64_MAX },
		{ "ubig", "0x10000000000000000", -EINVAL, UINT64_MAX },
		{ "mode", "MODE_DENY", 0, 7 },
		{ "mode", "MODE_NEG", 0, 0xfffffffe },
		{ "mode", "2", 0, 2 },
		{ "mode", "MODE_NOPE", -EINVAL, 2 },
		{ "port", "65535", 0, 65535 },
		{ "port", "65536", -EINVAL, 65535 },
		{ "counter", "-42", 0, 0xffffffd6 },
		{ "hits", "5", 0, 5 },
		/* The literal forms of lib/common/number.c, as --set has always taken them. */
		{ "hits", "+6", -EINVAL, 5 },
		{ "hits", " 6", -EINVAL, 5 },
		{ "hits", "0x-6", -EINVAL, 5 },
		{ "hits", "010", 0, 10 },
		{ "hits", "-0", 0, 0 },
		{ "hits", "true", 0, 1 },
		{ "enabled", "-0", 0, 0 },
		{ "enabled", "-1", -EINVAL, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		err.msg[0] = 0;
		ret = object_set_var(obj, cases[i].name, cases[i].value, &err);
		cr_assert_eq(ret, cases[i].ret, "%s=%s: %d (%s)", cases[i].name, cases[i].value,
			     ret, err.msg);
		if (ret)
			cr_assert_not_null(strstr(err.msg, cases[i].name), "%s", err.msg);
		cr_assert_eq(var_value(obj, cases[i].name), cases[i].expect, "%s=%s", cases[i].name,
			     cases[i].value);
	}
	cr_assert_eq(object_set_var(obj, "limits", "1", &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "not an integer"), "%s", err.msg);
	cr_assert_eq(object_set_var(obj, "nope", "1", &err), -ENOENT);
	cr_assert_not_null(strstr(err.msg, "no global variable 'nope'"), "%s", err.msg);
	/* Neighbours are untouched by a write. */
	cr_assert_eq(var_value(obj, "letter"), 0x80);
	cr_assert_eq(var_value(obj, "denied_nr"), 0xffffffff);
	object_free(obj);
}

Test(object, without_debug_info)
{
	struct object *obj;
	size_t size;
	uint8_t *buf;

	/* Global data needs no BTF: maps yes, variables and lines no. */
	obj = open_ok(compile("tests/objects/globals.bpf.c", "g.o", "-g0"));
	cr_assert_null(obj->btf);
	cr_assert_eq(obj->var_cnt, 0);
	cr_assert_eq(obj->map_cnt, 5);
	cr_assert_eq(obj->progs[0].line_cnt, 0);
	cr_assert_eq(object_set_var(obj, "small", "1", NULL), -ENOENT);
	object_free(obj);
	/* BTF-defined maps do. */
	buf = read_all(compile("tests/objects/maps.bpf.c", "m.o", "-g0"), &size);
	expect_fail(buf, size, "section .maps needs BTF");
	free(buf);
}

Test(object, unsupported_maps)
{
	static const struct {
		const char *def, *want;
	} cases[] = {
		{ "-DCASE_UNKNOWN_TYPE", "map 'bad': unknown map type 99" },
		{ "-DCASE_PERF_EVENT", "type perf_event_array (4) is not supported" },
		{ "-DCASE_INNER_MAP", "inner maps" },
		{ "-DCASE_PINNING", "'pinning' is not supported" },
	};
	size_t i, size;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t *buf = read_all(
			compile("tests/objects/bad_maps.bpf.c", "bad.o", cases[i].def), &size);

		expect_fail(buf, size, cases[i].want);
		free(buf);
	}
}

Test(object, no_seccomp_program)
{
	size_t size;
	uint8_t *buf = read_all(compile("tests/objects/nosec.bpf.c", "nosec.o", NULL), &size);

	expect_fail(buf, size, "no SEC(\"seccomp\") program (code sections found: 'seccom')");
	free(buf);
}

/*
 * Opening path must fail with errno want and a message that names the path
 * and contains msg.
 */
static void expect_open_errno(const char *path, int want, const char *msg)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj;
	int saved;

	errno = 0;
	obj = object_open_file(path, &err);
	saved = errno;
	if (obj)
		object_free(obj);
	cr_assert_null(obj, "%s loaded", path);
	cr_assert_eq(saved, want, "%s: errno %d (%s), expected %d (%s); message: %s", path, saved,
		     strerror(saved), want, strerror(want), err.msg);
	cr_assert(strncmp(err.msg, path, strlen(path)) == 0, "message does not name %s: %s", path,
		  err.msg);
	cr_assert_not_null(strstr(err.msg, msg), "message '%s' lacks '%s'", err.msg, msg);
}

/* A file that cannot be read fails with the system's reason, not EINVAL. */
Test(object, open_file_errno)
{
	char missing[PATH_MAX], plain[PATH_MAX], below_file[PATH_MAX], empty[PATH_MAX],
		locked[PATH_MAX], junk[PATH_MAX];
	FILE *f;

	snprintf(missing, sizeof(missing), "%s/missing.o", tmpdir);
	snprintf(plain, sizeof(plain), "%s/plain", tmpdir);
	snprintf(below_file, sizeof(below_file), "%s/plain/x.o", tmpdir);
	snprintf(empty, sizeof(empty), "%s/empty.o", tmpdir);
	snprintf(locked, sizeof(locked), "%s/locked.o", tmpdir);
	snprintf(junk, sizeof(junk), "%s/junk.o", tmpdir);

	f = fopen(plain, "w");
	cr_assert_not_null(f);
	fclose(f);
	f = fopen(empty, "w");
	cr_assert_not_null(f);
	fclose(f);
	f = fopen(junk, "w");
	cr_assert_not_null(f);
	fputs("not an ELF object\n", f);
	fclose(f);

	expect_open_errno(missing, ENOENT, "cannot open: No such file or directory");
	expect_open_errno(below_file, ENOTDIR, "cannot open");
	expect_open_errno(tmpdir, EISDIR, "is a directory, not a regular file");
	expect_open_errno("/dev/null", EINVAL, "not a regular file");
	expect_open_errno(empty, EINVAL, "the file is empty");
	expect_open_errno(junk, EINVAL, "not an ELF file");

	/* EACCES: root reads anything, so try as nobody in a child. */
	f = fopen(locked, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(chmod(locked, 0), 0);
	if (geteuid() != 0) {
		expect_open_errno(locked, EACCES, "cannot open: Permission denied");
	} else {
		pid_t pid = fork();
		int status;

		cr_assert_neq(pid, -1);
		if (pid == 0) {
			struct secbpf_err err = { { 0 } };

			if (setgid(65534) || setuid(65534))
				_exit(100);
			errno = 0;
			if (object_open_file(locked, &err))
				_exit(101);
			if (strncmp(err.msg, locked, strlen(locked)) ||
			    !strstr(err.msg, "Permission denied"))
				_exit(102);
			_exit(errno == EACCES ? 0 : 103);
		}
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "opening a mode-0 file as nobody: status 0x%x", status);
	}
}

/* The loader's own failures leave their errno too. */
Test(object, open_mem_errno)
{
	struct secbpf_err err = { { 0 } };
	static const char text[] = "int main(void) { return 0; }\n";
	size_t size;
	uint8_t *buf;

	errno = 0;
	cr_assert_null(object_open_mem(text, 0, "t.o", &err));
	cr_assert_eq(errno, EINVAL);
	errno = 0;
	cr_assert_null(object_open_mem(text, sizeof(text), "t.o", &err));
	cr_assert_eq(errno, EINVAL, "%s", err.msg);
	buf = read_all(compile("tests/objects/nosec.bpf.c", "nosec.o", NULL), &size);
	errno = 0;
	cr_assert_null(object_open_mem(buf, size, "nosec.o", &err));
	cr_assert_eq(errno, ENOENT, "%s", err.msg);
	free(buf);
	buf = read_all(compile("tests/objects/bad_maps.bpf.c", "bad.o", "-DCASE_PERF_EVENT"),
		       &size);
	errno = 0;
	cr_assert_null(object_open_mem(buf, size, "bad.o", &err));
	cr_assert_eq(errno, ENOTSUP, "%s", err.msg);
	free(buf);
}

Test(object, not_an_object)
{
	struct secbpf_err err = { { 0 } };
	static const char text[] = "int main(void) { return 0; }\n";
	uint8_t *buf;
	size_t size;

	expect_fail(text, 0, "empty");
	expect_fail(text, sizeof(text), "ELF");
	cr_assert_null(object_open_file("/nonexistent/x.o", &err));
	cr_assert_not_null(strstr(err.msg, "/nonexistent/x.o: cannot open"), "%s", err.msg);
	cr_assert_null(object_open_file("/tmp", &err));
	cr_assert_not_null(strstr(err.msg, "not a regular file"), "%s", err.msg);

	buf = read_all(compile("tests/objects/const64.bpf.c", "c.o", NULL), &size);
	((Elf64_Ehdr *)buf)->e_machine = EM_X86_64;
	expect_fail(buf, size, "not BPF");
	((Elf64_Ehdr *)buf)->e_machine = EM_BPF;
	((Elf64_Ehdr *)buf)->e_type = ET_EXEC;
	expect_fail(buf, size, "not a relocatable object");
	((Elf64_Ehdr *)buf)->e_type = ET_REL;
	buf[EI_CLASS] = ELFCLASS32;
	expect_fail(buf, size, "64-bit");
	buf[EI_CLASS] = ELFCLASS64;
	buf[EI_DATA] = ELFDATA2MSB;
	expect_fail(buf, size, "big-endian");
	free(buf);
}

/* Every truncated copy fails cleanly (the section headers come last). */
Test(object, truncated)
{
	size_t size, len;
	uint8_t *buf = read_all(compile("tests/objects/globals.bpf.c", "g.o", NULL), &size);
	struct secbpf_err err;

	for (len = 0; len < size; len++) {
		uint8_t *copy = malloc(len + 1);
		struct object *obj;

		memcpy(copy, buf, len);
		err.msg[0] = 0;
		obj = object_open_mem(copy, len, "cut.o", &err);
		cr_assert_null(obj, "loaded a copy cut at %zu of %zu bytes", len, size);
		cr_assert(err.msg[0], "no message for a copy cut at %zu", len);
		free(copy);
	}
	free(buf);
}

Test(object, corrupt_headers)
{
	size_t size;
	uint8_t *orig = read_all(compile("tests/objects/maps.bpf.c", "m.o", NULL), &size);
	uint8_t *buf = malloc(size);

#define RESET() memcpy(buf, orig, size)
	RESET();
	((Elf64_Ehdr *)buf)->e_shoff = size + 4096;
	expect_fail(buf, size, "section header table");
	RESET();
	((Elf64_Ehdr *)buf)->e_shoff = size - 64;
	expect_fail(buf, size, "section header table");

	RESET();
	shdr_by_name(buf, "seccomp")->sh_offset = size - 8;
	expect_fail(buf, size, "section 'seccomp' lies outside the file");
	RESET();
	shdr_by_name(buf, "seccomp")->sh_offset = UINT64_MAX - 8;
	expect_fail(buf, size, "section 'seccomp' lies outside the file");
	RESET();
	shdr_by_name(buf, ".BTF")->sh_size = size;
	expect_fail(buf, size, "section '.BTF' lies outside the file");

	RESET();
	shdr_by_name(buf, "seccomp")->sh_size -= 4;
	expect_fail(buf, size, "'seccomp' is 372 bytes, not a multiple of 8");

	RESET();
	shdr_by_name(buf, "seccomp")->sh_name = 0x7fffffff;
	expect_fail(buf, size, "bad name offset");

	RESET();
	shdr_by_name(buf, ".symtab")->sh_type = SHT_PROGBITS;
	expect_fail(buf, size, "no symbol table");

	RESET();
	shdr_by_name(buf, ".relseccomp")->sh_info = 999;
	expect_fail(buf, size, "applies to section 999, which does not exist");

	RESET();
	shdr_by_name(buf, ".BTF")->sh_offset += 1;
	expect_fail(buf, size, ".BTF is malformed");

	RESET();
	sym_by_name(buf, "count")->st_size += 8;
	expect_fail(buf, size, "function 'count'");
	free(buf);
	free(orig);
#undef RESET
}

Test(object, corrupt_relocations)
{
	size_t size;
	uint8_t *orig = read_all(compile("tests/objects/maps.bpf.c", "m.o", NULL), &size);
	uint8_t *buf = malloc(size);
	Elf64_Rel *r;
	Elf64_Sym *lic;

#define RESET() (memcpy(buf, orig, size), r = rel_first(buf, ".relseccomp"))
	RESET();
	r->r_info = ELF64_R_INFO(9999, R_BPF_64_64);
	expect_fail(buf, size, "refers to symbol 9999, which does not exist");
	RESET();
	r->r_info = ELF64_R_INFO(0, R_BPF_64_64);
	expect_fail(buf, size, "refers to symbol 0");

	RESET();
	r->r_offset = 4;
	expect_fail(buf, size, "offset 4, which is not an instruction");
	RESET();
	r->r_offset = 1ull << 40;
	expect_fail(buf, size, "which is not an instruction");

	/* slot 0 is a load from ctx */
	RESET();
	r->r_offset = 0;
	expect_fail(buf, size,
		    "seccomp+0: relocation on an instruction (code 0x61) that is neither ld_imm64 "
		    "nor call");

	RESET();
	r->r_offset += 8;
	expect_fail(buf, size, "(code 0x00) that is neither ld_imm64 nor call");

	RESET();
	r->r_info = ELF64_R_INFO(ELF64_R_SYM(r->r_info), R_BPF_64_32);
	expect_fail(buf, size, "expected R_BPF_64_64");

	RESET();
	r[1].r_offset = r[0].r_offset;
	expect_fail(buf, size, "two relocations");

	RESET();
	lic = sym_by_name(buf, "_license");
	r->r_info = ELF64_R_INFO(
		(uint64_t)(lic - (Elf64_Sym *)(buf + shdr_by_name(buf, ".symtab")->sh_offset)),
		R_BPF_64_64);
	expect_fail(buf, size, "reference to '_license' in section 'license'");

	RESET();
	((struct bpf_insn *)(buf + shdr_by_name(buf, "seccomp")->sh_offset + r->r_offset))->imm = 4;
	expect_fail(buf, size, "where no map is defined");

	RESET();
	sym_by_name(buf, "per_nr")->st_shndx = SHN_UNDEF;
	expect_fail(buf, size, "extern 'per_nr'");

	RESET();
	shdr_by_name(buf, ".relseccomp")->sh_size = 1ull << 32;
	expect_fail(buf, size, "'.relseccomp' lies outside the file");
	free(buf);
	free(orig);
#undef RESET
}

Test(object, corrupt_calls)
{
	size_t size;
	uint8_t *buf = read_all(compile("tests/objects/calls.bpf.c", "c.o", NULL), &size);
	Elf64_Shdr *text = shdr_by_name(buf, ".text");
	struct bpf_insn *in = (struct bpf_insn *)(buf + text->sh_offset);
	size_t i, n = text->sh_size / 8;
	uint8_t *copy = malloc(size);

	/* decide calls is_denied inside .text without a relocation. */
	for (i = 0; i < n; i++) {
		if (in[i].code != (BPF_JMP | BPF_CALL) || in[i].src_reg != BPF_PSEUDO_CALL)
			continue;
		memcpy(copy, buf, size);
		((struct bpf_insn *)(copy + text->sh_offset))[i].imm += 1;
		expect_fail(copy, size, "which is not the start of a function");
		memcpy(copy, buf, size);
		((struct bpf_insn *)(copy + text->sh_offset))[i].imm = 1 << 20;
		expect_fail(copy, size, "is outside section '.text'");
		memcpy(copy, buf, size);
		((struct bpf_insn *)(copy + text->sh_offset))[i].src_reg = BPF_PSEUDO_KFUNC_CALL;
		expect_fail(copy, size, "kfunc");
		break;
	}
	cr_assert_lt(i, n, "no local call in .text");
	free(copy);
	free(buf);
}

/* Find the slot of the first ld_imm64 in section sec. */
static size_t first_ld_imm64(uint8_t *buf, const char *sec)
{
	Elf64_Shdr *sh = shdr_by_name(buf, sec);
	struct bpf_insn *in = (struct bpf_insn *)(buf + sh->sh_offset);
	size_t i;

	for (i = 0; i < sh->sh_size / 8; i++)
		if (insn_is_ld_imm64(&in[i]))
			return i;
	cr_assert_fail("no ld_imm64 in %s", sec);
	return 0;
}

Test(object, ld_imm64_cut_and_forged)
{
	size_t size, slot;
	uint8_t *orig = read_all(compile("tests/objects/const64.bpf.c", "c.o", NULL), &size);
	uint8_t *buf = malloc(size);
	Elf64_Shdr *strs;
	char *name;

	memcpy(buf, orig, size);
	slot = first_ld_imm64(buf, "seccomp");
	/* Hide .BTF.ext so that its line info does not point past the cut. */
	strs = shdr_at(buf, ((Elf64_Ehdr *)buf)->e_shstrndx);
	name = memmem(buf + strs->sh_offset, strs->sh_size, ".BTF.ext", 9);
	cr_assert_not_null(name);
	name[7] = 'X';
	shdr_by_name(buf, "seccomp")->sh_size = (slot + 1) * 8;
	sym_by_name(buf, "filter")->st_size = (slot + 1) * 8;
	expect_fail(buf, size, "is cut off");

	memcpy(buf, orig, size);
	((struct bpf_insn *)(buf + shdr_by_name(buf, "seccomp")->sh_offset))[slot].src_reg =
		BPF_PSEUDO_MAP_FD;
	expect_fail(buf, size, "ld_imm64 with src_reg 1 but no relocation");
	free(buf);
	free(orig);
}

Test(object, corrupt_btf_ext)
{
	size_t size;
	uint8_t *orig = read_all(compile("tests/objects/const64.bpf.c", "c.o", NULL), &size);
	uint8_t *buf = malloc(size);
	uint32_t *hdr;

#define RESET()                                                                                    \
	(memcpy(buf, orig, size),                                                                  \
	 hdr = (uint32_t *)(buf + shdr_by_name(buf, ".BTF.ext")->sh_offset))
	RESET();
	hdr[0] = 0;
	expect_fail(buf, size, ".BTF.ext has bad magic");
	RESET();
	hdr[1] = 0xffff;
	expect_fail(buf, size, ".BTF.ext header length 65535 is invalid");
	RESET();
	hdr[5] = 0x10000; /* line_info_len */
	expect_fail(buf, size, ".BTF.ext line info");
	RESET();
	hdr[4] += 4; /* line_info_off: the record size becomes a name */
	expect_fail(buf, size, ".BTF.ext");
	free(buf);
	free(orig);
#undef RESET
}

/* A minimal ELF object built by hand: one program of cnt instructions. */
static uint8_t *synthetic_prog(size_t cnt, size_t *size)
{
	static const char shstr[] = "\0seccomp\0.strtab\0.symtab\0.shstrtab";
	static const char str[] = "\0big";
	size_t code = cnt * 8, off, i;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	Elf64_Sym *sym;
	struct bpf_insn *in;
	uint8_t *buf;

	buf = calloc(1, sizeof(*eh) + code + 1024);
	cr_assert_not_null(buf);
	eh = (Elf64_Ehdr *)buf;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_REL;
	eh->e_machine = EM_BPF;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 5;
	eh->e_shstrndx = 4;

	off = sizeof(*eh);
	in = (struct bpf_insn *)(buf + off);
	for (i = 0; i + 1 < cnt; i++)
		in[i] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .imm = 0 };
	in[cnt - 1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	off += code;
	memcpy(buf + off, str, sizeof(str));
	off += sizeof(str);
	off = (off + 7) & ~(size_t)7;
	sym = (Elf64_Sym *)(buf + off);
	sym[1].st_name = 1;
	sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[1].st_shndx = 1;
	sym[1].st_size = code;
	memcpy(buf + off + 2 * sizeof(*sym), shstr, sizeof(shstr));
	eh->e_shoff = (off + 2 * sizeof(*sym) + sizeof(shstr) + 7) & ~(size_t)7;
	*size = eh->e_shoff + 5 * sizeof(*sh);
	sh = (Elf64_Shdr *)(buf + eh->e_shoff);
	sh[1] = (Elf64_Shdr){ .sh_name = 1,
			      .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_offset = sizeof(*eh),
			      .sh_size = code,
			      .sh_addralign = 8 };
	sh[2] = (Elf64_Shdr){ .sh_name = 9,
			      .sh_type = SHT_STRTAB,
			      .sh_offset = sizeof(*eh) + code,
			      .sh_size = sizeof(str),
			      .sh_addralign = 1 };
	sh[3] = (Elf64_Shdr){ .sh_name = 17,
			      .sh_type = SHT_SYMTAB,
			      .sh_offset = off,
			      .sh_size = 2 * sizeof(*sym),
			      .sh_link = 2,
			      .sh_info = 1,
			      .sh_addralign = 8,
			      .sh_entsize = sizeof(*sym) };
	sh[4] = (Elf64_Shdr){ .sh_name = 25,
			      .sh_type = SHT_STRTAB,
			      .sh_offset = off + 2 * sizeof(*sym),
			      .sh_size = sizeof(shstr),
			      .sh_addralign = 1 };
	return buf;
}

Test(object, program_size_limit)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj;
	size_t size;
	uint8_t *buf = synthetic_prog(INSN_MAX_CNT, &size);

	obj = object_open_mem(buf, size, "max.o", &err);
	cr_assert_not_null(obj, "%s", err.msg);
	cr_assert_eq(obj->progs[0].insn_cnt, INSN_MAX_CNT);
	cr_assert_null(obj->license);
	cr_assert_null(obj->btf);
	cr_assert_eq(obj->progs[0].line_cnt, 0);
	cr_assert_null(object_prog_line(&obj->progs[0], 0));
	object_free(obj);
	free(buf);

	buf = synthetic_prog(INSN_MAX_CNT + 1, &size);
	expect_fail(buf, size, "more than 1000000 instructions");
	free(buf);
}
