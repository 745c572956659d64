// SPDX-License-Identifier: MIT
/*
 * secbpf-supervisor: the supervisor of a process that attached a stateful
 * stack to itself (secbpf_attach). Started by lib/supervisor/supervisor_spawn.c, never
 * by hand: it loads the same objects again from sealed memfds, builds the
 * same plan (the digests must match), serves the listener it was handed
 * and exits when the last filtered task is gone.
 *
 *   secbpf-supervisor --handoff FD --listener FD --digest HEX --tier T
 *                     --workers N [--caller PID] [--read-nondumpable]
 *                     (--object FD:PROG --name NAME [--set VAR=VALUE]...)...
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <unistd.h>

/* Internal headers: this program is the library's own other half, not a
 * client of its API: object/object.h (objects from memfds, named as the
 * caller named them), verifier/verifier.h and install/policy.h (the tier
 * the caller was granted), install/stack_plan.h (the same plan, checked by
 * digest), supervisor/ (serving the listener, and the hand-over page). */
#include "object/object.h"
#include "install/policy.h"
#include "install/stack_plan.h"
#include "supervisor/supervisor.h"
#include "supervisor/supervisor_spawn.h"
#include "verifier/verifier.h"

#define MAX_TARGETS 64

struct sv_target {
	int fd;
	const char *prog;
	const char *name;
	const char *sets[64];
	size_t nsets;
	struct object *obj;
	struct object_prog *p;
	char label[512];
};

struct sv_args {
	int handoff_fd, listener;
	uint64_t digest;
	enum secbpf_tier tier;
	unsigned int workers;
	pid_t caller; /* the process that attached the stack, or 0 */
	bool read_nondumpable;
	struct sv_target t[MAX_TARGETS];
	size_t n;
};

static struct spawn_handoff *handoff;

/* The log once serving (LOG actions, trace_printk, errors): syslog, one
 * message per line, since stdio is /dev/null (lib/supervisor/supervisor_spawn.c). */
static ssize_t syslog_write(void *cookie, const char *buf, size_t size)
{
	size_t start = 0, i;

	for (i = 0; i < size; i++)
		if (buf[i] == '\n') {
			if (i > start)
				syslog(LOG_NOTICE, "%.*s", (int)(i - start), buf + start);
			start = i + 1;
		}
	if (start < size)
		syslog(LOG_NOTICE, "%.*s", (int)(size - start), buf + start);
	return (ssize_t)size;
}

static FILE *open_syslog(void)
{
	cookie_io_functions_t io = { .write = syslog_write };
	FILE *f;

	openlog("secbpf-supervisor", LOG_PID, LOG_USER);
	f = fopencookie(NULL, "w", io);
	if (f)
		setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

/* Say why we cannot serve: to the waiting caller, and on stderr. */
static __attribute__((noreturn)) void fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static __attribute__((noreturn)) void fail(const char *fmt, ...)
{
	char msg[SECBPF_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (handoff)
		spawn_report_failure(handoff, msg);
	else
		syslog(LOG_ERR, "%s", msg);
	fprintf(stderr, "secbpf-supervisor: %s\n", msg);
	exit(1);
}

static int parse_fd(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > 1 << 20)
		fail("'%s' is not a file descriptor", s);
	return (int)v;
}

static void parse_args(int argc, char **argv, struct sv_args *a)
{
	struct sv_target *cur = NULL;
	char *colon, *end;
	int i;

	a->handoff_fd = a->listener = -1;
	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--read-nondumpable")) {
			a->read_nondumpable = true;
			continue;
		}
		if (!v)
			fail("option %s needs a value (this program is started by the secbpf "
			     "library, not by hand)",
			     o);
		i++;
		if (!strcmp(o, "--handoff")) {
			a->handoff_fd = parse_fd(v);
		} else if (!strcmp(o, "--listener")) {
			a->listener = parse_fd(v);
		} else if (!strcmp(o, "--digest")) {
			errno = 0;
			a->digest = strtoull(v, &end, 16);
			if (errno || *end)
				fail("bad digest '%s'", v);
		} else if (!strcmp(o, "--tier")) {
			if (secbpf_tier_parse(v, &a->tier))
				fail("bad tier '%s'", v);
		} else if (!strcmp(o, "--workers")) {
			a->workers = (unsigned int)strtoul(v, &end, 10);
			if (*end || a->workers < 1 || a->workers > SUPERVISOR_MAX_WORKERS)
				fail("bad worker count '%s'", v);
		} else if (!strcmp(o, "--caller")) {
			errno = 0;
			a->caller = (pid_t)strtol(v, &end, 10);
			if (errno || *end || a->caller <= 0)
				fail("bad caller pid '%s'", v);
		} else if (!strcmp(o, "--object")) {
			if (a->n == MAX_TARGETS)
				fail("more than %d programs", MAX_TARGETS);
			cur = &a->t[a->n++];
			colon = strchr(v, ':');
			if (!colon)
				fail("bad --object '%s' (FD:PROG)", v);
			*colon = '\0';
			cur->fd = parse_fd(v);
			cur->prog = colon + 1;
			cur->name = "<object>";
		} else if (!strcmp(o, "--name") && cur) {
			cur->name = v;
		} else if (!strcmp(o, "--set") && cur) {
			if (cur->nsets == 64)
				fail("too many --set");
			cur->sets[cur->nsets++] = v;
		} else {
			fail("unknown option %s", o);
		}
	}
	if (a->handoff_fd < 0 || a->listener < 0 || a->n == 0 || a->workers == 0)
		fail("missing --handoff, --listener, --workers or --object");
}

