// SPDX-License-Identifier: MIT
/*
 * BPF maps for the supervisor (see maps.h). Invariants: a hash element is
 * freed only after an RCU grace period once unlinked, and a hash map never
 * holds more than max_entries elements; LRU lists change only under the
 * map's lru_lock; ring buffer positions only grow.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <urcu-bp.h>
#include <urcu/list.h>
#include <urcu/rculfhash.h>

#include "vm/maps.h"

/*
 * The kernel's limits, so that a spec accepted here loads on a kernel too.
 * KMALLOC_MAX_SIZE is x86-64's (order-10 pages).
 */
#define KMALLOC_MAX_SIZE (1UL << 22)
#define MAX_BPF_STACK 512
#define PCPU_MIN_UNIT_SIZE (32U << 10)
#define RINGBUF_MAX_RECORD_SZ (UINT32_MAX / 4)
#define RINGBUF_HDR_SZ 8
#define CACHE_LINE 64
#define MAX_NCPUS 4096

#define ACCESS_FLAGS (BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)
#define HTAB_FLAGS (ACCESS_FLAGS | BPF_F_NO_PREALLOC | BPF_F_NO_COMMON_LRU | BPF_F_ZERO_SEED)
#define ARRAY_FLAGS (ACCESS_FLAGS | BPF_F_MMAPABLE)
#define RB_WAKEUP_FLAGS (BPF_RB_NO_WAKEUP | BPF_RB_FORCE_WAKEUP)

/*
 * ThreadSanitizer cannot see the ordering that liburcu (not instrumented)
 * provides, so the points where RCU orders memory are annotated: element
 * publication and lookup, and "every read-side section that ended before
 * a grace period happens before the callback that frees memory".
 */
#if defined(__SANITIZE_THREAD__)
#define MAPS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MAPS_TSAN 1
#endif
#endif
#ifdef MAPS_TSAN
#include <sanitizer/tsan_interface.h>
/* Only its address is used, as the sanitizer's name for "a grace period". */
static const char rcu_grace_token;
#define tsan_release(p) __tsan_release((void *)(p))
#define tsan_acquire(p) __tsan_acquire((void *)(p))
#define tsan_grace_end() __tsan_release((void *)&rcu_grace_token)
#define tsan_grace_wait() __tsan_acquire((void *)&rcu_grace_token)
#else
#define tsan_release(p) ((void)(p))
#define tsan_acquire(p) ((void)(p))
#define tsan_grace_end() ((void)0)
#define tsan_grace_wait() ((void)0)
#endif

enum map_family {
	FAMILY_HASH,
	FAMILY_ARRAY,
	FAMILY_PROG_ARRAY,
	FAMILY_QUEUE, /* QUEUE and STACK */
	FAMILY_RINGBUF,
};

/*
 * A hash element: lfht node, then the key, then the value(s) at value_off.
 * Per-CPU values sit pcpu_stride apart, a cache line at least, so that
 * slots written by different workers do not share a line.
 */
struct htab_elem {
	struct cds_lfht_node node;
	struct rcu_head rcu;
	struct cds_list_head lru; /* LRU maps only, under lru_lock */
	unsigned long hash;
	uint32_t lru_ref; /* set by lookups, cleared by eviction */
	unsigned char key[] __attribute__((aligned(8)));
};

struct htab {
	struct cds_lfht *ht;
	uint64_t seed[2];
	size_t value_off;
	size_t elem_size;
	size_t elem_align;
	size_t pcpu_stride;
	long count;		       /* elements linked, <= max_entries */
	pthread_mutex_t lru_lock;      /* all updates of an LRU map */
	struct cds_list_head lru_list; /* most recently added first */
};

struct array {
	unsigned char *values; /* percpu: ncpus areas of cpu_stride */
	size_t map_len;
	size_t elem_size; /* round_up(value_size, 8) */
	size_t cpu_stride;
};

struct prog_array {
	uint64_t *slots; /* 0 empty, else program index + 1 */
};

struct qstack {
	pthread_mutex_t lock;
	unsigned char *elems; /* size slots of value_size */
	uint32_t size;	      /* max_entries + 1: full != empty */
	uint32_t head;	      /* next slot to write */
	uint32_t tail;	      /* oldest element */
};

struct ringbuf {
	unsigned char *data; /* mask + 1 bytes, mapped twice */
	uint64_t mask;
	size_t page_shift;
	int wake_fd;
	pthread_mutex_t prod_lock;
	pthread_mutex_t cons_lock;
	/* Written by one side each: keep them off each other's line. */
	uint64_t consumer_pos __attribute__((aligned(CACHE_LINE)));
	uint64_t producer_pos __attribute__((aligned(CACHE_LINE)));
};

struct map {
	char *name;
	enum object_map_kind kind;
	enum map_family family;
	uint32_t type;
	uint32_t key_size;
	uint32_t value_size;
	uint32_t max_entries;
	uint32_t map_flags;
	unsigned int ncpus;
	bool percpu;
	bool lru;
	bool frozen; /* atomic */
	union {
		struct htab htab;
		struct array array;
		struct prog_array progs;
		struct qstack qs;
		struct ringbuf *rb; /* own allocation: cache-line aligned */
	} u;
};

