/* SPDX-License-Identifier: MIT */
/*
 * The reader of the programs' ring buffers (`secbpf run --events`): one
 * thread in the supervising process that consumes every BPF_MAP_TYPE_RINGBUF
 * map of the runtimes as the worker threads submit records, and prints each
 * record as one line. The record protocol itself (header, BUSY and DISCARD
 * bits, positions) is lib/vm/maps.c's map_ringbuf_consume().
 */
#ifndef SECBPF_EVENTS_H
#define SECBPF_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "object/object.h"
#include "vm/runtime.h"

struct map;

/* How often the reader looks at the rings without being woken: records
 * submitted with BPF_RB_NO_WAKEUP are seen at the next wakeup or after at
 * most this long. */
#define EVENTS_SWEEP_MS 100

/* At most this many ring buffers are read by one reader. */
#define EVENTS_MAX_RINGS 64

struct events_opts {
	size_t sz;    /* sizeof(struct events_opts) */
	FILE *out;    /* where the lines go; NULL: stderr */
	int sweep_ms; /* 0: EVENTS_SWEEP_MS */
};

struct events;

struct events *events_new(const struct events_opts *opts, struct secbpf_err *err);

/*
 * Read every RINGBUF map that obj declares, as instantiated in rt (obj is
 * the object rt was made from; spec names it in labels, see below). Both
 * must outlive the reader. Returns the number of rings added (0 if obj has
 * none) or a negative errno with err set. Only before events_start().
 */
int events_add_runtime(struct events *ev, struct runtime *rt, const struct object *obj,
		       const char *spec, struct secbpf_err *err);

/* Read one RINGBUF map; spec qualifies its name in labels. The same as
 * events_add_runtime() for a map made elsewhere (tests). Returns 0 or a
 * negative errno with err set. */
int events_add_map(struct events *ev, struct map *map, const char *spec, struct secbpf_err *err);

/* The number of rings added so far. */
unsigned int events_nrings(const struct events *ev);

/*
 * Start the reader thread (all signals blocked in it). It sleeps in poll()
 * on the rings' wakeup eventfds (lib/vm/maps.c signals one when a submit finds
 * the reader caught up with that record, or with BPF_RB_FORCE_WAKEUP) and
 * sweeps every ring each sweep_ms. No thread without rings. Returns 0 or
 * a negative errno.
 */
int events_start(struct events *ev, struct secbpf_err *err);

/*
 * Stop the reader thread if it runs, then drain: print every record still
 * submitted in the rings. Call it once the producers are done (after
 * supervisor_wait) so that nothing is left behind. Idempotent.
 */
void events_stop(struct events *ev);

/* Records printed so far (a count the tests and --stats may use). */
uint64_t events_count(const struct events *ev);

/* Stop (if needed) and free. The maps are not the reader's. */
void events_free(struct events *ev);

/*
 * One record as the line events prints, without the newline:
 *
 *   secbpf: event LABEL LEN: HEX[ "TEXT"]
 *
 * LABEL is the map's name, or SPEC:MAP when two rings read by one reader
 * have the same name; LEN the record's size in bytes, in decimal; HEX the
 * record's bytes as lowercase hex pairs, nothing in between (empty for an
 * empty record). TEXT is added when the record starts with printable ASCII
 * (0x20..0x7e) up to a NUL byte: the string, with '"' and '\' escaped by a
 * backslash. Returns a malloc'ed string, or NULL when out of memory.
 */
char *events_format_record(const char *label, const void *data, uint32_t size);

#endif
