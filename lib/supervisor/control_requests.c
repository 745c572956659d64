// SPDX-License-Identifier: MIT
/*
 * What the control socket answers (docs/introspection.md): the
 * supervisor's description for `secbpf ps` and a live map for `secbpf map
 * dump`, as JSON (json-c). Maps are read as bpf() reads them from user
 * space, while the workers keep running: each value is one consistent
 * copy, the map as a whole a snapshot taken entry by entry.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/supervisor_internal.h"
#include "vm/maps.h"

static const char *map_type_name(uint32_t type)
{
	switch (type) {
	case BPF_MAP_TYPE_HASH:
		return "hash";
	case BPF_MAP_TYPE_ARRAY:
		return "array";
	case BPF_MAP_TYPE_PROG_ARRAY:
		return "prog_array";
	case BPF_MAP_TYPE_PERCPU_HASH:
		return "percpu_hash";
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return "percpu_array";
	case BPF_MAP_TYPE_LRU_HASH:
		return "lru_hash";
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return "lru_percpu_hash";
	case BPF_MAP_TYPE_QUEUE:
		return "queue";
	case BPF_MAP_TYPE_STACK:
		return "stack";
	case BPF_MAP_TYPE_RINGBUF:
		return "ringbuf";
	case BPF_MAP_TYPE_TASK_STORAGE:
		return "task_storage";
	default:
		return "unknown";
	}
}

/* Hand a JSON document over as a malloc'ed string. */
static int json_out(struct json_object *doc, char **out, char *msg, size_t n)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
								    JSON_C_TO_STRING_NOSLASHESCAPE);

	*out = s ? strdup(s) : NULL;
	json_object_put(doc);
	if (!*out) {
		snprintf(msg, n, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static struct json_object *program_info(const struct supervisor_prog *p)
{
	struct json_object *o = json_object_new_object(), *maps = json_object_new_array();
	uint32_t i;

	json_object_object_add(o, "name", json_object_new_string(p->name ? p->name : "?"));
	if (p->prog)
		json_object_object_add(o, "function", json_object_new_string(p->prog->name));
	json_object_object_add(o, "stateful", json_object_new_boolean(p->rt != NULL));
	for (i = 0; p->rt && p->obj && i < p->obj->map_cnt; i++)
		json_object_array_add(maps, json_object_new_string(p->obj->maps[i].name));
	json_object_object_add(o, "maps", maps);
	return o;
}

int supervisor_control_info(struct supervisor *sv, char **json, char *msg, size_t n)
{
	struct json_object *doc = json_object_new_object(), *progs = json_object_new_array();
	unsigned long notifications = 0;
	size_t i;

	for (i = 0; i < sv->nworkers; i++)
		notifications += __atomic_load_n(&sv->workers[i].notifications, __ATOMIC_RELAXED);
	json_object_object_add(doc, "pid", json_object_new_int(getpid()));
	json_object_object_add(doc, "supervisor", json_object_new_string(sv->control.kind));
	json_object_object_add(doc, "socket", json_object_new_string(sv->control.name));
	json_object_object_add(doc, "target", json_object_new_int(sv->control.target_pid));
	json_object_object_add(doc, "owner", json_object_new_int64(sv->control.owner));
	json_object_object_add(doc, "started",
			       json_object_new_int64((int64_t)sv->control.started_at));
	json_object_object_add(doc, "workers", json_object_new_int((int)sv->nworkers));
	json_object_object_add(doc, "notifications", json_object_new_uint64(notifications));
	json_object_object_add(
		doc, "failures",
		json_object_new_uint64(__atomic_load_n(&sv->failures, __ATOMIC_RELAXED)));
	for (i = 0; i < sv->nprogs; i++)
		json_object_array_add(progs, program_info(&sv->progs[i]));
	json_object_object_add(doc, "programs", progs);
	return json_out(doc, json, msg, n);
}

/* "prog:map, ..." for an error that lists what there is. */
static void list_maps(const struct supervisor *sv, char *buf, size_t n)
{
	size_t i, used = 0;
	uint32_t j;

	buf[0] = '\0';
	for (i = 0; i < sv->nprogs; i++) {
		const struct supervisor_prog *p = &sv->progs[i];

		for (j = 0; p->rt && p->obj && j < p->obj->map_cnt && used < n; j++)
			used += (size_t)snprintf(buf + used, n - used, "%s%s:%s", used ? ", " : "",
						 p->prog ? p->prog->name : p->name,
						 p->obj->maps[j].name);
	}
	if (!buf[0])
		snprintf(buf, n, "none: no program of this stack keeps state");
}

static bool prog_matches(const struct supervisor_prog *p, const char *prog)
{
	return !prog[0] || (p->name && !strcmp(p->name, prog)) ||
	       (p->prog && !strcmp(p->prog->name, prog));
}

static struct json_object *hex_string(const uint8_t *p, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *s = malloc(2 * len + 1);
	struct json_object *o;
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < len; i++) {
		s[2 * i] = digits[p[i] >> 4];
		s[2 * i + 1] = digits[p[i] & 15];
	}
	s[2 * len] = '\0';
	o = json_object_new_string(s);
	free(s);
	return o;
}

/* The BTF description of a key or value: {"size": N, "signed": B}, or
 * null when it is not an integer. */
static struct json_object *int_type(const struct object *obj, uint32_t type_id)
{
	struct json_object *o;
	bool is_signed = false;
	uint32_t size = object_btf_integer(obj, type_id, &is_signed);

	if (!size)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "size", json_object_new_int((int)size));
	json_object_object_add(o, "signed", json_object_new_boolean(is_signed));
	return o;
}

