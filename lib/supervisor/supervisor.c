// SPDX-License-Identifier: MIT
/*
 * The supervisor (see supervisor.h, docs/design.md §1). Worker threads receive
 * notifications from one listener, re-run the filters' programs on the
 * notified seccomp_data and reply. Invariants, checked line by line below:
 * - a notification is answered with CONTINUE only when every filter of the
 *   stack said ALLOW or LOG for it; any failure replies with an error;
 * - nothing about the target is read or acted on through a TID before the
 *   fds naming it were opened and the notification then found still valid
 *   (SECCOMP_IOCTL_NOTIF_ID_VALID), so a recycled TID is never used;
 * - all state lives in struct supervisor; every fd is close-on-exec (the
 *   process may share its fd table with a child that is about to exec).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <seccomp.h>
#include <secbpf/agent.h>

#include "install/action.h"
#include "cbpf/cbpf.h"
#include "supervisor/supervisor.h"

/* Newer than the uapi headers of older distributions (Linux 6.6). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif

#define SUPERVISOR_THREAD_CACHE 64 /* TID -> TGID entries per worker */

/* A thread seen by a worker; valid while pidfd (PIDFD_THREAD) says the
 * thread lives. tid 0: empty. tracked: its process was found tracked
 * (track_process) while this entry was valid; a live thread keeps its
 * process alive, so the reaper cannot have forgotten it since. */
struct thread_cache_entry {
	pid_t tid;
	pid_t tgid;
	int pidfd;
	bool tracked;
};

struct supervisor_worker {
	struct supervisor *sv;
	pthread_t thread;
	bool started;
	unsigned int cpu;	   /* runtime_task.cpu: this worker's slot */
	bool has_baton;		   /* this worker is the receiver (see baton_take) */
	struct seccomp_notif *req; /* sized by the kernel's struct size */
	struct seccomp_notif_resp *resp;
	struct thread_cache_entry cache[SUPERVISOR_THREAD_CACHE];
};

/* A process seen in a notification, watched until it exits so that its
 * task storage is freed (runtime_task_exit). */
struct tracked_process {
	pid_t tgid;
	int pidfd;
	uint32_t generation;
};

struct supervisor {
	int listener;
	struct supervisor_prog *progs; /* install order: the last is newest */
	size_t nprogs;
	bool open_mem; /* a program reads the target's memory */
	FILE *log;
	size_t req_size, resp_size; /* max(ours, the kernel's) */
	unsigned int nworkers;
	struct supervisor_worker *workers;
	unsigned long failures; /* atomic: replies forced by our errors */

	/* The receiver baton (a futex word, BATON_*) and how many workers
	 * wait for it: see baton_take. */
	int baton;
	int baton_waiters;

	/* Processes with live state: under lock. The reaper thread waits
	 * on epoll for their pidfds; stop_fd (an eventfd) ends it. */
	pthread_mutex_t lock;
	struct tracked_process *tracked;
	size_t ntracked, captracked;
	uint32_t generation;
	int epoll_fd, stop_fd;
	pthread_t reaper;
	bool reaper_started;
	/* SYNC_WAKE_UP was accepted: a Linux 6.6+ listener, whose blocked
	 * receives wake when the last task is gone (see wait_pending). */
	bool recv_wakes_on_hangup;

	/* The user agent: one request and its reply at a time, under
	 * agent_lock; agent_fd is -1 when there is none or once it failed. */
	pthread_mutex_t agent_lock;
	int agent_fd;
	unsigned int agent_timeout_ms;
};

/* ------------------------------------------------------------------ */
/* The filter stack                                                     */
/* ------------------------------------------------------------------ */

static bool is_ret_user_notif(const struct sock_filter *insn)
{
	return insn->code == (BPF_RET | BPF_K) &&
	       (insn->k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF;
}

/*
 * A stateful filter's kernel part: the same program with every RET
 * USER_NOTIF turned into RET ALLOW. The listener filter notifies those
 * syscalls instead; a filter without a listener must never return
 * USER_NOTIF (the kernel would fail the syscall with ENOSYS).
 */
static struct sock_filter *kernel_part(const struct sock_filter *insns, size_t len)
{
	struct sock_filter *out;
	size_t i;

	out = malloc(len * sizeof(*out));
	if (!out)
		return NULL;
	memcpy(out, insns, len * sizeof(*out));
	for (i = 0; i < len; i++)
		if (is_ret_user_notif(&out[i]))
			out[i].k = SECCOMP_RET_ALLOW;
	return out;
}

/*
 * The listener filter for several stateful filters: the listener guard,
 * then their programs one after the other, each RET USER_NOTIF kept, every
 * other RET (K or A) turned into a JA to the start of the next one, and
 * RET ALLOW at the end. So it returns USER_NOTIF iff one of them does (or
 * EPERM for a process installing a listener). Jumps inside a piece keep
 * their targets (all relative); a RET at j of a piece of length len jumps
 * len - j - 1 forward, to the next piece. The guard is lib/cbpf's
 * (cbpf_guard_build(), the one the compiler emits). *len is 0 if it does
 * not fit. The programs are compiled without a guard of their own: their
 * kernel parts are installed before the listener, which a guard would
 * refuse.
 */
static struct sock_filter *listener_filter(const struct sock_filter *guard, size_t at,
					   const struct supervisor_prog *progs, size_t n,
					   size_t *len)
{
	struct sock_filter *out;
	size_t total, i, j;

	total = at + 1;
	for (i = 0; i < n; i++)
		if (progs[i].rt)
			total += progs[i].len;
	*len = 0;
	if (total > CBPF_MAX_INSNS)
		return NULL;
	out = calloc(total, sizeof(*out));
	if (!out)
		return NULL;
	memcpy(out, guard, at * sizeof(*out));
	for (i = 0; i < n; i++) {
		if (!progs[i].rt)
			continue;
		for (j = 0; j < progs[i].len; j++, at++) {
			const struct sock_filter *in = &progs[i].insns[j];

			if (is_ret_user_notif(in))
				out[at] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
								       SECCOMP_RET_USER_NOTIF);
			else if (BPF_CLASS(in->code) == BPF_RET)
				out[at] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
								       progs[i].len - j - 1);
			else
				out[at] = *in;
		}
	}
	out[at] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	*len = total;
	return out;
}

