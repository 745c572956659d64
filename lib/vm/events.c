// SPDX-License-Identifier: MIT
/*
 * The ring buffer reader of `secbpf run --events` (see events.h). The
 * workers are the producers; this is the one consumer of every ring, so
 * each ring is consumed in order: map_ringbuf_consume() (lib/vm/maps.c) stops
 * at the first record still reserved, skips discarded ones, and releases a
 * record's space (a store of the consumer position with release semantics)
 * only after it has been printed.
 *
 * Wake-ups: a submit writes the ring's eventfd when it finds the reader
 * caught up with that record (the kernel's rule), or always with
 * BPF_RB_FORCE_WAKEUP; the reader sleeps in poll() on those eventfds and a
 * stop eventfd, and also sweeps every ring each sweep_ms, which is when
 * records submitted with BPF_RB_NO_WAKEUP show up if nothing else wakes it.
 * It never spins: an idle reader wakes sweep_ms apart and finds nothing.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "vm/events.h"
#include "vm/maps.h"

struct events_ring {
	struct map *map;
	const char *spec; /* the object's -f spec, for labels */
	char *label;	  /* the map name, or SPEC:MAP when names collide */
	int wake_fd;	  /* the map's, not ours */
};

struct events {
	FILE *out;
	int sweep_ms;
	struct events_ring rings[EVENTS_MAX_RINGS];
	unsigned int nrings;
	int stop_fd;
	pthread_t thread;
	bool started;
	uint64_t count; /* atomic: read by events_count from any thread */
};

struct events *events_new(const struct events_opts *opts, struct secbpf_err *err)
{
	struct events *ev;

	ev = calloc(1, sizeof(*ev));
	if (!ev) {
		err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	ev->out = stderr;
	ev->sweep_ms = EVENTS_SWEEP_MS;
	/* Options from an older caller (smaller sz) keep their defaults. */
	if (opts && opts->sz >= offsetof(struct events_opts, out) + sizeof(opts->out) && opts->out)
		ev->out = opts->out;
	if (opts && opts->sz >= offsetof(struct events_opts, sweep_ms) + sizeof(opts->sweep_ms) &&
	    opts->sweep_ms > 0)
		ev->sweep_ms = opts->sweep_ms;
	ev->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ev->stop_fd < 0) {
		err_set(err, errno, "eventfd: %s", strerror(errno));
		free(ev);
		return NULL;
	}
	return ev;
}

/*
 * Label ring i: its map's name, qualified by the spec when another ring
 * has the same name (so that two -f objects with an "events" map can be
 * told apart, and a lone one stays short).
 */
static int label_ring(struct events *ev, unsigned int i)
{
	struct events_ring *r = &ev->rings[i];
	const char *name = map_name(r->map);
	bool clash = false;
	unsigned int j;
	char *label;

	for (j = 0; j < ev->nrings; j++)
		if (j != i && !strcmp(map_name(ev->rings[j].map), name))
			clash = true;
	if (clash) {
		if (asprintf(&label, "%s:%s", r->spec, name) < 0)
			return -ENOMEM;
	} else {
		label = strdup(name);
		if (!label)
			return -ENOMEM;
	}
	free(r->label);
	r->label = label;
	return 0;
}

/* Label every ring again: a new name may clash with an earlier one. */
static int label_rings(struct events *ev, struct secbpf_err *err)
{
	unsigned int i;

	for (i = 0; i < ev->nrings; i++)
		if (label_ring(ev, i))
			return err_set(err, ENOMEM, "out of memory");
	return 0;
}

static int add_ring(struct events *ev, struct map *map, const char *spec, struct secbpf_err *err)
{
	struct events_ring *r;
	int fd;

	if (ev->started)
		return err_set(err, EBUSY, "the event reader is already running");
	if (map_type(map) != BPF_MAP_TYPE_RINGBUF)
		return err_set(err, EINVAL, "%s: map %s is not a ring buffer", spec, map_name(map));
	if (ev->nrings == EVENTS_MAX_RINGS)
		return err_set(err, E2BIG, "%s: more than %d ring buffers to read", spec,
			       EVENTS_MAX_RINGS);
	fd = map_ringbuf_wait_fd(map);
	if (fd < 0)
		return err_set(err, -fd, "%s: map %s has no wakeup fd", spec, map_name(map));
	r = &ev->rings[ev->nrings++];
	r->map = map;
	r->spec = spec;
	r->wake_fd = fd;
	return 0;
}

int events_add_map(struct events *ev, struct map *map, const char *spec, struct secbpf_err *err)
{
	int rc = add_ring(ev, map, spec, err);

	return rc ? rc : label_rings(ev, err);
}

int events_add_runtime(struct events *ev, struct runtime *rt, const struct object *obj,
		       const char *spec, struct secbpf_err *err)
{
	struct map *m;
	unsigned int i;
	int added = 0, rc;

	for (i = 0; i < obj->map_cnt; i++) {
		if (obj->maps[i].type != BPF_MAP_TYPE_RINGBUF)
			continue;
		m = runtime_map(rt, obj->maps[i].name);
		if (!m)
			return err_set(err, ENOENT, "%s: no ring buffer %s in the runtime", spec,
				       obj->maps[i].name);
		rc = add_ring(ev, m, spec, err);
		if (rc)
			return rc;
		added++;
	}
	rc = label_rings(ev, err);
	return rc ? rc : added;
}

unsigned int events_nrings(const struct events *ev)
{
	return ev->nrings;
}

