// SPDX-License-Identifier: MIT
/*
 * The bump allocator of arena.h: chunks of ARENA_CHUNK_SIZE bytes in a
 * list, the newest first; allocations are rounded up to max_align_t.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c = a->head;
	void *p;

	if (size > SIZE_MAX - sizeof(max_align_t) - sizeof(*c))
		return NULL;
	size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!size)
		size = sizeof(max_align_t);
	if (!c || c->cap - c->used < size) {
		size_t cap = size > ARENA_CHUNK_SIZE ? size : ARENA_CHUNK_SIZE;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = a->head;
		c->used = 0;
		c->cap = cap;
		a->head = c;
	}
	p = (char *)c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

void arena_free(struct arena *a)
{
	while (a->head) {
		struct arena_chunk *n = a->head->next;

		free(a->head);
		a->head = n;
	}
}
