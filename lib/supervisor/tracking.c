// SPDX-License-Identifier: MIT
/*
 * The processes the supervisor has seen, each watched through a pidfd
 * until it exits, so that the state programs keep for it (task storage)
 * goes with it. The reaper thread frees it; everything here is under
 * sv->lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/proc_stat.h"
#include "supervisor/supervisor_internal.h"

/* Not in Debian 12's headers (linux/magic.h of Linux 6.9). */
#define PIDFS_MAGIC_NUMBER 0x50494446

/* Seconds between two log lines about one cap. */
#define CAP_LOG_INTERVAL 60

/* Uncharge one process from q and the quotas above it. */
static void quota_release(struct supervisor_quota *q)
{
	for (; q; q = q->parent)
		__atomic_sub_fetch(&q->used, 1, __ATOMIC_RELAXED);
}

/*
 * Charge one process to q and the quotas above it. Returns NULL, or the
 * quota whose cap it would pass, nothing charged then. Counts are added
 * before they are compared, so two charges racing at a cap may both be
 * refused, never both accepted past it.
 */
static struct supervisor_quota *quota_charge(struct supervisor_quota *q)
{
	struct supervisor_quota *p, *u;

	for (p = q; p; p = p->parent) {
		if (__atomic_add_fetch(&p->used, 1, __ATOMIC_RELAXED) <= p->max || !p->max)
			continue;
		for (u = q; u != p->parent; u = u->parent)
			__atomic_sub_fetch(&u->used, 1, __ATOMIC_RELAXED);
		return p;
	}
	return NULL;
}

/* Whether a line about a cap is due (none in the last CAP_LOG_INTERVAL
 * seconds), true for one caller only: *logged_at is that second + 1. */
static bool cap_log_due(long *logged_at)
{
	struct timespec ts;
	long now, last;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (long)ts.tv_sec + 1;
	last = __atomic_load_n(logged_at, __ATOMIC_RELAXED);
	if (last && now - last < CAP_LOG_INTERVAL)
		return false;
	return __atomic_compare_exchange_n(logged_at, &last, now, false, __ATOMIC_RELAXED,
					   __ATOMIC_RELAXED);
}

/* Forget tracked[i] and free the state its process left; under lock. */
static void forget_process(struct supervisor *sv, size_t i)
{
	pid_t tgid = sv->tracked[i].tgid;
	uint64_t ident = sv->tracked[i].ident;
	size_t j;

	epoll_ctl(sv->epoll_fd, EPOLL_CTL_DEL, sv->tracked[i].pidfd, NULL);
	close(sv->tracked[i].pidfd);
	quota_release(sv->quota);
	sv->tracked[i] = sv->tracked[--sv->ntracked];
	for (j = 0; j < sv->nprogs; j++)
		if (sv->progs[j].rt)
			runtime_task_exit(sv->progs[j].rt, tgid, ident);
}

/*
 * The identity of the process of pidfd (PID tgid), as runtime.h defines
 * it: its pidfs inode with bit 63 set, or before Linux 6.9 its start time.
 * Returns 0 or a negative errno.
 */
static int process_identity(int pidfd, pid_t tgid, uint64_t *ident)
{
	struct statfs sfs;
	struct stat st;

	if (fstatfs(pidfd, &sfs) == 0 && sfs.f_type == PIDFS_MAGIC_NUMBER) {
		if (fstat(pidfd, &st))
			return -errno;
		*ident = (uint64_t)st.st_ino | 1ULL << 63;
		return 0;
	}
	return proc_stat_start_time(tgid, ident);
}

/*
 * The cap that tracking one more process would pass, if any: this
 * supervisor's own (*full set, nothing charged) or a quota's (returned,
 * nothing charged). Otherwise the process is charged to the quotas and
 * the caller must track it or call quota_release. Under lock.
 */
static struct supervisor_quota *charge_process(struct supervisor *sv, bool *full)
{
	*full = sv->max_tracked && sv->ntracked >= sv->max_tracked;
	if (*full)
		return NULL;
	return quota_charge(sv->quota);
}

/* Say, once a minute at most per cap, that a cap refused a process: the
 * uid and the cap, and what its syscalls get. The baton is handed on
 * first (logging may block). */
static void log_cap(struct supervisor_worker *w, struct supervisor_quota *q)
{
	struct supervisor *sv = w->sv;

	if (!cap_log_due(q ? &q->logged_at : &sv->cap_logged_at))
		return;
	supervisor_baton_release(w);
	if (q)
		supervisor_log(sv,
			       "%s: %lu processes tracked, the cap: notified syscalls of its new "
			       "processes that need their process fail with EAGAIN until some exit",
			       q->name, q->max);
	else
		supervisor_log(
			sv,
			"uid %u: %zu processes tracked by the supervisor of pid %d, its cap: "
			"notified syscalls of its new processes that need their process fail "
			"with EAGAIN until some exit",
			(unsigned int)sv->control.owner, sv->max_tracked,
			(int)sv->control.target_pid);
}