/* Every entry of map, as {"key": HEX, "value": HEX} (per-CPU values: all
 * slots, each padded to 8 bytes, as bpf() gives them). */
static int dump_entries(struct map *map, struct json_object *entries, char *msg, size_t n)
{
	size_t ksz = map_key_size(map), vsz = map_user_value_size(map);
	uint8_t *key = calloc(1, ksz + 1), *next = calloc(1, ksz + 1), *value = calloc(1, vsz + 1);
	uint32_t count = 0, max = map_max_entries(map);
	bool first = true;
	int rc = 0;

	if (!key || !next || !value) {
		snprintf(msg, n, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	/* Bounded: a hash that keeps changing under us still ends. */
	while (count <= max) {
		struct json_object *e;

		rc = map_get_next_key(map, first ? NULL : key, next);
		if (rc == -ENOENT) {
			rc = 0;
			break;
		}
		if (rc) {
			snprintf(msg, n, "cannot iterate the map: %s", strerror(-rc));
			break;
		}
		first = false;
		memcpy(key, next, ksz);
		if (map_lookup_user(map, key, value))
			continue; /* deleted meanwhile */
		e = json_object_new_object();
		json_object_object_add(e, "key", hex_string(key, ksz));
		json_object_object_add(e, "value", hex_string(value, vsz));
		json_object_array_add(entries, e);
		count++;
	}
out:
	free(key);
	free(next);
	free(value);
	return rc;
}

int supervisor_control_map_dump(struct supervisor *sv, const char *prog, const char *name,
				char **json, char *msg, size_t n)
{
	const struct supervisor_prog *p = NULL;
	const struct object_map *spec = NULL;
	struct json_object *doc, *entries;
	struct map *map = NULL;
	char maps[SECBPF_ERR_MAX - 128];
	size_t i;
	uint32_t j;
	int rc;

	for (i = 0; i < sv->nprogs && !map; i++) {
		p = &sv->progs[i];
		if (!p->rt || !p->obj || !prog_matches(p, prog))
			continue;
		for (j = 0; j < p->obj->map_cnt; j++)
			if (!strcmp(p->obj->maps[j].name, name)) {
				spec = &p->obj->maps[j];
				map = runtime_map(p->rt, name);
				break;
			}
	}
	if (!map) {
		list_maps(sv, maps, sizeof(maps));
		snprintf(msg, n, "no map '%s'%s%s; the maps are: %s", name, prog[0] ? " in " : "",
			 prog, maps);
		return -ENOENT;
	}
	if (map_type(map) == BPF_MAP_TYPE_RINGBUF || map_type(map) == BPF_MAP_TYPE_QUEUE ||
	    map_type(map) == BPF_MAP_TYPE_STACK) {
		snprintf(msg, n, "map '%s' is a %s: it has no keys to dump", name,
			 map_type_name(map_type(map)));
		return -EOPNOTSUPP;
	}
	doc = json_object_new_object();
	entries = json_object_new_array();
	json_object_object_add(doc, "program",
			       json_object_new_string(p->prog ? p->prog->name : p->name));
	json_object_object_add(doc, "map", json_object_new_string(name));
	json_object_object_add(doc, "type", json_object_new_string(map_type_name(spec->type)));
	json_object_object_add(doc, "key_size", json_object_new_int((int)spec->key_size));
	json_object_object_add(doc, "value_size", json_object_new_int((int)spec->value_size));
	json_object_object_add(doc, "max_entries", json_object_new_int64(spec->max_entries));
	json_object_object_add(
		doc, "ncpus",
		json_object_new_int(object_map_percpu(spec) ? (int)map_ncpus(map) : 0));
	json_object_object_add(doc, "key_type", int_type(p->obj, spec->btf_key_type_id));
	json_object_object_add(doc, "value_type", int_type(p->obj, spec->btf_value_type_id));
	rc = dump_entries(map, entries, msg, n);
	json_object_object_add(doc, "entries", entries);
	if (rc) {
		json_object_put(doc);
		return rc;
	}
	return json_out(doc, json, msg, n);
}
