// SPDX-License-Identifier: MIT
/*
 * The caller's side of attaching a stateful stack (supervisor_spawn.h):
 * a helper child sharing our fd table, the install, and the hand-over of
 * the listener to a freshly executed secbpf-supervisor or, for a handle,
 * to secbpfd over the handle's socket (SVC_REQ_ATTACH). The helper and the
 * supervisor's child side run in a copy of a possibly multi-threaded
 * process: they only make raw syscalls and plain stores, never malloc,
 * stdio or a lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "install/attach.h"
#include "service/protocol.h"
#include "supervisor/supervisor.h"
#include "supervisor/supervisor_spawn.h"

extern char **environ;

/* Everything the helper and the supervisor's child side need, prepared
 * before the helper exists. */
struct spawn_child {
	struct spawn_handoff *h;
	pid_t caller; /* the helper's parent: if it changes, quit */
	/* To a supervisor executable: */
	char **argv; /* argv[0] is the executable; NULL: to a service */
	char **envp;
	int pass_sock;	 /* our end of the socket pair the listener goes through */
	const int *keep; /* fds the supervisor gets (its end of the pair among them) */
	size_t nkeep;
	/* To a service (argv NULL): */
	int sock;	     /* the handle, in the shared fd table */
	const void *request; /* SVC_REQ_ATTACH, header and payload, prebuilt */
	size_t request_len;
	unsigned int timeout_ms; /* for the service's answer */
};

/* --------------------------------------------------- helper side (raw) */

static __attribute__((noreturn)) void raw_exit(int status)
{
	syscall(SYS_exit_group, status);
	__builtin_trap();
}

static void raw_sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	syscall(SYS_nanosleep, &ts, NULL);
}

/*
 * Claim the page to report a failure, unless the stage is already final:
 * a compare-and-swap to a private stage from WAIT or INSTALLED, so that two
 * reporters never mix their fields. From READY only the caller moves on
 * (it is installing): wait until it has, or is gone. *from is the stage
 * claimed.
 */
static bool raw_claim(struct spawn_handoff *h, pid_t caller, int *from)
{
	int stage;

	for (;;) {
		stage = __atomic_load_n(&h->stage, __ATOMIC_ACQUIRE);
		if (stage == SPAWN_STAGE_READY) {
			if (syscall(SYS_getppid) != caller)
				return false;
			raw_sleep_us(100);
			continue;
		}
		if (stage != SPAWN_STAGE_WAIT && stage != SPAWN_STAGE_INSTALLED)
			return false;
		if (__atomic_compare_exchange_n(&h->stage, &stage, -1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			*from = stage;
			return true;
		}
	}
}

/* Report a failure (raw_claim); returns the stage it was claimed from, or
 * -1 if someone else's report or a final stage came first. */
static int raw_fail(struct spawn_handoff *h, pid_t caller, int kind, int error)
{
	int from;

	if (!raw_claim(h, caller, &from))
		return -1;
	h->fail_kind = kind;
	h->error = error;
	__atomic_store_n(&h->stage, SPAWN_STAGE_FAILED, __ATOMIC_RELEASE);
	return from;
}

/* raw_fail with a message of len bytes (not NUL-terminated), copied
 * without stdio. */
static void raw_fail_msg(struct spawn_handoff *h, pid_t caller, int kind, int error,
			 const char *msg, size_t len)
{
	size_t i;
	int from;

	if (!raw_claim(h, caller, &from))
		return;
	if (len > sizeof(h->msg) - 1)
		len = sizeof(h->msg) - 1;
	for (i = 0; i < len; i++)
		h->msg[i] = msg[i] ? msg[i] : ' ';
	h->msg[len] = '\0';
	h->fail_kind = kind;
	h->error = error;
	__atomic_store_n(&h->stage, SPAWN_STAGE_FAILED, __ATOMIC_RELEASE);
}

/* Close the listener in the table shared with the caller, unless the
 * caller already gave up and closed it (then the number may name another
 * fd by now). */
static void raw_close_listener(struct spawn_handoff *h, int lfd)
{
	int pending = SPAWN_CLOSE_PENDING;

	if (__atomic_compare_exchange_n(&h->closed, &pending, SPAWN_CLOSE_HELPER, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		syscall(SYS_close, lfd);
		__atomic_store_n(&h->closed, SPAWN_CLOSE_DONE, __ATOMIC_RELEASE);
	}
}

/* The supervisor-to-be: a private copy of the fd table, from before the
 * install (the listener comes later, over its end of the socket pair), and
 * not dumpable (the helper's, until the execve; the supervisor's first act
 * is to make itself so again, before it reports READY). Leave the caller's
 * session (a ^C on its terminal must not kill the supervisor), unblock
 * signals, keep only our fds across execve. */
static __attribute__((noreturn)) void raw_exec_supervisor(const struct spawn_child *c)
{
	uint64_t empty = 0;
	size_t i;

	long null;

	syscall(SYS_setsid);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &empty, NULL, sizeof(empty));
	/* Not the caller's stdio: a pipe the supervisor kept open would hold
	 * up whoever reads it to the end (`$(cmd)`, `cmd | tee`), and on
	 * kernels that release a filter only when its task is reaped, that
	 * reader is the one who would reap it: a deadlock. The supervisor
	 * reports through the hand-over page, then to syslog. */
	null = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		syscall(SYS_dup3, null, 0, 0);
		syscall(SYS_dup3, null, 1, 0);
		syscall(SYS_dup3, null, 2, 0);
	}
	/* Best effort (5.11+): the supervisor closes strays itself too. */
	syscall(SYS_close_range, 3, ~0u, CLOSE_RANGE_CLOEXEC);
	for (i = 0; i < c->nkeep; i++)
		syscall(SYS_fcntl, c->keep[i], F_SETFD, 0);
	syscall(SYS_execve, c->argv[0], c->argv, c->envp);
	/* The stage is still WAIT: nobody else reports before we exit. */
	raw_fail(c->h, c->caller, SPAWN_FAIL_EXEC, errno);
	raw_exit(127);
}

