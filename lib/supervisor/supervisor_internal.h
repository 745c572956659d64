/* SPDX-License-Identifier: MIT */
/*
 * What the files of lib/supervisor/ share and callers never see: the
 * supervisor's one state struct, its workers, the target of a
 * notification, and the functions each file offers the others.
 */
#ifndef SECBPF_SUPERVISOR_INTERNAL_H
#define SECBPF_SUPERVISOR_INTERNAL_H

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/types.h>

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
 * (supervisor_track_process) while this entry was valid; a live thread keeps its
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
	bool has_baton;		   /* this worker is the receiver (see supervisor_baton_take) */
	struct seccomp_notif *req; /* sized by the kernel's struct size */
	struct seccomp_notif_resp *resp;
	struct thread_cache_entry cache[SUPERVISOR_THREAD_CACHE];
	/* Notifications this worker received: written by it alone (relaxed
	 * atomics, no lock), read by the control thread. */
	unsigned long notifications;
};

/* A process seen in a notification, watched until it exits so that its
 * task storage is freed (runtime_task_exit). */
struct tracked_process {
	pid_t tgid;
	int pidfd;
	uint32_t generation;
	uint64_t ident; /* tells it from a later process with its PID (runtime.h) */
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
	 * wait for it: see supervisor_baton_take. */
	int baton;
	int baton_waiters;

	/* Processes with live state: under lock. The reaper thread waits
	 * on epoll for their pidfds; stop_fd (an eventfd) ends it. */
	pthread_mutex_t lock;
	struct tracked_process *tracked;
	size_t ntracked, captracked;
	/* The caps on them (supervisor_opts): max_tracked here (0: none),
	 * and the quota each is also charged to. cap_logged_at: the second
	 * of the last line about max_tracked + 1 (atomic). */
	size_t max_tracked;
	struct supervisor_quota *quota;
	long cap_logged_at;
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
	/* Said once: a USER_NOTIF came with no agent to ask (under agent_lock). */
	bool told_no_agent;
	unsigned int agent_timeout_ms;

	/* The control socket (control.c): its thread never touches what the
	 * workers lock; stop_control (an eventfd) ends it. */
	struct supervisor_control {
		int listen_fd, stop_fd;
		pthread_t thread;
		bool started;
		char name[64]; /* "@secbpf/ctl/PID/TAG" */
		char kind[64];
		pid_t target_pid;
		uid_t owner;
		uint64_t started_at; /* CLOCK_REALTIME seconds */
	} control;
};

/* The thread of a notification, as the worker knows it. */
struct target {
	pid_t tid;
	pid_t tgid;
	int mem_fd; /* /proc/TID/mem opened before ID_VALID, or -1 */
	/* The worker's cache entry for tid, valid for this notification,
	 * or NULL (no thread pidfd: before Linux 6.9). */
	struct thread_cache_entry *cached;
	/* Its process could not be tracked: a cap was reached (the
	 * syscall fails with EAGAIN, and the cap is logged, not the call). */
	bool over_cap;
};

/* Whether notification id still waits for its reply: its thread lives
 * and sits in the notified syscall (SECCOMP_IOCTL_NOTIF_ID_VALID). */
static inline bool notif_valid(const struct supervisor *sv, uint64_t id)
{
	return ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* Whether a pidfd says its process has exited (it becomes readable). */
static inline bool pidfd_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) != 0; /* an error counts as exited */
}

/* loop.c: one line on the supervisor's log. */
void supervisor_log(struct supervisor *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* loop.c: a worker thread (pthread start routine, arg: its worker). */
void *supervisor_worker_main(void *arg);

/* baton.c: who receives the next notification (see baton.c). */
bool supervisor_baton_take(struct supervisor_worker *w);
void supervisor_baton_release(struct supervisor_worker *w);
void supervisor_baton_stop(struct supervisor_worker *w);

/* tracking.c: processes watched until they exit, and the reaper thread. */
int supervisor_track_process(struct supervisor_worker *w, pid_t tgid, uint64_t id);
void supervisor_untrack_all(struct supervisor *sv);
void *supervisor_reaper_main(void *arg);

/* target.c: the thread of a notification (see each function there). */
int supervisor_target_open(struct supervisor_worker *w, const struct seccomp_notif *req,
			   struct target *t);
int supervisor_target_tgid(struct supervisor_worker *w, const struct seccomp_notif *req,
			   struct target *t);
int supervisor_target_track(struct supervisor_worker *w, const struct seccomp_notif *req,
			    struct target *t);
void supervisor_target_close(struct target *t);
int supervisor_target_kill(struct supervisor *sv, uint64_t id, const struct target *t);
int supervisor_target_trap(struct supervisor *sv, uint64_t id, const struct target *t,
			   uint32_t ret);
void supervisor_thread_cache_evict(struct thread_cache_entry *c);

/* control.c: the control socket's thread, started last and stopped first
 * (both idempotent; a socket that cannot be opened is logged, not fatal:
 * enforcement never depends on it). */
void supervisor_control_init(struct supervisor *sv, const struct supervisor_opts *opts);
void supervisor_control_start(struct supervisor *sv);
void supervisor_control_stop(struct supervisor *sv);

/* control_requests.c: the answers, each a buffer the caller frees.
 * Return 0, or a negative errno with msg (size n) saying why. */
int supervisor_control_info(struct supervisor *sv, char **json, char *msg, size_t n);
int supervisor_control_map_dump(struct supervisor *sv, const char *prog, const char *map,
				char **json, char *msg, size_t n);

/* checkpoint.c: the objects that restore the stack, as an archive
 * (protocol.h, struct svc_checkpoint). */
int supervisor_checkpoint(struct supervisor *sv, uint8_t **buf, size_t *len, char *msg, size_t n);

/* agent.c: ask the user agent about a USER_NOTIF (see agent.c). */
int supervisor_agent_ask(struct supervisor *sv, const struct seccomp_notif *req,
			 const struct target *t, uint32_t ret, struct seccomp_notif_resp *resp);

#endif
