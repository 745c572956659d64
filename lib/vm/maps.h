/* SPDX-License-Identifier: MIT */
/*
 * BPF maps in user space (lib/vm/maps.c), shared by the supervisor's worker
 * threads with the kernel's semantics: same types, flags, errors and RCU
 * lifetime rules. Every function returns a negative errno as bpf() would.
 */
#ifndef SECBPF_MAPS_H
#define SECBPF_MAPS_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "object/object.h"

/*
 * The kernel's internal ENOTSUPP (524), which bpf() does return to user
 * space for an operation a map type lacks (e.g. lookup on a ring buffer).
 * Kept as is so that errors compare equal to the kernel's.
 */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

/* Upper bound on the memory one map may need; beyond it create fails. */
#define MAP_MEMORY_LIMIT (1ULL << 30)

struct map;

/*
 * Concurrency and lifetime rules (the kernel's, see seed 001):
 *
 * - RCU flavour: liburcu "bp" (link with -lurcu-bp -lurcu-cds). Threads need
 *   no registration, so the loader, the workers and the tests cannot forget
 *   it; the read side is a TLS counter update (the writer side uses
 *   membarrier).
 * - The interpreter runs a program between map_rcu_read_lock() and
 *   map_rcu_read_unlock(). A value pointer from map_lookup() (and the
 *   key/value pointers given to a map_for_each() callback) stay valid until
 *   that critical section ends, even if another thread deletes or replaces
 *   the element meanwhile: memory is reclaimed only after a grace period.
 *   Sections nest; every other function takes the lock it needs itself.
 * - Values are updated in place by programs: atomic instructions on a value
 *   from several threads are exact. A hash update with BPF_ANY/BPF_EXIST
 *   installs a new element (the old one stays readable for readers that
 *   hold it, as in the kernel); array and per-CPU updates copy in place.
 * - "cpu" is a worker-slot index in 0..ncpus-1 given at map_create(): each
 *   worker thread uses its own slot, which gives PERCPU maps their meaning
 *   (no sharing between slots). Out-of-range slots make lookups return NULL
 *   and updates -EINVAL.
 * - map_free() must be called when no other thread uses the map.
 */
void map_rcu_read_lock(void);
void map_rcu_read_unlock(void);
/* Wait until memory freed by earlier updates has been reclaimed. Not inside
 * a read-side critical section. For tests and orderly shutdown. */
void map_rcu_barrier(void);

/*
 * Create a map from its ELF spec. ncpus (>= 1) is the number of worker
 * slots. Checks the spec as the kernel's map_create() does (-EINVAL for bad
 * sizes or flags, -E2BIG for sizes past the kernel's limits) and caps the
 * memory at MAP_MEMORY_LIMIT (-ENOMEM). Global data maps (.data, .rodata,
 * .bss) start with spec->init_data; .rodata gets BPF_F_RDONLY_PROG.
 * Returns NULL with err set and errno set to the positive error code.
 */
struct map *map_create(const struct object_map *spec, unsigned int ncpus, struct secbpf_err *err);
void map_free(struct map *map);

const char *map_name(const struct map *map);
uint32_t map_type(const struct map *map);
uint32_t map_key_size(const struct map *map);
uint32_t map_value_size(const struct map *map);
uint32_t map_max_entries(const struct map *map);
uint32_t map_flags(const struct map *map);
unsigned int map_ncpus(const struct map *map);
/* Bytes of the buffer that map_lookup_user/map_update_user take: ncpus
 * values of round_up(value_size, 8) bytes for per-CPU maps (the kernel's
 * layout), value_size otherwise (4 for a PROG_ARRAY). */
size_t map_user_value_size(const struct map *map);
/* Whether a program may write the map (false for BPF_F_RDONLY_PROG,
 * which .rodata gets). */
bool map_prog_writable(const struct map *map);

/*
 * Program side: what the helpers do. cpu is the caller's worker slot.
 */

/* bpf_map_lookup_elem: the value (this slot's for per-CPU maps), or NULL.
 * NULL for an out-of-range array index, a missing key, and for map types a
 * program cannot look up (QUEUE, STACK, RINGBUF, PROG_ARRAY). */
void *map_lookup(struct map *map, const void *key, unsigned int cpu);

/* bpf_map_update_elem: flags BPF_ANY, BPF_NOEXIST or BPF_EXIST. For per-CPU
 * maps only this slot's value is written (a new element's other slots are
 * zeroed). -EINVAL bad flags (BPF_F_LOCK: no map has a spin lock here),
 * -EEXIST, -ENOENT, -E2BIG (hash full, array index out of range), -ENOMEM,
 * -EPERM for a map the program may not write. */
int map_update(struct map *map, const void *key, const void *value, uint64_t flags,
	       unsigned int cpu);

/* bpf_map_delete_elem: -ENOENT if absent; -EINVAL for arrays. */
int map_delete(struct map *map, const void *key);

/* bpf_map_push/pop/peek_elem for QUEUE and STACK. Push with BPF_EXIST
 * replaces the oldest element when full, else -E2BIG; pop/peek return
 * -ENOENT when empty. -EINVAL on other map types. */
int map_push(struct map *map, const void *value, uint64_t flags);
int map_pop(struct map *map, void *value);
int map_peek(struct map *map, void *value);

