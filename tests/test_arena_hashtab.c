// SPDX-License-Identifier: MIT
/*
 * Tests for lib/common/arena.c and lib/common/hashtab.c, the compiler's
 * allocator and hash-consing table: the edges their invariants name.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "common/arena.h"
#include "common/hashtab.h"

Test(arena, empty_arena_frees_and_is_reusable)
{
	struct arena a = { 0 };
	unsigned char *p;

	arena_free(&a);
	cr_expect_null(a.head);
	p = arena_alloc(&a, 3);
	cr_assert_not_null(p);
	arena_free(&a);
	cr_expect_null(a.head);
	p = arena_alloc(&a, 3);
	cr_expect_not_null(p);
	arena_free(&a);
}

Test(arena, allocations_are_zeroed_aligned_and_distinct)
{
	struct arena a = { 0 };
	unsigned char *prev = NULL;
	size_t i, j;

	for (i = 0; i < 3 * ARENA_CHUNK_SIZE / 16; i++) {
		size_t size = i % 37;	/* 0 too: a valid, distinct pointer */
		unsigned char *p = arena_alloc(&a, size);

		cr_assert_not_null(p);
		cr_expect_eq((uintptr_t)p % _Alignof(max_align_t), 0, "size %zu", size);
		cr_expect_neq(p, prev);
		for (j = 0; j < size; j++)
			cr_assert_eq(p[j], 0);
		memset(p, 0xa5, size);	/* dirty it: the next ones must still be zero */
		prev = p;
	}
	arena_free(&a);
}

Test(arena, an_object_larger_than_a_chunk_gets_its_own)
{
	struct arena a = { 0 };
	unsigned char *small = arena_alloc(&a, 8), *big, *after;

	cr_assert_not_null(small);
	big = arena_alloc(&a, ARENA_CHUNK_SIZE + 1);
	cr_assert_not_null(big);
	cr_expect_eq(big[ARENA_CHUNK_SIZE], 0);
	memset(big, 0xff, ARENA_CHUNK_SIZE + 1);
	after = arena_alloc(&a, 8);
	cr_assert_not_null(after);
	cr_expect_eq(after[0], 0);
	cr_expect(after + 8 <= big || after >= big + ARENA_CHUNK_SIZE + 1);
	cr_expect_null(arena_alloc(&a, SIZE_MAX));	/* no overflow in the rounding */
	arena_free(&a);
}

struct item {
	struct hashtab_entry h;
	int key;
};

static struct item *find(const struct hashtab *t, uint32_t hash, int key)
{
	struct hashtab_entry *e;

	for (e = hashtab_chain(t, hash); e; e = e->next)
		if (e->hash == hash && ((struct item *)e)->key == key)
			return (struct item *)e;
	return NULL;
}

Test(hashtab, empty_table_finds_nothing)
{
	struct hashtab t = { 0 };

	cr_expect_null(hashtab_chain(&t, 0));
	cr_expect_null(hashtab_chain(&t, UINT32_MAX));
	hashtab_free(&t);
	hashtab_free(&t);	/* twice: still empty */
	cr_expect_eq(t.size, 0);
}

Test(hashtab, growing_keeps_every_entry_in_its_chain)
{
	enum { N = 5 * HASHTAB_MIN_SIZE };
	static struct item items[N];
	struct hashtab t = { 0 };
	int i;

	for (i = 0; i < N; i++) {
		items[i].key = i;
		items[i].h.hash = hash_mix(0, (uint64_t)i);
		cr_assert_eq(hashtab_insert(&t, &items[i].h), 0);
		/* never more than half full, the size a power of two */
		cr_assert_leq(t.count * 2, t.size);
		cr_assert_eq(t.size & (t.size - 1), 0);
	}
	cr_expect_eq(t.count, N);
	for (i = 0; i < N; i++)
		cr_expect_eq(find(&t, items[i].h.hash, i), &items[i]);
	cr_expect_null(find(&t, hash_mix(0, N), N));
	hashtab_free(&t);
	cr_expect_null(t.slots);
	cr_expect_eq(t.count, 0);
}

Test(hashtab, equal_hashes_chain_and_stay_apart)
{
	static struct item items[3 * HASHTAB_MIN_SIZE];
	struct hashtab t = { 0 };
	size_t i;

	/* every entry in one chain, through two growths */
	for (i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		items[i].key = (int)i;
		items[i].h.hash = 42;
		cr_assert_eq(hashtab_insert(&t, &items[i].h), 0);
	}
	for (i = 0; i < sizeof(items) / sizeof(items[0]); i++)
		cr_expect_eq(find(&t, 42, (int)i), &items[i]);
	cr_expect_null(find(&t, 42 + (uint32_t)t.size, 0));	/* same slot, other hash */
	hashtab_free(&t);
}

Test(hash_mix, depends_on_both_inputs)
{
	cr_expect_neq(hash_mix(0, 1), hash_mix(0, 2));
	cr_expect_neq(hash_mix(1, 0), hash_mix(2, 0));
	cr_expect_eq(hash_mix(7, 9), hash_mix(7, 9));
}
