/* SPDX-License-Identifier: MIT */
/*
 * A chained hash table of intrusive entries, for hash-consing: the caller
 * embeds a struct hashtab_entry in its object, computes the hash, walks
 * the chain of that hash to find an equal object, and inserts otherwise.
 *
 * Invariants: size is 0 (empty, slots NULL) or a power of two; count
 * entries are linked, each in the chain of slot hash & (size - 1); the
 * table grows (doubling, from HASHTAB_MIN_SIZE) before an insert would
 * make count exceed size / 2. The table owns only its slot array: entries
 * belong to the caller (usually an arena) and stay where they are.
 */
#ifndef SECBPF_COMMON_HASHTAB_H
#define SECBPF_COMMON_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

struct hashtab_entry {
	struct hashtab_entry *next;	/* the chain of one slot */
	uint32_t hash;
};

struct hashtab {
	struct hashtab_entry **slots;
	size_t size, count;
};

#define HASHTAB_MIN_SIZE 1024

/* One step of a 64-bit hash: mixes v into h (not for adversarial keys). */
uint32_t hash_mix(uint64_t h, uint64_t v);

/* The first entry of the chain hash falls in (NULL for an empty table);
 * walk on with ->next and compare ->hash before the object. */
struct hashtab_entry *hashtab_chain(const struct hashtab *t, uint32_t hash);

/* Links e (e->hash set by the caller). 0, or -ENOMEM when the table could
 * not grow (then e is not linked and the table is unchanged). */
int hashtab_insert(struct hashtab *t, struct hashtab_entry *e);

/* Frees the slot array; the table is empty (and reusable) afterwards. */
void hashtab_free(struct hashtab *t);

#endif
