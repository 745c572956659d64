// SPDX-License-Identifier: MIT
/*
 * Maps declared in SEC(".maps"): each is a struct of __uint()/__type()
 * attributes described only by BTF; this reads them into struct object_map
 * and refuses the map types and attributes secbpf does not support.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "object/object_internal.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const map_type_names[] = {
	[BPF_MAP_TYPE_UNSPEC] = "unspec",
	[BPF_MAP_TYPE_HASH] = "hash",
	[BPF_MAP_TYPE_ARRAY] = "array",
	[BPF_MAP_TYPE_PROG_ARRAY] = "prog_array",
	[BPF_MAP_TYPE_PERF_EVENT_ARRAY] = "perf_event_array",
	[BPF_MAP_TYPE_PERCPU_HASH] = "percpu_hash",
	[BPF_MAP_TYPE_PERCPU_ARRAY] = "percpu_array",
	[BPF_MAP_TYPE_STACK_TRACE] = "stack_trace",
	[BPF_MAP_TYPE_CGROUP_ARRAY] = "cgroup_array",
	[BPF_MAP_TYPE_LRU_HASH] = "lru_hash",
	[BPF_MAP_TYPE_LRU_PERCPU_HASH] = "lru_percpu_hash",
	[BPF_MAP_TYPE_LPM_TRIE] = "lpm_trie",
	[BPF_MAP_TYPE_ARRAY_OF_MAPS] = "array_of_maps",
	[BPF_MAP_TYPE_HASH_OF_MAPS] = "hash_of_maps",
	[BPF_MAP_TYPE_DEVMAP] = "devmap",
	[BPF_MAP_TYPE_SOCKMAP] = "sockmap",
	[BPF_MAP_TYPE_CPUMAP] = "cpumap",
	[BPF_MAP_TYPE_XSKMAP] = "xskmap",
	[BPF_MAP_TYPE_SOCKHASH] = "sockhash",
	[BPF_MAP_TYPE_CGROUP_STORAGE] = "cgroup_storage",
	[BPF_MAP_TYPE_REUSEPORT_SOCKARRAY] = "reuseport_sockarray",
	[BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE] = "percpu_cgroup_storage",
	[BPF_MAP_TYPE_QUEUE] = "queue",
	[BPF_MAP_TYPE_STACK] = "stack",
	[BPF_MAP_TYPE_SK_STORAGE] = "sk_storage",
	[BPF_MAP_TYPE_DEVMAP_HASH] = "devmap_hash",
	[BPF_MAP_TYPE_STRUCT_OPS] = "struct_ops",
	[BPF_MAP_TYPE_RINGBUF] = "ringbuf",
	[BPF_MAP_TYPE_INODE_STORAGE] = "inode_storage",
	[BPF_MAP_TYPE_TASK_STORAGE] = "task_storage",
	[BPF_MAP_TYPE_BLOOM_FILTER] = "bloom_filter",
};

/*
 * The map types a seccomp filter may declare: those of the helpers docs/design.md
 * lists for the unprivileged tier. The others need kernel objects (sockets,
 * cgroups, perf events) that have no meaning for a user-space filter.
 */
static const uint32_t map_types_supported[] = {
	BPF_MAP_TYPE_HASH,
	BPF_MAP_TYPE_ARRAY,
	BPF_MAP_TYPE_PROG_ARRAY,
	BPF_MAP_TYPE_PERCPU_HASH,
	BPF_MAP_TYPE_PERCPU_ARRAY,
	BPF_MAP_TYPE_LRU_HASH,
	BPF_MAP_TYPE_LRU_PERCPU_HASH,
	BPF_MAP_TYPE_QUEUE,
	BPF_MAP_TYPE_STACK,
	BPF_MAP_TYPE_RINGBUF,
	BPF_MAP_TYPE_TASK_STORAGE,
};

static const char *map_type_name(uint32_t type)
{
	if (type < ARRAY_LEN(map_type_names) && map_type_names[type])
		return map_type_names[type];
	return NULL;
}

static bool map_type_supported(uint32_t type)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(map_types_supported); i++)
		if (map_types_supported[i] == type)
			return true;
	return false;
}