/*
 * Wait up to c->timeout_ms for the service's answer on c->sock, in slices,
 * quitting if the caller is gone. Returns true when it can be read.
 */
static bool raw_wait_answer(const struct spawn_child *c)
{
	struct pollfd pfd = { .fd = c->sock, .events = POLLIN };
	struct timespec slice = { .tv_sec = 0, .tv_nsec = 100 * 1000000L };
	unsigned int waited;
	long r;

	for (waited = 0; waited < c->timeout_ms; waited += 100) {
		r = syscall(SYS_ppoll, &pfd, 1, &slice, NULL, 8);
		if (r > 0)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
		if (syscall(SYS_getppid) != c->caller)
			raw_exit(0);
	}
	return false;
}

/*
 * To a service: send SVC_REQ_ATTACH with the listener over the handle,
 * close the listener in the shared table (the service has its copy, or
 * nobody ever will: fail closed), and report what the service answered.
 * The service reads the pid in the request as ours to vouch for: we are
 * the caller's child and it sees our pid (SO_PASSCRED).
 */
static __attribute__((noreturn)) void raw_deliver_to_service(const struct spawn_child *c, int lfd)
{
	static const char bad_reply[] = "an answer that is not a secbpf reply";
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} cb;
	struct {
		struct svc_hdr hdr;
		char payload[SVC_MAX_PAYLOAD];
	} reply;
	struct iovec iov = { .iov_base = (void *)c->request, .iov_len = c->request_len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct spawn_handoff *h = c->h;
	struct cmsghdr *cm;
	long n;
	int e;

	memset(&cb, 0, sizeof(cb));
	mh.msg_control = cb.buf;
	mh.msg_controllen = CMSG_SPACE(sizeof(int));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &lfd, sizeof(int));
	n = syscall(SYS_sendmsg, c->sock, &mh, MSG_NOSIGNAL);
	e = errno;
	raw_close_listener(h, lfd);
	if (n != (long)c->request_len) {
		raw_fail(h, c->caller, SPAWN_FAIL_SEND, n < 0 ? e : EPROTO);
		raw_exit(0);
	}
	if (!raw_wait_answer(c)) {
		raw_fail(h, c->caller, SPAWN_FAIL_SEND, ETIMEDOUT);
		raw_exit(0);
	}
	iov.iov_base = &reply;
	iov.iov_len = sizeof(reply);
	mh.msg_control = cb.buf;
	mh.msg_controllen = sizeof(cb.buf);
	mh.msg_flags = 0;
	n = syscall(SYS_recvmsg, c->sock, &mh, MSG_CMSG_CLOEXEC);
	e = errno;
	/* No answer to an attach carries an fd: close any that came. */
	for (cm = CMSG_FIRSTHDR(&mh); n >= 0 && cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k, i;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			syscall(SYS_close, fd);
		}
	}
	if (n < 0) {
		raw_fail(h, c->caller, SPAWN_FAIL_SEND, e);
		raw_exit(0);
	}
	if (n == 0) {
		raw_fail(h, c->caller, SPAWN_FAIL_SEND, ECONNRESET);
		raw_exit(0);
	}
	if ((size_t)n < sizeof(reply.hdr) || reply.hdr.magic != SVC_MAGIC ||
	    reply.hdr.version != SVC_VERSION || reply.hdr.len != (size_t)n - sizeof(reply.hdr)) {
		raw_fail_msg(h, c->caller, SPAWN_FAIL_SERVICE, EPROTO, bad_reply,
			     sizeof(bad_reply) - 1);
		raw_exit(0);
	}
	if (reply.hdr.type == SVC_REP_OK) {
		spawn_report_serving(h);
		raw_exit(0);
	}
	if (reply.hdr.type == SVC_REP_ERROR && reply.hdr.len >= sizeof(struct svc_error)) {
		struct svc_error se;

		memcpy(&se, reply.payload, sizeof(se));
		raw_fail_msg(h, c->caller, SPAWN_FAIL_SERVICE,
			     se.error > 0 && se.error < 4096 ? se.error : EPROTO,
			     reply.payload + sizeof(se), reply.hdr.len - sizeof(se));
		raw_exit(0);
	}
	raw_fail_msg(h, c->caller, SPAWN_FAIL_SERVICE, EPROTO, bad_reply, sizeof(bad_reply) - 1);
	raw_exit(0);
}

