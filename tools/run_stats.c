// SPDX-License-Identifier: MIT
/*
 * What `secbpf run` shows of the stateful programs: --stats, their globals
 * and map entries once every filtered process is gone, and --events, the
 * records they submit to ring buffers, as they come.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Internal headers: vm/maps.h and vm/runtime.h, to read the maps of the
 * runtimes the supervisor ran (the API keeps no state between runs), and
 * vm/events.h (through run.h) for the ring buffer reader. */
#include "run.h"
#include "vm/maps.h"
#include "vm/runtime.h"

/*
 * --stats: what the stateful programs kept, once every filtered process is
 * gone (the workers have stopped, so the maps no longer change). One line
 * per global variable ("SPEC VAR = VALUE") and per map entry ("SPEC MAP
 * KEY = VALUE"); integers of 1, 2, 4 or 8 bytes in decimal, anything else
 * in hex, per-CPU values one per worker slot.
 */
static void stats_map(FILE *f, const char *spec, const char *name, struct map *m, bool syscall_keys)
{
	char note[64] = "";
	size_t ksz = map_key_size(m), vsz = map_value_size(m), usz = map_user_value_size(m);
	bool percpu = usz != vsz;
	uint8_t *key, *next, *val;
	void *prev = NULL;

	key = calloc(1, ksz ? ksz : 1);
	next = calloc(1, ksz ? ksz : 1);
	val = calloc(1, usz ? usz : 1);
	if (!key || !next || !val)
		goto out;
	while (map_get_next_key(m, prev, next) == 0) {
		memcpy(key, next, ksz);
		prev = key;
		if (map_lookup_user(m, key, val))
			continue;
		if (syscall_keys)
			cli_stats_syscall_name(key, note, sizeof(note));
		cli_stats_entry(f, spec, name, key, ksz, val, vsz, (vsz + 7) / 8 * 8,
				percpu ? map_ncpus(m) : 1, note);
	}
out:
	free(key);
	free(next);
	free(val);
}

void run_stats(const struct run_state *s, const char **specs, const char *path)
{
	const struct object *obj;
	FILE *f = cli_stats_open(path);
	struct map *m;
	void *value;
	uint32_t j;
	int i;

	if (!f)
		return;
	for (i = 0; i < s->ntargets; i++) {
		if (!s->plan.runtimes[i])
			continue;
		obj = s->targets[i].obj;
		for (j = 0; j < obj->var_cnt; j++) {
			const struct object_var *v = &obj->vars[j];
			const struct object_map *om = &obj->maps[v->map];

			if (v->is_const_volatile || om->kind == OBJECT_MAP_RODATA)
				continue;
			m = runtime_map(s->plan.runtimes[i], om->name);
			if (!m || map_direct_value(m, &value) ||
			    v->offset + v->size > om->value_size)
				continue;
			cli_stats_var(f, specs[i], v->name, (const uint8_t *)value + v->offset,
				      v->size);
		}
		for (j = 0; j < obj->map_cnt; j++) {
			if (obj->maps[j].kind != OBJECT_MAP_BTF ||
			    !cli_stats_iterable(obj->maps[j].type, true))
				continue;
			m = runtime_map(s->plan.runtimes[i], obj->maps[j].name);
			if (m)
				stats_map(f, specs[i], obj->maps[j].name, m,
					  cli_stats_syscall_keys(obj, &obj->maps[j]));
		}
	}
	cli_stats_close(f, path);
}

/*
 * --events[=FILE]: a reader for the RINGBUF maps of the stateful programs,
 * started with the supervisor's workers (lib/vm/events.c). The file is opened
 * now, close-on-exec, so that a bad path fails before CMD runs. Returns 0,
 * or -1 after printing why.
 */
int run_open_events(struct run_state *s, const char **specs, const char *path)
{
	struct events_opts opts = { .sz = sizeof(opts) };
	struct secbpf_err err = { { 0 } };
	int i;

	if (path) {
		s->events_file = fopen(path, "we");
		if (!s->events_file) {
			cli_error(path, "cannot write the events: %s", strerror(errno));
			return -1;
		}
		opts.out = s->events_file;
	}
	s->events = events_new(&opts, &err);
	if (!s->events) {
		cli_error("run", "--events: %s", err.msg);
		return -1;
	}
	for (i = 0; i < s->ntargets; i++) {
		if (!s->plan.runtimes[i])
			continue;
		if (events_add_runtime(s->events, s->plan.runtimes[i], s->targets[i].obj, specs[i],
				       &err) < 0) {
			cli_error("run", "--events: %s", err.msg);
			return -1;
		}
	}
	if (events_nrings(s->events) == 0)
		fprintf(stderr, "secbpf: run: warning: --events: no stateful filter has a "
				"BPF_MAP_TYPE_RINGBUF map; there will be no events\n");
	return 0;
}
