// SPDX-License-Identifier: MIT
/*
 * The child of `secbpf run` and its report: it installs the filters right
 * before CMD's execve (docs/design.md §1), and the parent waits for it
 * (serving its listener when the stack is stateful) and turns what
 * happened into run's exit status (docs/design.md §5).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Internal header: install/attach.h, to install a cBPF stack (with the
 * listener on its last filter) in one call with no syscall after the last
 * install; the API attaches to the calling process only, after verifying,
 * and starts its own supervisor. */
#include "install/attach.h"
#include "run.h"
#include "supervisor/supervisor_spawn.h"

extern char **environ;

static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static __attribute__((noreturn)) void child_setup_failed(struct run_report *r)
{
	__atomic_store_n(&r->stage, RUN_STAGE_SETUP_FAILED, __ATOMIC_RELEASE);
	cli_child_exit(EXIT_RUN_FAILED);
}

/*
 * The child: restore the signal mask CMD should get, set no_new_privs,
 * install the filters, execve. After the last install the only syscalls
 * are execve and, if it fails, exit_group. With a listener, the last
 * filter is installed last of all and its fd is published by a store:
 * the parent shares our fd table (CLONE_FILES), so the fd is already in
 * its hands, and the listener is close-on-exec, so CMD does not get it.
 */
static __attribute__((noreturn)) void run_child(const struct run_child *c)
{
	struct run_report *r = c->report;
	int rc, e;

	if (sigprocmask(SIG_SETMASK, &c->sigmask, NULL)) {
		err_set(&r->err, errno, "cannot restore the signal mask: %s", strerror(errno));
		child_setup_failed(r);
	}
	/* Required by the kernel for an unprivileged caller; set also when
	 * privileged, so that no setuid program gains privileges under a
	 * filter it was not written for. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		err_set(&r->err, errno, "cannot set no_new_privs: %s", strerror(errno));
		child_setup_failed(r);
	}
	/* One call: everything is checked before the first install, and then
	 * only seccomp() runs (attach.h); for a handle, until the service
	 * holds the listener (supervisor_spawn.h). */
	if (c->listener && c->service_handle >= 0)
		rc = supervisor_service_attach(c->progs, c->nprogs, 0, c->service_handle, 0,
					       &r->err);
	else if (c->listener)
		rc = attach_cbpf_stack(c->progs, c->nprogs, 0, SUPERVISOR_LISTENER_FLAGS, &r->err);
	else
		rc = attach_cbpf_many(c->progs, c->nprogs, 0, &r->err);
	if (rc < 0)
		child_setup_failed(r);
	if (c->listener && c->service_handle < 0)
		r->listener_fd = rc;
	__atomic_store_n(&r->stage, RUN_STAGE_EXEC, __ATOMIC_RELEASE);
	execve(c->path, c->argv, environ);
	e = errno;
	r->exec_errno = e;
	__atomic_store_n(&r->stage, RUN_STAGE_EXEC_FAILED, __ATOMIC_RELEASE);
	cli_child_exit(EXIT_CANNOT_EXEC);
}

/*
 * Wait until the child has installed its filters (the stage moves past
 * SETUP) or has died. The child may make no syscall to wake us once its
 * filters are in, so poll the page, backing off from 20 us to 1 ms.
 * Returns true if the child died (and was reaped into *status).
 */
static bool wait_published(pid_t pid, const struct run_report *r, int *status)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 20000 };

	for (;;) {
		if (__atomic_load_n(&r->stage, __ATOMIC_ACQUIRE) != RUN_STAGE_SETUP)
			return false;
		if (waitpid(pid, status, WNOHANG) == pid)
			return true;
		nanosleep(&ts, NULL);
		if (ts.tv_nsec < 1000000)
			ts.tv_nsec *= 2;
	}
}

/* The report page, shared with the child; NULL after printing why. */
static struct run_report *report_map(void)
{
	struct run_report *r;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED) {
		cli_error("run", "cannot map the report page: %s", strerror(errno));
		return NULL;
	}
	memset(r, 0, sizeof(*r));
	r->stage = RUN_STAGE_SETUP;
	r->listener_fd = -1;
	return r;
}

/*
 * This process, before the child exists: not dumpable, supervisor or not
 * (the child inherits that until its execve, which makes CMD dumpable
 * again: there is no moment when CMD runs and we are dumpable, so nothing
 * CMD starts can ptrace us, read or write our memory or take our fds,
 * docs/threat-model.md), and the forwarded signals and SIGCHLD blocked
 * into *set (the previous mask in *old). Returns 0, or -1 after printing
 * why.
 */