/* A caller that ignores SIGCHLD would have the supervisor reaped behind
 * our back, and its death go unseen: the default, for us. */
static void raw_default_sigchld(void)
{
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		uint64_t mask;
	} dfl = { 0 };

	syscall(SYS_rt_sigaction, SIGCHLD, &dfl, NULL, sizeof(dfl.mask));
}

/*
 * Whether the supervisor g has exited (reaped, status in *status; a
 * supervisor reaped by someone else counts, with status 0xff00).
 */
static bool raw_supervisor_exited(long g, int *status)
{
	long r = syscall(SYS_wait4, g, status, WNOHANG, NULL);

	if (r == g)
		return true;
	if (r < 0 && errno == ECHILD) {
		*status = 0xff00;
		return true;
	}
	return false;
}

/* The supervisor g died before serving: report it (once the caller has
 * installed, if it is installing) and close the listener if it was
 * published. */
static __attribute__((noreturn)) void raw_supervisor_died(const struct spawn_child *c, int status)
{
	if (raw_fail(c->h, c->caller, SPAWN_FAIL_EXITED, status) == SPAWN_STAGE_INSTALLED)
		raw_close_listener(c->h, c->h->listener_fd);
	raw_exit(0);
}

/* Send the listener over the socket pair to the supervisor: one byte and
 * the fd. Returns 0 or an errno. */
static int raw_pass_listener(int sock, int lfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	char byte = 'L';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	memset(&cb, 0, sizeof(cb));
	mh.msg_control = cb.buf;
	mh.msg_controllen = sizeof(cb.buf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &lfd, sizeof(int));
	if (syscall(SYS_sendmsg, sock, &mh, MSG_NOSIGNAL) != 1)
		return errno ? errno : EPROTO;
	return 0;
}

/*
 * To a supervisor executable: fork it before anything is installed, wait
 * until the caller has installed (the supervisor reports READY meanwhile,
 * or fails), send it the listener, close the listener in the shared table,
 * then watch the supervisor until it serves or fails.
 */
