// SPDX-License-Identifier: MIT
/*
 * The thread of a notification: who it is (TID, and its thread group on
 * first need, cached per worker), and the kill and trap done to it. Every
 * fd naming it is opened before the notification is checked valid, so a
 * recycled TID is never acted on.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/proc_status.h"
#include "supervisor/supervisor_internal.h"

/* What /proc/TID/status tells the supervisor. */
struct task_status {
	pid_t tgid;
	bool sigsys_blocked; /* in the thread's mask */
	bool sigsys_ignored; /* SIG_IGN in the process */
};

/*
 * Read /proc/TID/status through proc_fd, a /proc/TID opened before the
 * notification was found valid: if the task has died since, the read
 * fails rather than reading a newer task of that TID. A field missing or
 * malformed is -EIO.
 */
static int read_task_status(int proc_fd, struct task_status *st)
{
	char buf[PROC_STATUS_SIZE];
	uint64_t tgid, blocked, ignored;
	ssize_t n;

	n = proc_status_read(proc_fd, "status", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (proc_status_u64(buf, "Tgid", 10, &tgid) || tgid == 0 || tgid > INT_MAX)
		return -EIO;
	if (proc_status_u64(buf, "SigBlk", 16, &blocked) ||
	    proc_status_u64(buf, "SigIgn", 16, &ignored))
		return -EIO;
	st->tgid = (pid_t)tgid;
	st->sigsys_blocked = blocked & (1ull << (SIGSYS - 1));
	st->sigsys_ignored = ignored & (1ull << (SIGSYS - 1));
	return 0;
}

/* Open /proc/TID as a directory (close-on-exec), or -errno. */
static int open_proc_dir(pid_t tid)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d", (int)tid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * The status of the thread of notification id, read race-free: /proc/TID
 * is opened first, the notification checked after, then read through the
 * fd. -ESRCH when the notification is no longer valid.
 */
static int notif_task_status(const struct supervisor *sv, uint64_t id, pid_t tid,
			     struct task_status *st)
{
	int proc_fd, rc;

	proc_fd = open_proc_dir(tid);
	if (!notif_valid(sv, id)) {
		if (proc_fd >= 0)
			close(proc_fd);
		return -ESRCH;
	}
	if (proc_fd < 0)
		return proc_fd;
	rc = read_task_status(proc_fd, st);
	close(proc_fd);
	return rc;
}

void supervisor_thread_cache_evict(struct thread_cache_entry *c)
{
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
	c->tid = 0;
	c->tgid = 0;
	c->tracked = false;
}

/*
 * Who made notification req: its TID and, when a program of the stack
 * reads memory, /proc/TID/mem (opened before the notification is checked,
 * so that it never names a later task with that TID). Its thread group is
 * found later, only if needed (supervisor_target_tgid). Returns 0; -ESRCH if the
 * notification is no longer valid (nothing to answer); another negative
 * errno if the thread cannot be looked at.
 */
int supervisor_target_open(struct supervisor_worker *w, const struct seccomp_notif *req,
			   struct target *t)
{
	const struct supervisor *sv = w->sv;
	char path[40];

	t->tid = (pid_t)req->pid;
	t->tgid = 0;
	t->mem_fd = -1;
	t->cached = NULL;
	t->over_cap = false;
	if (t->tid <= 0)
		return -ENOENT; /* not in our pid namespace */
	if (!sv->open_mem)
		return 0;
	supervisor_baton_release(w); /* opening /proc can block */
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)t->tid);
	t->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!notif_valid(sv, req->id))
		return -ESRCH;
	return 0;
}

/*
 * The thread group of t, the thread of notification req, into t->tgid.
 * Needed by some helpers (pid_tgid, task storage, signals), kills, traps
 * and the agent, not by every program: it is found on first need.
 *
 * Reading /proc/TID/status costs more than the rest of a notification, so
 * each worker caches TID -> TGID with a pidfd of the thread (PIDFD_THREAD).
 * An entry is used only while that pidfd says the thread lives: a live
 * thread's TID cannot belong to another, so it is the thread that made the
 * syscall, whose TGID cannot have changed (a thread that execs from a
 * non-leader takes the leader's TID, and its old one is seen as exited).
 *
 * Returns 0; -ESRCH if the notification is no longer valid; another
 * negative errno if the thread cannot be looked at.
 */
