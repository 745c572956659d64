// SPDX-License-Identifier: MIT
/*
 * Global data: each non-empty .data, .rodata or .bss section becomes a
 * one-element array map, its BTF variables become struct object_var, and
 * --set VAR=VALUE writes an integer into a variable's initial bytes, and
 * object_global_read_only() proves that nothing writes a .data or .bss
 * section at run time (the compiler then folds it as it folds .rodata).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/number.h"
#include "object/object_internal.h"

/*
 * The kernel refuses array maps whose value exceeds KMALLOC_MAX_SIZE (4 MiB
 * on x86_64); a bigger data section could never load, and refusing it here
 * also keeps a forged .bss size from making us allocate gigabytes.
 */
#define OBJECT_DATA_MAX (4u << 20)

/* Data section s as a one-element array map holding its bytes. */
static int add_data_map(struct loader *ld, struct loader_sec *s)
{
	const struct btf *btf = ld->obj->btf;
	struct object_map map = {
		.type = BPF_MAP_TYPE_ARRAY,
		.key_size = 4,
		.max_entries = 1,
	};
	int ret, id;

	if (s->size > OBJECT_DATA_MAX)
		return loader_fail(ld, E2BIG,
				   "global data section '%s' is %zu bytes, more than the %u an "
				   "array map value may hold; use a map for big tables",
				   s->name, s->size, OBJECT_DATA_MAX);
	map.value_size = (uint32_t)s->size;
	switch (s->kind) {
	case LOADER_SEC_DATA:
		map.kind = OBJECT_MAP_DATA;
		break;
	case LOADER_SEC_RODATA:
		map.kind = OBJECT_MAP_RODATA;
		map.map_flags = BPF_F_RDONLY_PROG;
		break;
	default:
		map.kind = OBJECT_MAP_BSS;
		break;
	}
	if (btf) {
		id = btf__find_by_name_kind(btf, s->name, BTF_KIND_DATASEC);
		if (id > 0)
			map.btf_value_type_id = (uint32_t)id;
	}
	if (map.kind != OBJECT_MAP_BSS) {
		map.init_data = calloc(1, s->size);
		if (!map.init_data)
			return loader_nomem(ld);
		if (s->data)
			memcpy(map.init_data, s->data, s->size);
	}
	map.name = strdup(s->name);
	if (!map.name) {
		free(map.init_data);
		return loader_nomem(ld);
	}
	ret = loader_add_map(ld, &map);
	if (ret) {
		free(map.name);
		free(map.init_data);
		return ret;
	}
	s->map = (int)(ld->obj->map_cnt - 1);
	return 0;
}

/* Each non-empty global data section becomes a one-element array map. */
int loader_read_data_maps(struct loader *ld)
{
	size_t i;
	int ret;

	for (i = 1; i < ld->shnum; i++) {
		struct loader_sec *s = &ld->secs[i];

		if (!sec_is_data(s) || s->size == 0)
			continue;
		ret = add_data_map(ld, s);
		if (ret)
			return ret;
	}
	return 0;
}

/* Fill var's const volatile, integer and signedness flags from its type. */
static void classify_var_type(const struct btf *btf, struct object_var *var)
{
	const struct btf_type *t = btf__type_by_id(btf, var->btf_type_id);
	bool is_const = false, is_volatile = false;
	int depth;

	for (depth = 0; t && depth < BTF_WALK_MAX; depth++) {
		if (btf_is_const(t))
			is_const = true;
		else if (btf_is_volatile(t))
			is_volatile = true;
		else if (!btf_is_mod(t) && !btf_is_typedef(t))
			break;
		t = btf__type_by_id(btf, t->type);
	}
	var->is_const_volatile = is_const && is_volatile;
	if (!t)
		return;
	if (btf_is_int(t)) {
		var->is_integer = true;
		var->is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
	} else if (btf_is_any_enum(t)) {
		var->is_integer = true;
		var->is_signed = btf_kflag(t);
	}
}