/* Printable ASCII up to a NUL: the length of that string, else 0. */
static size_t text_len(const unsigned char *p, uint32_t size)
{
	uint32_t i;

	for (i = 0; i < size; i++) {
		if (p[i] == '\0')
			return i;
		if (p[i] < 0x20 || p[i] > 0x7e)
			return 0;
	}
	return 0; /* no NUL: not a C string */
}

char *events_format_record(const char *label, const void *data, uint32_t size)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = data;
	size_t text = text_len(p, size), cap, n;
	uint32_t i;
	char *line;
	int k;

	/* prefix, label, " 4294967295: ", hex, ` "` + escaped text + `"`, NUL */
	cap = 16 + strlen(label) + 14 + 2 * (size_t)size + 4 + 2 * text + 1;
	line = malloc(cap);
	if (!line)
		return NULL;
	k = snprintf(line, cap, "secbpf: event %s %u:%s", label, size, size ? " " : "");
	if (k < 0 || (size_t)k >= cap) {
		free(line);
		return NULL;
	}
	n = (size_t)k;
	for (i = 0; i < size; i++) {
		line[n++] = hex[p[i] >> 4];
		line[n++] = hex[p[i] & 15];
	}
	if (text) {
		line[n++] = ' ';
		line[n++] = '"';
		for (i = 0; i < text; i++) {
			if (p[i] == '"' || p[i] == '\\')
				line[n++] = '\\';
			line[n++] = (char)p[i];
		}
		line[n++] = '"';
	}
	line[n] = '\0';
	return line;
}

struct print_ctx {
	struct events *ev;
	const struct events_ring *ring;
};

/* map_ringbuf_consume's callback: print one record as one line. The line
 * goes out in one fwrite (stderr is unbuffered: one write), so that it
 * does not interleave with the supervisor's other messages. */
static int print_record(void *arg, void *data, uint32_t size)
{
	struct print_ctx *c = arg;
	char *line = events_format_record(c->ring->label, data, size);
	size_t n;

	if (!line)
		return 0; /* out of memory: this record is lost, not the reader */
	n = strlen(line);
	line[n] = '\n'; /* over the NUL: the buffer is only written out */
	/* A write error (a closed pipe) is not the targets' business:
	 * consumption goes on, so that the rings keep draining. */
	(void)fwrite(line, 1, n + 1, c->ev->out);
	free(line);
	__atomic_add_fetch(&c->ev->count, 1, __ATOMIC_RELAXED);
	return 0;
}

/* Consume every ring once; one consumer at a time (the reader thread,
 * or the caller of events_stop once that thread has been joined). */
static void consume_all(struct events *ev)
{
	struct print_ctx c = { .ev = ev };
	unsigned int i;
	int n = 0, rc;

	for (i = 0; i < ev->nrings; i++) {
		c.ring = &ev->rings[i];
		rc = map_ringbuf_consume(ev->rings[i].map, print_record, &c);
		if (rc > 0)
			n += rc;
	}
	if (n)
		fflush(ev->out);
}

/* Reset an eventfd (non-blocking; nothing to read is fine). */
static void drain_fd(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0)
		return;
}

/*
 * The reader: reset the eventfds that fired *before* consuming, so that a
 * submit racing with the consumption writes them again and is not lost
 * (lib/vm/maps.c orders the submit against the consumer position so that one
 * of the two sees the other).
 */
static void *reader_main(void *arg)
{
	struct events *ev = arg;
	struct pollfd pfd[EVENTS_MAX_RINGS + 1];
	struct timespec pause;
	unsigned int i, n = ev->nrings;

	for (i = 0; i < n; i++) {
		pfd[i].fd = ev->rings[i].wake_fd;
		pfd[i].events = POLLIN;
	}
	pfd[n].fd = ev->stop_fd;
	pfd[n].events = POLLIN;
	for (;;) {
		if (poll(pfd, n + 1, ev->sweep_ms) < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot happen with valid fds: degrade to sweeping. */
			pause.tv_sec = ev->sweep_ms / 1000;
			pause.tv_nsec = (long)(ev->sweep_ms % 1000) * 1000000L;
			nanosleep(&pause, NULL);
			continue;
		}
		if (pfd[n].revents & POLLIN)
			break;
		for (i = 0; i < n; i++)
			if (pfd[i].revents & POLLIN)
				drain_fd(pfd[i].fd);
		consume_all(ev);
	}
	return NULL;
}

int events_start(struct events *ev, struct secbpf_err *err)
{
	sigset_t all, old;
	int rc;

	if (ev->started)
		return err_set(err, EBUSY, "the event reader is already running");
	if (ev->nrings == 0)
		return 0; /* nothing to read: no thread */
	/* The thread inherits our mask: with every signal blocked, signals
	 * meant for the supervising process never land on it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&ev->thread, NULL, reader_main, ev);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return err_set(err, rc, "cannot start the event reader: %s", strerror(rc));
	ev->started = true;
	return 0;
}

void events_stop(struct events *ev)
{
	uint64_t one = 1;

	if (!ev)
		return;
	if (ev->started) {
		/* An eventfd write only fails when the counter would overflow:
		 * it is then readable anyway. */
		if (write(ev->stop_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			return; /* cannot stop it: leave it running rather than hang */
		pthread_join(ev->thread, NULL);
		ev->started = false;
	}
	consume_all(ev);
}

uint64_t events_count(const struct events *ev)
{
	return __atomic_load_n(&ev->count, __ATOMIC_RELAXED);
}

void events_free(struct events *ev)
{
	unsigned int i;

	if (!ev)
		return;
	events_stop(ev);
	if (ev->started)
		return; /* could not stop the thread: it still uses ev */
	for (i = 0; i < ev->nrings; i++)
		free(ev->rings[i].label);
	close(ev->stop_fd);
	free(ev);
}