void supervisor_stack_free(struct supervisor_stack *s)
{
	size_t i;

	for (i = 0; s->owned && i < s->n; i++)
		free(s->owned[i]);
	free(s->owned);
	free(s->progs);
	memset(s, 0, sizeof(*s));
}

bool supervisor_stack_single(const struct supervisor_prog *progs, size_t n)
{
	size_t i, nstateful = 0;

	for (i = 0; i < n; i++)
		if (progs[i].rt)
			nstateful++;
	return nstateful == 1 && progs[n - 1].rt;
}

/* Whether a filter denies this process's arch installing a listener. */
static bool guard_denies_native(const struct sock_filter *insns, size_t len)
{
	struct seccomp_data sd;
	uint32_t arch = seccomp_arch_native();
	int nr = seccomp_syscall_resolve_name_arch(arch, "seccomp");

	if (nr < 0)
		return false;
	memset(&sd, 0, sizeof(sd));
	sd.arch = arch;
	sd.nr = nr;
	sd.args[0] = SECCOMP_SET_MODE_FILTER;
	sd.args[1] = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	return cbpf_sim_run(insns, len, &sd) == (SECCOMP_RET_ERRNO | EPERM);
}

int supervisor_stack_build(const struct supervisor_prog *progs, size_t n,
			   struct supervisor_stack *out, struct secbpf_err *err)
{
	struct sock_filter *guard;
	size_t i, nstateful = 0, len, guard_len;
	int rc;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		if (progs[i].len == 0 || progs[i].len > CBPF_MAX_INSNS)
			return err_set(err, EINVAL,
				       "%s: a filter has 1 to %d instructions, not %zu",
				       progs[i].name, CBPF_MAX_INSNS, progs[i].len);
		if (progs[i].rt)
			nstateful++;
	}
	if (nstateful == 0)
		return err_set(err, EINVAL, "no filter needs the supervisor");

	/* The common case: one stateful filter, given last, is itself the
	 * listener filter; no rewriting at all. Its guard comes from the
	 * compiler: check it is there, at least for the native arch. */
	if (supervisor_stack_single(progs, n)) {
		if (!guard_denies_native(progs[n - 1].insns, progs[n - 1].len))
			return err_set(err, EINVAL,
				       "%s: the listener filter was compiled without the listener "
				       "guard (cbpf_compile_opts.listener_guard)",
				       progs[n - 1].name);
		out->n = n;
		out->progs = calloc(n, sizeof(*out->progs));
		out->owned = calloc(n, sizeof(*out->owned));
		if (!out->progs || !out->owned)
			goto nomem;
		for (i = 0; i < n; i++) {
			out->progs[i].len = (unsigned short)progs[i].len;
			out->progs[i].filter = (struct sock_filter *)progs[i].insns;
		}
		return 0;
	}

	out->n = n + 1;
	out->progs = calloc(n + 1, sizeof(*out->progs));
	out->owned = calloc(n + 1, sizeof(*out->owned));
	if (!out->progs || !out->owned)
		goto nomem;
	for (i = 0; i < n; i++) {
		out->progs[i].len = (unsigned short)progs[i].len;
		if (!progs[i].rt) {
			out->progs[i].filter = (struct sock_filter *)progs[i].insns;
			continue;
		}
		out->owned[i] = kernel_part(progs[i].insns, progs[i].len);
		if (!out->owned[i])
			goto nomem;
		out->progs[i].filter = out->owned[i];
	}
	rc = cbpf_guard_build(&guard, &guard_len, err);
	if (rc) {
		supervisor_stack_free(out);
		return rc;
	}
	out->owned[n] = listener_filter(guard, guard_len, progs, n, &len);
	if (!out->owned[n] && len == 0) {
		/* Too long to concatenate (or no memory): the guard, then
		 * notify every syscall. The supervisor still combines every
		 * filter's action exactly; only speed is lost. */
		out->owned[n] = calloc(guard_len + 1, sizeof(**out->owned));
		if (!out->owned[n]) {
			free(guard);
			goto nomem;
		}
		memcpy(out->owned[n], guard, guard_len * sizeof(*guard));
		len = guard_len;
		out->owned[n][len++] =
			(struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
		out->listener_notifies_all = true;
		out->progs[n].filter = out->owned[n];
		out->progs[n].len = (unsigned short)len;
	} else {
		out->progs[n].filter = out->owned[n];
		out->progs[n].len = (unsigned short)len;
	}
	free(guard);
	/* What is built here must pass the kernel's rules like anything
	 * the compiler emits. */
	for (i = 0; i <= n; i++) {
		if (!out->owned[i])
			continue;
		rc = cbpf_check(out->progs[i].filter, out->progs[i].len, err);
		if (rc) {
			err_prefix(err, "internal error: supervised stack, filter %zu", i + 1);
			supervisor_stack_free(out);
			return -EFAULT;
		}
	}
	return 0;
nomem:
	supervisor_stack_free(out);
	return err_set(err, ENOMEM, "out of memory");
}