int supervisor_target_tgid(struct supervisor_worker *w, const struct seccomp_notif *req,
			   struct target *t)
{
	struct thread_cache_entry *c = &w->cache[req->pid % SUPERVISOR_THREAD_CACHE];
	struct supervisor *sv = w->sv;
	struct task_status st;
	int proc_fd, pidfd, rc;

	if (t->tgid > 0)
		return 0;
	if (c->tid == t->tid && !pidfd_exited(c->pidfd)) {
		t->tgid = c->tgid;
		t->cached = c;
		return 0;
	}
	supervisor_baton_release(w); /* reading /proc can block */
	supervisor_thread_cache_evict(c);
	proc_fd = open_proc_dir(t->tid);
	/* Before 6.9 there is no thread pidfd: nothing is cached then. */
	pidfd = (int)syscall(SYS_pidfd_open, t->tid, PIDFD_THREAD);
	if (!notif_valid(sv, req->id))
		rc = -ESRCH;
	else if (proc_fd < 0)
		rc = proc_fd;
	else
		rc = read_task_status(proc_fd, &st);
	if (proc_fd >= 0)
		close(proc_fd);
	if (rc) {
		if (pidfd >= 0)
			close(pidfd);
		return rc;
	}
	t->tgid = st.tgid;
	if (pidfd >= 0) {
		c->tid = t->tid;
		c->tgid = st.tgid;
		c->pidfd = pidfd;
		c->tracked = false;
		t->cached = c;
	}
	return 0;
}

/*
 * The thread group of t, as supervisor_target_tgid finds it, with its
 * process tracked (supervisor_track_process) before any of its state is
 * used: what helpers need. A process is tracked once per cache entry:
 * while the entry's thread lives, its process is alive and stays tracked.
 * Returns 0 or a negative errno as supervisor_target_tgid does, or -EDQUOT
 * with t->over_cap set when a cap on tracked processes refused it.
 */
int supervisor_target_track(struct supervisor_worker *w, const struct seccomp_notif *req,
			    struct target *t)
{
	int rc;

	rc = supervisor_target_tgid(w, req, t);
	if (rc)
		return rc;
	if (t->cached && t->cached->tracked)
		return 0;
	rc = supervisor_track_process(w, t->tgid, req->id);
	if (rc) {
		t->over_cap = rc == -EDQUOT;
		return rc;
	}
	if (t->cached)
		t->cached->tracked = true;
	return 0;
}

void supervisor_target_close(struct target *t)
{
	if (t->mem_fd >= 0)
		close(t->mem_fd);
	t->mem_fd = -1;
}

/*
 * SIGKILL the thread group through a pidfd of its leader. The pidfd is
 * opened first and the notification checked after: a valid notification
 * means the thread still lives, so its thread group is the one the pidfd
 * names. The kernel cannot kill one thread alone from outside.
 */
int supervisor_target_kill(struct supervisor *sv, uint64_t id, const struct target *t)
{
	int pidfd, rc = 0;

	pidfd = (int)syscall(SYS_pidfd_open, t->tgid, 0);
	if (pidfd < 0)
		return -errno;
	if (!notif_valid(sv, id)) {
		close(pidfd);
		return -ESRCH;
	}
	if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0))
		rc = -errno;
	close(pidfd);
	return rc;
}

/*
 * SIGSYS to the thread, as SECCOMP_RET_TRAP does; si_code is SI_QUEUE
 * since no process may send another one a kernel siginfo. The kernel's
 * trap is forced: when SIGSYS is blocked or ignored it kills the process,
 * and so do we. The thread sits in the notified syscall (it can only die,
 * which ID_VALID sees), so tgid/tid still name it when the signal is sent.
 */
int supervisor_target_trap(struct supervisor *sv, uint64_t id, const struct target *t, uint32_t ret)
{
	struct task_status st;
	siginfo_t info;
	int rc;

	rc = notif_task_status(sv, id, t->tid, &st);
	if (rc)
		return rc;
	if (st.sigsys_blocked || st.sigsys_ignored)
		return supervisor_target_kill(sv, id, t);
	if (!notif_valid(sv, id))
		return -ESRCH;
	memset(&info, 0, sizeof(info));
	info.si_signo = SIGSYS;
	info.si_code = SI_QUEUE;
	info.si_errno = (int)(ret & SECCOMP_RET_DATA); /* as the kernel's trap */
	info.si_pid = getpid();
	info.si_uid = getuid();
	if (syscall(SYS_rt_tgsigqueueinfo, t->tgid, t->tid, SIGSYS, &info))
		return -errno;
	return 0;
}
