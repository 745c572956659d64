// SPDX-License-Identifier: MIT
/*
 * Tests of lib/vm/events.c, the ring buffer reader of `secbpf run --events`:
 * the line format, and the reader thread against producer threads on a
 * small ring that wraps many times (every record printed exactly once, in
 * each producer's order), wake-ups with BPF_RB_NO_WAKEUP and
 * BPF_RB_FORCE_WAKEUP, discarded records, and the drain at stop.
 * End-to-end runs are in tests/test_run.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vm/events.h"
#include "vm/maps.h"

static struct map *ring(const char *name, uint32_t size)
{
	struct object_map s = {
		.name = (char *)name,
		.kind = OBJECT_MAP_BTF,
		.type = BPF_MAP_TYPE_RINGBUF,
		.max_entries = size,
	};
	struct secbpf_err err = { { 0 } };
	struct map *m = map_create(&s, 1, &err);

	cr_assert_not_null(m, "map_create: %s", err.msg);
	return m;
}

static struct events *reader(FILE *out, struct map **maps, int n)
{
	struct events_opts opts = { .sz = sizeof(opts), .out = out };
	struct secbpf_err err = { { 0 } };
	struct events *ev = events_new(&opts, &err);
	int i;

	cr_assert_not_null(ev, "%s", err.msg);
	for (i = 0; i < n; i++)
		cr_assert_eq(events_add_map(ev, maps[i], "spec.o", &err), 0, "%s", err.msg);
	return ev;
}

/* The whole of a tmpfile, NUL-terminated (malloc'ed). */
static char *contents(FILE *f)
{
	long n;
	char *s;

	fflush(f);
	n = ftell(f);
	cr_assert_geq(n, 0);
	s = malloc((size_t)n + 1);
	cr_assert_not_null(s);
	rewind(f);
	cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = '\0';
	return s;
}

static void expect_line(const char *label, const void *data, uint32_t size, const char *want)
{
	char *line = events_format_record(label, data, size);

	cr_assert_not_null(line);
	cr_expect_str_eq(line, want);
	free(line);
}

Test(events, format)
{
	const unsigned char bin[] = { 0x00, 0x01, 0xab, 0xff };
	const unsigned char nonul[] = { 'a', 'b' };

	expect_line("m", "/etc/passwd", 12,
		    "secbpf: event m 12: 2f6574632f70617373776400 \"/etc/passwd\"");
	/* Bytes after the NUL are shown in hex only. */
	expect_line("m", "hi\0\x07z", 5, "secbpf: event m 5: 686900077a \"hi\"");
	expect_line("m", "a\"b\\c", 6, "secbpf: event m 6: 6122625c6300 \"a\\\"b\\\\c\"");
	/* Not text: binary, no NUL at all, an empty string, a control char. */
	expect_line("m", bin, sizeof(bin), "secbpf: event m 4: 0001abff");
	expect_line("m", nonul, sizeof(nonul), "secbpf: event m 2: 6162");
	expect_line("m", "", 1, "secbpf: event m 1: 00");
	expect_line("m", "a\tb", 4, "secbpf: event m 4: 61096200");
	expect_line("spec.o:m", NULL, 0, "secbpf: event spec.o:m 0:");
}

Test(events, labels_are_qualified_only_on_a_clash)
{
	struct map *m[3] = { ring("a", 4096), ring("b", 4096), ring("a", 4096) };
	FILE *f = tmpfile();
	struct events *ev = reader(f, m, 3);
	char *s;

	cr_assert_eq(events_nrings(ev), 3);
	cr_assert_eq(map_ringbuf_output(m[0], "x", 2, 0), 0);
	cr_assert_eq(map_ringbuf_output(m[1], "y", 2, 0), 0);
	cr_assert_eq(map_ringbuf_output(m[2], "z", 2, 0), 0);
	events_stop(ev); /* never started: the drain alone prints them */
	s = contents(f);
	cr_expect_str_eq(s, "secbpf: event spec.o:a 2: 7800 \"x\"\n"
			    "secbpf: event b 2: 7900 \"y\"\n"
			    "secbpf: event spec.o:a 2: 7a00 \"z\"\n");
	cr_expect_eq(events_count(ev), 3);
	free(s);
	events_free(ev);
	fclose(f);
	for (int i = 0; i < 3; i++)
		map_free(m[i]);
}

