// SPDX-License-Identifier: MIT
/*
 * The supervisor's life cycle: create it for a listener and a stack, start
 * the reaper and the workers, wait for them and free it; and the settings
 * a supervising process needs. All state lives in struct supervisor; every
 * fd is close-on-exec (the process may share its fd table with a child
 * that is about to exec).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/proc_status.h"
#include "supervisor/supervisor_internal.h"

unsigned int supervisor_default_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > 4 ? 4 : (unsigned int)n;
}

/* The options of supervisor_new, those of an older caller (smaller sz)
 * left at their defaults, and the limits on them. */
static void apply_opts(struct supervisor *sv, const struct supervisor_opts *opts)
{
	sv->log = stderr;
	sv->nworkers = supervisor_default_workers();
	if (opts && opts->sz >= offsetof(struct supervisor_opts, log) + sizeof(opts->log)) {
		if (opts->nworkers)
			sv->nworkers = opts->nworkers;
		if (opts->log)
			sv->log = opts->log;
	}
	sv->agent_timeout_ms = SUPERVISOR_AGENT_TIMEOUT_MS;
	if (opts && opts->sz >= offsetof(struct supervisor_opts, agent_timeout_ms) +
					sizeof(opts->agent_timeout_ms)) {
		if (opts->agent_timeout_ms)
			sv->agent_timeout_ms = opts->agent_timeout_ms;
		if (opts->agent_fd > 0)
			sv->agent_fd = opts->agent_fd; /* ours once we succeed */
	}
	if (opts && opts->sz >= offsetof(struct supervisor_opts, quota) + sizeof(opts->quota)) {
		sv->max_tracked = opts->max_tracked;
		sv->quota = opts->quota;
	}
	if (sv->agent_timeout_ms > INT_MAX)
		sv->agent_timeout_ms = INT_MAX;
	if (sv->nworkers > SUPERVISOR_MAX_WORKERS)
		sv->nworkers = SUPERVISOR_MAX_WORKERS;
}

/* The reaper's epoll fd, and the eventfd that stops it (tracking.c).
 * Returns 0, or a negative errno with err set. */
static int open_reaper_fds(struct supervisor *sv, struct secbpf_err *err)
{
	/* data 0 is never a TGID: it means stop. */
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 0 };

	sv->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	sv->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (sv->epoll_fd < 0 || sv->stop_fd < 0)
		return err_set(err, errno, "cannot create an epoll or event fd: %s",
			       strerror(errno));
	if (epoll_ctl(sv->epoll_fd, EPOLL_CTL_ADD, sv->stop_fd, &ev))
		return err_set(err, errno, "epoll_ctl: %s", strerror(errno));
	return 0;
}

struct supervisor *supervisor_new(int listener, const struct supervisor_prog *progs, size_t n,
				  const struct supervisor_opts *opts, struct secbpf_err *err)
{
	struct seccomp_notif_sizes sizes;
	struct supervisor *sv;
	unsigned int i, j;

	if (listener < 0 || n == 0) {
		err_set(err, EINVAL, "no listener or no filter");
		return NULL;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes)) {
		err_set(err, errno, "cannot get the notification sizes: %s", strerror(errno));
		return NULL;
	}
	sv = calloc(1, sizeof(*sv));
	if (!sv) {
		err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	sv->listener = listener;
	sv->epoll_fd = -1;
	sv->stop_fd = -1;
	sv->agent_fd = -1;
	supervisor_control_init(sv, opts);
	pthread_mutex_init(&sv->lock, NULL);
	pthread_mutex_init(&sv->agent_lock, NULL);
	apply_opts(sv, opts);
	/* The kernel copies its own struct sizes: never less than that. */
	sv->req_size = sizeof(struct seccomp_notif);
	if (sizes.seccomp_notif > sv->req_size)
		sv->req_size = sizes.seccomp_notif;
	sv->resp_size = sizeof(struct seccomp_notif_resp);
	if (sizes.seccomp_notif_resp > sv->resp_size)
		sv->resp_size = sizes.seccomp_notif_resp;

	sv->progs = calloc(n, sizeof(*sv->progs));
	sv->workers = calloc(sv->nworkers, sizeof(*sv->workers));
	if (!sv->progs || !sv->workers)
		goto nomem;
	/* Before anything can fail: supervisor_free closes cached pidfds. */
	for (i = 0; i < sv->nworkers; i++)
		for (j = 0; j < SUPERVISOR_THREAD_CACHE; j++)
			sv->workers[i].cache[j].pidfd = -1;
	memcpy(sv->progs, progs, n * sizeof(*progs));
	sv->nprogs = n;
	if (open_reaper_fds(sv, err))
		goto fail;
	for (i = 0; i < n; i++)
		sv->open_mem |= progs[i].rt && progs[i].reads_memory;
	for (i = 0; i < sv->nworkers; i++) {
		sv->workers[i].sv = sv;
		sv->workers[i].cpu = i;
		sv->workers[i].req = calloc(1, sv->req_size);
		sv->workers[i].resp = calloc(1, sv->resp_size);
		if (!sv->workers[i].req || !sv->workers[i].resp)
			goto nomem;
	}
	return sv;
nomem:
	err_set(err, ENOMEM, "out of memory");
fail:
	sv->listener = -1; /* the caller keeps them on failure */
	sv->agent_fd = -1;
	supervisor_free(sv);
	return NULL;
}

