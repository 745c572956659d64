/* SPDX-License-Identifier: MIT */
/*
 * What the files of `secbpf run` share: its options (run_options.c), the
 * child that installs the filters and execs CMD (run_child.c), the
 * supervisor this process becomes for a stateful stack (run_supervise.c),
 * --stats and --events (run_stats.c), and secbpfd's handles with --prog and
 * --fd (run_handle.c); cmd_run.c ties them together.
 */
#ifndef SECBPF_CLI_RUN_H
#define SECBPF_CLI_RUN_H

#include <linux/filter.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "cli.h"
/* Internal headers (see cmd_run.c for why the API does not serve run). */
#include "common/err.h"
#include "install/stack_plan.h"
#include "supervisor/supervisor.h"
#include "vm/events.h"

struct run_state;

/* The command line of run (docs/design.md §5). */
struct run_options {
	const char **specs; /* -f OBJ[:PROG], in order */
	int nspecs;
	struct cli_sets sets;	 /* --set */
	bool stats;		 /* --stats[=FILE] */
	const char *stats_path;	 /* FILE, or NULL: stderr */
	bool json;		 /* -j: --stats as JSON */
	bool events;		 /* --events[=FILE] */
	const char *events_path; /* FILE, or NULL: stderr */
	unsigned int nworkers;	 /* --workers: supervisor threads = PERCPU slots */
	bool native;		 /* --native */
	bool no_supervisor;	 /* --no-supervisor: the kernel decides everything */
	const char *agent_path;	 /* --agent SOCKET, or NULL */
	const char *prog;	 /* --prog NAME: ask secbpfd for a handle */
	const char *daemon_path; /* --daemon PATH, or NULL: SVC_DEFAULT_SOCKET */
	int handle_fd;		 /* --fd N: a handle inherited, or -1 */
	char **cmd_argv;	 /* CMD [ARG]... */
	/* Called once every filtered process is gone, with the supervisor's
	 * runtimes in s->plan (a stateful stack only): `secbpf record`. */
	void (*done)(const struct run_state *s, void *arg);
	void *done_arg;
};

/*
 * Parse and check run's command line into o (always to be freed with
 * run_options_free). Returns 0, 1 after --help, or -1 after printing why.
 */
int run_parse_options(int argc, char **argv, struct run_options *o);
void run_options_free(struct run_options *o);

/* What run loads and compiles, released once the child has its copy (or,
 * with a supervisor, once the supervisor is done). */
struct run_state {
	struct cli_target *targets;
	int ntargets;
	struct stack_plan plan; /* what is installed, and the runtimes */
	char *path;		/* CMD resolved with PATH */
	struct events *events;	/* --events: the ring buffer reader, or NULL */
	FILE *events_file;	/* --events=FILE */
	int agent_fd;		/* connected to --agent, or -1 */
};

/*
 * Load, verify and plan o's filters, run CMD under them (this process its
 * supervisor when they need one) and release everything. Returns run's
 * exit status (docs/design.md §5).
 */
int run_under_supervisor(const struct run_options *o);

/*
 * What the child tells the parent, through a MAP_SHARED page: plain
 * stores, so that reporting a failure or the listener fd after a filter is
 * installed needs no syscall the filter could deny (or notify). execve
 * unmaps the page from the child, so CMD never sees it. The stages only
 * move forward; each is stored with release semantics after the fields it
 * publishes.
 */
enum run_stage {
	RUN_STAGE_SETUP,	/* setting no_new_privs, installing filters */
	RUN_STAGE_SETUP_FAILED, /* err says why */
	RUN_STAGE_EXEC,		/* filters installed (listener_fd set), execve called */
	RUN_STAGE_EXEC_FAILED,	/* exec_errno says why */
};

struct run_report {
	int stage;
	int exec_errno;
	int listener_fd; /* in the fd table shared with the parent */
	struct secbpf_err err;
};

/* Everything the child needs, prepared before it is created: after the
 * last filter is installed the child may not allocate, print or make any
 * syscall other than execve (and exit_group if execve fails). */
struct run_child {
	const char *path;		/* CMD resolved with PATH */
	char **argv;			/* CMD [ARG]... */
	const struct sock_fprog *progs; /* in installation order */
	size_t nprogs;
	bool listener;		   /* the last of progs gets the listener */
	int service_handle;	   /* >= 0: the listener goes to secbpfd over it */
	sigset_t sigmask;	   /* the mask CMD must start with */
	struct run_report *report; /* the shared page */
};

/* What run_and_wait needs for a stack with a supervisor (NULL: none). */
struct run_supervision {
	const struct supervisor_prog *progs;
	size_t n;
	unsigned int nworkers; /* = the runtimes' ncpus */
	struct events *events; /* --events: started with the workers; NULL */
	int *agent_fd;	       /* -1: none; set to -1 once the supervisor owns it */
};

/*
 * Create the child, run it and turn what happened into run's exit status.
 * Without supervision the child is forked and release(arg) frees the
 * parent's copy of what c points to once it exists (temporary objects are
 * removed before CMD runs for long). With it, the child shares our fd table
 * (clone with CLONE_FILES) so that its listener is ours, and we serve it.
 */
int run_and_wait(struct run_child *c, const char *cmd, const struct run_supervision *sup,
		 void (*release)(void *), void *arg);

/*
 * Be the supervisor of the child's listener until the child has exited
 * (reaped says it already has) and no process uses the filter any more,
 * forwarding the signals of set. Returns 0 with *status set, or a negative
 * errno after printing why (the child is then killed and reaped: CMD must
 * not run with nobody to answer its filter); -ECHILD if it could not be
 * reaped.
 */
int run_serve(pid_t pid, bool reaped, int listener, const struct run_supervision *sup,
	      const sigset_t *set, int *status, bool *forwarded);

/* --prog and --fd: run CMD under a secbpfd handle's program
 * (run_handle.c). Returns run's exit status. */
int run_with_handle(const struct run_options *o);
/* A handle for program prog from the secbpfd at daemon_path (NULL: the
 * default socket). Returns it, or -1 after printing why. */
int run_ask_service(const char *prog, const char *daemon_path);

/* --stats: the stateful programs' globals and map entries, to path or
 * stderr, once the workers have stopped. */
void run_stats(const struct run_state *s, const char **specs, const char *path, bool json);

/* --events: a reader for the stateful programs' ring buffers, into
 * s->events (and s->events_file). Returns 0, or -1 after printing why. */
int run_open_events(struct run_state *s, const char **specs, const char *path);

#endif
