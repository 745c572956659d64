/* SPDX-License-Identifier: MIT */
/*
 * The supervisor (docs/design.md §1): it holds the listener fd of the one filter
 * installed with SECCOMP_FILTER_FLAG_NEW_LISTENER, re-runs the eBPF
 * programs on every notified syscall and answers with their combined
 * action. It also lays out the filter stack a stateful run installs.
 *
 * This header is for callers. The folder: supervisor.c (the stack),
 * decide.c (actions and replies), lifecycle.c, loop.c (the workers),
 * baton.c (who receives), target.c (the notifying thread), tracking.c
 * (processes until they exit), agent.c (the user agent); they share
 * supervisor_internal.h. supervisor_spawn.c starts secbpf-supervisor.
 */
#ifndef SECBPF_SUPERVISOR_H
#define SECBPF_SUPERVISOR_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "object/object.h"
#include "vm/runtime.h"

/* The flags of the listener filter: killable waits once a notification is
 * received, so that a non-fatal signal never makes the kernel notify (and
 * a program run, and its state change) twice for one syscall. */
#define SUPERVISOR_LISTENER_FLAGS                                                                  \
	(SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)

/* At most this many worker threads serve one listener. */
#define SUPERVISOR_MAX_WORKERS 64

/*
 * One filter of the stack, as given by the user (-f order = install order).
 * insns is the cBPF compiled for it; the supervisor simulates it to know
 * which filters leave a notified syscall to their eBPF program. rt is that
 * program, or NULL for a filter the kernel decides alone.
 */
struct supervisor_prog {
	const struct sock_filter *insns;
	size_t len;
	struct runtime *rt;
	const char *name; /* for messages */
	/* The program may read the target's memory (probe_read helpers):
	 * the supervisor then opens /proc/TID/mem for every notification.
	 * Only a cost: without it helpers read with process_vm_readv. */
	bool reads_memory;
	/* The loaded object and program behind this filter, for the control
	 * socket (docs/introspection.md): the names of its maps and what a
	 * checkpoint writes back. NULL: the filter is listed by name only and
	 * cannot be checkpointed. */
	const struct object *obj;
	const struct object_prog *prog;
};

/*
 * The filters to install for a stack with stateful programs, in order; the
 * last one is installed with SUPERVISOR_LISTENER_FLAGS, the others with
 * none. No filter but the last returns SECCOMP_RET_USER_NOTIF.
 */
struct supervisor_stack {
	struct sock_fprog *progs;
	size_t n;
	struct sock_filter **owned; /* n entries: insns built here, or NULL */
	bool listener_notifies_all; /* the listener filter did not fit: every
				     * syscall is notified (correct, slower) */
};

/*
 * Whether the stack is laid out as the filters themselves, the last one
 * (the only stateful one) becoming the listener filter. That filter must
 * then be compiled with cbpf_compile_opts.listener_guard; in every other
 * layout the filters are compiled without it (the guard goes in the
 * listener filter built here, installed after them).
 */
bool supervisor_stack_single(const struct supervisor_prog *progs, size_t n);

/*
 * Lay out the stack for progs[0..n-1] (at least one has rt != NULL):
 * - supervisor_stack_single(): the stack is the filters as compiled, the
 *   last one with the listener;
 * - otherwise every stateful filter is installed, at its place, with its
 *   USER_NOTIF returns turned into ALLOW (its "kernel part"), and a listener
 *   filter is added last: the listener guard, then USER_NOTIF exactly when
 *   one of the stateful filters' cBPF returns it, and ALLOW otherwise.
 * In both cases a syscall is notified iff no filter decides it in the
 * kernel with an action above USER_NOTIF and some stateful filter needs
 * its program; the supervisor then combines every filter's action.
 * Returns 0 or a negative errno with err set.
 */
int supervisor_stack_build(const struct supervisor_prog *progs, size_t n,
			   struct supervisor_stack *out, struct secbpf_err *err);
void supervisor_stack_free(struct supervisor_stack *s);

/* What the supervisor does for an action, besides replying. */
enum supervisor_deed {
	SUPERVISOR_CONTINUE, /* let the syscall run */
	SUPERVISOR_FAIL,     /* fail it with resp->error */
	SUPERVISOR_LOG,	     /* log it, then let it run */
	SUPERVISOR_KILL,     /* SIGKILL the thread group, fail the syscall */
	SUPERVISOR_TRAP,     /* SIGSYS to the thread, fail it with ENOSYS */
	SUPERVISOR_AGENT,    /* ask the user agent; resp (ENOSYS) if none */
};

/*
 * docs/design.md §1's table: the deed and the reply (error, flags; id and val are
 * the caller's) for a 32-bit filter return value.
 */
enum supervisor_deed supervisor_reply_for(uint32_t ret, struct seccomp_notif_resp *resp);

/*
 * A cap on the processes several supervisors track together (secbpfd: one
 * quota per uid, whose parent is the quota of all users). A supervisor
 * tracks a process (holds a pidfd of it until it exits, so that its task
 * storage goes with it) once a helper needs its thread group. Past a cap
 * the notified syscalls of processes not yet tracked that need it fail
 * with EAGAIN, and one line a minute says which cap was reached. used is
 * changed with atomics only; a quota must outlive every supervisor that
 * was given it.
 */
struct supervisor_quota {
	unsigned long used;		 /* processes tracked under it now */
	unsigned long max;		 /* 0: no cap of its own */
	struct supervisor_quota *parent; /* charged too; NULL: none */
	char name[32];			 /* for the log: "uid 65534", "all users" */
	long logged_at;			 /* atomic: second of the last line + 1 */
};

