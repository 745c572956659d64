// SPDX-License-Identifier: MIT
/*
 * A checkpoint of the supervised stack (docs/introspection.md): each
 * program's own ELF object with the current contents of its maps in a
 * ".secbpf.state" section, so that `secbpf run -f` of it starts where this
 * one is. Maps are read as bpf() reads them, while the workers run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "service/protocol.h"
#include "supervisor/supervisor_internal.h"
#include "vm/maps.h"

/* Add map m of p (live in its runtime, or the object's initial bytes for a
 * filter without one) to w. Returns 0 or a negative errno. */
static int save_map(const struct supervisor_prog *p, const struct object_map *m,
		    struct object_state_writer *w)
{
	struct map *map = p->rt ? runtime_map(p->rt, m->name) : NULL;
	uint32_t zero = 0, count = 0;
	uint8_t *key, *next, *value;
	bool first = true;
	int rc;

	if (!map) {
		/* Stateless: only global data, as compiled (--set included). */
		if (m->kind == OBJECT_MAP_BTF || !m->init_data)
			return 0;
		rc = object_state_add_map(w, m, 1);
		return rc ? rc : object_state_add_entry(w, &zero, m->init_data);
	}
	rc = object_state_add_map(w, m, map_ncpus(map));
	key = calloc(1, m->key_size + 1);
	next = calloc(1, m->key_size + 1);
	value = calloc(1, map_user_value_size(map) + 1);
	if (!key || !next || !value)
		rc = -ENOMEM;
	while (!rc && count < m->max_entries) {
		rc = map_get_next_key(map, first ? NULL : key, next);
		if (rc == -ENOENT) {
			rc = 0;
			break;
		}
		first = false;
		memcpy(key, next, m->key_size);
		if (!rc && map_lookup_user(map, key, value) == 0) {
			rc = object_state_add_entry(w, key, value);
			count++;
		}
	}
	free(key);
	free(next);
	free(value);
	return rc;
}

/* The object of p with its state, into *img (malloc'ed). */
static int checkpoint_prog(const struct supervisor_prog *p, uint8_t **img, size_t *len, char *msg,
			   size_t n)
{
	struct object_state_writer w;
	uint32_t i;
	int rc;

	rc = object_state_writer_init(&w);
	for (i = 0; !rc && i < p->obj->map_cnt; i++)
		if (object_state_supported(&p->obj->maps[i]))
			rc = save_map(p, &p->obj->maps[i], &w);
	if (!rc)
		rc = object_image_with_state(p->obj, &w, img, len);
	object_state_writer_free(&w);
	if (rc)
		snprintf(msg, n, "%s: cannot write its checkpoint: %s", p->name, strerror(-rc));
	return rc;
}

static int append(uint8_t **buf, size_t *len, const void *data, size_t n)
{
	size_t padded = (n + 7) & ~(size_t)7;
	uint8_t *p = realloc(*buf, *len + padded);

	if (!p)
		return -ENOMEM;
	memcpy(p + *len, data, n);
	memset(p + *len + n, 0, padded - n);
	*buf = p;
	*len += padded;
	return 0;
}

int supervisor_checkpoint(struct supervisor *sv, uint8_t **buf, size_t *len, char *msg, size_t n)
{
	struct svc_checkpoint h = { .magic = SVC_CHECKPOINT_MAGIC, .nobjects = 0 };
	size_t i;
	int rc;

	*buf = NULL;
	*len = 0;
	for (i = 0; i < sv->nprogs; i++)
		if (!sv->progs[i].obj || !sv->progs[i].prog) {
			snprintf(msg, n, "%s: its object is not known to the supervisor",
				 sv->progs[i].name ? sv->progs[i].name : "a filter");
			return -EOPNOTSUPP;
		}
	h.nobjects = (uint32_t)sv->nprogs;
	rc = append(buf, len, &h, sizeof(h));
	for (i = 0; !rc && i < sv->nprogs; i++) {
		const struct supervisor_prog *p = &sv->progs[i];
		struct svc_checkpoint_entry e = { .name_len = (uint32_t)strlen(p->prog->name) };
		uint8_t *img = NULL;
		size_t img_len = 0;

		rc = checkpoint_prog(p, &img, &img_len, msg, n);
		if (rc)
			break;
		e.size = img_len;
		rc = append(buf, len, &e, sizeof(e));
		rc = rc ?: append(buf, len, p->prog->name, e.name_len);
		rc = rc ?: append(buf, len, img, img_len);
		free(img);
		if (rc)
			snprintf(msg, n, "out of memory");
	}
	if (rc) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}