/*
 * bpf_for_each_map_elem: calls fn for each element (key, this slot's value)
 * until fn returns non-zero; returns the number of elements visited,
 * including the one that stopped the walk. flags must be 0 (-EINVAL).
 * Supported for HASH, ARRAY and their PERCPU/LRU forms; -EINVAL otherwise.
 * fn may delete or update elements of a hash map (it runs under RCU).
 */
typedef long (*map_for_each_fn)(struct map *map, const void *key, void *value, void *ctx);
long map_for_each(struct map *map, map_for_each_fn fn, void *ctx, uint64_t flags, unsigned int cpu);

/* Tail calls: the program index stored at index of a PROG_ARRAY.
 * Returns 0 with *prog set, -ENOENT for an empty slot or an index out of
 * range (the tail call falls through), -EINVAL for another map type. */
int map_prog_array_get(struct map *map, uint32_t index, uint32_t *prog);

/*
 * Direct value access (BPF_PSEUDO_MAP_VALUE, global data): the value of an
 * ARRAY with max_entries 1. Returns 0 with *value set, -EOPNOTSUPP
 * otherwise. The pointer is valid until map_free().
 */
int map_direct_value(struct map *map, void **value);

/*
 * User side: what bpf() does for the supervisor, the dumper and the loader.
 * Values are copied; per-CPU maps take and give all slots. These honour
 * BPF_F_RDONLY/BPF_F_WRONLY and freezing (-EPERM) but not the _PROG flags.
 */

/* BPF_MAP_LOOKUP_ELEM: copy the value out. -ENOENT if absent. QUEUE/STACK:
 * peek. PROG_ARRAY: the stored program index. RINGBUF: -ENOTSUPP. */
int map_lookup_user(struct map *map, const void *key, void *value);
/* BPF_MAP_UPDATE_ELEM. QUEUE/STACK: push (key ignored). PROG_ARRAY: value
 * is a u32 program index, flags must be BPF_ANY. RINGBUF: -ENOTSUPP. */
int map_update_user(struct map *map, const void *key, const void *value, uint64_t flags);
/* BPF_MAP_DELETE_ELEM. */
int map_delete_user(struct map *map, const void *key);
/* BPF_MAP_LOOKUP_AND_DELETE_ELEM for QUEUE/STACK (pop). */
int map_pop_user(struct map *map, void *value);
/*
 * BPF_MAP_GET_NEXT_KEY: key NULL (or absent from a hash map) gives the
 * first key; -ENOENT after the last. Without concurrent updates, iterating
 * from NULL visits every key exactly once.
 */
int map_get_next_key(struct map *map, const void *key, void *next_key);
/* BPF_MAP_FREEZE: user-side writes fail with -EPERM from now on (the
 * program side is unaffected, as in the kernel). -EPERM if already frozen
 * or created BPF_F_RDONLY. */
int map_freeze(struct map *map);
bool map_is_frozen(const struct map *map);

/*
 * RINGBUF. Records have the kernel's 8-byte header (len with
 * BPF_RINGBUF_BUSY_BIT while reserved, BPF_RINGBUF_DISCARD_BIT once
 * discarded; pg_off) and are rounded up to 8 bytes; the data area is mapped
 * twice back to back, so a record that wraps is contiguous.
 */

/* bpf_ringbuf_reserve: a writable sample of size bytes, or NULL when flags
 * are not 0, the size is too large or the ring is full. */
void *map_ringbuf_reserve(struct map *map, uint64_t size, uint64_t flags);
/* bpf_ringbuf_submit/discard with BPF_RB_NO_WAKEUP/BPF_RB_FORCE_WAKEUP. The
 * kernel finds the ring from the sample; here the caller (the helper, which
 * must track what it reserved) passes the map, and a sample that is not a
 * pending record of this map gives -EINVAL instead of corrupting it. */
int map_ringbuf_submit(struct map *map, void *sample, uint64_t flags);
int map_ringbuf_discard(struct map *map, void *sample, uint64_t flags);
/* bpf_ringbuf_output: 0, -EINVAL (bad flags), -EAGAIN (no room). */
long map_ringbuf_output(struct map *map, const void *data, uint64_t size, uint64_t flags);
/* bpf_ringbuf_query: BPF_RB_AVAIL_DATA, _RING_SIZE, _CONS_POS, _PROD_POS;
 * 0 for anything else. */
uint64_t map_ringbuf_query(struct map *map, uint64_t flags);

/*
 * Consumer (the supervisor's --events reader). Calls fn for each submitted
 * record in order, skipping discarded ones, and stops at the first record
 * still reserved. If fn returns a negative value, consumption stops after
 * that record and the value is returned. Otherwise returns the number of
 * records passed to fn. One consumer at a time (serialised internally).
 */
typedef int (*map_ringbuf_fn)(void *ctx, void *data, uint32_t size);
int map_ringbuf_consume(struct map *map, map_ringbuf_fn fn, void *ctx);
/*
 * An eventfd that becomes readable when a submit asks for a wakeup (the
 * consumer had caught up with that record, or BPF_RB_FORCE_WAKEUP). Wait
 * with poll(), read() it to reset, then map_ringbuf_consume(). A record
 * submitted with BPF_RB_NO_WAKEUP is only seen at the next wakeup or poll
 * timeout, as in the kernel. Owned by the map.
 */
int map_ringbuf_wait_fd(struct map *map);

#endif