struct supervisor_opts {
	size_t sz;	       /* sizeof(struct supervisor_opts) */
	unsigned int nworkers; /* threads serving the listener; 0: default */
	FILE *log;	       /* LOG actions and errors; NULL: stderr */
	/* The user agent (docs/agent.md): a socket from
	 * supervisor_agent_connect(), which the supervisor owns once
	 * supervisor_new() succeeds. 0 or negative: none (fd 0 is never an
	 * agent), and USER_NOTIF fails the syscall with ENOSYS. */
	int agent_fd;
	/* How long to wait for each answer of the agent; 0: the default,
	 * SUPERVISOR_AGENT_TIMEOUT_MS. */
	unsigned int agent_timeout_ms;
	/* For the control socket (docs/introspection.md), which every
	 * supervisor serves. kind: who supervises, as `secbpf ps` shows it
	 * ("secbpf run", "attach API", "secbpfd"); NULL: this program's name.
	 * target_pid: the process that installed the filters (it and its
	 * descendants are the supervised processes); its owner (real uid, read
	 * when supervisor_new runs) may reach the socket. 0: none known, the
	 * owner is then our effective uid. */
	const char *kind;
	pid_t target_pid;
	/* At most this many processes tracked by this supervisor (0: no cap
	 * but the fd limit), and the quota they are charged to as well
	 * (NULL: none). */
	size_t max_tracked;
	struct supervisor_quota *quota;
};

#define SUPERVISOR_AGENT_TIMEOUT_MS 5000

/*
 * Connect to the user agent listening on the unix SOCK_SEQPACKET socket at
 * path (close-on-exec). The agent must run as our effective uid or as
 * root (SO_PEERCRED): whoever answers may let syscalls run. Returns the
 * fd, or a negative errno with err set.
 */
int supervisor_agent_connect(const char *path, struct secbpf_err *err);

/*
 * Whether a compiled filter can return SECCOMP_RET_USER_NOTIF (some RET K
 * does): with an agent such a filter needs the supervisor even when it
 * needs no state, so that its USER_NOTIF reaches the agent.
 */
bool supervisor_filter_may_notify(const struct sock_filter *insns, size_t len);

/* The default number of workers: the online CPUs, at most 4. The runtimes
 * given to the supervisor need as many PERCPU slots (runtime_opts.ncpus). */
unsigned int supervisor_default_workers(void);

struct supervisor;

/*
 * A supervisor for listener (it takes ownership of the fd) and the stack
 * progs[0..n-1] (copied; the runtimes and insns must outlive it). Nothing
 * runs until supervisor_start().
 */
struct supervisor *supervisor_new(int listener, const struct supervisor_prog *progs, size_t n,
				  const struct supervisor_opts *opts, struct secbpf_err *err);

/*
 * The combined action of the stack for a notified syscall of task: each
 * filter's cBPF is simulated, each that returns USER_NOTIF has its program
 * run, and the results are combined newest first (action_combine). Returns
 * 0 with *ret set, or a negative errno (a program faulted) with err set.
 */
int supervisor_decide(const struct supervisor *sv, const struct seccomp_data *sd,
		      const struct runtime_task *task, uint32_t *ret, struct secbpf_err *err);

/* Start the worker threads. Returns 0 or a negative errno with err set. */
int supervisor_start(struct supervisor *sv, struct secbpf_err *err);

/*
 * Wait until every worker has returned: they do once the last task using
 * the filter is gone. Returns the number of notifications answered with an
 * error because the supervisor itself failed (0 normally).
 */
unsigned long supervisor_wait(struct supervisor *sv);

/*
 * After supervisor_wait: free the state (task storage) of the processes
 * still tracked, all of which have exited. Needed when the runtimes
 * outlive the supervisor (secbpfd shares them among its attachments).
 */
void supervisor_release_tasks(struct supervisor *sv);

/* Free (after supervisor_wait, or if never started); closes the listener. */
void supervisor_free(struct supervisor *sv);

/* The abstract name of the supervisor's control socket ("@secbpf/ctl/PID/
 * TAG", docs/introspection.md), or NULL when it is not serving one. */
const char *supervisor_control_name(const struct supervisor *sv);

/*
 * Process-wide settings a supervising process needs (docs/design.md §1). Not
 * dumpable, so that a target cannot ptrace it or read its memory: set it
 * before the targets exist (a child inherits it until its execve resets
 * it). Returns 0 or -errno.
 */
int supervisor_make_undumpable(void);

/*
 * Ignore SIGTSTP, SIGTTIN, SIGTTOU (^Z on the terminal must not stop the
 * supervisor, which would freeze every target) and SIGPIPE (a closed log
 * pipe must not kill it). Dispositions survive execve: call it in the
 * supervising process only, after the child exists. Returns 0 or -errno.
 */
int supervisor_ignore_stop_signals(void);

/*
 * Raise this process's soft RLIMIT_NOFILE to its hard limit: a supervisor
 * holds a pidfd per tracked process and per cached thread. Call it in the
 * supervising process after its children exist (they inherit the limit,
 * and select() fails on fds past 1024). Returns the new soft limit, or a
 * negative errno.
 */
long supervisor_raise_fd_limit(void);

/* Seccomp_filters of /proc/self/status: the filters this process already
 * has, or a negative errno. */
int supervisor_count_own_filters(void);

#endif