int loader_read_vars(struct loader *ld)
{
	struct object *obj = ld->obj;
	const struct btf *btf = obj->btf;
	uint32_t mi;

	if (!btf)
		return 0;
	for (mi = 0; mi < obj->map_cnt; mi++) {
		const struct object_map *m = &obj->maps[mi];
		const struct btf_type *sec;
		const struct btf_var_secinfo *vsi;
		struct object_var *vars;
		size_t i, n;

		if (m->kind == OBJECT_MAP_BTF || !m->btf_value_type_id)
			continue;
		sec = btf__type_by_id(btf, m->btf_value_type_id);
		vsi = btf_var_secinfos(sec);
		n = btf_vlen(sec);
		vars = realloc(obj->vars, (obj->var_cnt + n + 1) * sizeof(*vars));
		if (!vars)
			return loader_nomem(ld);
		obj->vars = vars;
		for (i = 0; i < n; i++) {
			const struct btf_type *v = btf__type_by_id(btf, vsi[i].type);
			struct object_var *var = &obj->vars[obj->var_cnt];

			/* fix_datasec checked kind, name and bounds. */
			memset(var, 0, sizeof(*var));
			var->name = strdup(btf__name_by_offset(btf, v->name_off));
			if (!var->name)
				return loader_nomem(ld);
			obj->var_cnt++;
			var->map = mi;
			var->offset = vsi[i].offset;
			var->size = vsi[i].size;
			/* Two sections of one name: the DATASEC was checked against
			 * the first, the map may come from the other. */
			if ((uint64_t)var->offset + var->size > m->value_size)
				return loader_fail(ld, EINVAL,
						   "variable '%s' lies outside section '%s'; the "
						   "object is corrupt",
						   var->name, m->name);
			var->btf_type_id = v->type;
			classify_var_type(btf, var);
		}
	}
	return 0;
}

/* "true" and "false", the values a bool takes besides 1 and 0. */
static bool parse_bool_word(const char *s, struct number *n)
{
	if (strcmp(s, "true") && strcmp(s, "false"))
		return false;
	*n = (struct number){ .mag = s[0] == 't' };
	return true;
}

/* The value of enumerator name in the enum under var's type, if any. */
static bool enum_value_by_name(const struct btf *btf, const struct object_var *var,
			       const char *name, struct number *n)
{
	const struct btf_type *t = object_btf_skip_mods(btf, var->btf_type_id, NULL);
	uint16_t i;

	if (!t || !btf_is_any_enum(t))
		return false;
	for (i = 0; i < btf_vlen(t); i++) {
		const char *en;
		int64_t v;

		if (btf_is_enum(t)) {
			en = btf__name_by_offset(btf, btf_enum(t)[i].name_off);
			v = btf_enum(t)[i].val;
		} else {
			en = btf__name_by_offset(btf, btf_enum64(t)[i].name_off);
			v = (int64_t)btf_enum64_value(&btf_enum64(t)[i]);
		}
		if (en && !strcmp(en, name)) {
			n->neg = v < 0;
			n->mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
			n->hex = false;
			return true;
		}
	}
	return false;
}

static struct object_var *find_var(struct object *obj, const char *name)
{
	uint32_t i;

	for (i = 0; i < obj->var_cnt; i++)
		if (!strcmp(obj->vars[i].name, name))
			return &obj->vars[i];
	return NULL;
}

/*
 * Whether n fits var. Enums from clang before 15 carry no signedness, so an
 * unsigned enum also takes the negative half of the signed range; a bool
 * takes 0 and 1 (and "-0").
 */
static bool var_fits(const struct object_var *var, bool is_bool, bool is_enum,
		     const struct number *n)
{
	unsigned int bits = var->size * 8;

	if (is_bool && !n->neg)
		return n->mag <= 1;
	if (number_fits(n, bits, var->is_signed))
		return true;
	return is_enum && n->neg && number_fits(n, bits, true);
}

/* Store n's low var->size bytes at the variable, allocating .bss bytes. */
static int write_var(struct object *obj, const struct object_var *var, const struct number *n,
		     struct secbpf_err *err)
{
	struct object_map *map = &obj->maps[var->map];
	uint64_t raw = number_bits(n);
	uint32_t i;

	if (!map->init_data) {
		map->init_data = calloc(1, map->value_size);
		if (!map->init_data)
			return err_set(err, ENOMEM, "%s: out of memory", obj->path);
	}
	/* The target is little endian; write byte by byte to be host-neutral. */
	for (i = 0; i < var->size; i++)
		map->init_data[var->offset + i] = (uint8_t)(raw >> (8 * i));
	return 0;
}

