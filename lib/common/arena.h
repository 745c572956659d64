/* SPDX-License-Identifier: MIT */
/*
 * A bump allocator for objects that all die together (the compiler's
 * expressions, residual nodes and word tests): many small allocations,
 * one free.
 *
 * Invariant: every pointer arena_alloc() returned stays valid, zeroed at
 * allocation and aligned for any type (max_align_t), until arena_free();
 * nothing is freed one by one. An empty arena (all zero) is valid.
 */
#ifndef SECBPF_COMMON_ARENA_H
#define SECBPF_COMMON_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;	/* the chunk being filled, then older ones */
};

#define ARENA_CHUNK_SIZE 65536	/* bytes per chunk; a larger object gets its own */

/* size zeroed bytes (size 0: a valid unique pointer), or NULL when out of
 * memory (the arena is unchanged then). */
void *arena_alloc(struct arena *a, size_t size);

/* Frees every allocation; the arena is empty (and reusable) afterwards. */
void arena_free(struct arena *a);

#endif