static __attribute__((noreturn)) void raw_hand_to_supervisor(const struct spawn_child *c)
{
	struct spawn_handoff *h = c->h;
	int stage, status, e;
	long g;

	raw_default_sigchld();
	g = syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL, NULL, NULL);
	if (g == 0)
		raw_exec_supervisor(c);
	if (g < 0) {
		raw_fail(h, c->caller, SPAWN_FAIL_FORK, errno);
		raw_exit(0);
	}
	for (;;) {
		stage = __atomic_load_n(&h->stage, __ATOMIC_ACQUIRE);
		if (stage == SPAWN_STAGE_INSTALLED)
			break;
		/* ABORT, or the supervisor failed: it exits, or sees the end
		 * of its socket once the caller closes our end. */
		if (stage == SPAWN_STAGE_ABORT || stage == SPAWN_STAGE_FAILED ||
		    syscall(SYS_getppid) != c->caller)
			raw_exit(0);
		if (raw_supervisor_exited(g, &status))
			raw_supervisor_died(c, status);
		raw_sleep_us(100);
	}
	e = raw_pass_listener(c->pass_sock, h->listener_fd);
	/* The supervisor has its copy now (or none will ever have one): the
	 * filtered process must never hold its own listener. */
	raw_close_listener(h, h->listener_fd);
	if (e) {
		raw_fail(h, c->caller, SPAWN_FAIL_PASS, e);
		syscall(SYS_kill, g, SIGKILL);
		raw_exit(0);
	}
	for (;;) {
		stage = __atomic_load_n(&h->stage, __ATOMIC_ACQUIRE);
		if (stage == SPAWN_STAGE_SERVING || stage == SPAWN_STAGE_FAILED)
			break;
		if (raw_supervisor_exited(g, &status)) {
			raw_fail(h, c->caller, SPAWN_FAIL_EXITED, status);
			break;
		}
		raw_sleep_us(1000);
	}
	raw_exit(0);
}

/*
 * The helper. First of all it makes itself non-dumpable: it is not
 * filtered, shares the caller's fd table and may outlive the attach (a
 * caller that gave up waiting), so nothing the caller runs once filtered
 * may ptrace it, write its memory or take its fds (docs/threat-model.md).
 * The caller installs nothing before the stage is READY, which we (for a
 * service) or the supervisor (non-dumpable itself by then) report. All
 * signals are blocked (inherited).
 */