/* ------------------------------------------------------------------ */
/* Decisions                                                            */
/* ------------------------------------------------------------------ */

enum supervisor_deed supervisor_reply_for(uint32_t ret, struct seccomp_notif_resp *resp)
{
	uint32_t eff = action_effective(ret);
	uint32_t data = eff & SECCOMP_RET_DATA;

	resp->val = 0;
	resp->flags = 0;
	switch (eff & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
		resp->error = 0;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		return SUPERVISOR_CONTINUE;
	case SECCOMP_RET_LOG:
		resp->error = 0;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		return SUPERVISOR_LOG;
	case SECCOMP_RET_ERRNO:
		/* As the kernel does: data above MAX_ERRNO is capped; ERRNO(0)
		 * skips the syscall, which returns 0. */
		resp->error = -(int32_t)(data > ACTION_MAX_ERRNO ? ACTION_MAX_ERRNO : data);
		return SUPERVISOR_FAIL;
	case SECCOMP_RET_TRAP:
		resp->error = -ENOSYS;
		return SUPERVISOR_TRAP;
	case SECCOMP_RET_TRACE:
		/* What the kernel does when no tracer is attached. */
		resp->error = -ENOSYS;
		return SUPERVISOR_FAIL;
	case SECCOMP_RET_USER_NOTIF:
		/* ENOSYS unless the user agent answers (agent_ask). */
		resp->error = -ENOSYS;
		return SUPERVISOR_AGENT;
	case SECCOMP_RET_KILL_THREAD:
	case SECCOMP_RET_KILL_PROCESS:
	default:
		/* Seen only if the kill itself failed: never CONTINUE. */
		resp->error = -EPERM;
		return SUPERVISOR_KILL;
	}
}

/* Run one filter's program for a syscall of task (helpers act on it). */
static int run_program(const struct supervisor_prog *p, const struct seccomp_data *sd,
		       const struct runtime_task *task, uint32_t *ret, struct secbpf_err *err)
{
	return runtime_run_task(p->rt, sd, task, ret, err);
}

