// SPDX-License-Identifier: MIT
/*
 * secbpf-supervisor: the supervisor of a process that attached a stateful
 * stack to itself (secbpf_attach). Started by lib/supervisor/supervisor_spawn.c, never
 * by hand: it makes itself non-dumpable, loads the same objects again from
 * sealed memfds, builds the same plan (the digests must match), reports
 * READY, receives the listener from the hand-over helper once the caller
 * has installed its filters, serves it and exits when the last filtered
 * task is gone.
 *
 *   secbpf-supervisor --handoff FD --listener-socket FD --digest HEX --tier T
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <time.h>
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
	int handoff_fd, listener_sock;
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

	a->handoff_fd = a->listener_sock = -1;
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
		} else if (!strcmp(o, "--listener-socket")) {
			a->listener_sock = parse_fd(v);
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
	if (a->handoff_fd < 0 || a->listener_sock < 0 || a->n == 0 || a->workers == 0)
		fail("missing --handoff, --listener-socket, --workers or --object");
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

/*
 * Wait while the caller installs (READY: only it moves the stage on), as
 * long as the helper that forked us is alive. Returns the stage after.
 */
static int wait_install(pid_t helper)
{
	struct timespec pause = { .tv_sec = 0, .tv_nsec = 1000000 };
	int stage;

	while ((stage = __atomic_load_n(&handoff->stage, __ATOMIC_ACQUIRE)) == SPAWN_STAGE_READY &&
	       getppid() == helper)
		nanosleep(&pause, NULL);
	return stage;
}

/*
 * The listener, from the hand-over helper (our parent) over sock, once the
 * caller has installed. A message from anyone else who holds the other end
 * (the caller's own threads do) is refused: the kernel stamps the sender's
 * pid (SO_PASSCRED). Exits quietly if the caller gave up before installing.
 */
static int receive_listener(int sock, pid_t helper)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} cb;
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct ucred cred = { .pid = 0 };
	int fds[4], nfds = 0, stage, i;
	struct cmsghdr *cm;
	ssize_t n;

	do {
		mh.msg_control = cb.buf;
		mh.msg_controllen = sizeof(cb.buf);
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	for (cm = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_CREDENTIALS && cm->cmsg_len == CMSG_LEN(sizeof(cred)))
			memcpy(&cred, CMSG_DATA(cm), sizeof(cred));
		if (cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (i = 0; i < (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int)); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (nfds < 4)
				fds[nfds++] = fd;
			else
				close(fd);
		}
	}
	stage = wait_install(helper);
	if (stage != SPAWN_STAGE_INSTALLED || n == 0) {
		/* The caller gave up, or failed to install: nothing to serve. */
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		exit(0);
	}
	if (n < 0)
		fail("cannot receive the listener: %s", strerror(errno));
	if (cred.pid != helper || getppid() != helper || nfds != 1 || (mh.msg_flags & MSG_CTRUNC)) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		fail("refused a listener from pid %d (%d fds): only the hand-over helper %d "
		     "sends it",
		     (int)cred.pid, nfds, (int)helper);
	}
	close(sock);
	return fds[0];
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
	pid_t helper = getppid();
	int one = 1, listener;
	size_t i;

	/* First of all, before we report READY and the caller installs
	 * anything: a target must never ptrace us, read or write our memory
	 * or take our fds (docs/threat-model.md). */
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
	/* Nothing of the caller's but stdio, the page and the socket. */
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
	/* Set before READY: every message then carries its sender's pid. */
	if (setsockopt(a.listener_sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)))
		fail("cannot ask for the sender of the listener: %s", strerror(errno));
	if (!spawn_report_ready(handoff))
		exit(0); /* the caller gave up waiting: nothing was installed */
	listener = receive_listener(a.listener_sock, helper);
	so.nworkers = a.workers;
	so.log = log;
	so.kind = "attach API";
	so.target_pid = a.caller;
	sv = supervisor_new(listener, plan.sv_progs, plan.n, &so, &err);
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
