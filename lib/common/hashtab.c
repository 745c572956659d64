// SPDX-License-Identifier: MIT
/*
 * The chained hash table of hashtab.h: growing relinks every entry into
 * a slot array twice as large; lookups never allocate.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/hashtab.h"

uint32_t hash_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return (uint32_t)(h ^ (h >> 32));
}

struct hashtab_entry *hashtab_chain(const struct hashtab *t, uint32_t hash)
{
	return t->size ? t->slots[hash & (t->size - 1)] : NULL;
}

static int hashtab_grow(struct hashtab *t)
{
	size_t nsize = t->size ? t->size * 2 : HASHTAB_MIN_SIZE, i;
	struct hashtab_entry **ns;

	if (nsize < t->size)
		return -ENOMEM;
	ns = calloc(nsize, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (i = 0; i < t->size; i++) {
		struct hashtab_entry *e = t->slots[i];

		while (e) {
			struct hashtab_entry *next = e->next;

			e->next = ns[e->hash & (nsize - 1)];
			ns[e->hash & (nsize - 1)] = e;
			e = next;
		}
	}
	free(t->slots);
	t->slots = ns;
	t->size = nsize;
	return 0;
}

int hashtab_insert(struct hashtab *t, struct hashtab_entry *e)
{
	struct hashtab_entry **slot;

	if ((t->count + 1) * 2 > t->size && hashtab_grow(t))
		return -ENOMEM;
	slot = &t->slots[e->hash & (t->size - 1)];
	e->next = *slot;
	*slot = e;
	t->count++;
	return 0;
}

void hashtab_free(struct hashtab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->size = 0;
	t->count = 0;
}