int supervisor_decide(const struct supervisor *sv, const struct seccomp_data *sd,
		      const struct runtime_task *task, uint32_t *ret, struct secbpf_err *err)
{
	uint32_t combined = 0, r;
	size_t i;
	int rc;

	/* Newest first, as the kernel walks the stack; on a tie the newer
	 * filter's value is kept (action_combine). */
	for (i = sv->nprogs; i-- > 0;) {
		const struct supervisor_prog *p = &sv->progs[i];

		r = cbpf_sim_run(p->insns, p->len, sd);
		if ((r & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF && p->rt) {
			rc = run_program(p, sd, task, &r, err);
			if (rc) {
				err_prefix(err, "%s", p->name);
				return rc;
			}
		}
		combined = i == sv->nprogs - 1 ? r : action_combine(combined, r);
	}
	*ret = combined;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The receiver baton                                                   */
/* ------------------------------------------------------------------ */

/*
 * The receiver baton (leader/followers). The kernel wakes every thread
 * waiting in SECCOMP_IOCTL_NOTIF_RECV for each notification (the waits are
 * not exclusive), and with SYNC_WAKE_UP moves them all to the notifying
 * CPU: with several workers in RECV, each notification would cost a
 * wake-up and a context switch per idle worker. So only the worker holding
 * the baton receives. It keeps the baton while it handles a notification
 * that needs no blocking work (the common case: a cached thread, a program
 * that does not read the target's memory, an allow or errno) and receives
 * the next one; before anything that may block (reading /proc or the
 * target's memory, logging, killing, asking the agent) it hands the baton
 * to a waiting worker, so that one slow notification never holds up the
 * others. Workers waiting for the baton sleep on a futex.
 */
enum { BATON_FREE, BATON_HELD, BATON_STOPPED };

static long futex_op(int *word, int op, int val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

/* Wait until w holds the baton: true, or false once the supervisor stops. */
static bool baton_take(struct supervisor_worker *w)
{
	struct supervisor *sv = w->sv;
	int cur;

	if (w->has_baton)
		return true;
	for (;;) {
		cur = BATON_FREE;
		if (__atomic_compare_exchange_n(&sv->baton, &cur, BATON_HELD, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			w->has_baton = true;
			return true;
		}
		if (cur == BATON_STOPPED)
			return false;
		/* Announce the wait before sleeping; baton_release reads the
		 * count after freeing the baton (both sequentially
		 * consistent): either it sees us and wakes us, or our futex
		 * wait sees the baton no longer HELD and returns at once. */
		__atomic_add_fetch(&sv->baton_waiters, 1, __ATOMIC_SEQ_CST);
		futex_op(&sv->baton, FUTEX_WAIT_PRIVATE, BATON_HELD);
		__atomic_sub_fetch(&sv->baton_waiters, 1, __ATOMIC_SEQ_CST);
	}
}

/* Hand the baton on if w holds it: a waiting worker becomes the receiver. */
static void baton_release(struct supervisor_worker *w)
{
	struct supervisor *sv = w->sv;

	if (!w->has_baton)
		return;
	w->has_baton = false;
	__atomic_store_n(&sv->baton, BATON_FREE, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sv->baton_waiters, __ATOMIC_SEQ_CST))
		futex_op(&sv->baton, FUTEX_WAKE_PRIVATE, 1);
}

/* The listener hung up: every worker returns (w held the baton). */
static void baton_stop(struct supervisor_worker *w)
{
	w->has_baton = false;
	__atomic_store_n(&w->sv->baton, BATON_STOPPED, __ATOMIC_SEQ_CST);
	futex_op(&w->sv->baton, FUTEX_WAKE_PRIVATE, INT_MAX);
}

/* ------------------------------------------------------------------ */
/* The target of a notification                                        */
/* ------------------------------------------------------------------ */

/* The thread of a notification, as the worker knows it. */
struct target {
	pid_t tid;
	pid_t tgid;
	int mem_fd; /* /proc/TID/mem opened before ID_VALID, or -1 */
	/* The worker's cache entry for tid, valid for this notification,
	 * or NULL (no thread pidfd: before Linux 6.9). */
	struct thread_cache_entry *cached;
};

static void sv_log(struct supervisor *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sv_log(struct supervisor *sv, const char *fmt, ...)
{
	char line[SECBPF_ERR_MAX + 128];
	va_list ap;

	/* One fprintf per line: stdio locks the stream for each call. */
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(sv->log, "secbpf: supervisor: %s\n", line);
	fflush(sv->log);
}

static bool notif_valid(const struct supervisor *sv, uint64_t id)
{
	return ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* runtime_task.still_valid: helpers call it after reading the task. */
struct valid_ctx {
	const struct supervisor *sv;
	uint64_t id;
};

static int task_still_valid(void *arg)
{
	const struct valid_ctx *v = arg;

	return notif_valid(v->sv, v->id) ? 0 : -ESRCH;
}

/* Whether a pidfd says its process has exited (it becomes readable). */
static bool pidfd_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) != 0; /* an error counts as exited */
}

/* Forget tracked[i] and free the state its process left; under lock. */
static void forget_process(struct supervisor *sv, size_t i)
{
	pid_t tgid = sv->tracked[i].tgid;
	size_t j;

	epoll_ctl(sv->epoll_fd, EPOLL_CTL_DEL, sv->tracked[i].pidfd, NULL);
	close(sv->tracked[i].pidfd);
	sv->tracked[i] = sv->tracked[--sv->ntracked];
	for (j = 0; j < sv->nprogs; j++)
		if (sv->progs[j].rt)
			runtime_task_exit(sv->progs[j].rt, tgid);
}

/*
 * Watch process tgid (whose thread made notification id) until it exits,
 * so that the state programs keep for it (task storage) goes with it.
 * The pidfd is opened first and the notification checked after, so the
 * pidfd names that process and not a later one with the same PID. A
 * tracked entry whose process has exited is an earlier process with this
 * PID whose exit the reaper has not handled yet: its state is freed here,
 * before this process's programs run. Returns 0 or a negative errno (the
 * caller then fails the syscall).
 */
static int track_process(struct supervisor *sv, pid_t tgid, uint64_t id)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct tracked_process *grown;
	size_t i;
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
	if (sv->ntracked == sv->captracked) {
		size_t cap = sv->captracked ? 2 * sv->captracked : 16;

		grown = realloc(sv->tracked, cap * sizeof(*grown));
		if (!grown) {
			rc = -ENOMEM;
			goto out;
		}
		sv->tracked = grown;
		sv->captracked = cap;
	}
	pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	if (pidfd < 0) {
		rc = -errno;
		goto out;
	}
	if (!notif_valid(sv, id)) {
		close(pidfd);
		rc = -ESRCH;
		goto out;
	}
	/* The generation tells this entry from a later one for the same
	 * PID when the reaper handles a stale event; never 0 (stop). */
	sv->generation++;
	ev.data.u64 = (uint64_t)sv->generation << 32 | (uint32_t)tgid;
	if (epoll_ctl(sv->epoll_fd, EPOLL_CTL_ADD, pidfd, &ev)) {
		rc = -errno;
		close(pidfd);
		goto out;
	}
	sv->tracked[sv->ntracked].tgid = tgid;
	sv->tracked[sv->ntracked].pidfd = pidfd;
	sv->tracked[sv->ntracked].generation = sv->generation;
	sv->ntracked++;
out:
	pthread_mutex_unlock(&sv->lock);
	return rc;
}

/* The reaper: frees the state of each tracked process once it exits. */
static void *reaper_main(void *arg)
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

/* The value of a "Name:\t..." line of a status file, or NULL. */
static const char *status_field(const char *status, const char *name)
{
	size_t len = strlen(name);
	const char *p = status;

	for (;;) {
		if (!strncmp(p, name, len) && p[len] == ':')
			return p + len + 1;
		p = strchr(p, '\n');
		if (!p)
			return NULL;
		p++;
	}
}

/* What /proc/TID/status tells the supervisor. */
struct task_status {
	pid_t tgid;
	bool sigsys_blocked; /* in the thread's mask */
	bool sigsys_ignored; /* SIG_IGN in the process */
};

/*
 * Read /proc/TID/status through proc_fd, a /proc/TID opened before the
 * notification was found valid: if the task has died since, the read
 * fails rather than reading a newer task of that TID.
 */
static int read_task_status(int proc_fd, struct task_status *st)
{
	char buf[8192];
	const char *v;
	ssize_t n;
	long tgid;
	int fd;

	fd = openat(proc_fd, "status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';

	v = status_field(buf, "Tgid");
	if (!v)
		return -EIO;
	tgid = strtol(v, NULL, 10);
	if (tgid <= 0)
		return -EIO;
	st->tgid = (pid_t)tgid;
	v = status_field(buf, "SigBlk");
	if (!v)
		return -EIO;
	st->sigsys_blocked = strtoull(v, NULL, 16) & (1ull << (SIGSYS - 1));
	v = status_field(buf, "SigIgn");
	if (!v)
		return -EIO;
	st->sigsys_ignored = strtoull(v, NULL, 16) & (1ull << (SIGSYS - 1));
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

static void thread_cache_evict(struct thread_cache_entry *c)
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
 * found later, only if needed (target_tgid). Returns 0; -ESRCH if the
 * notification is no longer valid (nothing to answer); another negative
 * errno if the thread cannot be looked at.
 */
static int target_open(struct supervisor_worker *w, const struct seccomp_notif *req,
		       struct target *t)
{
	const struct supervisor *sv = w->sv;
	char path[40];

	t->tid = (pid_t)req->pid;
	t->tgid = 0;
	t->mem_fd = -1;
	t->cached = NULL;
	if (t->tid <= 0)
		return -ENOENT; /* not in our pid namespace */
	if (!sv->open_mem)
		return 0;
	baton_release(w); /* opening /proc can block */
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)t->tid);
	t->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!notif_valid(sv, req->id))
		return -ESRCH;
	return 0;
}

/*
 * The thread group of t, the thread of notification req, into t->tgid, and
 * its process tracked (track_process) before any of its state is used.
 * Needed by some helpers (pid_tgid, task storage, signals), kills, traps
 * and the agent, not by every program: it is found on first need.
 *
 * Reading /proc/TID/status costs more than the rest of a notification, so
 * each worker caches TID -> TGID with a pidfd of the thread (PIDFD_THREAD).
 * An entry is used only while that pidfd says the thread lives: a live
 * thread's TID cannot belong to another, so it is the thread that made the
 * syscall, whose TGID cannot have changed (a thread that execs from a
 * non-leader takes the leader's TID, and its old one is seen as exited).
 * A process is tracked once per cache entry: while the entry's thread
 * lives, its process is alive and stays tracked.
 *
 * Returns 0; -ESRCH if the notification is no longer valid; another
 * negative errno if the thread cannot be looked at or its process watched.
 */
static int target_tgid(struct supervisor_worker *w, const struct seccomp_notif *req,
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
	} else {
		baton_release(w); /* reading /proc can block */
		thread_cache_evict(c);
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
	}
	if (t->cached && t->cached->tracked)
		return 0;
	rc = track_process(sv, t->tgid, req->id);
	if (rc) {
		t->tgid = 0;
		return rc;
	}
	if (t->cached)
		t->cached->tracked = true;
	return 0;
}