static size_t round_up(size_t x, size_t to)
{
	return (x + to - 1) / to * to;
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/*
 * Values may be updated by programs with atomics at any time, so copies in
 * and out of shared values use relaxed atomic accesses: defined behaviour
 * (and no TSan report) at the cost of a plain load/store per word.
 */
static void value_copy(void *dst, const void *src, size_t size)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t i = 0;

	if (!(((uintptr_t)d | (uintptr_t)s) & 7)) {
		for (; i + 8 <= size; i += 8)
			__atomic_store_n(
				(uint64_t *)(d + i),
				__atomic_load_n((const uint64_t *)(s + i), __ATOMIC_RELAXED),
				__ATOMIC_RELAXED);
	}
	for (; i < size; i++)
		__atomic_store_n(d + i, __atomic_load_n(s + i, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

/* ---- RCU ---------------------------------------------------------------- */

void map_rcu_read_lock(void)
{
	rcu_read_lock();
}

void map_rcu_read_unlock(void)
{
	tsan_grace_end();
	rcu_read_unlock();
}

void map_rcu_barrier(void)
{
	rcu_barrier();
}

/* ---- hashing -------------------------------------------------------------- */

/*
 * SipHash-1-3 with a per-map random key: keys often come from the filtered
 * processes (pids, uids, arguments), which must not be able to pick keys
 * that collide and turn lookups into list walks.
 */
#define ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIP_ROUND(v0, v1, v2, v3)                                                                  \
	do {                                                                                       \
		v0 += v1;                                                                          \
		v1 = ROTL64(v1, 13);                                                               \
		v1 ^= v0;                                                                          \
		v0 = ROTL64(v0, 32);                                                               \
		v2 += v3;                                                                          \
		v3 = ROTL64(v3, 16);                                                               \
		v3 ^= v2;                                                                          \
		v0 += v3;                                                                          \
		v3 = ROTL64(v3, 21);                                                               \
		v3 ^= v0;                                                                          \
		v2 += v1;                                                                          \
		v1 = ROTL64(v1, 17);                                                               \
		v1 ^= v2;                                                                          \
		v2 = ROTL64(v2, 32);                                                               \
	} while (0)

static uint64_t siphash13(const uint64_t seed[2], const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t v0 = seed[0] ^ 0x736f6d6570736575ULL;
	uint64_t v1 = seed[1] ^ 0x646f72616e646f6dULL;
	uint64_t v2 = seed[0] ^ 0x6c7967656e657261ULL;
	uint64_t v3 = seed[1] ^ 0x7465646279746573ULL;
	uint64_t m, last = (uint64_t)len << 56;
	size_t i;

	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&m, p, 8);
		v3 ^= m;
		SIP_ROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	for (i = 0; i < len; i++)
		last |= (uint64_t)p[i] << (8 * i);
	v3 ^= last;
	SIP_ROUND(v0, v1, v2, v3);
	v0 ^= last;
	v2 ^= 0xff;
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/* ---- spec checks ------------------------------------------------------------ */

static const char *type_name(uint32_t type)
{
	switch (type) {
	case BPF_MAP_TYPE_HASH:
		return "HASH";
	case BPF_MAP_TYPE_ARRAY:
		return "ARRAY";
	case BPF_MAP_TYPE_PROG_ARRAY:
		return "PROG_ARRAY";
	case BPF_MAP_TYPE_PERCPU_HASH:
		return "PERCPU_HASH";
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return "PERCPU_ARRAY";
	case BPF_MAP_TYPE_LRU_HASH:
		return "LRU_HASH";
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return "LRU_PERCPU_HASH";
	case BPF_MAP_TYPE_QUEUE:
		return "QUEUE";
	case BPF_MAP_TYPE_STACK:
		return "STACK";
	case BPF_MAP_TYPE_RINGBUF:
		return "RINGBUF";
	default:
		return NULL;
	}
}

static size_t htab_header_size(void)
{
	return offsetof(struct htab_elem, key);
}

/* Layout of a hash element; also used to bound the map's memory. */
static void htab_layout(struct map *map)
{
	struct htab *h = &map->u.htab;
	size_t value_bytes;

	h->pcpu_stride = round_up(map->value_size, 8);
	if (map->percpu && map->ncpus > 1)
		h->pcpu_stride = round_up(h->pcpu_stride, CACHE_LINE);
	h->elem_align = map->percpu ? CACHE_LINE : 8;
	h->value_off = round_up(htab_header_size() + round_up(map->key_size, 8), h->elem_align);
	value_bytes = map->percpu ? h->pcpu_stride * map->ncpus : round_up(map->value_size, 8);
	h->elem_size = round_up(h->value_off + value_bytes, h->elem_align);
}

static int check_hash_spec(struct map *map, struct secbpf_err *err)
{
	uint32_t f = map->map_flags;
	uint64_t buckets, bytes;

	if (f & ~HTAB_FLAGS)
		return err_set(err, EINVAL, "map flags 0x%x are not supported for %s",
			       f & ~HTAB_FLAGS, type_name(map->type));
	if (!map->lru && (f & BPF_F_NO_COMMON_LRU))
		return err_set(err, EINVAL, "BPF_F_NO_COMMON_LRU needs an LRU map");
	if (map->lru && (f & BPF_F_NO_PREALLOC))
		return err_set(err, ENOTSUPP, "an LRU map cannot have BPF_F_NO_PREALLOC");
	if (!map->max_entries || !map->key_size || !map->value_size)
		return err_set(err, EINVAL, "key_size, value_size and max_entries must not be 0");
	if (map->key_size > MAX_BPF_STACK)
		return err_set(err, E2BIG, "key_size %u is larger than %u (the BPF stack)",
			       map->key_size, MAX_BPF_STACK);
	if (map->value_size >= KMALLOC_MAX_SIZE - MAX_BPF_STACK - htab_header_size())
		return err_set(err, E2BIG, "value_size %u is too large", map->value_size);
	if (map->percpu && round_up(map->value_size, 8) > PCPU_MIN_UNIT_SIZE)
		return err_set(err, E2BIG, "per-CPU value_size %u is larger than %u",
			       map->value_size, PCPU_MIN_UNIT_SIZE);
	htab_layout(map);
	buckets = 1;
	while (buckets < map->max_entries)
		buckets <<= 1;
	bytes = (uint64_t)map->max_entries * map->u.htab.elem_size +
		buckets * sizeof(struct cds_lfht_node);
	if (bytes > MAP_MEMORY_LIMIT)
		return err_set(
			err, ENOMEM,
			"%u entries of %zu bytes need %llu MiB, more than the %llu MiB limit",
			map->max_entries, map->u.htab.elem_size, (unsigned long long)(bytes >> 20),
			MAP_MEMORY_LIMIT >> 20);
	return 0;
}

static int check_array_spec(struct map *map, struct secbpf_err *err)
{
	uint32_t allowed = ARRAY_FLAGS;
	uint64_t bytes;

	if (map->type == BPF_MAP_TYPE_PERCPU_ARRAY)
		allowed = ACCESS_FLAGS;
	else if (map->type == BPF_MAP_TYPE_PROG_ARRAY)
		allowed = BPF_F_RDONLY | BPF_F_WRONLY;
	if (map->map_flags & ~allowed)
		return err_set(err, EINVAL, "map flags 0x%x are not supported for %s",
			       map->map_flags & ~allowed, type_name(map->type));
	if (!map->max_entries || map->key_size != 4 || !map->value_size)
		return err_set(err, EINVAL,
			       "%s needs key_size 4 and non-zero value_size and max_entries",
			       type_name(map->type));
	if (map->type == BPF_MAP_TYPE_PROG_ARRAY && map->value_size != 4)
		return err_set(err, EINVAL, "PROG_ARRAY needs value_size 4");
	if (map->value_size > INT_MAX)
		return err_set(err, E2BIG, "value_size %u is too large", map->value_size);
	if (map->percpu && round_up(map->value_size, 8) > PCPU_MIN_UNIT_SIZE)
		return err_set(err, E2BIG, "per-CPU value_size %u is larger than %u",
			       map->value_size, PCPU_MIN_UNIT_SIZE);
	bytes = (uint64_t)map->max_entries * round_up(map->value_size, 8) *
		(map->percpu ? map->ncpus : 1);
	if (bytes > MAP_MEMORY_LIMIT)
		return err_set(err, ENOMEM,
			       "%u entries of %u bytes need %llu MiB, more than the %llu MiB limit",
			       map->max_entries, map->value_size, (unsigned long long)(bytes >> 20),
			       MAP_MEMORY_LIMIT >> 20);
	return 0;
}

static int check_queue_spec(struct map *map, struct secbpf_err *err)
{
	uint64_t bytes;

	if (map->map_flags & ~ACCESS_FLAGS)
		return err_set(err, EINVAL, "map flags 0x%x are not supported for %s",
			       map->map_flags & ~ACCESS_FLAGS, type_name(map->type));
	if (!map->max_entries || map->key_size || !map->value_size)
		return err_set(err, EINVAL,
			       "%s needs key_size 0 and non-zero value_size and max_entries",
			       type_name(map->type));
	if (map->value_size > KMALLOC_MAX_SIZE)
		return err_set(err, E2BIG, "value_size %u is too large", map->value_size);
	bytes = ((uint64_t)map->max_entries + 1) * map->value_size;
	if (bytes > MAP_MEMORY_LIMIT)
		return err_set(err, ENOMEM,
			       "%u entries of %u bytes are more than the %llu MiB limit",
			       map->max_entries, map->value_size, MAP_MEMORY_LIMIT >> 20);
	return 0;
}

static int check_ringbuf_spec(struct map *map, struct secbpf_err *err)
{
	long page = sysconf(_SC_PAGESIZE);

	if (map->map_flags)
		return err_set(err, EINVAL, "map flags 0x%x are not supported for RINGBUF",
			       map->map_flags);
	if (map->key_size || map->value_size || !is_pow2(map->max_entries) ||
	    map->max_entries % page)
		return err_set(err, EINVAL,
			       "RINGBUF needs key_size 0, value_size 0 and max_entries a power of "
			       "2 multiple of %ld",
			       page);
	if (map->max_entries > MAP_MEMORY_LIMIT)
		return err_set(err, ENOMEM, "RINGBUF of %u bytes is larger than the %llu MiB limit",
			       map->max_entries, MAP_MEMORY_LIMIT >> 20);
	return 0;
}

/* Global data sections are one-element arrays (as libbpf makes them). */
static int check_global_data(const struct object_map *spec, struct secbpf_err *err)
{
	if (spec->kind == OBJECT_MAP_BTF)
		return 0;
	if (spec->type != BPF_MAP_TYPE_ARRAY || spec->key_size != 4 || spec->max_entries != 1 ||
	    !spec->value_size)
		return err_set(err, EINVAL,
			       "a global data map must be an ARRAY of one element with key_size 4");
	return 0;
}

/* ---- hash maps ---------------------------------------------------------- */

struct htab_key {
	const void *key;
	uint32_t size;
};

static int htab_match(struct cds_lfht_node *node, const void *arg)
{
	struct htab_elem *e = caa_container_of(node, struct htab_elem, node);
	const struct htab_key *k = arg;

	tsan_acquire(e);
	return !memcmp(e->key, k->key, k->size);
}

static void *elem_value(const struct map *map, struct htab_elem *e)
{
	return (unsigned char *)e + map->u.htab.value_off;
}

static void *elem_value_cpu(const struct map *map, struct htab_elem *e, unsigned int cpu)
{
	return (unsigned char *)elem_value(map, e) + (size_t)cpu * map->u.htab.pcpu_stride;
}

static unsigned long htab_hash(const struct map *map, const void *key)
{
	return (unsigned long)siphash13(map->u.htab.seed, key, map->key_size);
}

/* Under rcu_read_lock. */
static struct htab_elem *htab_find(struct map *map, const void *key, unsigned long hash,
				   struct cds_lfht_iter *iter)
{
	struct htab_key k = { key, map->key_size };
	struct cds_lfht_node *node;

	cds_lfht_lookup(map->u.htab.ht, hash, htab_match, &k, iter);
	node = cds_lfht_iter_get_node(iter);
	return node ? caa_container_of(node, struct htab_elem, node) : NULL;
}

static void htab_elem_free_rcu(struct rcu_head *head)
{
	struct htab_elem *e = caa_container_of(head, struct htab_elem, rcu);

	tsan_grace_wait();
	tsan_acquire(e);
	free(e);
}

/* The element is unlinked: free it once current readers are done. */
static void htab_elem_retire(struct htab_elem *e)
{
	tsan_release(e);
	call_rcu(&e->rcu, htab_elem_free_rcu);
}

/*
 * A new, unpublished element holding key and value. cpu >= ncpus means
 * "value holds every slot" (user side); else value is this slot's and the
 * others start at zero, as bpf_map_update_elem leaves them.
 */
static struct htab_elem *htab_elem_new(struct map *map, const void *key, unsigned long hash,
				       const void *value, unsigned int cpu)
{
	struct htab *h = &map->u.htab;
	struct htab_elem *e;
	unsigned int c;

	e = aligned_alloc(h->elem_align, h->elem_size);
	if (!e)
		return NULL;
	memset(e, 0, h->elem_size);
	e->hash = hash;
	memcpy(e->key, key, map->key_size);
	if (!map->percpu) {
		memcpy(elem_value(map, e), value, map->value_size);
	} else if (cpu < map->ncpus) {
		memcpy(elem_value_cpu(map, e, cpu), value, map->value_size);
	} else {
		for (c = 0; c < map->ncpus; c++)
			memcpy(elem_value_cpu(map, e, c),
			       (const unsigned char *)value + c * round_up(map->value_size, 8),
			       map->value_size);
	}
	return e;
}

/* Per-CPU maps update an existing element in place, like the kernel. */
static void htab_percpu_write(struct map *map, struct htab_elem *e, const void *value,
			      unsigned int cpu)
{
	unsigned int c;

	if (cpu < map->ncpus) {
		value_copy(elem_value_cpu(map, e, cpu), value, map->value_size);
		return;
	}
	for (c = 0; c < map->ncpus; c++)
		value_copy(elem_value_cpu(map, e, c),
			   (const unsigned char *)value + c * round_up(map->value_size, 8),
			   map->value_size);
}

static int check_update_flags(uint64_t flags)
{
	/* No map here has a bpf_spin_lock, so BPF_F_LOCK is always -EINVAL. */
	if ((flags & ~(uint64_t)BPF_F_LOCK) > BPF_EXIST)
		return -EINVAL;
	if (flags & BPF_F_LOCK)
		return -EINVAL;
	return 0;
}

static int check_exist(struct htab_elem *old, uint64_t flags)
{
	if (old && flags == BPF_NOEXIST)
		return -EEXIST;
	if (!old && flags == BPF_EXIST)
		return -ENOENT;
	return 0;
}

/* Take one of max_entries slots for a new element. */
static bool htab_count_get(struct map *map)
{
	struct htab *h = &map->u.htab;

	if (__atomic_add_fetch(&h->count, 1, __ATOMIC_RELAXED) <= (long)map->max_entries)
		return true;
	__atomic_sub_fetch(&h->count, 1, __ATOMIC_RELAXED);
	return false;
}

static void htab_count_put(struct map *map)
{
	__atomic_sub_fetch(&map->u.htab.count, 1, __ATOMIC_RELAXED);
}

/*
 * Lock-free update of HASH and PERCPU_HASH: lfht's add_unique and replace
 * decide races between updaters; the loser looks again. Under rcu_read_lock.
 */
static int htab_update(struct map *map, const void *key, const void *value, uint64_t flags,
		       unsigned int cpu)
{
	struct htab_key k = { key, map->key_size };
	unsigned long hash = htab_hash(map, key);
	struct htab_elem *old, *new = NULL;
	struct cds_lfht_node *node;
	struct cds_lfht_iter iter;
	int ret;

	for (;;) {
		old = htab_find(map, key, hash, &iter);
		ret = check_exist(old, flags);
		if (ret)
			break;
		if (old && map->percpu) {
			htab_percpu_write(map, old, value, cpu);
			break;
		}
		if (!new) {
			new = htab_elem_new(map, key, hash, value, cpu);
			if (!new) {
				ret = -ENOMEM;
				break;
			}
			tsan_release(new);
		}
		if (old) {
			if (cds_lfht_replace(map->u.htab.ht, &iter, hash, htab_match, &k,
					     &new->node) == 0) {
				htab_elem_retire(old);
				new = NULL;
				break;
			}
			continue; /* old went away meanwhile */
		}
		if (!htab_count_get(map)) {
			ret = -E2BIG;
			break;
		}
		node = cds_lfht_add_unique(map->u.htab.ht, hash, htab_match, &k, &new->node);
		if (node == &new->node) {
			new = NULL;
			break;
		}
		htab_count_put(map); /* another updater added the key first */
	}
	free(new); /* never published */
	return ret;
}

static int htab_delete(struct map *map, const void *key)
{
	unsigned long hash = htab_hash(map, key);
	struct cds_lfht_iter iter;
	struct htab_elem *old;

	for (;;) {
		old = htab_find(map, key, hash, &iter);
		if (!old)
			return -ENOENT;
		/* Fails only if the element was replaced or deleted meanwhile. */
		if (cds_lfht_del(map->u.htab.ht, &old->node) == 0)
			break;
	}
	htab_count_put(map);
	htab_elem_retire(old);
	return 0;
}

/*
 * LRU eviction (lru_lock held): a second-chance walk from the oldest end.
 * An element looked up since it was last passed over moves to the front
 * with its mark cleared; the first unmarked one is evicted. Like the
 * kernel's LRU this approximates recency; unlike it, eviction happens only
 * when the map is full.
 */
static struct htab_elem *lru_evict(struct map *map)
{
	struct htab *h = &map->u.htab;
	long budget = 2 * __atomic_load_n(&h->count, __ATOMIC_RELAXED) + 1;
	struct htab_elem *e;

	while (budget-- > 0 && !cds_list_empty(&h->lru_list)) {
		e = cds_list_entry(h->lru_list.prev, struct htab_elem, lru);
		if (__atomic_load_n(&e->lru_ref, __ATOMIC_RELAXED)) {
			__atomic_store_n(&e->lru_ref, 0, __ATOMIC_RELAXED);
			cds_list_move(&e->lru, &h->lru_list);
			continue;
		}
		cds_list_del(&e->lru);
		/* Cannot fail: every unlink of an LRU element holds lru_lock. */
		cds_lfht_del(h->ht, &e->node);
		return e;
	}
	return NULL;
}

static void lru_touch(struct htab_elem *e)
{
	/* Test first: a lookup-heavy workload should not bounce the line. */
	if (!__atomic_load_n(&e->lru_ref, __ATOMIC_RELAXED))
		__atomic_store_n(&e->lru_ref, 1, __ATOMIC_RELAXED);
}

/* LRU_HASH and LRU_PERCPU_HASH: updates serialised by lru_lock, lookups
 * stay lock-free. Under rcu_read_lock. */
static int lru_update(struct map *map, const void *key, const void *value, uint64_t flags,
		      unsigned int cpu)
{
	struct htab *h = &map->u.htab;
	struct htab_key k = { key, map->key_size };
	unsigned long hash = htab_hash(map, key);
	struct htab_elem *old, *new = NULL, *victim = NULL;
	struct cds_lfht_iter iter;
	int ret;

	if (!(map->percpu && flags == BPF_EXIST)) {
		new = htab_elem_new(map, key, hash, value, cpu);
		if (!new)
			return -ENOMEM;
		tsan_release(new);
	}
	pthread_mutex_lock(&h->lru_lock);
	old = htab_find(map, key, hash, &iter);
	ret = check_exist(old, flags);
	if (ret)
		goto out;
	if (old && map->percpu) {
		htab_percpu_write(map, old, value, cpu);
		lru_touch(old);
		goto out;
	}
	if (old) {
		/* Cannot fail: the element can only be unlinked under lru_lock. */
		cds_lfht_replace(h->ht, &iter, hash, htab_match, &k, &new->node);
		cds_list_del(&old->lru);
		cds_list_add(&new->lru, &h->lru_list);
		victim = old;
		new = NULL;
		goto out;
	}
	if (__atomic_load_n(&h->count, __ATOMIC_RELAXED) >= (long)map->max_entries) {
		/* The victim's slot goes to the new element: count unchanged. */
		victim = lru_evict(map);
		if (!victim) {
			ret = -E2BIG;
			goto out;
		}
	} else {
		__atomic_add_fetch(&h->count, 1, __ATOMIC_RELAXED);
	}
	cds_lfht_add_unique(h->ht, hash, htab_match, &k, &new->node);
	cds_list_add(&new->lru, &h->lru_list);
	new = NULL;
out:
	pthread_mutex_unlock(&h->lru_lock);
	if (victim)
		htab_elem_retire(victim);
	free(new);
	return ret;
}

static int lru_delete(struct map *map, const void *key)
{
	struct htab *h = &map->u.htab;
	unsigned long hash = htab_hash(map, key);
	struct cds_lfht_iter iter;
	struct htab_elem *old;

	pthread_mutex_lock(&h->lru_lock);
	old = htab_find(map, key, hash, &iter);
	if (old) {
		cds_lfht_del(h->ht, &old->node);
		cds_list_del(&old->lru);
		__atomic_sub_fetch(&h->count, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&h->lru_lock);
	if (!old)
		return -ENOENT;
	htab_elem_retire(old);
	return 0;
}

static int htab_get_next_key(struct map *map, const void *key, void *next_key)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	struct htab_elem *e = NULL;

	if (key)
		e = htab_find(map, key, htab_hash(map, key), &iter);
	/* A key that is not in the map restarts from the first, as in the kernel. */
	if (e)
		cds_lfht_next(map->u.htab.ht, &iter);
	else
		cds_lfht_first(map->u.htab.ht, &iter);
	node = cds_lfht_iter_get_node(&iter);
	if (!node)
		return -ENOENT;
	e = caa_container_of(node, struct htab_elem, node);
	tsan_acquire(e);
	memcpy(next_key, e->key, map->key_size);
	return 0;
}

static int htab_create(struct map *map, struct secbpf_err *err)
{
	struct htab *h = &map->u.htab;
	unsigned long buckets = 1;
	sigset_t all, old;

	if (!(map->map_flags & BPF_F_ZERO_SEED) &&
	    getrandom(h->seed, sizeof(h->seed), 0) != (ssize_t)sizeof(h->seed))
		return err_set(err, errno ? errno : EIO, "getrandom: %s", strerror(errno));
	/* Like the kernel, one bucket per possible element, allocated now:
	 * no resize ever runs behind the workers' backs. */
	while (buckets < map->max_entries)
		buckets <<= 1;
	h->ht = cds_lfht_new(buckets, buckets, buckets, 0, NULL);
	if (!h->ht)
		return err_set(err, ENOMEM, "cannot allocate %lu hash buckets", buckets);
	/* Deleted elements are freed by liburcu's call_rcu thread: start it
	 * now, not on the first delete, when a target may hold every TID
	 * (liburcu aborts if it cannot create the thread). It blocks every
	 * signal, so that none meant for the caller's threads reaches it. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	(void)get_default_call_rcu_data();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_mutex_init(&h->lru_lock, NULL);
	CDS_INIT_LIST_HEAD(&h->lru_list);
	return 0;
}

static void htab_destroy(struct map *map)
{
	struct htab *h = &map->u.htab;
	struct cds_lfht_iter iter;
	struct htab_elem *e;

	if (!h->ht)
		return;
	/* No other user is left (map_free's contract): free at once. */
	rcu_read_lock();
	cds_lfht_for_each_entry(h->ht, &iter, e, node) {
		tsan_acquire(e);
		cds_lfht_del(h->ht, &e->node);
		free(e);
	}
	rcu_read_unlock();
	cds_lfht_destroy(h->ht, NULL);
	pthread_mutex_destroy(&h->lru_lock);
}

/* ---- arrays ---------------------------------------------------------------- */

static int array_create(struct map *map, struct secbpf_err *err)
{
	struct array *a = &map->u.array;
	size_t len;
	void *p;

	a->elem_size = round_up(map->value_size, 8);
	a->cpu_stride = round_up((size_t)map->max_entries * a->elem_size, CACHE_LINE);
	len = a->cpu_stride * (map->percpu ? map->ncpus : 1);
	a->map_len = round_up(len, (size_t)sysconf(_SC_PAGESIZE));
	/* mmap: page aligned, zero-filled lazily, as the kernel's arrays start. */
	p = mmap(NULL, a->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return err_set(err, ENOMEM, "cannot allocate %zu bytes", a->map_len);
	a->values = p;
	return 0;
}

/* The value of index (already checked) for slot cpu. */
static void *array_elem(const struct map *map, uint32_t index, unsigned int cpu)
{
	const struct array *a = &map->u.array;

	return a->values + (map->percpu ? cpu * a->cpu_stride : 0) + index * a->elem_size;
}

static int array_update(struct map *map, const void *key, const void *value, uint64_t flags,
			unsigned int cpu)
{
	uint32_t index = *(const uint32_t *)key;
	unsigned int c;

	/* The kernel's order of checks: flags, index, NOEXIST, lock. */
	if ((flags & ~(uint64_t)BPF_F_LOCK) > BPF_EXIST)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	if (flags & BPF_NOEXIST)
		return -EEXIST;
	if (flags & BPF_F_LOCK)
		return -EINVAL;
	if (!map->percpu || cpu < map->ncpus) {
		value_copy(array_elem(map, index, cpu), value, map->value_size);
		return 0;
	}
	for (c = 0; c < map->ncpus; c++)
		value_copy(array_elem(map, index, c),
			   (const unsigned char *)value + c * round_up(map->value_size, 8),
			   map->value_size);
	return 0;
}

static int array_get_next_key(struct map *map, const void *key, void *next_key)
{
	uint32_t index = key ? *(const uint32_t *)key : UINT32_MAX;

	if (index >= map->max_entries) {
		*(uint32_t *)next_key = 0;
		return 0;
	}
	if (index == map->max_entries - 1)
		return -ENOENT;
	*(uint32_t *)next_key = index + 1;
	return 0;
}

static int prog_array_create(struct map *map, struct secbpf_err *err)
{
	map->u.progs.slots = calloc(map->max_entries, sizeof(uint64_t));
	if (!map->u.progs.slots)
		return err_set(err, ENOMEM, "cannot allocate %u slots", map->max_entries);
	return 0;
}

int map_prog_array_get(struct map *map, uint32_t index, uint32_t *prog)
{
	uint64_t slot;

	if (map->family != FAMILY_PROG_ARRAY)
		return -EINVAL;
	if (index >= map->max_entries)
		return -ENOENT;
	slot = __atomic_load_n(&map->u.progs.slots[index], __ATOMIC_ACQUIRE);
	if (!slot)
		return -ENOENT;
	*prog = (uint32_t)(slot - 1);
	return 0;
}

/* ---- queue and stack -------------------------------------------------------- */

static int qstack_create(struct map *map, struct secbpf_err *err)
{
	struct qstack *q = &map->u.qs;

	q->size = map->max_entries + 1;
	q->elems = calloc(q->size, map->value_size);
	if (!q->elems)
		return err_set(err, ENOMEM, "cannot allocate %u elements", q->size);
	pthread_mutex_init(&q->lock, NULL);
	return 0;
}

static int qstack_push(struct map *map, const void *value, uint64_t flags)
{
	struct qstack *q = &map->u.qs;

	if (flags > BPF_EXIST)
		return -EINVAL;
	pthread_mutex_lock(&q->lock);
	if ((q->head + 1) % q->size == q->tail) {
		if (!(flags & BPF_EXIST)) {
			pthread_mutex_unlock(&q->lock);
			return -E2BIG;
		}
		/* Make room by dropping the oldest, for QUEUE and STACK alike. */
		q->tail = (q->tail + 1) % q->size;
	}
	memcpy(q->elems + (size_t)q->head * map->value_size, value, map->value_size);
	q->head = (q->head + 1) % q->size;
	pthread_mutex_unlock(&q->lock);
	return 0;
}

/* Copy out the next element (oldest for QUEUE, newest for STACK). */
static int qstack_get(struct map *map, void *value, bool remove)
{
	struct qstack *q = &map->u.qs;
	uint32_t slot;

	pthread_mutex_lock(&q->lock);
	if (q->head == q->tail) {
		pthread_mutex_unlock(&q->lock);
		return -ENOENT;
	}
	if (map->type == BPF_MAP_TYPE_QUEUE) {
		slot = q->tail;
		if (remove)
			q->tail = (q->tail + 1) % q->size;
	} else {
		slot = (q->head + q->size - 1) % q->size;
		if (remove)
			q->head = slot;
	}
	memcpy(value, q->elems + (size_t)slot * map->value_size, map->value_size);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

/* ---- ring buffer ------------------------------------------------------------ */

struct ringbuf_hdr {
	uint32_t len;
	uint32_t pg_off;
};

static int ringbuf_create(struct map *map, struct secbpf_err *err)
{
	size_t size = map->max_entries;
	struct ringbuf *rb;
	unsigned char *area;
	int fd;

	rb = aligned_alloc(CACHE_LINE, round_up(sizeof(*rb), CACHE_LINE));
	if (!rb)
		return err_set(err, ENOMEM, "cannot allocate the ring buffer");
	memset(rb, 0, sizeof(*rb));
	rb->mask = size - 1;
	rb->page_shift = __builtin_ctzl((unsigned long)sysconf(_SC_PAGESIZE));
	rb->wake_fd = -1;
	map->u.rb = rb;

	/*
	 * Map the data twice, back to back, as the kernel does, so that a
	 * record crossing the end is contiguous for producer and consumer.
	 */
	fd = memfd_create("secbpf-ringbuf", MFD_CLOEXEC);
	if (fd < 0)
		return err_set(err, errno, "memfd_create: %s", strerror(errno));
	if (ftruncate(fd, size) < 0) {
		close(fd);
		return err_set(err, ENOMEM, "ftruncate: %s", strerror(errno));
	}
	area = mmap(NULL, 2 * size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		close(fd);
		return err_set(err, ENOMEM, "cannot reserve %zu bytes", 2 * size);
	}
	rb->data = area;
	if (mmap(area, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED ||
	    mmap(area + size, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
		    MAP_FAILED) {
		close(fd);
		return err_set(err, ENOMEM, "cannot map the ring buffer twice: %s",
			       strerror(errno));
	}
	close(fd);
	rb->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (rb->wake_fd < 0)
		return err_set(err, errno, "eventfd: %s", strerror(errno));
	pthread_mutex_init(&rb->prod_lock, NULL);
	pthread_mutex_init(&rb->cons_lock, NULL);
	return 0;
}

static void ringbuf_destroy(struct map *map)
{
	struct ringbuf *rb = map->u.rb;

	if (!rb)
		return;
	if (rb->data)
		munmap(rb->data, 2 * (rb->mask + 1));
	if (rb->wake_fd >= 0) {
		close(rb->wake_fd);
		pthread_mutex_destroy(&rb->prod_lock);
		pthread_mutex_destroy(&rb->cons_lock);
	}
	free(rb);
}

void *map_ringbuf_reserve(struct map *map, uint64_t size, uint64_t flags)
{
	struct ringbuf *rb;
	struct ringbuf_hdr *hdr;
	uint64_t len, cons, prod;

	if (map->family != FAMILY_RINGBUF || flags || size > RINGBUF_MAX_RECORD_SZ)
		return NULL;
	rb = map->u.rb;
	len = round_up(size + RINGBUF_HDR_SZ, 8);
	/* A stale consumer position only makes the check stricter. */
	cons = __atomic_load_n(&rb->consumer_pos, __ATOMIC_ACQUIRE);
	pthread_mutex_lock(&rb->prod_lock);
	prod = rb->producer_pos;
	/* The kernel's rule: the producer stays less than a ring ahead. */
	if (prod + len - cons > rb->mask) {
		pthread_mutex_unlock(&rb->prod_lock);
		return NULL;
	}
	hdr = (struct ringbuf_hdr *)(rb->data + (prod & rb->mask));
	/* pg_off: the header's page within the data area (unused here). */
	hdr->pg_off = (uint32_t)((prod & rb->mask) >> rb->page_shift);
	__atomic_store_n(&hdr->len, (uint32_t)size | BPF_RINGBUF_BUSY_BIT, __ATOMIC_RELAXED);
	/* Publishes the busy header before the consumer can reach it. */
	__atomic_store_n(&rb->producer_pos, prod + len, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rb->prod_lock);
	return hdr + 1;
}

static void ringbuf_wakeup(struct ringbuf *rb)
{
	uint64_t one = 1;

	/* Only fails when the counter is saturated: still readable then. */
	if (write(rb->wake_fd, &one, sizeof(one)) < 0)
		return;
}

static int ringbuf_commit(struct map *map, void *sample, uint64_t flags, bool discard)
{
	struct ringbuf *rb;
	struct ringbuf_hdr *hdr;
	uintptr_t off;
	uint32_t len, new_len;
	uint64_t cons;

	if (map->family != FAMILY_RINGBUF || !sample)
		return -EINVAL;
	rb = map->u.rb;
	off = (uintptr_t)sample - (uintptr_t)rb->data;
	if (off < RINGBUF_HDR_SZ || off - RINGBUF_HDR_SZ > rb->mask || (off & 7))
		return -EINVAL;
	hdr = (struct ringbuf_hdr *)((unsigned char *)sample - RINGBUF_HDR_SZ);
	len = __atomic_load_n(&hdr->len, __ATOMIC_RELAXED);
	if (!(len & BPF_RINGBUF_BUSY_BIT))
		return -EINVAL;
	new_len = len & ~BPF_RINGBUF_BUSY_BIT;
	if (discard)
		new_len |= BPF_RINGBUF_DISCARD_BIT;
	/*
	 * Sequentially consistent, paired with the consumer's store of its
	 * position then load of this header: either the consumer sees the
	 * record, or we see it waiting on this record and wake it.
	 */
	if (!__atomic_compare_exchange_n(&hdr->len, &len, new_len, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED))
		return -EINVAL; /* submitted twice concurrently */
	cons = __atomic_load_n(&rb->consumer_pos, __ATOMIC_SEQ_CST);
	if (flags & BPF_RB_FORCE_WAKEUP)
		ringbuf_wakeup(rb);
	else if (!(flags & BPF_RB_NO_WAKEUP) && (cons & rb->mask) == off - RINGBUF_HDR_SZ)
		ringbuf_wakeup(rb);
	return 0;
}

int map_ringbuf_submit(struct map *map, void *sample, uint64_t flags)
{
	return ringbuf_commit(map, sample, flags, false);
}

int map_ringbuf_discard(struct map *map, void *sample, uint64_t flags)
{
	return ringbuf_commit(map, sample, flags, true);
}

long map_ringbuf_output(struct map *map, const void *data, uint64_t size, uint64_t flags)
{
	void *sample;

	if (map->family != FAMILY_RINGBUF || (flags & ~(uint64_t)RB_WAKEUP_FLAGS))
		return -EINVAL;
	sample = map_ringbuf_reserve(map, size, 0);
	if (!sample)
		return -EAGAIN;
	memcpy(sample, data, size);
	return ringbuf_commit(map, sample, flags, false);
}

uint64_t map_ringbuf_query(struct map *map, uint64_t flags)
{
	struct ringbuf *rb;
	uint64_t cons, prod;

	if (map->family != FAMILY_RINGBUF)
		return 0;
	rb = map->u.rb;
	switch (flags) {
	case BPF_RB_AVAIL_DATA:
		cons = __atomic_load_n(&rb->consumer_pos, __ATOMIC_ACQUIRE);
		prod = __atomic_load_n(&rb->producer_pos, __ATOMIC_ACQUIRE);
		return prod - cons;
	case BPF_RB_RING_SIZE:
		return rb->mask + 1;
	case BPF_RB_CONS_POS:
		return __atomic_load_n(&rb->consumer_pos, __ATOMIC_ACQUIRE);
	case BPF_RB_PROD_POS:
		return __atomic_load_n(&rb->producer_pos, __ATOMIC_ACQUIRE);
	default:
		return 0;
	}
}

int map_ringbuf_consume(struct map *map, map_ringbuf_fn fn, void *ctx)
{
	struct ringbuf *rb;
	struct ringbuf_hdr *hdr;
	uint64_t cons, prod;
	uint32_t len, size;
	int count = 0, ret;

	if (map->family != FAMILY_RINGBUF)
		return -EINVAL;
	rb = map->u.rb;
	pthread_mutex_lock(&rb->cons_lock);
	cons = __atomic_load_n(&rb->consumer_pos, __ATOMIC_RELAXED);
	for (;;) {
		prod = __atomic_load_n(&rb->producer_pos, __ATOMIC_SEQ_CST);
		if (cons == prod)
			break;
		hdr = (struct ringbuf_hdr *)(rb->data + (cons & rb->mask));
		len = __atomic_load_n(&hdr->len, __ATOMIC_SEQ_CST);
		if (len & BPF_RINGBUF_BUSY_BIT)
			break; /* the producer will wake us (see ringbuf_commit) */
		size = len & ~BPF_RINGBUF_DISCARD_BIT;
		cons += round_up((uint64_t)size + RINGBUF_HDR_SZ, 8);
		if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
			/* The record's space is released only after fn returns. */
			ret = fn(ctx, hdr + 1, size);
			if (ret < 0) {
				__atomic_store_n(&rb->consumer_pos, cons, __ATOMIC_SEQ_CST);
				pthread_mutex_unlock(&rb->cons_lock);
				return ret;
			}
			if (count < INT_MAX)
				count++;
		}
		__atomic_store_n(&rb->consumer_pos, cons, __ATOMIC_SEQ_CST);
	}
	pthread_mutex_unlock(&rb->cons_lock);
	return count;
}

int map_ringbuf_wait_fd(struct map *map)
{
	if (map->family != FAMILY_RINGBUF)
		return -EINVAL;
	return map->u.rb->wake_fd;
}

/* ---- creation ------------------------------------------------------------- */

static void map_destroy(struct map *map)
{
	switch (map->family) {
	case FAMILY_HASH:
		htab_destroy(map);
		break;
	case FAMILY_ARRAY:
		if (map->u.array.values)
			munmap(map->u.array.values, map->u.array.map_len);
		break;
	case FAMILY_PROG_ARRAY:
		free(map->u.progs.slots);
		break;
	case FAMILY_QUEUE:
		if (map->u.qs.elems)
			pthread_mutex_destroy(&map->u.qs.lock);
		free(map->u.qs.elems);
		break;
	case FAMILY_RINGBUF:
		ringbuf_destroy(map);
		break;
	}
	free(map->name);
	free(map);
}

static int map_init(struct map *map, const struct object_map *spec, struct secbpf_err *err)
{
	int ret;

	ret = check_global_data(spec, err);
	if (ret)
		return ret;
	if ((map->map_flags & BPF_F_RDONLY) && (map->map_flags & BPF_F_WRONLY))
		return err_set(err, EINVAL, "BPF_F_RDONLY and BPF_F_WRONLY exclude each other");
	if ((map->map_flags & BPF_F_RDONLY_PROG) && (map->map_flags & BPF_F_WRONLY_PROG))
		return err_set(err, EINVAL,
			       "BPF_F_RDONLY_PROG and BPF_F_WRONLY_PROG exclude each other");

	switch (map->type) {
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		map->lru = true;
		/* fall through */
	case BPF_MAP_TYPE_PERCPU_HASH:
		map->percpu = true;
		/* fall through */
	case BPF_MAP_TYPE_HASH:
		map->family = FAMILY_HASH;
		break;
	case BPF_MAP_TYPE_LRU_HASH:
		map->lru = true;
		map->family = FAMILY_HASH;
		break;
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		map->percpu = true;
		/* fall through */
	case BPF_MAP_TYPE_ARRAY:
		map->family = FAMILY_ARRAY;
		break;
	case BPF_MAP_TYPE_PROG_ARRAY:
		map->family = FAMILY_PROG_ARRAY;
		break;
	case BPF_MAP_TYPE_QUEUE:
	case BPF_MAP_TYPE_STACK:
		map->family = FAMILY_QUEUE;
		break;
	case BPF_MAP_TYPE_RINGBUF:
		map->family = FAMILY_RINGBUF;
		break;
	default:
		return err_set(err, EINVAL,
			       "map type %u is not supported (supported: HASH, ARRAY, PROG_ARRAY, "
			       "PERCPU_HASH, PERCPU_ARRAY, LRU_HASH, LRU_PERCPU_HASH, QUEUE, "
			       "STACK, RINGBUF)",
			       map->type);
	}

	switch (map->family) {
	case FAMILY_HASH:
		ret = check_hash_spec(map, err);
		return ret ? ret : htab_create(map, err);
	case FAMILY_ARRAY:
		ret = check_array_spec(map, err);
		if (ret)
			return ret;
		ret = array_create(map, err);
		if (!ret && spec->init_data)
			memcpy(map->u.array.values, spec->init_data, map->value_size);
		return ret;
	case FAMILY_PROG_ARRAY:
		ret = check_array_spec(map, err);
		return ret ? ret : prog_array_create(map, err);
	case FAMILY_QUEUE:
		ret = check_queue_spec(map, err);
		return ret ? ret : qstack_create(map, err);
	case FAMILY_RINGBUF:
		ret = check_ringbuf_spec(map, err);
		return ret ? ret : ringbuf_create(map, err);
	}
	return err_set(err, EINVAL, "unknown map family");
}

struct map *map_create(const struct object_map *spec, unsigned int ncpus, struct secbpf_err *err)
{
	const char *name = spec && spec->name ? spec->name : "";
	struct map *map;
	int ret;

	if (!spec || !ncpus || ncpus > MAX_NCPUS) {
		errno = EINVAL;
		err_set(err, EINVAL, "map '%s': ncpus must be 1..%d", name, MAX_NCPUS);
		return NULL;
	}
	map = calloc(1, sizeof(*map));
	if (!map || !(map->name = strdup(name))) {
		free(map);
		errno = ENOMEM;
		err_set(err, ENOMEM, "map '%s': out of memory", name);
		return NULL;
	}
	map->kind = spec->kind;
	map->type = spec->type;
	map->key_size = spec->key_size;
	map->value_size = spec->value_size;
	map->max_entries = spec->max_entries;
	map->map_flags = spec->map_flags;
	map->ncpus = ncpus;
	map->family = FAMILY_PROG_ARRAY; /* nothing to release yet */
	/* libbpf makes .rodata read-only for programs; do the same. */
	if (spec->kind == OBJECT_MAP_RODATA)
		map->map_flags |= BPF_F_RDONLY_PROG;

	ret = map_init(map, spec, err);
	if (ret) {
		err_prefix(err, "map '%s' (%s)", name,
			   type_name(map->type) ? type_name(map->type) : "?");
		map_destroy(map);
		errno = -ret;
		return NULL;
	}
	return map;
}

void map_free(struct map *map)
{
	if (map)
		map_destroy(map);
}

/* ---- accessors --------------------------------------------------------------- */

const char *map_name(const struct map *map)
{
	return map->name;
}

uint32_t map_type(const struct map *map)
{
	return map->type;
}

uint32_t map_key_size(const struct map *map)
{
	return map->key_size;
}

uint32_t map_value_size(const struct map *map)
{
	return map->value_size;
}

uint32_t map_max_entries(const struct map *map)
{
	return map->max_entries;
}

uint32_t map_flags(const struct map *map)
{
	return map->map_flags;
}

unsigned int map_ncpus(const struct map *map)
{
	return map->ncpus;
}

size_t map_user_value_size(const struct map *map)
{
	if (map->percpu)
		return round_up(map->value_size, 8) * map->ncpus;
	return map->value_size;
}

bool map_prog_writable(const struct map *map)
{
	return !(map->map_flags & BPF_F_RDONLY_PROG);
}

bool map_is_frozen(const struct map *map)
{
	return __atomic_load_n(&map->frozen, __ATOMIC_ACQUIRE);
}

int map_direct_value(struct map *map, void **value)
{
	if (map->family != FAMILY_ARRAY || map->percpu || map->max_entries != 1)
		return -EOPNOTSUPP;
	*value = map->u.array.values;
	return 0;
}

/* ---- program side ------------------------------------------------------------ */

void *map_lookup(struct map *map, const void *key, unsigned int cpu)
{
	struct cds_lfht_iter iter;
	struct htab_elem *e;
	uint32_t index;
	void *value = NULL;

	if (cpu >= map->ncpus)
		return NULL;
	switch (map->family) {
	case FAMILY_HASH:
		map_rcu_read_lock();
		e = htab_find(map, key, htab_hash(map, key), &iter);
		if (e) {
			if (map->lru)
				lru_touch(e);
			value = map->percpu ? elem_value_cpu(map, e, cpu) : elem_value(map, e);
		}
		map_rcu_read_unlock();
		return value;
	case FAMILY_ARRAY:
		index = *(const uint32_t *)key;
		if (index >= map->max_entries)
			return NULL;
		return array_elem(map, index, cpu);
	default:
		return NULL;
	}
}

int map_update(struct map *map, const void *key, const void *value, uint64_t flags,
	       unsigned int cpu)
{
	int ret;

	if (cpu >= map->ncpus)
		return -EINVAL;
	if (!map_prog_writable(map))
		return -EPERM;
	switch (map->family) {
	case FAMILY_HASH:
		ret = check_update_flags(flags);
		if (ret)
			return ret;
		map_rcu_read_lock();
		if (map->lru)
			ret = lru_update(map, key, value, flags, cpu);
		else
			ret = htab_update(map, key, value, flags, cpu);
		map_rcu_read_unlock();
		return ret;
	case FAMILY_ARRAY:
		return array_update(map, key, value, flags, cpu);
	default:
		/* PROG_ARRAY, QUEUE, STACK, RINGBUF take no update from a program. */
		return -EINVAL;
	}
}

static int map_delete_elem(struct map *map, const void *key)
{
	uint32_t index;
	uint64_t old;
	int ret;

	switch (map->family) {
	case FAMILY_HASH:
		map_rcu_read_lock();
		ret = map->lru ? lru_delete(map, key) : htab_delete(map, key);
		map_rcu_read_unlock();
		return ret;
	case FAMILY_PROG_ARRAY:
		index = *(const uint32_t *)key;
		if (index >= map->max_entries)
			return -E2BIG;
		old = __atomic_exchange_n(&map->u.progs.slots[index], 0, __ATOMIC_ACQ_REL);
		return old ? 0 : -ENOENT;
	case FAMILY_RINGBUF:
		return -ENOTSUPP;
	default:
		/* Array elements always exist; queues pop instead. */
		return -EINVAL;
	}
}

int map_delete(struct map *map, const void *key)
{
	if (!map_prog_writable(map))
		return -EPERM;
	if (map->family == FAMILY_PROG_ARRAY || map->family == FAMILY_RINGBUF)
		return -EINVAL;
	return map_delete_elem(map, key);
}

int map_push(struct map *map, const void *value, uint64_t flags)
{
	if (map->family != FAMILY_QUEUE)
		return -EINVAL;
	if (!map_prog_writable(map))
		return -EPERM;
	return qstack_push(map, value, flags);
}

int map_pop(struct map *map, void *value)
{
	if (map->family != FAMILY_QUEUE)
		return -EINVAL;
	if (!map_prog_writable(map))
		return -EPERM;
	return qstack_get(map, value, true);
}

int map_peek(struct map *map, void *value)
{
	if (map->family != FAMILY_QUEUE)
		return -EINVAL;
	return qstack_get(map, value, false);
}

long map_for_each(struct map *map, map_for_each_fn fn, void *ctx, uint64_t flags, unsigned int cpu)
{
	struct cds_lfht_iter iter;
	struct htab_elem *e;
	uint32_t index;
	long n = 0;

	if (flags || cpu >= map->ncpus)
		return -EINVAL;
	switch (map->family) {
	case FAMILY_HASH:
		map_rcu_read_lock();
		cds_lfht_for_each_entry(map->u.htab.ht, &iter, e, node) {
			tsan_acquire(e);
			n++;
			if (fn(map, e->key,
			       map->percpu ? elem_value_cpu(map, e, cpu) : elem_value(map, e), ctx))
				break;
		}
		map_rcu_read_unlock();
		return n;
	case FAMILY_ARRAY:
		for (index = 0; index < map->max_entries; index++) {
			n++;
			if (fn(map, &index, array_elem(map, index, cpu), ctx))
				break;
		}
		return n;
	default:
		return -EINVAL;
	}
}

/* ---- user side ---------------------------------------------------------------- */

static bool user_can_write(const struct map *map)
{
	return !(map->map_flags & BPF_F_RDONLY) && !map_is_frozen(map);
}

int map_lookup_user(struct map *map, const void *key, void *value)
{
	struct cds_lfht_iter iter;
	struct htab_elem *e;
	unsigned int c;
	size_t stride = round_up(map->value_size, 8);
	uint32_t index, prog;
	int ret = 0;

	if (map->map_flags & BPF_F_WRONLY)
		return -EPERM;
	switch (map->family) {
	case FAMILY_HASH:
		map_rcu_read_lock();
		/* Like the kernel's syscall path, this does not mark LRU use. */
		e = htab_find(map, key, htab_hash(map, key), &iter);
		if (!e)
			ret = -ENOENT;
		else if (!map->percpu)
			value_copy(value, elem_value(map, e), map->value_size);
		else
			for (c = 0; c < map->ncpus; c++)
				value_copy((unsigned char *)value + c * stride,
					   elem_value_cpu(map, e, c), map->value_size);
		map_rcu_read_unlock();
		return ret;
	case FAMILY_ARRAY:
		index = *(const uint32_t *)key;
		if (index >= map->max_entries)
			return -ENOENT;
		if (!map->percpu) {
			value_copy(value, array_elem(map, index, 0), map->value_size);
			return 0;
		}
		for (c = 0; c < map->ncpus; c++) {
			memset((unsigned char *)value + c * stride, 0, stride);
			value_copy((unsigned char *)value + c * stride, array_elem(map, index, c),
				   map->value_size);
		}
		return 0;
	case FAMILY_PROG_ARRAY:
		ret = map_prog_array_get(map, *(const uint32_t *)key, &prog);
		if (!ret)
			memcpy(value, &prog, sizeof(prog));
		return ret;
	case FAMILY_QUEUE:
		return qstack_get(map, value, false);
	case FAMILY_RINGBUF:
		return -ENOTSUPP;
	}
	return -EINVAL;
}

int map_update_user(struct map *map, const void *key, const void *value, uint64_t flags)
{
	uint32_t index, prog;
	int ret;

	if (!user_can_write(map))
		return -EPERM;
	/* Checked by bpf() itself, before the map type has its say. */
	if (flags & BPF_F_LOCK)
		return -EINVAL;
	switch (map->family) {
	case FAMILY_HASH:
		ret = check_update_flags(flags);
		if (ret)
			return ret;
		map_rcu_read_lock();
		/* cpu == ncpus: the buffer holds every slot's value. */
		if (map->lru)
			ret = lru_update(map, key, value, flags, map->ncpus);
		else
			ret = htab_update(map, key, value, flags, map->ncpus);
		map_rcu_read_unlock();
		return ret;
	case FAMILY_ARRAY:
		return array_update(map, key, value, flags, map->ncpus);
	case FAMILY_PROG_ARRAY:
		if (flags != BPF_ANY)
			return -EINVAL;
		index = *(const uint32_t *)key;
		if (index >= map->max_entries)
			return -E2BIG;
		memcpy(&prog, value, sizeof(prog));
		__atomic_store_n(&map->u.progs.slots[index], (uint64_t)prog + 1, __ATOMIC_RELEASE);
		return 0;
	case FAMILY_QUEUE:
		return qstack_push(map, value, flags);
	case FAMILY_RINGBUF:
		return -ENOTSUPP;
	}
	return -EINVAL;
}

int map_delete_user(struct map *map, const void *key)
{
	if (!user_can_write(map))
		return -EPERM;
	return map_delete_elem(map, key);
}

int map_pop_user(struct map *map, void *value)
{
	if (map->family != FAMILY_QUEUE)
		return -ENOTSUPP;
	if (!user_can_write(map))
		return -EPERM;
	return qstack_get(map, value, true);
}

int map_get_next_key(struct map *map, const void *key, void *next_key)
{
	int ret;

	if (map->map_flags & BPF_F_WRONLY)
		return -EPERM;
	switch (map->family) {
	case FAMILY_HASH:
		map_rcu_read_lock();
		ret = htab_get_next_key(map, key, next_key);
		map_rcu_read_unlock();
		return ret;
	case FAMILY_ARRAY:
	case FAMILY_PROG_ARRAY:
		return array_get_next_key(map, key, next_key);
	case FAMILY_QUEUE:
		return -EINVAL;
	case FAMILY_RINGBUF:
		return -ENOTSUPP;
	}
	return -EINVAL;
}

int map_freeze(struct map *map)
{
	bool expected = false;

	/* Frozen or BPF_F_RDONLY: no write permission left, hence -EPERM
	 * (the kernel checks the permission before its own -EBUSY test). */
	if (map->map_flags & BPF_F_RDONLY)
		return -EPERM;
	if (!__atomic_compare_exchange_n(&map->frozen, &expected, true, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return -EPERM;
	return 0;
}