int supervisor_start(struct supervisor *sv, struct secbpf_err *err)
{
	uint64_t flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
	unsigned int i;
	int rc;

	/* A hint that the target waits for our reply on this CPU, so the
	 * kernel can switch to us directly (Linux 6.6); older kernels say
	 * EINVAL or ENOTTY and work without it. */
	/* The same kernels (Linux 6.6) wake a blocked receive when the
	 * last task is gone; older ones need a poll first (wait_pending). */
	sv->recv_wakes_on_hangup = ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags) == 0;
	rc = pthread_create(&sv->reaper, NULL, supervisor_reaper_main, sv);
	if (rc)
		return err_set(err, rc, "cannot start the reaper thread: %s", strerror(rc));
	sv->reaper_started = true;
	for (i = 0; i < sv->nworkers; i++) {
		rc = pthread_create(&sv->workers[i].thread, NULL, supervisor_worker_main,
				    &sv->workers[i]);
		if (rc)
			return err_set(err, rc, "cannot start worker %u: %s", i, strerror(rc));
		sv->workers[i].started = true;
	}
	/* Last: it reads what the workers and the runtimes hold. */
	supervisor_control_start(sv);
	return 0;
}

unsigned long supervisor_wait(struct supervisor *sv)
{
	unsigned int i;

	/* Nothing is left to inspect once the filter has no task. */
	for (i = 0; i < sv->nworkers; i++) {
		if (!sv->workers[i].started)
			continue;
		pthread_join(sv->workers[i].thread, NULL);
		sv->workers[i].started = false;
	}
	if (sv->reaper_started) {
		uint64_t one = 1;

		if (write(sv->stop_fd, &one, sizeof(one)) == sizeof(one))
			pthread_join(sv->reaper, NULL);
		sv->reaper_started = false;
	}
	supervisor_control_stop(sv);
	return __atomic_load_n(&sv->failures, __ATOMIC_RELAXED);
}

void supervisor_free(struct supervisor *sv)
{
	unsigned int i, j;

	if (!sv)
		return;
	supervisor_control_stop(sv);
	for (i = 0; sv->workers && i < sv->nworkers; i++) {
		for (j = 0; j < SUPERVISOR_THREAD_CACHE; j++)
			supervisor_thread_cache_evict(&sv->workers[i].cache[j]);
		free(sv->workers[i].req);
		free(sv->workers[i].resp);
	}
	if (sv->listener >= 0)
		close(sv->listener);
	/* Processes still tracked: their pidfds closed, their quota given
	 * back (it outlives us), their state freed (the runtimes too). */
	supervisor_untrack_all(sv);
	if (sv->epoll_fd >= 0)
		close(sv->epoll_fd);
	if (sv->stop_fd >= 0)
		close(sv->stop_fd);
	if (sv->agent_fd >= 0)
		close(sv->agent_fd);
	pthread_mutex_destroy(&sv->lock);
	pthread_mutex_destroy(&sv->agent_lock);
	free(sv->tracked);
	free(sv->workers);
	free(sv->progs);
	free(sv);
}

int supervisor_make_undumpable(void)
{
	/* Seed 009's rule enforced on ourselves: a non-dumpable process
	 * cannot be ptraced or read (process_vm_readv, /proc/PID/mem) by a
	 * target without CAP_SYS_PTRACE. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return -errno;
	return 0;
}

int supervisor_ignore_stop_signals(void)
{
	static const int job_control[] = { SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE };
	size_t i;

	/* A stopped supervisor would freeze every target; a write to a
	 * closed log pipe must not kill it either. */
	for (i = 0; i < sizeof(job_control) / sizeof(job_control[0]); i++)
		if (signal(job_control[i], SIG_IGN) == SIG_ERR)
			return -errno;
	return 0;
}

long supervisor_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return -errno;
	}
	return rl.rlim_cur > LONG_MAX ? LONG_MAX : (long)rl.rlim_cur;
}

int supervisor_count_own_filters(void)
{
	uint64_t n;
	int rc;

	rc = proc_status_self_u64("Seccomp_filters", 10, &n);
	if (rc)
		return rc;
	return n > INT_MAX ? -ERANGE : (int)n;
}
