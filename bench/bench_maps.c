// SPDX-License-Identifier: MIT
/*
 * Map benchmark: ns per lookup and per update for HASH and ARRAY, with 1
 * and 2 threads working on the same map. Each lookup runs in its own RCU
 * read-side section, as a program making one helper call would.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vm/maps.h"

#define ENTRIES 1024
#define KEYS 4096 /* mask for the key sequence */

struct bench {
	struct map *map;
	const uint32_t *keys; /* KEYS pseudo-random keys below ENTRIES */
	long ops;
	bool update;
	unsigned int slot;
	uint64_t sink;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *bench_thread(void *p)
{
	struct bench *b = p;
	uint64_t value, *v;
	long i;

	for (i = 0; i < b->ops; i++) {
		const uint32_t *key = &b->keys[(i + b->slot * 977) & (KEYS - 1)];

		if (b->update) {
			value = (uint64_t)i;
			if (map_update(b->map, key, &value, BPF_ANY, b->slot))
				abort();
			continue;
		}
		map_rcu_read_lock();
		v = map_lookup(b->map, key, b->slot);
		if (v)
			b->sink += *v;
		map_rcu_read_unlock();
	}
	return NULL;
}

/* Runs nthreads threads of ops operations each; returns ns per operation
 * as seen by one thread (wall time / ops). */
static double run(struct map *map, const uint32_t *keys, long ops, bool update, int nthreads)
{
	struct bench b[2];
	pthread_t tid[2];
	double start;
	int t;

	start = now_ns();
	for (t = 0; t < nthreads; t++) {
		b[t] = (struct bench){ map, keys, ops, update, (unsigned int)t, 0 };
		pthread_create(&tid[t], NULL, bench_thread, &b[t]);
	}
	for (t = 0; t < nthreads; t++)
		pthread_join(tid[t], NULL);
	return (now_ns() - start) / ops;
}

int main(int argc, char **argv)
{
	static uint32_t keys[KEYS];
	long ops = argc > 1 ? atol(argv[1]) : 2000000;
	uint32_t types[2] = { BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_ARRAY };
	const char *names[2] = { "HASH", "ARRAY" };
	struct secbpf_err err;
	uint64_t zero = 0;
	uint32_t k, x = 12345;
	int i, threads;

	for (i = 0; i < KEYS; i++) {
		x = x * 1103515245 + 12345;
		keys[i] = (x >> 8) % ENTRIES;
	}
	printf("%-6s %-7s %8s %8s   (ns per op per thread, %d entries, u32 key, u64 value)\n",
	       "map", "op", "1 thread", "2 threads", ENTRIES);
	for (i = 0; i < 2; i++) {
		struct object_map spec = {
			.name = (char *)names[i],
			.type = types[i],
			.key_size = 4,
			.value_size = 8,
			.max_entries = ENTRIES,
		};
		struct map *map = map_create(&spec, 2, &err);
		double r[2][2];

		if (!map) {
			fprintf(stderr, "bench_maps: %s\n", err.msg);
			return 1;
		}
		for (k = 0; k < ENTRIES; k++)
			map_update(map, &k, &zero, BPF_ANY, 0);
		for (threads = 1; threads <= 2; threads++) {
			r[0][threads - 1] = run(map, keys, ops, false, threads);
			r[1][threads - 1] = run(map, keys, ops / 4, true, threads);
		}
		printf("%-6s %-7s %8.1f %8.1f\n", names[i], "lookup", r[0][0], r[0][1]);
		printf("%-6s %-7s %8.1f %8.1f\n", names[i], "update", r[1][0], r[1][1]);
		map_rcu_barrier();
		map_free(map);
	}
	return 0;
}