Test(events, discarded_and_reserved_records)
{
	struct map *m = ring("r", 4096);
	FILE *f = tmpfile();
	struct events *ev = reader(f, &m, 1);
	char *a, *b, *c, *s;

	a = map_ringbuf_reserve(m, 2, 0);
	b = map_ringbuf_reserve(m, 2, 0);
	c = map_ringbuf_reserve(m, 2, 0);
	cr_assert(a && b && c);
	memcpy(a, "A", 2);
	memcpy(b, "B", 2);
	memcpy(c, "C", 2);
	cr_assert_eq(map_ringbuf_submit(m, a, 0), 0);
	cr_assert_eq(map_ringbuf_discard(m, b, 0), 0);
	events_stop(ev);
	/* c is still reserved: nothing after it yet. */
	s = contents(f);
	cr_expect_str_eq(s, "secbpf: event r 2: 4100 \"A\"\n");
	free(s);
	cr_assert_eq(map_ringbuf_submit(m, c, 0), 0);
	events_stop(ev);
	s = contents(f);
	cr_expect_str_eq(s, "secbpf: event r 2: 4100 \"A\"\nsecbpf: event r 2: 4300 \"C\"\n");
	free(s);
	events_free(ev);
	fclose(f);
	map_free(m);
}

/* Wait up to 3 s for the reader to have printed want records. */
static bool wait_count(struct events *ev, uint64_t want)
{
	struct timespec ts = { 0, 1000000 };
	int i;

	for (i = 0; i < 3000; i++) {
		if (events_count(ev) >= want)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

Test(events, wakeups)
{
	struct map *m = ring("w", 4096);
	FILE *f = tmpfile();
	struct events *ev = reader(f, &m, 1);
	struct secbpf_err err = { { 0 } };

	cr_assert_eq(events_start(ev, &err), 0, "%s", err.msg);
	/* The reader is caught up: a plain submit wakes it. */
	cr_assert_eq(map_ringbuf_output(m, "1", 2, 0), 0);
	cr_expect(wait_count(ev, 1), "a plain submit was not seen");
	cr_assert_eq(map_ringbuf_output(m, "2", 2, BPF_RB_FORCE_WAKEUP), 0);
	cr_expect(wait_count(ev, 2), "a forced wakeup was not seen");
	/* No wakeup: seen at the next sweep, without any other record. */
	cr_assert_eq(map_ringbuf_output(m, "3", 2, BPF_RB_NO_WAKEUP), 0);
	cr_expect(wait_count(ev, 3), "a NO_WAKEUP record was not seen by the sweep");
	events_stop(ev);
	cr_expect_eq(events_count(ev), 3);
	events_free(ev);
	fclose(f);
	map_free(m);
}

#define PRODUCERS 4
#define PER_PRODUCER 20000

struct producer {
	struct map *map;
	uint32_t id;
	unsigned long retries;
	int failures; /* commits that failed (asserted in the main thread) */
};

/* Each record: producer id, sequence number (16 bytes with the header:
 * 24, so a 4096-byte ring holds 170 and wraps about 470 times). Every
 * eighth record is reserved, half of those discarded; some skip the
 * wakeup. A full ring is retried, so that every record gets through. */
static void *produce(void *arg)
{
	struct producer *p = arg;
	uint64_t rec[2], flags;
	uint32_t i;
	void *s;

	for (i = 0; i < PER_PRODUCER; i++) {
		rec[0] = p->id;
		rec[1] = i;
		flags = i % 3 == 0 ? BPF_RB_NO_WAKEUP : 0;
		if (i % 8 == 0) {
			/* A discarded twin first: the reader must skip it. */
			while (!(s = map_ringbuf_reserve(p->map, sizeof(rec), 0))) {
				p->retries++;
				sched_yield();
			}
			memset(s, 0xee, sizeof(rec));
			p->failures += map_ringbuf_discard(p->map, s, flags) != 0;
			while (!(s = map_ringbuf_reserve(p->map, sizeof(rec), 0))) {
				p->retries++;
				sched_yield();
			}
			memcpy(s, rec, sizeof(rec));
			p->failures += map_ringbuf_submit(p->map, s, flags) != 0;
			continue;
		}
		while (map_ringbuf_output(p->map, rec, sizeof(rec), flags) == -EAGAIN) {
			p->retries++;
			sched_yield();
		}
	}
	return NULL;
}

static unsigned int hexval(char c)
{
	return c <= '9' ? (unsigned int)(c - '0') : (unsigned int)(c - 'a' + 10);
}

Test(events, concurrent_producers_wrap_the_ring, .timeout = 120)
{
	struct map *m = ring("rb", 4096);
	FILE *f = tmpfile();
	struct events *ev = reader(f, &m, 1);
	struct secbpf_err err = { { 0 } };
	struct producer p[PRODUCERS];
	pthread_t t[PRODUCERS];
	uint32_t next[PRODUCERS] = { 0 };
	unsigned long lines = 0;
	char *s, *line, *save;
	int i, k;

	cr_assert_eq(events_start(ev, &err), 0, "%s", err.msg);
	for (i = 0; i < PRODUCERS; i++) {
		p[i] = (struct producer){ .map = m, .id = (uint32_t)i };
		cr_assert_eq(pthread_create(&t[i], NULL, produce, &p[i]), 0);
	}
	for (i = 0; i < PRODUCERS; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(p[i].failures, 0);
	}
	events_stop(ev);
	s = contents(f);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned char b[16];
		uint64_t id, seq;
		const char *hex;

		cr_assert_eq(strncmp(line, "secbpf: event rb 16: ", 21), 0, "bad line: %s", line);
		hex = line + 21;
		cr_assert_eq(strlen(hex), 32, "bad line: %s", line);
		for (k = 0; k < 16; k++)
			b[k] = (unsigned char)(hexval(hex[2 * k]) << 4 | hexval(hex[2 * k + 1]));
		memcpy(&id, b, 8);
		memcpy(&seq, b + 8, 8);
		cr_assert_lt(id, PRODUCERS, "a discarded record or garbage: %s", line);
		cr_assert_eq(seq, next[id], "producer %llu: got %llu, expected %u",
			     (unsigned long long)id, (unsigned long long)seq, next[id]);
		next[id]++;
		lines++;
	}
	for (i = 0; i < PRODUCERS; i++)
		cr_expect_eq(next[i], PER_PRODUCER, "producer %d: %u records", i, next[i]);
	cr_expect_eq(lines, PRODUCERS * PER_PRODUCER);
	cr_expect_eq(events_count(ev), PRODUCERS * PER_PRODUCER);
	free(s);
	events_free(ev);
	fclose(f);
	map_free(m);
}

Test(events, a_started_reader_is_stopped_by_free)
{
	struct map *m = ring("x", 4096);
	FILE *f = tmpfile();
	struct events *ev = reader(f, &m, 1);
	struct secbpf_err err = { { 0 } };

	cr_assert_eq(events_start(ev, &err), 0, "%s", err.msg);
	cr_assert_neq(events_start(ev, &err), 0, "started twice");
	cr_assert_neq(events_add_map(ev, m, "late", &err), 0, "added while running");
	events_free(ev);
	fclose(f);
	map_free(m);
}