static void target_close(struct target *t)
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
static int target_kill(struct supervisor *sv, uint64_t id, const struct target *t)
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
static int target_trap(struct supervisor *sv, uint64_t id, const struct target *t, uint32_t ret)
{
	struct task_status st;
	siginfo_t info;
	int rc;

	rc = notif_task_status(sv, id, t->tid, &st);
	if (rc)
		return rc;
	if (st.sigsys_blocked || st.sigsys_ignored)
		return target_kill(sv, id, t);
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

/* ------------------------------------------------------------------ */
/* Workers                                                              */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* The user agent (docs/agent.md)                                       */
/* ------------------------------------------------------------------ */

int supervisor_agent_connect(const char *path, struct secbpf_err *err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, e;

	if (strlen(path) >= sizeof(addr.sun_path))
		return err_set(err, ENAMETOOLONG, "%s: the socket path is too long", path);
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && fd <= 2) {
		/* With stdin closed it could be 0, which supervisor_opts
		 * takes as "no agent": move it out of the way. */
		e = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		close(fd);
		fd = e;
	}
	if (fd < 0)
		return err_set(err, errno, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		e = errno;
		close(fd);
		return err_set(err, e, "%s: cannot connect to the agent: %s", path, strerror(e));
	}
	/* The agent's answers can let syscalls run: only our own user (or
	 * root) may give them, never whoever could bind that path. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		e = errno;
		close(fd);
		return err_set(err, e, "%s: cannot tell who the agent is: %s", path, strerror(e));
	}
	if (cred.uid != geteuid() && cred.uid != 0) {
		close(fd);
		return err_set(err, EPERM, "%s: the agent runs as uid %u, not as %u or root", path,
			       (unsigned)cred.uid, (unsigned)geteuid());
	}
	return fd;
}

bool supervisor_filter_may_notify(const struct sock_filter *insns, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (is_ret_user_notif(&insns[i]))
			return true;
	return false;
}

/* The agent failed: forget it for good (fail closed). Under agent_lock. */
static void agent_drop(struct supervisor *sv, const char *why)
{
	sv_log(sv, "user agent: %s; from now on USER_NOTIF fails with ENOSYS", why);
	close(sv->agent_fd);
	sv->agent_fd = -1;
}

/* Whether r is a well-formed answer to request id (see secbpf/agent.h). */
static bool agent_reply_valid(const struct secbpf_agent_reply *r, uint64_t id)
{
	if (r->hdr.magic != SECBPF_AGENT_MAGIC || r->hdr.version != SECBPF_AGENT_VERSION ||
	    r->hdr.size != sizeof(*r) || r->hdr.type != SECBPF_AGENT_REPLY || r->hdr.reserved)
		return false;
	if (r->id != id)
		return false;
	if (r->flags == SECCOMP_USER_NOTIF_FLAG_CONTINUE)
		return r->error == 0 && r->val == 0; /* as the kernel demands */
	return r->flags == 0 && r->error >= -(int32_t)ACTION_MAX_ERRNO && r->error <= 0;
}

/*
 * Ask the agent about notification req (its thread t, the combined action
 * ret) and put its answer in resp. One exchange at a time on the socket:
 * send the request, wait up to the timeout for exactly one reply, check it
 * strictly. Any failure drops the agent. Returns 0 with resp set; -ESRCH
 * if the notification is no longer valid once answered (nothing to reply);
 * another negative errno (resp untouched: ENOSYS) if there is no agent or
 * it failed.
 */
static int agent_ask(struct supervisor *sv, const struct seccomp_notif *req, const struct target *t,
		     uint32_t ret, struct seccomp_notif_resp *resp)
{
	struct secbpf_agent_request q;
	struct secbpf_agent_reply a;
	struct pollfd p = { .events = POLLIN };
	struct iovec iov = { .iov_base = &a, .iov_len = sizeof(a) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;
	int rc;

	pthread_mutex_lock(&sv->agent_lock);
	if (sv->agent_fd < 0) {
		pthread_mutex_unlock(&sv->agent_lock);
		return -ENOTCONN;
	}
	memset(&q, 0, sizeof(q));
	q.hdr.magic = SECBPF_AGENT_MAGIC;
	q.hdr.version = SECBPF_AGENT_VERSION;
	q.hdr.size = sizeof(q);
	q.hdr.type = SECBPF_AGENT_REQUEST;
	q.id = req->id;
	q.pid = req->pid;
	q.tgid = (uint32_t)t->tgid;
	q.flags = req->flags;
	q.action = ret;
	q.data = req->data;
	n = send(sv->agent_fd, &q, sizeof(q), MSG_NOSIGNAL);
	if (n != (ssize_t)sizeof(q)) {
		agent_drop(sv, n < 0 ? strerror(errno) : "short send");
		pthread_mutex_unlock(&sv->agent_lock);
		return -EPIPE;
	}
	p.fd = sv->agent_fd;
	do
		rc = poll(&p, 1, (int)sv->agent_timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0) {
		agent_drop(sv, rc == 0 ? "no answer in time" : strerror(errno));
		pthread_mutex_unlock(&sv->agent_lock);
		return -ETIMEDOUT;
	}
	/* One packet, exactly the size of a reply: MSG_TRUNC tells a longer
	 * one, the count a shorter one. */
	memset(&a, 0, sizeof(a));
	n = recvmsg(sv->agent_fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n != (ssize_t)sizeof(a) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    !agent_reply_valid(&a, req->id)) {
		agent_drop(sv, n == 0  ? "the agent closed the connection"
			       : n < 0 ? strerror(errno)
				       : "malformed reply");
		pthread_mutex_unlock(&sv->agent_lock);
		return -EPROTO;
	}
	pthread_mutex_unlock(&sv->agent_lock);

	/* The agent may have taken long: is the syscall still waiting? */
	if (!notif_valid(sv, req->id))
		return -ESRCH;
	resp->flags = a.flags;
	resp->error = a.error;
	resp->val = a.val;
	return 0;
}

static void send_reply(struct supervisor *sv, struct seccomp_notif_resp *resp)
{
	if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == 0)
		return;
	/* The kernel refused the reply itself (it cannot happen with the
	 * replies built here): answer ENOSYS rather than leave the thread
	 * waiting for an answer that never comes. */
	if (errno == EINVAL) {
		sv_log(sv, "notification %llu: reply refused; failing it with ENOSYS",
		       (unsigned long long)resp->id);
		resp->flags = 0;
		resp->val = 0;
		resp->error = -ENOSYS;
		if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == 0)
			return;
	}
	/* ENOENT: the task died (or was killed by us) meanwhile. */
	if (errno != ENOENT)
		sv_log(sv, "cannot reply to notification %llu: %s", (unsigned long long)resp->id,
		       strerror(errno));
}