/* An integer attribute: __uint(name, N) is `int (*name)[N]`. */
static int map_attr_int(struct loader *ld, const char *map, const char *attr, uint32_t type_id,
			uint32_t *val)
{
	const struct btf *btf = ld->obj->btf;
	const struct btf_type *t = object_btf_skip_mods(btf, type_id, NULL);
	const struct btf_type *arr;

	if (!t || !btf_is_ptr(t))
		goto bad;
	arr = btf__type_by_id(btf, t->type);
	if (!arr || !btf_is_array(arr))
		goto bad;
	*val = btf_array(arr)->nelems;
	return 0;
bad:
	return loader_fail(
		ld, EINVAL,
		"map '%s': attribute '%s' is not an integer; declare it with __uint(%s, VALUE)",
		map, attr, attr);
}

/* A type attribute: __type(name, T) is `T *name`; sets the type and size. */
static int map_attr_type(struct loader *ld, const char *map, const char *attr, uint32_t type_id,
			 uint32_t *id, uint32_t *size)
{
	const struct btf *btf = ld->obj->btf;
	const struct btf_type *t = object_btf_skip_mods(btf, type_id, NULL);
	long long sz;

	if (!t || !btf_is_ptr(t))
		return loader_fail(
			ld, EINVAL,
			"map '%s': attribute '%s' is not a type; declare it with __type(%s, TYPE)",
			map, attr, attr);
	sz = btf__resolve_size(btf, t->type);
	if (sz <= 0 || sz > UINT32_MAX)
		return loader_fail(
			ld, EINVAL,
			"map '%s': the %s type has no usable size; use a complete type of "
			"at least one byte",
			map, attr);
	*id = t->type;
	*size = (uint32_t)sz;
	return 0;
}

/* What a map definition said besides what struct object_map holds. */
struct map_def_sizes {
	uint32_t key_size, value_size; /* __uint(key_size/value_size, N) */
	bool has_type, has_key_size, has_value_size;
};

/* Attribute attr (of BTF type type_id) of map name into map and sizes. */
static int read_map_attr(struct loader *ld, const char *name, const char *attr, uint32_t type_id,
			 struct object_map *map, struct map_def_sizes *sizes)
{
	uint32_t val = 0;
	int ret;

	if (!strcmp(attr, "type")) {
		sizes->has_type = true;
		return map_attr_int(ld, name, attr, type_id, &map->type);
	}
	if (!strcmp(attr, "max_entries"))
		return map_attr_int(ld, name, attr, type_id, &map->max_entries);
	if (!strcmp(attr, "map_flags"))
		return map_attr_int(ld, name, attr, type_id, &map->map_flags);
	if (!strcmp(attr, "key_size")) {
		sizes->has_key_size = true;
		return map_attr_int(ld, name, attr, type_id, &sizes->key_size);
	}
	if (!strcmp(attr, "value_size")) {
		sizes->has_value_size = true;
		return map_attr_int(ld, name, attr, type_id, &sizes->value_size);
	}
	if (!strcmp(attr, "key"))
		return map_attr_type(ld, name, attr, type_id, &map->btf_key_type_id,
				     &map->key_size);
	if (!strcmp(attr, "value"))
		return map_attr_type(ld, name, attr, type_id, &map->btf_value_type_id,
				     &map->value_size);
	if (!strcmp(attr, "numa_node")) /* A placement hint; one process has nothing to place. */
		return map_attr_int(ld, name, attr, type_id, &val);
	if (!strcmp(attr, "pinning") || !strcmp(attr, "map_extra")) {
		ret = map_attr_int(ld, name, attr, type_id, &val);
		if (!ret && val)
			return loader_fail(ld, ENOTSUP,
					   "map '%s': '%s' is not supported by secbpf; remove the "
					   "attribute",
					   name, attr);
		return ret;
	}
	if (!strcmp(attr, "values"))
		return loader_fail(ld, ENOTSUP,
				   "map '%s': initial 'values' and inner maps (map-in-map, prog "
				   "array init) are not supported by secbpf; fill the map from the "
				   "program instead",
				   name);
	return loader_fail(ld, ENOTSUP,
			   "map '%s': unknown attribute '%s'; use type, key, value, key_size, "
			   "value_size, max_entries or map_flags",
			   name, attr);
}