int object_set_var(struct object *obj, const char *name, const char *value, struct secbpf_err *err)
{
	const struct btf_type *t;
	const struct object_map *map;
	struct object_var *var;
	struct number n;
	bool is_bool, is_enum, parsed;

	if (!obj || !name || !value)
		return err_set(err, EINVAL, "object_set_var: missing argument");
	var = find_var(obj, name);
	if (!var)
		return err_set(err, ENOENT, "%s: no global variable '%s'", obj->path, name);
	t = obj->btf ? object_btf_skip_mods(obj->btf, var->btf_type_id, NULL) : NULL;
	if (!var->is_integer || !t)
		return err_set(err, EINVAL,
			       "%s: variable '%s' is not an integer, bool or enum; --set only "
			       "writes those",
			       obj->path, name);
	if (var->size != 1 && var->size != 2 && var->size != 4 && var->size != 8)
		return err_set(
			err, EINVAL,
			"%s: variable '%s' is %u bytes; --set writes 1, 2, 4 or 8 byte integers",
			obj->path, name, var->size);
	map = &obj->maps[var->map];
	if (var->offset > map->value_size || var->size > map->value_size - var->offset)
		return err_set(err, EINVAL, "%s: variable '%s' lies outside its section", obj->path,
			       name);
	is_bool = btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_BOOL);
	is_enum = btf_is_any_enum(t);
	/* true and false are accepted for any integer, as before. */
	parsed = number_parse(value, 0, &n) == 0 || parse_bool_word(value, &n) ||
		 (is_enum && enum_value_by_name(obj->btf, var, value, &n));
	if (!parsed)
		return err_set(err, EINVAL,
			       "%s: '%s' is not a valid value for '%s'; give a decimal or 0x hex "
			       "integer%s",
			       obj->path, value, name,
			       is_bool	 ? ", true or false"
			       : is_enum ? " or an enumerator name"
					 : "");
	if (!var_fits(var, is_bool, is_enum, &n))
		return err_set(err, EINVAL,
			       "%s: %s does not fit '%s' (%s%u-bit%s); use a value in range",
			       obj->path, value, name,
			       is_bool		? "bool, "
			       : var->is_signed ? "signed "
						: "unsigned ",
			       var->size * 8, is_bool ? ": 0 or 1" : "");
	return write_var(obj, var, &n, err);
}

uint32_t object_btf_integer(const struct object *obj, uint32_t type_id, bool *is_signed)
{
	const struct btf_type *t;
	uint32_t id;

	if (!obj->btf || !type_id)
		return 0;
	t = object_btf_skip_mods(obj->btf, type_id, &id);
	if (!t)
		return 0;
	if (btf_is_int(t) && !(btf_int_encoding(t) & BTF_INT_BOOL) && btf_int_offset(t) == 0 &&
	    btf_int_bits(t) == t->size * 8 && t->size <= 8) {
		*is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		return t->size;
	}
	if (btf_is_any_enum(t) && t->size <= 8) {
		*is_signed = btf_kflag(t);
		return t->size;
	}
	return 0;
}

/*
 * What may hold a pointer into the map, forward over the instructions: on
 * entry to each, the registers (bit i: ri, REACHED: the instruction runs);
 * for the whole program, whether any memory may hold one (then every
 * 8-byte load may give one) and whether a function may return one.
 */
#define TAINT_REACHED 0x8000u
#define TAINT_ARGS 0x3eu /* r1-r5 */

struct global_taint {
	uint16_t *in;
	uint32_t n;
	bool memory, ret, written, changed;
};

static void taint_flow(struct global_taint *t, uint32_t pc, uint16_t regs)
{
	regs |= TAINT_REACHED;
	if (pc >= t->n || (t->in[pc] | regs) == t->in[pc])
		return;
	t->in[pc] |= regs;
	t->changed = true;
}

/* The registers after a call: a subprogram's r0 when one may return a
 * pointer, r6-r9 kept, r1-r5 gone. */
static uint16_t taint_after_call(const struct global_taint *t, uint16_t regs, bool subprog)
{
	regs &= (uint16_t) ~(TAINT_ARGS | 1u);
	if (subprog && t->ret)
		regs |= 1u;
	return regs;
}