/*
 * Watch process tgid (whose thread made notification id) until it exits,
 * so that the state programs keep for it (task storage) goes with it.
 * The pidfd is opened first and the notification checked after, so the
 * pidfd names that process and not a later one with the same PID. A
 * tracked entry whose process has exited is an earlier process with this
 * PID whose exit the reaper has not handled yet: its state is freed here,
 * before this process's programs run. A process already tracked costs
 * nothing more; a new one needs room under max_tracked and the quotas.
 * Returns 0, -EDQUOT when a cap is reached (logged here, rate-limited), or
 * another negative errno (the caller then fails the syscall).
 */
int supervisor_track_process(struct supervisor_worker *w, pid_t tgid, uint64_t id)
{
	struct supervisor *sv = w->sv;
	struct epoll_event ev = { .events = EPOLLIN };
	struct supervisor_quota *over = NULL;
	struct tracked_process *grown;
	uint64_t ident = 0;
	bool full = false;
	size_t i, j;
	int pidfd, rc = 0;

	pthread_mutex_lock(&sv->lock);
	for (i = 0; i < sv->ntracked; i++) {
		if (sv->tracked[i].tgid != tgid)
			continue;
		/* Two live processes never share a PID: if the tracked
		 * one lives, it is the caller's. */
		if (!pidfd_exited(sv->tracked[i].pidfd))
			goto out;
		forget_process(sv, i);
		break;
	}
	over = charge_process(sv, &full);
	if (over || full) {
		rc = -EDQUOT;
		goto out;
	}
	if (sv->ntracked == sv->captracked) {
		size_t cap = sv->captracked ? 2 * sv->captracked : 16;

		grown = realloc(sv->tracked, cap * sizeof(*grown));
		if (!grown) {
			rc = -ENOMEM;
			goto uncharge;
		}
		sv->tracked = grown;
		sv->captracked = cap;
	}
	pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	if (pidfd < 0) {
		rc = -errno;
		goto uncharge;
	}
	/* Read while the pidfd holds the PID: if the notification is still
	 * valid after, the identity is this process's. */
	rc = process_identity(pidfd, tgid, &ident);
	if (rc || !notif_valid(sv, id)) {
		close(pidfd);
		rc = rc && rc != -ESRCH ? rc : -ESRCH;
		goto uncharge;
	}
	/* State another process with this PID left (this supervisor's, or
	 * another's sharing the runtime: secbpfd) is freed before ours runs. */
	for (j = 0; j < sv->nprogs; j++)
		if (sv->progs[j].rt && (rc = runtime_task_begin(sv->progs[j].rt, tgid, ident))) {
			close(pidfd);
			goto uncharge;
		}
	/* The generation tells this entry from a later one for the same
	 * PID when the reaper handles a stale event; never 0 (stop). */
	sv->generation++;
	ev.data.u64 = (uint64_t)sv->generation << 32 | (uint32_t)tgid;
	if (epoll_ctl(sv->epoll_fd, EPOLL_CTL_ADD, pidfd, &ev)) {
		rc = -errno;
		close(pidfd);
		goto uncharge;
	}
	sv->tracked[sv->ntracked].tgid = tgid;
	sv->tracked[sv->ntracked].pidfd = pidfd;
	sv->tracked[sv->ntracked].generation = sv->generation;
	sv->tracked[sv->ntracked].ident = ident;
	sv->ntracked++;
	goto out;
uncharge:
	quota_release(sv->quota);
out:
	pthread_mutex_unlock(&sv->lock);
	if (rc == -EDQUOT)
		log_cap(w, over);
	return rc;
}

/* The reaper: frees the state of each tracked process once it exits. */
void *supervisor_reaper_main(void *arg)
{
	struct supervisor *sv = arg;
	struct epoll_event ev[16];
	uint32_t gen;
	pid_t tgid;
	size_t j;
	int n, i;

	for (;;) {
		n = epoll_wait(sv->epoll_fd, ev, 16, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return NULL;
		for (i = 0; i < n; i++) {
			if (ev[i].data.u64 == 0)
				return NULL; /* stop_fd */
			tgid = (pid_t)(uint32_t)ev[i].data.u64;
			gen = (uint32_t)(ev[i].data.u64 >> 32);
			pthread_mutex_lock(&sv->lock);
			for (j = 0; j < sv->ntracked; j++)
				if (sv->tracked[j].tgid == tgid &&
				    sv->tracked[j].generation == gen) {
					forget_process(sv, j);
					break;
				}
			pthread_mutex_unlock(&sv->lock);
		}
	}
}

/*
 * After supervisor_wait: free the state of every process still tracked.
 * The workers return once no task uses the filter, so each of them has
 * exited; this matters when the runtimes outlive the supervisor (secbpfd
 * shares one program's runtime among its attachments).
 */
void supervisor_release_tasks(struct supervisor *sv)
{
	supervisor_untrack_all(sv);
}

/* Forget every tracked process (their pidfds closed, their quota given
 * back, their state freed). */
void supervisor_untrack_all(struct supervisor *sv)
{
	pthread_mutex_lock(&sv->lock);
	while (sv->ntracked)
		forget_process(sv, sv->ntracked - 1);
	pthread_mutex_unlock(&sv->lock);
}