/* The page shared with the caller; everything else waits for it. */
static void map_handoff(int fd)
{
	void *p = mmap(NULL, sizeof(*handoff), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "secbpf-supervisor: cannot map the hand-over page: %s\n",
			strerror(errno));
		exit(1);
	}
	handoff = p;
	if (handoff->magic != SPAWN_HANDOFF_MAGIC || handoff->version != SPAWN_HANDOFF_VERSION) {
		handoff = NULL;
		fail("the hand-over page is not ours (version skew with the library?)");
	}
}

/* Load, configure and verify one program, as the caller did. */
static void load_target(struct sv_target *t, enum secbpf_tier tier)
{
	struct verifier_opts vo = { .sz = sizeof(vo), .tier = tier };
	struct secbpf_err err = { { 0 } };
	struct stat st;
	void *img;
	size_t i;
	int rc;

	if (fstat(t->fd, &st) || st.st_size <= 0)
		fail("%s: cannot read the object passed to us", t->name);
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, t->fd, 0);
	if (img == MAP_FAILED)
		fail("%s: cannot map the object: %s", t->name, strerror(errno));
	t->obj = object_open_mem(img, (size_t)st.st_size, t->name, &err);
	munmap(img, (size_t)st.st_size);
	close(t->fd);
	if (!t->obj)
		fail("%s", err.msg);
	for (i = 0; i < t->nsets; i++) {
		char var[256];
		const char *eq = strchr(t->sets[i], '=');

		if (!eq || (size_t)(eq - t->sets[i]) >= sizeof(var))
			fail("bad --set '%s'", t->sets[i]);
		memcpy(var, t->sets[i], (size_t)(eq - t->sets[i]));
		var[eq - t->sets[i]] = '\0';
		if (object_set_var(t->obj, var, eq + 1, &err))
			fail("%s: --set %s: %s", t->name, t->sets[i], err.msg);
	}
	t->p = object_find_prog(t->obj, t->prog, &err);
	if (!t->p)
		fail("%s", err.msg);
	rc = verifier_check(t->obj, t->p, &vo, NULL, &err);
	if (rc)
		fail("%s: %s: rejected: %s", t->name, t->prog, err.msg);
	snprintf(t->label, sizeof(t->label), "%s:%s", t->name, t->prog);
}

int main(int argc, char **argv)
{
	struct stack_plan_target targets[MAX_TARGETS];
	struct stack_plan_opts po = { .sz = sizeof(po) };
	FILE *log = open_syslog();
	struct supervisor_opts so = { .sz = sizeof(so) };
	struct secbpf_err err = { { 0 } };
	struct stack_plan plan;
	struct supervisor *sv;
	struct sv_args a;
	size_t i;

	/* First of all: a target must never ptrace us or read our memory. */
	if (supervisor_make_undumpable())
		fail("cannot make the supervisor non-dumpable");
	memset(&a, 0, sizeof(a));
	parse_args(argc, argv, &a);
	map_handoff(a.handoff_fd);
	if (supervisor_ignore_stop_signals())
		fail("cannot ignore the stop signals");
	supervisor_raise_fd_limit(); /* a pidfd per tracked process */
	if (chdir("/"))
		fail("cannot chdir to /: %s", strerror(errno));
	for (i = 0; i < a.n; i++) {
		load_target(&a.t[i], a.tier);
		targets[i].obj = a.t[i].obj;
		targets[i].prog = a.t[i].p;
		targets[i].name = a.t[i].label;
	}
	/* Nothing of the caller's but stdio, the page and the listener. */
	close(a.handoff_fd);
	po.ncpus = a.workers;
	po.loader_cap_sys_ptrace = a.read_nondumpable;
	po.trace_log = log;
	if (stack_plan_build(&plan, targets, a.n, &po, &err))
		fail("%s", err.msg);
	if (stack_plan_digest(&plan) != a.digest)
		fail("the filters we compile differ from the ones installed (digest %016" PRIx64
		     ", expected %016" PRIx64 "): this supervisor is not from the same "
		     "secbpf version as the library",
		     stack_plan_digest(&plan), a.digest);
	so.nworkers = a.workers;
	so.log = log;
	so.kind = "attach API";
	so.target_pid = a.caller;
	sv = supervisor_new(a.listener, plan.sv_progs, plan.n, &so, &err);
	if (!sv)
		fail("cannot start: %s", err.msg);
	if (supervisor_start(sv, &err))
		fail("cannot start: %s", err.msg);
	if (!spawn_report_serving(handoff))
		fail("the caller gave up waiting");
	munmap(handoff, sizeof(*handoff));
	handoff = NULL;
	supervisor_wait(sv);
	supervisor_free(sv);
	stack_plan_free(&plan);
	for (i = 0; i < a.n; i++)
		object_free(a.t[i].obj);
	return 0;
}
