// SPDX-License-Identifier: MIT
/*
 * The caller's side of attaching a stateful stack (supervisor_spawn.h):
 * a helper child sharing our fd table, the install, and the hand-over of
 * the listener to a freshly executed secbpf-supervisor. The helper and the
 * supervisor's child side run in a copy of a possibly multi-threaded
 * process: they only make raw syscalls and plain stores, never malloc,
 * stdio or a lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/close_range.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "install/attach.h"
#include "supervisor/supervisor.h"
#include "supervisor/supervisor_spawn.h"

extern char **environ;

/* Everything the helper and the supervisor's child side need, prepared
 * before the helper exists. */
struct spawn_child {
	struct spawn_handoff *h;
	pid_t caller;	      /* the helper's parent: if it changes, quit */
	char **argv;	      /* argv[0] is the executable */
	char **envp;
	char *listener_arg;   /* filled with the listener fd number */
	const int *keep;      /* fds the supervisor gets (besides the listener) */
	size_t nkeep;
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

/* The decimal digits of a small non-negative number, without stdio. */
static void raw_format_int(char *out, int v)
{
	char tmp[12];
	int i = 0, j = 0;

	do {
		tmp[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0 && i < (int)sizeof(tmp));
	while (i > 0)
		out[j++] = tmp[--i];
	out[j] = '\0';
}

/*
 * Report a failure unless the stage is already final: claim the page with
 * a compare-and-swap to a private stage, write the fields, then publish
 * FAILED, so that two reporters never mix their fields.
 */
static void raw_fail(struct spawn_handoff *h, int kind, int error)
{
	int expected = SPAWN_STAGE_INSTALLED;

	if (!__atomic_compare_exchange_n(&h->stage, &expected, -1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	h->fail_kind = kind;
	h->error = error;
	__atomic_store_n(&h->stage, SPAWN_STAGE_FAILED, __ATOMIC_RELEASE);
}

/* The supervisor-to-be: a private copy of the fd table, listener included.
 * Leave the caller's session (a ^C on its terminal must not kill the
 * supervisor), unblock signals, keep only our fds across execve. */
static __attribute__((noreturn)) void raw_exec_supervisor(const struct spawn_child *c, int lfd)
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
	syscall(SYS_fcntl, lfd, F_SETFD, 0);
	syscall(SYS_execve, c->argv[0], c->argv, c->envp);
	raw_fail(c->h, SPAWN_FAIL_EXEC, errno);
	raw_exit(127);
}

/*
 * The helper: wait for the listener, fork the supervisor, close the
 * listener in the table shared with the caller, then watch the supervisor
 * until it serves or fails. All signals are blocked (inherited).
 */
static __attribute__((noreturn)) void raw_helper(const struct spawn_child *c)
{
	struct spawn_handoff *h = c->h;
	int stage, lfd, status, e, pending;
	long g, r;

	for (;;) {
		stage = __atomic_load_n(&h->stage, __ATOMIC_ACQUIRE);
		if (stage == SPAWN_STAGE_INSTALLED)
			break;
		if (stage != SPAWN_STAGE_WAIT || syscall(SYS_getppid) != c->caller)
			raw_exit(0);
		raw_sleep_us(100);
	}
	lfd = h->listener_fd;
	raw_format_int(c->listener_arg, lfd);
	/* A caller that ignores SIGCHLD would have the supervisor reaped
	 * behind our back, and its death go unseen: the default, for us. */
	{
		struct {
			void *handler;
			unsigned long flags;
			void *restorer;
			uint64_t mask;
		} dfl = { 0 };

		syscall(SYS_rt_sigaction, SIGCHLD, &dfl, NULL, sizeof(dfl.mask));
	}
	g = syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL, NULL, NULL);
	if (g == 0)
		raw_exec_supervisor(c, lfd);
	e = errno;
	/* The supervisor has its own copy now (or none will ever exist):
	 * the filtered process must never hold its own listener. Unless the
	 * caller already gave up and closed it (then the number may name
	 * another fd by now). */
	pending = SPAWN_CLOSE_PENDING;
	if (__atomic_compare_exchange_n(&h->closed, &pending, SPAWN_CLOSE_HELPER, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		syscall(SYS_close, lfd);
		__atomic_store_n(&h->closed, SPAWN_CLOSE_DONE, __ATOMIC_RELEASE);
	}
	if (g < 0) {
		raw_fail(h, SPAWN_FAIL_FORK, e);
		raw_exit(0);
	}
	for (;;) {
		stage = __atomic_load_n(&h->stage, __ATOMIC_ACQUIRE);
		if (stage == SPAWN_STAGE_SERVING || stage == SPAWN_STAGE_FAILED)
			break;
		r = syscall(SYS_wait4, g, &status, WNOHANG, NULL);
		if (r == g || (r < 0 && errno == ECHILD)) {
			raw_fail(h, SPAWN_FAIL_EXITED, r == g ? status : 0xff00);
			break;
		}
		raw_sleep_us(1000);
	}
	raw_exit(0);
}

/* ------------------------------------------- the supervisor's reports */

void spawn_report_failure(struct spawn_handoff *h, const char *msg)
{
	int expected = SPAWN_STAGE_INSTALLED;

	if (!__atomic_compare_exchange_n(&h->stage, &expected, -1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	h->fail_kind = SPAWN_FAIL_SUPERVISOR;
	snprintf(h->msg, sizeof(h->msg), "%s", msg);
	__atomic_store_n(&h->stage, SPAWN_STAGE_FAILED, __ATOMIC_RELEASE);
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

/* A sealed memfd holding bytes. Returns the fd or -errno. */
static int sealed_memfd(const char *name, const void *buf, size_t size)
{
	const char *p = buf;
	size_t done = 0;
	ssize_t w;
	int fd, e;

	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	while (done < size) {
		w = write(fd, p + done, size - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = w < 0 ? errno : EIO;
			close(fd);
			return -e;
		}
		done += (size_t)w;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* What the caller allocates for one spawn; freed by spawn_release. */
struct spawn_res {
	int handoff_fd;
	struct spawn_handoff *h;
	int *image_fds;
	size_t nimages;
	char **argv;
	size_t argc, cap;
	char listener_arg[16];
};

static void spawn_release(struct spawn_res *r)
{
	size_t i;

	if (r->h)
		munmap(r->h, sizeof(*r->h));
	if (r->handoff_fd >= 0)
		close(r->handoff_fd);
	for (i = 0; i < r->nimages; i++)
		if (r->image_fds[i] >= 0)
			close(r->image_fds[i]);
	free(r->image_fds);
	/* argv[] entries that are not listener_arg were allocated here. */
	for (i = 0; i < r->argc; i++)
		if (r->argv[i] != r->listener_arg)
			free(r->argv[i]);
	free(r->argv);
}

/* Append s (NULL: out of memory); owned says whether it is ours to free. */
static int argv_push(struct spawn_res *r, char *s, bool owned)
{
	char **n;

	if (!s)
		return -ENOMEM;
	if (r->argc + 2 > r->cap) {
		n = realloc(r->argv, (r->cap ? r->cap * 2 : 32) * sizeof(*n));
		if (!n) {
			if (owned)
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

static int argv_add(struct spawn_res *r, char *s)
{
	return argv_push(r, s, true);
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

/*
 * The supervisor's command line: where the hand-over page and each
 * object image are, the listener (filled in by the helper), and what the
 * plan was built with, so that it can build the same one and compare
 * digests.
 */
static int spawn_prepare(struct spawn_res *r, const char *exe, const struct stack_plan *plan,
			 const struct spawn_target *t, size_t n, const struct spawn_opts *o,
			 struct secbpf_err *err)
{
	size_t i, j;
	int rc = 0;

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
	r->image_fds = calloc(n + 1, sizeof(*r->image_fds));
	if (!r->image_fds)
		return err_set(err, ENOMEM, "out of memory");
	/* keep[] = the hand-over page, then the images. */
	r->image_fds[0] = r->handoff_fd;
	r->handoff_fd = -1;
	r->nimages = 1;
	for (i = 0; i < n; i++) {
		rc = sealed_memfd("secbpf-object", t[i].obj->image, t[i].obj->image_size);
		if (rc < 0)
			return err_set(err, -rc, "%s: cannot pass the object to the supervisor: %s",
				       t[i].obj->path, strerror(-rc));
		r->image_fds[r->nimages++] = rc;
	}
	strcpy(r->listener_arg, "-1");
	rc = argv_add(r, strdup(exe));
	rc = rc ?: argv_add(r, strdup("--handoff"));
	rc = rc ?: argv_addf(r, "%d", r->image_fds[0]);
	rc = rc ?: argv_add(r, strdup("--listener"));
	/* Not allocated: the helper writes into it. */
	rc = rc ?: argv_push(r, r->listener_arg, false);
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

#define STAYS " (the filters stay installed: every syscall that needs the supervisor fails with ENOSYS)"

/* The message for a hand-over that failed after the install. */
static int explain_failure(const struct spawn_handoff *h, const char *exe, struct secbpf_err *err)
{
	switch (h->fail_kind) {
	case SPAWN_FAIL_FORK:
		return err_set(err, h->error, "cannot start the supervisor: %s" STAYS,
			       strerror(h->error));
	case SPAWN_FAIL_EXEC:
		return err_set(err, h->error, "cannot execute the supervisor %s: %s" STAYS, exe,
			       strerror(h->error));
	case SPAWN_FAIL_EXITED:
		return err_set(err, ECHILD, "the supervisor %s %s %d before serving" STAYS, exe,
			       WIFSIGNALED(h->error) ? "was killed by signal" : "exited with status",
			       WIFSIGNALED(h->error) ? WTERMSIG(h->error) : WEXITSTATUS(h->error));
	default:
		return err_set(err, EPROTO, "the supervisor failed: %.*s" STAYS, 300, h->msg);
	}
}

int supervisor_spawn_attach(const struct stack_plan *plan, const struct spawn_target *targets,
			    size_t n, const struct spawn_opts *opts, struct secbpf_err *err)
{
	struct spawn_res r = { .handoff_fd = -1 };
	struct spawn_child c = { 0 };
	unsigned int flags = opts->seccomp_flags, last;
	sigset_t all, old;
	const char *exe;
	long helper;
	int rc, stage, lfd;

	if (!plan->stateful)
		return err_set(err, EINVAL, "this stack needs no supervisor");
	rc = resolve_exe(opts, &exe, err);
	if (rc)
		return rc;
	rc = spawn_prepare(&r, exe, plan, targets, n, opts, err);
	if (rc)
		goto out;
	c.h = r.h;
	c.caller = getpid();
	c.argv = r.argv;
	c.envp = environ;
	c.listener_arg = r.listener_arg;
	c.keep = r.image_fds;
	c.nkeep = r.nimages;
	last = flags | SUPERVISOR_LISTENER_FLAGS;
	if (flags & SECCOMP_FILTER_FLAG_TSYNC)
		last |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;

	/* The helper starts with every signal blocked: no handler of ours
	 * may run in it. No exit signal: the caller's SIGCHLD handling and
	 * wait(-1) never see it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	helper = syscall(SYS_clone, (unsigned long)CLONE_FILES, NULL, NULL, NULL, NULL);
	if (helper == 0)
		raw_helper(&c);
	rc = -errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (helper < 0) {
		err_set(err, -rc, "cannot start the supervisor's helper: %s", strerror(-rc));
		goto out;
	}

	lfd = attach_cbpf_stack(plan->install, plan->ninstall, flags, last, err);
	if (lfd < 0) {
		rc = lfd;
		__atomic_store_n(&r.h->stage, SPAWN_STAGE_ABORT, __ATOMIC_RELEASE);
		syscall(SYS_wait4, helper, NULL, __WALL, NULL);
		goto out;
	}
	r.h->listener_fd = lfd;
	__atomic_store_n(&r.h->stage, SPAWN_STAGE_INSTALLED, __ATOMIC_RELEASE);

	/* From here until the supervisor serves: no syscall (see above). */
	stage = wait_handoff(r.h, opts->timeout_ms ? opts->timeout_ms : 30000);
	if (stage == -ETIMEDOUT) {
		/* Never keep our own listener: if the helper did not take
		 * it out, nobody serves it; closing it fails closed. If the
		 * helper claimed it, it closes it in a moment. */
		int pending = SPAWN_CLOSE_PENDING;

		if (__atomic_compare_exchange_n(&r.h->closed, &pending, SPAWN_CLOSE_CALLER, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			close(lfd);
		rc = err_set(err, ETIMEDOUT, "the supervisor %s did not start in time" STAYS, exe);
		goto out;
	}
	if (stage == SPAWN_STAGE_FAILED) {
		rc = explain_failure(r.h, exe, err);
		syscall(SYS_wait4, helper, NULL, __WALL, NULL);
		goto out;
	}
	/* Served from now on; the helper exits by itself. Reaping it is a
	 * syscall under the filter: if the filter denies it, the helper
	 * stays a zombie until we exit. */
	syscall(SYS_wait4, helper, NULL, __WALL, NULL);
	rc = 0;
out:
	spawn_release(&r);
	return rc;
}