static __attribute__((noreturn)) void raw_helper(const struct spawn_child *c)
{
	struct spawn_handoff *h = c->h;
	int stage = SPAWN_STAGE_WAIT;

	if (syscall(SYS_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0)) {
		raw_fail(h, c->caller, SPAWN_FAIL_DUMPABLE, errno);
		raw_exit(0);
	}
	if (c->argv)
		raw_hand_to_supervisor(c);
	if (!__atomic_compare_exchange_n(&h->stage, &stage, SPAWN_STAGE_READY, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		raw_exit(0);
	for (;;) {
		stage = __atomic_load_n(&h->stage, __ATOMIC_ACQUIRE);
		if (stage == SPAWN_STAGE_INSTALLED)
			break;
		if (stage != SPAWN_STAGE_READY || syscall(SYS_getppid) != c->caller)
			raw_exit(0);
		raw_sleep_us(100);
	}
	raw_deliver_to_service(c, h->listener_fd);
}

/* ------------------------------------------- the supervisor's reports */

void spawn_report_failure(struct spawn_handoff *h, const char *msg)
{
	int expected = SPAWN_STAGE_WAIT;

	/* Before READY (nothing installed) or after the install; never
	 * while the caller is installing. */
	if (!__atomic_compare_exchange_n(&h->stage, &expected, -1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		expected = SPAWN_STAGE_INSTALLED;
		if (!__atomic_compare_exchange_n(&h->stage, &expected, -1, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			return;
	}
	h->fail_kind = SPAWN_FAIL_SUPERVISOR;
	snprintf(h->msg, sizeof(h->msg), "%s", msg);
	__atomic_store_n(&h->stage, SPAWN_STAGE_FAILED, __ATOMIC_RELEASE);
}

bool spawn_report_ready(struct spawn_handoff *h)
{
	int expected = SPAWN_STAGE_WAIT;

	return __atomic_compare_exchange_n(&h->stage, &expected, SPAWN_STAGE_READY, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

bool spawn_report_serving(struct spawn_handoff *h)
{
	int expected = SPAWN_STAGE_INSTALLED;

	return __atomic_compare_exchange_n(&h->stage, &expected, SPAWN_STAGE_SERVING, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* ------------------------------------------------------- caller side */

/* The executable to start, checked now so that the common mistake is
 * reported before anything is installed. */
static int resolve_exe(const struct spawn_opts *o, const char **exe, struct secbpf_err *err)
{
	/* Not in a setuid or otherwise secure-execution program, whose
	 * environment is its caller's to choose. */
	const char *env = secure_getenv("SECBPF_SUPERVISOR");

	*exe = o->exe ? o->exe : env && *env ? env : SECBPF_SUPERVISOR_PATH;
	if ((*exe)[0] != '/')
		return err_set(err, EINVAL,
			       "the supervisor executable '%s' is not an absolute path", *exe);
	if (access(*exe, X_OK))
		return err_set(err, errno,
			       "cannot execute the supervisor %s: %s (install secbpf-supervisor "
			       "or name it with SECBPF_SUPERVISOR)",
			       *exe, strerror(errno));
	return 0;
}

/* What the caller allocates for one spawn; freed by spawn_release. */
struct spawn_res {
	int handoff_fd;
	struct spawn_handoff *h;
	int *image_fds; /* what the supervisor keeps: the page, the images, peer_fd */
	size_t nimages;
	int pass_fd;  /* the helper's end of the socket pair, or -1 */
	int *peer_fd; /* the supervisor's end (in image_fds), or NULL */
	char **argv;
	size_t argc, cap;
};

static void spawn_release(struct spawn_res *r)
{
	size_t i;

	if (r->h)
		munmap(r->h, sizeof(*r->h));
	if (r->handoff_fd >= 0)
		close(r->handoff_fd);
	if (r->pass_fd >= 0)
		close(r->pass_fd);
	for (i = 0; i < r->nimages; i++)
		if (r->image_fds[i] >= 0)
			close(r->image_fds[i]);
	free(r->image_fds);
	for (i = 0; i < r->argc; i++)
		free(r->argv[i]);
	free(r->argv);
}

/* Append s, allocated (NULL: out of memory), which is then ours to free. */
static int argv_add(struct spawn_res *r, char *s)
{
	char **n;

	if (!s)
		return -ENOMEM;
	if (r->argc + 2 > r->cap) {
		n = realloc(r->argv, (r->cap ? r->cap * 2 : 32) * sizeof(*n));
		if (!n) {
			free(s);
			return -ENOMEM;
		}
		r->cap = r->cap ? r->cap * 2 : 32;
		r->argv = n;
	}
	r->argv[r->argc++] = s;
	r->argv[r->argc] = NULL;
	return 0;
}

static int argv_addf(struct spawn_res *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int argv_addf(struct spawn_res *r, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return argv_add(r, n < 0 ? NULL : s);
}

/* The hand-over page, in a memfd (r->handoff_fd) so that a supervisor
 * can map it again after its execve. */
static int spawn_map_handoff(struct spawn_res *r, struct secbpf_err *err)
{
	r->handoff_fd = memfd_create("secbpf-handoff", MFD_CLOEXEC);
	if (r->handoff_fd < 0 || ftruncate(r->handoff_fd, sizeof(*r->h)))
		return err_set(err, errno, "cannot create the hand-over page: memfd_create: %s%s",
			       strerror(errno),
			       errno == ENOSYS ? " (a kernel without CONFIG_MEMFD_CREATE)" : "");
	r->h = mmap(NULL, sizeof(*r->h), PROT_READ | PROT_WRITE, MAP_SHARED, r->handoff_fd, 0);
	if (r->h == MAP_FAILED) {
		r->h = NULL;
		return err_set(err, errno, "cannot map the hand-over page: %s", strerror(errno));
	}
	r->h->magic = SPAWN_HANDOFF_MAGIC;
	r->h->version = SPAWN_HANDOFF_VERSION;
	r->h->stage = SPAWN_STAGE_WAIT;
	r->h->listener_fd = -1;
	return 0;
}

/*
 * The supervisor's command line: where the hand-over page, each object
 * image and its end of the socket pair the listener comes through are,
 * and what the plan was built with, so that it can build the same one and
 * compare digests.
 */
static int spawn_prepare(struct spawn_res *r, const char *exe, const struct stack_plan *plan,
			 const struct spawn_target *t, size_t n, const struct spawn_opts *o,
			 struct secbpf_err *err)
{
	size_t i, j;
	int rc, pair[2];

	rc = spawn_map_handoff(r, err);
	if (rc)
		return rc;
	r->image_fds = calloc(n + 2, sizeof(*r->image_fds));
	if (!r->image_fds)
		return err_set(err, ENOMEM, "out of memory");
	/* keep[] = the hand-over page, the images, the supervisor's end of
	 * the pair. */
	r->image_fds[0] = r->handoff_fd;
	r->handoff_fd = -1;
	r->nimages = 1;
	for (i = 0; i < n; i++) {
		rc = svc_memfd_sealed("secbpf-object", t[i].obj->image, t[i].obj->image_size, err);
		if (rc < 0) {
			err_prefix(err, "%s: cannot pass the object to the supervisor",
				   t[i].obj->path);
			return rc;
		}
		r->image_fds[r->nimages++] = rc;
	}
	/* Datagrams with their boundaries: one message, one listener. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair))
		return err_set(err, errno, "cannot create the socket pair for the listener: %s",
			       strerror(errno));
	r->pass_fd = pair[0];
	r->peer_fd = &r->image_fds[r->nimages];
	r->image_fds[r->nimages++] = pair[1];
	rc = argv_add(r, strdup(exe));
	rc = rc ?: argv_add(r, strdup("--handoff"));
	rc = rc ?: argv_addf(r, "%d", r->image_fds[0]);
	rc = rc ?: argv_add(r, strdup("--listener-socket"));
	rc = rc ?: argv_addf(r, "%d", pair[1]);
	rc = rc ?: argv_add(r, strdup("--digest"));
	rc = rc ?: argv_addf(r, "%016" PRIx64, stack_plan_digest(plan));
	rc = rc ?: argv_add(r, strdup("--tier"));
	rc = rc ?: argv_add(r, strdup(secbpf_tier_name(o->tier)));
	rc = rc ?: argv_add(r, strdup("--workers"));
	rc = rc ?: argv_addf(r, "%u", o->workers);
	/* Whose filters these are, for the control socket. */
	rc = rc ?: argv_add(r, strdup("--caller"));
	rc = rc ?: argv_addf(r, "%d", (int)getpid());
	if (!rc && o->loader_cap_sys_ptrace)
		rc = argv_add(r, strdup("--read-nondumpable"));
	for (i = 0; !rc && i < n; i++) {
		rc = argv_add(r, strdup("--object"));
		rc = rc ?: argv_addf(r, "%d:%s", r->image_fds[i + 1], t[i].prog);
		rc = rc ?: argv_add(r, strdup("--name"));
		rc = rc ?: argv_add(r, strdup(t[i].obj->path));
		for (j = 0; !rc && j < t[i].nsets; j++) {
			rc = argv_add(r, strdup("--set"));
			rc = rc ?: argv_add(r, strdup(t[i].sets[j]));
		}
	}
	if (rc)
		return err_set(err, ENOMEM, "out of memory");
	return 0;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	/* vDSO: no syscall, on a clock source that has one. */
	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * After the install: no syscall until the helper has taken the listener
 * out of our fd table and the supervisor serves (or failed). Spin on the
 * page, with the clock read through the vDSO; a bound on iterations covers
 * a clock that would need a syscall.
 */
static int wait_handoff(struct spawn_handoff *h, unsigned int timeout_ms)
{
	uint64_t start = now_ms(), spins = 0;
	int stage;

	for (;;) {
		stage = __atomic_load_n(&h->stage, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&h->closed, __ATOMIC_ACQUIRE) == SPAWN_CLOSE_DONE &&
		    (stage == SPAWN_STAGE_SERVING || stage == SPAWN_STAGE_FAILED))
			return stage;
		if (++spins % 4096 == 0 &&
		    (now_ms() - start > timeout_ms || spins > 4096ull * 1000 * timeout_ms))
			return -ETIMEDOUT;
		cpu_relax();
	}
}

#define STAYS                                                                                      \
	" (the filters stay installed: every syscall that needs the supervisor fails with ENOSYS)"
#define STAYS_SVC                                                                                  \
	" (the filters stay installed: every syscall that needs the service fails with ENOSYS)"
#define NOTHING " (nothing was installed)"

/* The message for a hand-over that failed, before the install or after
 * (installed). */
static int explain_failure(const struct spawn_handoff *h, const char *exe, bool installed,
			   struct secbpf_err *err)
{
	const char *after = !installed ? NOTHING : STAYS;
	const char *after_svc = !installed ? NOTHING : STAYS_SVC;

	switch (h->fail_kind) {
	case SPAWN_FAIL_FORK:
		return err_set(err, h->error, "cannot start the supervisor: %s%s",
			       strerror(h->error), after);
	case SPAWN_FAIL_EXEC:
		return err_set(err, h->error, "cannot execute the supervisor %s: %s%s", exe,
			       strerror(h->error), after);
	case SPAWN_FAIL_EXITED:
		return err_set(
			err, ECHILD, "the supervisor %s %s %d before serving%s", exe,
			WIFSIGNALED(h->error) ? "was killed by signal" : "exited with status",
			WIFSIGNALED(h->error) ? WTERMSIG(h->error) : WEXITSTATUS(h->error), after);
	case SPAWN_FAIL_DUMPABLE:
		return err_set(err, h->error, "cannot make the hand-over helper non-dumpable: %s%s",
			       strerror(h->error), after);
	case SPAWN_FAIL_PASS:
		return err_set(err, h->error, "cannot send the listener to the supervisor: %s%s",
			       strerror(h->error), after);
	case SPAWN_FAIL_SEND:
		return err_set(err, h->error, "cannot hand the listener to the service: %s%s",
			       strerror(h->error), after_svc);
	case SPAWN_FAIL_SERVICE:
		return err_set(err, h->error, "the service refused the listener: %.*s%s", 300,
			       h->msg, after_svc);
	default:
		return err_set(err, EPROTO, "the supervisor failed: %.*s%s", 300, h->msg, after);
	}
}

/*
 * Before the install: wait (with syscalls, nothing is installed yet) until
 * the receiver of the listener is ready and out of the filtered process's
 * reach (READY), or failed, or the helper died, or timeout_ms passed (then
 * the stage is ABORT). Returns READY, FAILED, -ECHILD (the helper died
 * without a report; *reaped) or -ETIMEDOUT.
 */
static int wait_ready(struct spawn_handoff *h, long helper, unsigned int timeout_ms, bool *reaped)
{
	struct timespec pause = { .tv_sec = 0, .tv_nsec = 100000 };
	uint64_t start = now_ms();
	int stage;

	for (;;) {
		stage = __atomic_load_n(&h->stage, __ATOMIC_ACQUIRE);
		if (stage == SPAWN_STAGE_READY || stage == SPAWN_STAGE_FAILED)
			return stage;
		if (syscall(SYS_wait4, helper, NULL, WNOHANG | __WALL, NULL) == helper) {
			*reaped = true;
			stage = __atomic_load_n(&h->stage, __ATOMIC_ACQUIRE);
			return stage == SPAWN_STAGE_FAILED ? stage : -ECHILD;
		}
		if (now_ms() - start > timeout_ms) {
			stage = SPAWN_STAGE_WAIT;
			if (__atomic_compare_exchange_n(&h->stage, &stage, SPAWN_STAGE_ABORT, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return -ETIMEDOUT;
		}
		nanosleep(&pause, NULL);
	}
}

/*
 * Start the helper and wait until the receiver of the listener is ready
 * (wait_ready); then the supervisor's end of the socket pair (r->peer_fd)
 * is closed here: the supervisor has its copy, and the filtered process
 * must not be able to read the listener from it. Returns 0 with *helper
 * set, or a negative errno with err set (nothing installed, the helper
 * reaped).
 */
static int spawn_start_helper(struct spawn_child *c, struct spawn_res *r, unsigned int timeout_ms,
			      const char *who, long *helper, struct secbpf_err *err)
{
	sigset_t all, old;
	bool reaped = false;
	int rc, stage;

	/* The helper starts with every signal blocked: no handler of ours
	 * may run in it. No exit signal: the caller's SIGCHLD handling and
	 * wait(-1) never see it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	*helper = syscall(SYS_clone, (unsigned long)CLONE_FILES, NULL, NULL, NULL, NULL);
	if (*helper == 0)
		raw_helper(c);
	rc = -errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (*helper < 0)
		return err_set(err, -rc, "cannot start the hand-over helper: %s", strerror(-rc));

	stage = wait_ready(c->h, *helper, timeout_ms, &reaped);
	if (stage == SPAWN_STAGE_READY) {
		if (r->peer_fd) {
			close(*r->peer_fd);
			*r->peer_fd = -1;
		}
		return 0;
	}
	if (!reaped)
		syscall(SYS_wait4, *helper, NULL, __WALL, NULL);
	if (stage == SPAWN_STAGE_FAILED)
		return explain_failure(c->h, who, false, err);
	if (stage == -ETIMEDOUT)
		return err_set(err, ETIMEDOUT, "%s did not get ready in time" NOTHING, who);
	return err_set(err, ECHILD, "the hand-over helper died" NOTHING);
}

/*
 * What both hand-overs share: start the helper (c describes where it
 * delivers the listener) and wait until the receiver is ready, install
 * progs with the listener on the last, and wait for the helper's report.
 * who names the receiver in messages.
 */
static int spawn_install_and_hand_over(struct spawn_child *c, struct spawn_res *r,
				       const struct sock_fprog *progs, size_t n, unsigned int flags,
				       unsigned int timeout_ms, const char *who,
				       struct secbpf_err *err)
{
	struct spawn_handoff *h = c->h;
	unsigned int last = flags | SUPERVISOR_LISTENER_FLAGS;
	long helper;
	int rc, stage, lfd;

	if (flags & SECCOMP_FILTER_FLAG_TSYNC)
		last |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
	if (!timeout_ms)
		timeout_ms = 30000;
	c->caller = getpid();
	rc = spawn_start_helper(c, r, timeout_ms, who, &helper, err);
	if (rc)
		return rc;

	lfd = attach_cbpf_stack(progs, n, flags, last, err);
	if (lfd < 0) {
		/* READY: only we move the stage from there. */
		__atomic_store_n(&h->stage, SPAWN_STAGE_ABORT, __ATOMIC_RELEASE);
		syscall(SYS_wait4, helper, NULL, __WALL, NULL);
		return lfd;
	}
	h->listener_fd = lfd;
	__atomic_store_n(&h->stage, SPAWN_STAGE_INSTALLED, __ATOMIC_RELEASE);

	/* From here until the listener is served: no syscall (see above). */
	stage = wait_handoff(h, timeout_ms);
	if (stage == -ETIMEDOUT) {
		/* Never keep our own listener: if the helper did not take
		 * it out, nobody serves it; closing it fails closed. If the
		 * helper claimed it, it closes it in a moment. */
		int pending = SPAWN_CLOSE_PENDING;

		if (__atomic_compare_exchange_n(&h->closed, &pending, SPAWN_CLOSE_CALLER, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			close(lfd);
		/* The helper may still send on its end: closing it here
		 * could let the number name another fd of ours by then. */
		r->pass_fd = -1;
		return err_set(err, ETIMEDOUT, "%s did not take the listener in time%s", who,
			       c->argv ? STAYS : STAYS_SVC);
	}
	if (stage == SPAWN_STAGE_FAILED) {
		rc = explain_failure(h, who, true, err);
		syscall(SYS_wait4, helper, NULL, __WALL, NULL);
		return rc;
	}
	/* Served from now on; the helper exits by itself. Reaping it is a
	 * syscall under the filter: if the filter denies it, the helper
	 * stays a zombie until we exit. */
	syscall(SYS_wait4, helper, NULL, __WALL, NULL);
	return 0;
}

int supervisor_spawn_attach(const struct stack_plan *plan, const struct spawn_target *targets,
			    size_t n, const struct spawn_opts *opts, struct secbpf_err *err)
{
	struct spawn_res r = { .handoff_fd = -1, .pass_fd = -1 };
	struct spawn_child c = { 0 };
	const char *exe;
	int rc;

	if (!plan->stateful)
		return err_set(err, EINVAL, "this stack needs no supervisor");
	rc = resolve_exe(opts, &exe, err);
	if (rc)
		return rc;
	rc = spawn_prepare(&r, exe, plan, targets, n, opts, err);
	if (!rc) {
		c.h = r.h;
		c.argv = r.argv;
		c.envp = environ;
		c.pass_sock = r.pass_fd;
		c.keep = r.image_fds;
		c.nkeep = r.nimages;
		rc = spawn_install_and_hand_over(&c, &r, plan->install, plan->ninstall,
						 opts->seccomp_flags, opts->timeout_ms, exe, err);
	}
	spawn_release(&r);
	return rc;
}

int supervisor_service_attach(const struct sock_fprog *progs, size_t n, unsigned int seccomp_flags,
			      int handle, unsigned int timeout_ms, struct secbpf_err *err)
{
	struct spawn_res r = { .handoff_fd = -1, .pass_fd = -1 };
	struct spawn_child c = { 0 };
	struct {
		struct svc_hdr hdr;
		struct svc_attach body;
	} req = {
		.hdr = { .magic = SVC_MAGIC,
			 .version = SVC_VERSION,
			 .type = SVC_REQ_ATTACH,
			 .len = sizeof(struct svc_attach) },
		.body = { .pid = getpid() },
	};
	int rc;

	if (n == 0)
		return err_set(err, EINVAL, "no filter to install");
	rc = spawn_map_handoff(&r, err);
	if (!rc) {
		c.h = r.h;
		c.sock = handle;
		c.request = &req;
		c.request_len = sizeof(req);
		c.timeout_ms = timeout_ms ? timeout_ms : 30000;
		rc = spawn_install_and_hand_over(&c, &r, progs, n, seccomp_flags, timeout_ms,
						 "the service", err);
	}
	spawn_release(&r);
	return rc;
}