/* Reply with the error already in resp because the supervisor failed. */
static void fail_reply(struct supervisor *sv, struct seccomp_notif_resp *resp)
{
	__atomic_add_fetch(&sv->failures, 1, __ATOMIC_RELAXED);
	send_reply(sv, resp);
}

/* runtime_task.get_tgid: target_tgid for the notification being handled. */
struct tgid_ctx {
	struct supervisor_worker *w;
	const struct seccomp_notif *req;
	struct target *t;
};

static int task_get_tgid(void *arg, pid_t *tgid)
{
	struct tgid_ctx *c = arg;
	int rc;

	rc = target_tgid(c->w, c->req, c->t);
	if (rc)
		return rc;
	*tgid = c->t->tgid;
	return 0;
}

/* Handle one notification: decide, act, reply (see the file comment). */
static void worker_handle(struct supervisor_worker *w)
{
	struct supervisor *sv = w->sv;
	const struct seccomp_notif *req = w->req;
	struct seccomp_notif_resp *resp = w->resp;
	struct valid_ctx valid = { .sv = sv, .id = req->id };
	struct secbpf_err err;
	struct runtime_task task;
	enum supervisor_deed deed;
	struct target t;
	struct tgid_ctx tgid = { .w = w, .req = req, .t = &t };
	uint32_t ret;
	int rc;

	/* Not zeroed whole: 512 bytes per notification for a message that
	 * is only read after err_set wrote it. */
	err.msg[0] = '\0';
	memset(resp, 0, sv->resp_size);
	resp->id = req->id;
	resp->error = -ENOSYS; /* until decided: what a dead supervisor gives */

	rc = target_open(w, req, &t);
	if (rc == -ESRCH)
		goto out; /* the task is gone: nothing to answer */
	if (rc) {
		baton_release(w);
		sv_log(sv, "pid %u: cannot look at the thread (%s): failing syscall %d with ENOSYS",
		       req->pid, strerror(-rc), req->data.nr);
		fail_reply(sv, resp);
		goto out;
	}

	memset(&task, 0, sizeof(task));
	task.tid = t.tid;
	task.tgid = 0; /* found by get_tgid if a helper needs it */
	task.get_tgid = task_get_tgid;
	task.get_tgid_ctx = &tgid;
	task.mem_fd = t.mem_fd;
	task.still_valid = task_still_valid;
	task.still_valid_ctx = &valid;
	task.cpu = w->cpu;
	rc = supervisor_decide(sv, &req->data, &task, &ret, &err);
	if (rc) {
		baton_release(w);
		sv_log(sv, "pid %u: syscall %d: %s: failing it with ENOSYS", req->pid, req->data.nr,
		       err.msg);
		fail_reply(sv, resp);
		goto out;
	}

	deed = supervisor_reply_for(ret, resp);
	/* Logging, killing, trapping and asking the agent may block: let
	 * another worker receive meanwhile. */
	if (deed != SUPERVISOR_CONTINUE && deed != SUPERVISOR_FAIL) {
		baton_release(w);
		/* Each needs the thread group; without it the reply stays
		 * the error reply_for put there (or CONTINUE for LOG). */
		rc = target_tgid(w, req, &t);
		if (rc == -ESRCH)
			goto out; /* the task is gone: nothing to answer */
		if (rc && deed != SUPERVISOR_LOG) {
			sv_log(sv, "pid %u: cannot find its process (%s): syscall %d fails with %s",
			       req->pid, strerror(-rc), req->data.nr, strerror(-resp->error));
			send_reply(sv, resp);
			goto out;
		}
	}
	switch (deed) {
	case SUPERVISOR_CONTINUE:
	case SUPERVISOR_FAIL:
		break;
	case SUPERVISOR_LOG:
		sv_log(sv, "LOG: pid %u (tgid %d) syscall %d arch 0x%x", req->pid, (int)t.tgid,
		       req->data.nr, req->data.arch);
		break;
	case SUPERVISOR_KILL:
		rc = target_kill(sv, req->id, &t);
		if (rc && rc != -ESRCH)
			sv_log(sv,
			       "pid %u: cannot kill process %d (%s): syscall %d fails with EPERM",
			       req->pid, (int)t.tgid, strerror(-rc), req->data.nr);
		break;
	case SUPERVISOR_TRAP:
		rc = target_trap(sv, req->id, &t, ret);
		if (rc && rc != -ESRCH)
			sv_log(sv, "pid %u: cannot send SIGSYS (%s): syscall %d fails with ENOSYS",
			       req->pid, strerror(-rc), req->data.nr);
		break;
	case SUPERVISOR_AGENT:
		/* resp says ENOSYS unless the agent answers well. */
		rc = agent_ask(sv, req, &t, ret, resp);
		if (rc == -ESRCH)
			goto out;
		break;
	}
	send_reply(sv, resp);
out:
	target_close(&t);
}