/* One pass over prog: every reached instruction passes its registers on. */
static void global_taint_pass(const struct object_prog *prog, uint32_t map, struct global_taint *t)
{
	uint32_t i;

	for (i = 0; i < prog->insn_cnt && !t->written; i++) {
		const struct bpf_insn *in = &prog->insns[i];
		uint16_t regs = t->in[i], dst = (uint16_t)(1u << (in->dst_reg & 15)),
			 src = (uint16_t)(1u << (in->src_reg & 15));
		bool wide = in->code == (BPF_LD | BPF_IMM | BPF_DW);

		if (!(regs & TAINT_REACHED))
			continue;
		switch (BPF_CLASS(in->code)) {
		case BPF_LD:
			if (!wide)
				break;
			regs &= (uint16_t)~dst;
			if (in->src_reg == BPF_PSEUDO_MAP_VALUE && (uint32_t)in->imm == map)
				regs |= dst;
			else if (in->src_reg && in->src_reg != BPF_PSEUDO_FUNC &&
				 (uint32_t)in->imm == map)
				t->written = true; /* the map itself, for a helper */
			break;
		case BPF_ALU:
		case BPF_ALU64:
			if (BPF_SRC(in->code) == BPF_X && (regs & src))
				regs |= dst;
			else if (BPF_OP(in->code) == BPF_MOV)
				regs &= (uint16_t)~dst;
			break;
		case BPF_LDX:
			if (t->memory && BPF_SIZE(in->code) == BPF_DW)
				regs |= dst;
			else
				regs &= (uint16_t)~dst;
			break;
		case BPF_ST:
		case BPF_STX:
			if (regs & dst)
				t->written = true;
			if (BPF_CLASS(in->code) == BPF_STX && (regs & src))
				t->memory = true;
			break;
		case BPF_JMP:
		case BPF_JMP32:
			switch (BPF_OP(in->code)) {
			case BPF_EXIT:
				if (regs & 1u)
					t->ret = true;
				continue;
			case BPF_CALL:
				if (in->src_reg == BPF_PSEUDO_CALL) {
					taint_flow(t, i + 1 + in->imm, regs);
					regs = taint_after_call(t, regs, true);
					break;
				}
				/* A helper or kfunc given a pointer may write
				 * through it. */
				if (regs & TAINT_ARGS)
					t->written = true;
				regs = taint_after_call(t, regs, false);
				break;
			case BPF_JA:
				taint_flow(t,
					   i + 1 +
						   (BPF_CLASS(in->code) == BPF_JMP32 ? in->imm
										     : in->off),
					   regs);
				continue;
			default:
				taint_flow(t, i + 1 + in->off, regs);
				break;
			}
			break;
		}
		taint_flow(t, i + (wide ? 2 : 1), regs);
	}
}

bool object_global_read_only(const struct object *obj, uint32_t map)
{
	uint32_t p;
	bool written = false;

	if (!obj || map >= obj->map_cnt ||
	    (obj->maps[map].kind != OBJECT_MAP_DATA && obj->maps[map].kind != OBJECT_MAP_BSS))
		return false;
	for (p = 0; p < obj->prog_cnt && !written; p++) {
		const struct object_prog *prog = &obj->progs[p];
		uint32_t i;
		struct global_taint t = { .n = prog->insn_cnt };

		t.in = calloc(prog->insn_cnt + 1, sizeof(*t.in));
		if (!t.in)
			return false; /* unproven: the supervisor's */
		/* Every instruction is taken as reached, with what flows into
		 * it added: callbacks (which only a helper calls) and code the
		 * pass would not reach are looked at too. */
		for (i = 0; i < prog->insn_cnt; i++)
			t.in[i] = TAINT_REACHED;
		t.changed = true;
		/* Taint only grows (registers per instruction, two flags):
		 * a fixpoint after finitely many passes. */
		while (t.changed && !t.written) {
			bool memory = t.memory, ret = t.ret;

			t.changed = false;
			global_taint_pass(prog, map, &t);
			t.changed |= t.memory != memory || t.ret != ret;
		}
		written = t.written;
		free(t.in);
	}
	return !written;
}