static int run_prepare_parent(sigset_t *set, sigset_t *old)
{
	size_t i;
	int rc;

	rc = supervisor_make_undumpable();
	if (rc) {
		cli_error("run", "cannot make this process non-dumpable: %s", strerror(-rc));
		return -1;
	}
	sigemptyset(set);
	for (i = 0; i < sizeof(forwarded_signals) / sizeof(forwarded_signals[0]); i++)
		sigaddset(set, forwarded_signals[i]);
	sigaddset(set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, set, old)) {
		cli_error("run", "cannot block signals: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Create the child, which runs run_child(c) and never returns; its pid,
 * or -1 after printing why. */
static pid_t run_spawn(const struct run_child *c, bool supervised)
{
	pid_t pid;

	/* The child never uses stdio: flush so nothing buffered is lost. */
	fflush(NULL);
	if (supervised)
		/* fork() with a shared fd table: without CLONE_VM the child
		 * gets a copy of our memory and returns here on that copy. */
		pid = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, NULL, NULL, NULL, 0);
	else
		pid = fork();
	if (pid < 0) {
		cli_error("run", "cannot create the child: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		run_child(c);
	return pid;
}

/*
 * Wait for a child with a listener: once it has installed its filters,
 * serve them until it and every process using them are gone. Returns 0
 * with *status set, a negative errno when waiting failed, or
 * EXIT_RUN_FAILED after printing why.
 */
static int run_supervise_child(pid_t pid, struct run_report *r, const struct run_supervision *sup,
			       const sigset_t *set, int *status, bool *forwarded)
{
	bool reaped;
	int stage, rc;

	if (supervisor_ignore_stop_signals())
		cli_error("run", "warning: cannot ignore job control signals: %s", strerror(errno));
	supervisor_raise_fd_limit(); /* CMD exists: it keeps its own */
	reaped = wait_published(pid, r, status);
	stage = __atomic_load_n(&r->stage, __ATOMIC_ACQUIRE);
	if (stage == RUN_STAGE_SETUP || stage == RUN_STAGE_SETUP_FAILED) {
		/* No CMD ran: nothing to serve. A listener installed right
		 * before the child was killed is closed. */
		if (!reaped)
			waitpid(pid, status, 0);
		if (r->listener_fd >= 0)
			close(r->listener_fd);
		return 0;
	}
	if (r->listener_fd < 0) {
		/* Cannot happen: EXEC is only stored after the fd. */
		cli_error("run", "internal error: no listener published");
		if (!reaped) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
		}
		return EXIT_RUN_FAILED;
	}
	/* Even if CMD is already gone: what it started may still need the
	 * supervisor. */
	rc = run_serve(pid, reaped, r->listener_fd, sup, set, status, forwarded);
	if (rc && rc != -ECHILD)
		return EXIT_RUN_FAILED;
	return rc;
}

/* run's exit status for a child that was reaped with status, from how far
 * it got (r); forwarded: we sent it a signal. */
static int run_exit_status(const struct run_report *r, const char *cmd, int status, bool forwarded)
{
	int sig;

	switch (__atomic_load_n(&r->stage, __ATOMIC_ACQUIRE)) {
	case RUN_STAGE_SETUP_FAILED:
		cli_error("run", "cannot install the filters: %s", r->err.msg);
		return EXIT_RUN_FAILED;
	case RUN_STAGE_EXEC_FAILED:
		cli_error(cmd, "cannot execute it: %s (no permission, or a filter denies execve)",
			  strerror(r->exec_errno));
		return EXIT_CANNOT_EXEC;
	case RUN_STAGE_SETUP:
		/* Killed before execve: by a signal we forwarded (the user's
		 * wish), or by an earlier filter denying seccomp() with KILL. */
		if (WIFSIGNALED(status) && forwarded)
			return 128 + WTERMSIG(status);
		cli_error("run",
			  "the process died while installing the filters (%s%d): a filter given "
			  "earlier may kill seccomp()",
			  WIFSIGNALED(status) ? "signal " : "status ",
			  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		return EXIT_RUN_FAILED;
	default:
		break;
	}
	if (WIFSIGNALED(status)) {
		sig = WTERMSIG(status);
		if (sig == SIGSYS)
			cli_error(cmd,
				  "killed by SIGSYS: a filter returned KILL (or TRAP, unhandled)");
		return 128 + sig;
	}
	return WEXITSTATUS(status);
}

int run_and_wait(struct run_child *c, const char *cmd, const struct run_supervision *sup,
		 void (*release)(void *), void *arg)
{
	struct run_report *r;
	sigset_t set, old;
	bool forwarded = false;
	int status = 0, rc;
	pid_t pid;

	r = report_map();
	if (!r)
		return EXIT_RUN_FAILED;
	c->report = r;
	if (run_prepare_parent(&set, &old)) {
		munmap(r, sizeof(*r));
		return EXIT_RUN_FAILED;
	}
	c->sigmask = old;
	pid = run_spawn(c, sup != NULL);
	if (pid < 0) {
		rc = EXIT_RUN_FAILED;
	} else if (!sup) {
		/* The child has its own copy of the filters and objects. */
		release(arg);
		rc = cli_wait_forwarding(pid, &set, &status, &forwarded);
	} else {
		rc = run_supervise_child(pid, r, sup, &set, &status, &forwarded);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc < 0)
		cli_error("run", "waiting for %s: %s", cmd, strerror(-rc));
	status = rc ? EXIT_RUN_FAILED : run_exit_status(r, cmd, status, forwarded);
	munmap(r, sizeof(*r));
	return status;
}