/* Whether the listener reports that no task uses the filter any more. */
static bool listener_hung_up(const struct supervisor *sv)
{
	struct pollfd p = { .fd = sv->listener, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

/*
 * Kernels before 6.6 never wake a SECCOMP_IOCTL_NOTIF_RECV blocked when the
 * filter loses its last task (only poll() reports that, with POLLHUP, since
 * 5.8): a receiver blocked there would wait forever and `run` would never
 * exit. There the baton holder polls first and calls RECV only when a
 * notification is pending; only the holder receives, so no other worker
 * can take it in between (and if its task dies, RECV fails with ENOENT
 * rather than blocking). Returns 0 to receive, 1 when the listener hung
 * up, or -errno.
 */
static int wait_pending(const struct supervisor *sv)
{
	struct pollfd p = { .fd = sv->listener, .events = POLLIN };

	if (sv->recv_wakes_on_hangup)
		return 0;
	for (;;) {
		p.revents = 0;
		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p.revents & POLLIN)
			return 0;
		if (p.revents & POLLHUP)
			return 1;
		if (p.revents & (POLLERR | POLLNVAL))
			return -EBADF;
	}
}

static void *worker_main(void *arg)
{
	struct supervisor_worker *w = arg;
	struct supervisor *sv = w->sv;
	int rc;

	for (;;) {
		/* Only the holder of the baton receives (see baton_take). */
		if (!baton_take(w))
			return NULL;
		rc = wait_pending(sv);
		if (rc > 0) {
			baton_stop(w);
			return NULL;
		}
		if (rc < 0) {
			errno = -rc;
			goto fatal;
		}
		/* The kernel wants a zeroed buffer. */
		memset(w->req, 0, sv->req_size);
		if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_RECV, w->req) == 0) {
			worker_handle(w);
			continue;
		}
		if (errno == EINTR)
			continue;
		/* ENOENT: the task was killed before we got its notification,
		 * or no task uses the filter any more (RECV then wakes every
		 * waiter with ENOENT): only the latter ends the workers. */
		if (errno == ENOENT) {
			if (listener_hung_up(sv)) {
				baton_stop(w);
				return NULL;
			}
			continue;
		}
fatal:
		baton_release(w);
		/* Nothing else is expected. Fail closed: once this process is
		 * gone the kernel answers every notified syscall with ENOSYS,
		 * whereas a worker that stopped would leave them hanging. */
		sv_log(sv, "cannot receive notifications: %s; aborting", strerror(errno));
		abort();
	}
}

