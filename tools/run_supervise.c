// SPDX-License-Identifier: MIT
/*
 * `secbpf run` as the supervisor of its child (docs/design.md §1): this
 * process holds the listener of the stack and answers the notified
 * syscalls (lib/supervisor/) until the last filtered process is gone,
 * forwarding signals to the child meanwhile.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* Internal headers: supervisor/supervisor.h (through run.h), to serve the
 * listener in this process, and vm/events.h, to read the ring buffers of
 * the runtimes it runs; the API runs its supervisor as a separate
 * process and offers neither. */
#include "run.h"

/*
 * A supervisor for listener (which it owns from now on, even on failure)
 * and the stack of sup (pid: the child), started with its workers and the
 * --events reader.
 * Returns 0 with *sv set; a negative errno after printing why, with *sv
 * set if it was created.
 */
static int supervise_start(pid_t pid, int listener, const struct run_supervision *sup,
			   struct supervisor **sv)
{
	struct supervisor_opts opts = {
		.sz = sizeof(opts),
		.nworkers = sup->nworkers,
		.agent_fd = *sup->agent_fd,
		.kind = "secbpf run",
		.target_pid = pid,
	};
	struct secbpf_err err = { { 0 } };
	int rc;

	*sv = supervisor_new(listener, sup->progs, sup->n, &opts, &err);
	if (!*sv) {
		close(listener);
		cli_error("run", "cannot start the supervisor: %s", err.msg);
		return -ENOMEM;
	}
	*sup->agent_fd = -1; /* the supervisor's now */
	rc = supervisor_start(*sv, &err);
	if (rc) {
		cli_error("run", "cannot start the supervisor: %s", err.msg);
		return rc;
	}
	/* Stopped, and drained, by cmd_run once the workers are done. */
	rc = sup->events ? events_start(sup->events, &err) : 0;
	if (rc)
		cli_error("run", "--events: %s", err.msg);
	return rc;
}

/*
 * Until the child is reaped (*reaped) and the listener has hung up (no
 * process uses the filter any more), forward the signals of set that a
 * process sent us, as cli_wait_forwarding does; they are taken from a
 * signalfd (close-on-exec: until the child's execve completes, it shares
 * our fd table). Returns 0, or a negative errno after printing why.
 */
static int forward_until_done(pid_t pid, int listener, const sigset_t *set, bool *reaped,
			      int *status, bool *forwarded)
{
	struct signalfd_siginfo si;
	struct pollfd pfd[2];
	bool hup = false;
	int sfd, e;

	sfd = signalfd(-1, set, SFD_CLOEXEC);
	if (sfd < 0) {
		e = errno;
		cli_error("run", "cannot create a signalfd: %s", strerror(e));
		return -e;
	}
	pfd[0].fd = sfd;
	pfd[0].events = POLLIN;
	/* No events asked: poll reports the hang-up alone. */
	pfd[1].fd = listener;
	pfd[1].events = 0;
	while (!*reaped || !hup) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot happen with valid fds; stop forwarding. */
			cli_error("run", "poll: %s", strerror(errno));
			if (!*reaped && waitpid(pid, status, 0) == pid)
				*reaped = true;
			break;
		}
		if (pfd[1].revents & (POLLHUP | POLLERR)) {
			hup = true;
			pfd[1].fd = -1;
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		if (read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGCHLD) {
			if (!*reaped && waitpid(pid, status, WNOHANG) == pid)
				*reaped = true;
			continue;
		}
		if (*reaped || si.ssi_code == SI_KERNEL)
			continue;
		if (kill(pid, (int)si.ssi_signo) == 0)
			*forwarded = true;
	}
	close(sfd);
	return 0;
}

/* The workers return once the listener has hung up: with the child gone
 * (and whatever it started), or once the child is killed. */
static void supervise_stop(struct supervisor *sv)
{
	if (!sv)
		return;
	supervisor_wait(sv);
	supervisor_free(sv);
}

int run_serve(pid_t pid, bool reaped, int listener, const struct run_supervision *sup,
	      const sigset_t *set, int *status, bool *forwarded)
{
	struct supervisor *sv = NULL;
	int rc;

	rc = supervise_start(pid, listener, sup, &sv);
	if (!rc)
		rc = forward_until_done(pid, listener, set, &reaped, status, forwarded);
	if (!rc) {
		supervise_stop(sv);
		return reaped ? 0 : -ECHILD;
	}
	/* CMD must not run with nobody to answer its filter. */
	if (!reaped) {
		kill(pid, SIGKILL);
		waitpid(pid, status, 0);
	}
	supervise_stop(sv);
	return rc;
}
