// SPDX-License-Identifier: MIT
/*
 * Global data: each non-empty .data, .rodata or .bss section becomes a
 * one-element array map, its BTF variables become struct object_var, and
 * --set VAR=VALUE writes an integer into a variable's initial bytes.
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