/* ------------------------------------------------------------------ */
/* Life cycle                                                           */
/* ------------------------------------------------------------------ */

unsigned int supervisor_default_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > 4 ? 4 : (unsigned int)n;
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
	pthread_mutex_init(&sv->lock, NULL);
	pthread_mutex_init(&sv->agent_lock, NULL);
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
	if (sv->agent_timeout_ms > INT_MAX)
		sv->agent_timeout_ms = INT_MAX;
	if (sv->nworkers > SUPERVISOR_MAX_WORKERS)
		sv->nworkers = SUPERVISOR_MAX_WORKERS;
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
	sv->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	sv->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (sv->epoll_fd < 0 || sv->stop_fd < 0) {
		err_set(err, errno, "cannot create an epoll or event fd: %s", strerror(errno));
		goto fail;
	}
	{
		/* data 0 is never a TGID: it means stop. */
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 0 };

		if (epoll_ctl(sv->epoll_fd, EPOLL_CTL_ADD, sv->stop_fd, &ev)) {
			err_set(err, errno, "epoll_ctl: %s", strerror(errno));
			goto fail;
		}
	}
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
	rc = pthread_create(&sv->reaper, NULL, reaper_main, sv);
	if (rc)
		return err_set(err, rc, "cannot start the reaper thread: %s", strerror(rc));
	sv->reaper_started = true;
	for (i = 0; i < sv->nworkers; i++) {
		rc = pthread_create(&sv->workers[i].thread, NULL, worker_main, &sv->workers[i]);
		if (rc)
			return err_set(err, rc, "cannot start worker %u: %s", i, strerror(rc));
		sv->workers[i].started = true;
	}
	return 0;
}

unsigned long supervisor_wait(struct supervisor *sv)
{
	unsigned int i;

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
	return __atomic_load_n(&sv->failures, __ATOMIC_RELAXED);
}

void supervisor_free(struct supervisor *sv)
{
	unsigned int i, j;

	if (!sv)
		return;
	for (i = 0; sv->workers && i < sv->nworkers; i++) {
		for (j = 0; j < SUPERVISOR_THREAD_CACHE; j++)
			thread_cache_evict(&sv->workers[i].cache[j]);
		free(sv->workers[i].req);
		free(sv->workers[i].resp);
	}
	if (sv->listener >= 0)
		close(sv->listener);
	/* Processes still tracked: their state goes with the runtimes. */
	for (i = 0; i < sv->ntracked; i++)
		close(sv->tracked[i].pidfd);
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

int supervisor_count_own_filters(void)
{
	char buf[8192];
	const char *v;
	ssize_t n;
	int fd;

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	v = status_field(buf, "Seccomp_filters");
	if (!v)
		return -ENOENT;
	return atoi(v);
}