/* The definition read: a supported type, and sizes that agree with the types. */
static int check_map_def(struct loader *ld, const char *name, struct object_map *map,
			 const struct map_def_sizes *sizes)
{
	if (!sizes->has_type)
		return loader_fail(ld, EINVAL,
				   "map '%s' has no type; add __uint(type, BPF_MAP_TYPE_...)",
				   name);
	if (!map_type_supported(map->type)) {
		const char *tn = map_type_name(map->type);

		if (tn)
			return loader_fail(
				ld, ENOTSUP,
				"map '%s': type %s (%u) is not supported by secbpf; use hash, "
				"array, percpu_hash, percpu_array, lru_hash, lru_percpu_hash, "
				"queue, stack, ringbuf, task_storage or prog_array",
				name, tn, map->type);
		return loader_fail(ld, ENOTSUP,
				   "map '%s': unknown map type %u; use a BPF_MAP_TYPE_* constant "
				   "such as BPF_MAP_TYPE_HASH",
				   name, map->type);
	}
	if (sizes->has_key_size && map->btf_key_type_id && sizes->key_size != map->key_size)
		return loader_fail(ld, EINVAL,
				   "map '%s': key_size %u contradicts the key type (%u bytes); "
				   "drop key_size",
				   name, sizes->key_size, map->key_size);
	if (sizes->has_value_size && map->btf_value_type_id && sizes->value_size != map->value_size)
		return loader_fail(ld, EINVAL,
				   "map '%s': value_size %u contradicts the value type (%u bytes); "
				   "drop value_size",
				   name, sizes->value_size, map->value_size);
	if (sizes->has_key_size)
		map->key_size = sizes->key_size;
	if (sizes->has_value_size)
		map->value_size = sizes->value_size;
	return 0;
}

/* One BTF-defined map: var is the VAR in the .maps DATASEC. */
static int read_btf_map(struct loader *ld, const struct btf_type *var,
			const struct btf_var_secinfo *vsi)
{
	const struct btf *btf = ld->obj->btf;
	const char *name = btf__name_by_offset(btf, var->name_off);
	const struct btf_type *def = object_btf_skip_mods(btf, var->type, NULL);
	struct object_map map = { .kind = OBJECT_MAP_BTF };
	struct map_def_sizes sizes = { 0 };
	const struct btf_member *m;
	size_t i;
	int ret;

	if (!name || !name[0])
		return loader_fail(ld, EINVAL, "a map in .maps has no name; the BTF is corrupt");
	if (!def || !btf_is_struct(def))
		return loader_fail(ld, EINVAL,
				   "map '%s' in .maps is not a struct; declare it as struct { "
				   "__uint(type, ...); ... } %s SEC(\".maps\")",
				   name, name);
	m = btf_members(def);
	for (i = 0; i < btf_vlen(def); i++, m++) {
		const char *attr = btf__name_by_offset(btf, m->name_off);

		if (!attr || !attr[0])
			return loader_fail(
				ld, EINVAL,
				"map '%s' has an unnamed attribute; use __uint()/__type() "
				"from bpf_helpers.h",
				name);
		ret = read_map_attr(ld, name, attr, m->type, &map, &sizes);
		if (ret)
			return ret;
	}
	ret = check_map_def(ld, name, &map, &sizes);
	if (ret)
		return ret;
	map.name = strdup(name);
	if (!map.name)
		return loader_nomem(ld);
	ret = loader_add_map(ld, &map);
	if (ret) {
		free(map.name);
		return ret;
	}
	ld->map_off[ld->obj->map_cnt - 1] = vsi->offset;
	return 0;
}

int loader_read_btf_maps(struct loader *ld)
{
	const struct btf *btf = ld->obj->btf;
	const struct btf_type *sec;
	const struct btf_var_secinfo *vsi;
	int id;
	size_t i;

	if (!ld->maps)
		return 0;
	if (!btf)
		return loader_fail(
			ld, EINVAL,
			"section .maps needs BTF to describe its maps; compile with clang -g");
	id = btf__find_by_name_kind(btf, ".maps", BTF_KIND_DATASEC);
	if (id <= 0) {
		if (ld->secs[ld->maps].size == 0)
			return 0;
		return loader_fail(ld, EINVAL,
				   "section .maps has no BTF description; compile with clang -g");
	}
	sec = btf__type_by_id(btf, (uint32_t)id);
	vsi = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++) {
		const struct btf_type *var = btf__type_by_id(btf, vsi[i].type);
		int ret;

		if (!var || !btf_is_var(var))
			return loader_fail(
				ld, EINVAL,
				"BTF .maps entry %zu is not a variable; the BTF is corrupt", i);
		ret = read_btf_map(ld, var, &vsi[i]);
		if (ret)
			return ret;
	}
	return 0;
}
