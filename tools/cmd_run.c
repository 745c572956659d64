// SPDX-License-Identifier: MIT
/*
 * `secbpf run [-f OBJ[:PROG]]... [--set VAR=VALUE]... [--] CMD [ARG]...`:
 * run CMD under the given filters, installed in a child right before its
 * execve (docs/design.md §1, §5). When a filter needs state (maps, helpers), this
 * process becomes the supervisor: it holds the listener of the stack and
 * answers the notified syscalls (lib/supervisor/supervisor.c) until the last filtered
 * process is gone.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "install/attach.h"
#include "cli.h"
#include "vm/events.h"
#include "vm/maps.h"
#include "install/policy.h"
#include "vm/runtime.h"
#include "install/stack_plan.h"
#include "supervisor/supervisor.h"
#include "verifier/verifier.h"

extern char **environ;

/* Exit statuses of `run` (docs/design.md §5, the convention of env and timeout). */

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
	sigset_t sigmask;	   /* the mask CMD must start with */
	struct run_report *report; /* the shared page */
};

static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf run [-f OBJ[:PROG]]... [--set VAR=VALUE]... [--stats[=FILE]]\n"
		"                  [--events[=FILE]] [--workers N] [--agent SOCKET] [--native]\n"
		"                  [--] CMD [ARG]...\n"
		"\n"
		"Run CMD under the filters: they are installed, in the order given, right\n"
		"before CMD's execve, and apply to CMD and everything it starts. The last\n"
		"filter given wins ties (as with several seccomp() calls). no_new_privs is\n"
		"set for CMD. OBJ may be a .c file, compiled first. What a filter decides\n"
		"from the syscall's number and arguments alone the kernel decides; when it\n"
		"needs maps or helpers, secbpf stays as CMD's supervisor and runs the\n"
		"program for those syscalls, until CMD and every process it started under\n"
		"the filter have exited.\n"
		"\n"
		"  -f OBJ[:PROG]    a filter to install (at least one)\n"
		"  --set VAR=VALUE  write a const volatile global in every object defining it\n"
		"  --stats[=FILE]   at the end, print the stateful programs' global variables\n"
		"                   and map entries (to stderr, or FILE)\n"
		"  --events[=FILE]  print each record the stateful programs submit to a ring\n"
		"                   buffer, as it comes (to stderr, or FILE), one line each:\n"
		"                   secbpf: event MAP LEN: HEX[ \"TEXT\"]\n"
		"                   (without it, a full ring makes bpf_ringbuf_reserve fail)\n"
		"  --workers N      supervisor threads, 1 to %d (default: the online CPUs,\n"
		"                   at most 4); each has its own slot in PERCPU maps\n"
		"  --agent SOCKET   send syscalls a filter answers with USER_NOTIF to the user\n"
		"                   agent at SOCKET (docs/agent.md); without: they fail, ENOSYS\n"
		"  --native         let the kernel load and run the programs themselves\n"
		"                   (BPF_PROG_TYPE_SECCOMP): needs a kernel with the\n"
		"                   seccomp-eBPF patch set, which it detects by its\n"
		"                   kernel.seccomp.extended sysctl (kernel/README.md); no\n"
		"                   supervisor, no compilation to cBPF\n"
		"  -h, --help       show this help\n"
		"\n"
		"Exit status: CMD's status; 128+N if CMD was killed by signal N (159 for\n"
		"SIGSYS, a filter's KILL decided by the kernel; 137, SIGKILL, for one decided\n"
		"by the supervisor); 125 if secbpf failed before running CMD; 126 if CMD\n"
		"could not be executed (no permission, or a filter denied execve); 127 if\n"
		"CMD was not found.\n",
		SUPERVISOR_MAX_WORKERS);
}

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
	 * only seccomp() runs (attach.h). */
	if (c->listener)
		rc = attach_cbpf_stack(c->progs, c->nprogs, 0, SUPERVISOR_LISTENER_FLAGS, &r->err);
	else
		rc = attach_cbpf_many(c->progs, c->nprogs, 0, &r->err);
	if (rc < 0)
		child_setup_failed(r);
	if (c->listener)
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

/* What run_and_wait needs for a stack with a supervisor (NULL: none). */
struct run_supervision {
	const struct supervisor_prog *progs;
	size_t n;
	unsigned int nworkers; /* = the runtimes' ncpus */
	struct events *events; /* --events: started with the workers; NULL */
	int *agent_fd;	       /* -1: none; set to -1 once the supervisor owns it */
};

/*
 * Be the supervisor of the child's listener until the child has exited
 * (reaped says it already has) and no process uses the filter any more
 * (the listener hangs up), forwarding signals as cli_wait_forwarding
 * does; the set is taken from a signalfd. Every fd opened here is close-on-exec:
 * until the child's execve completes, it shares our fd table. Returns 0
 * with *status set, or a negative errno after printing why (the child is
 * then killed and reaped: CMD must not run with nobody to answer its
 * filter).
 */
static int serve(pid_t pid, bool reaped, int listener, const struct run_supervision *sup,
		 const sigset_t *set, int *status, bool *forwarded)
{
	struct supervisor_opts opts = {
		.sz = sizeof(opts),
		.nworkers = sup->nworkers,
		.agent_fd = *sup->agent_fd,
	};
	struct secbpf_err err = { { 0 } };
	struct signalfd_siginfo si;
	struct supervisor *sv;
	struct pollfd pfd[2];
	bool hup = false;
	int sfd, rc;

	sv = supervisor_new(listener, sup->progs, sup->n, &opts, &err);
	if (!sv) {
		close(listener);
		cli_error("run", "cannot start the supervisor: %s", err.msg);
		rc = -ENOMEM;
		goto kill_child;
	}
	*sup->agent_fd = -1; /* the supervisor's now */
	rc = supervisor_start(sv, &err);
	if (rc) {
		cli_error("run", "cannot start the supervisor: %s", err.msg);
		goto kill_child;
	}
	/* Stopped, and drained, by cmd_run once the workers are done. */
	rc = sup->events ? events_start(sup->events, &err) : 0;
	if (rc) {
		cli_error("run", "--events: %s", err.msg);
		goto kill_child;
	}
	sfd = signalfd(-1, set, SFD_CLOEXEC);
	if (sfd < 0) {
		rc = -errno;
		cli_error("run", "cannot create a signalfd: %s", strerror(errno));
		goto kill_child;
	}
	pfd[0].fd = sfd;
	pfd[0].events = POLLIN;
	/* No events asked: poll reports the hang-up alone. */
	pfd[1].fd = listener;
	pfd[1].events = 0;
	while (!reaped || !hup) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot happen with valid fds; stop forwarding. */
			cli_error("run", "poll: %s", strerror(errno));
			if (!reaped && waitpid(pid, status, 0) == pid)
				reaped = true;
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
			if (!reaped && waitpid(pid, status, WNOHANG) == pid)
				reaped = true;
			continue;
		}
		if (reaped || si.ssi_code == SI_KERNEL)
			continue;
		if (kill(pid, (int)si.ssi_signo) == 0)
			*forwarded = true;
	}
	close(sfd);
	/* The workers return once the listener has hung up. */
	supervisor_wait(sv);
	supervisor_free(sv);
	return reaped ? 0 : -ECHILD;

kill_child:
	if (!reaped) {
		kill(pid, SIGKILL);
		waitpid(pid, status, 0);
	}
	if (sv) {
		/* With the child gone the listener hangs up and every worker
		 * that started returns. */
		supervisor_wait(sv);
		supervisor_free(sv);
	}
	return rc;
}

/*
 * Create the child, run it and turn what happened into run's exit status.
 * Without supervision the child is forked and release(arg) frees the
 * parent's copy of what c points to once it exists (temporary objects are
 * removed before CMD runs for long). With it, the child shares our fd table
 * (clone with CLONE_FILES) so that its listener is ours, and we serve it.
 */
static int run_and_wait(struct run_child *c, const char *cmd, const struct run_supervision *sup,
			void (*release)(void *), void *arg)
{
	struct run_report *r;
	sigset_t set, old;
	bool forwarded = false, reaped = false;
	size_t i;
	int status = 0, rc = 0, sig, stage;
	pid_t pid;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED) {
		cli_error("run", "cannot map the report page: %s", strerror(errno));
		return EXIT_RUN_FAILED;
	}
	memset(r, 0, sizeof(*r));
	r->stage = RUN_STAGE_SETUP;
	r->listener_fd = -1;
	c->report = r;

	/* Before the child exists, which inherits it until its execve:
	 * there is no moment when CMD runs and we are dumpable. */
	if (sup && supervisor_make_undumpable()) {
		cli_error("run", "cannot make the supervisor non-dumpable: %s", strerror(errno));
		munmap(r, sizeof(*r));
		return EXIT_RUN_FAILED;
	}
	sigemptyset(&set);
	for (i = 0; i < sizeof(forwarded_signals) / sizeof(forwarded_signals[0]); i++)
		sigaddset(&set, forwarded_signals[i]);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &old)) {
		cli_error("run", "cannot block signals: %s", strerror(errno));
		munmap(r, sizeof(*r));
		return EXIT_RUN_FAILED;
	}
	c->sigmask = old;
	/* The child never uses stdio: flush so nothing buffered is lost. */
	fflush(NULL);
	if (sup)
		/* fork() with a shared fd table: without CLONE_VM the child
		 * gets a copy of our memory and returns here on that copy. */
		pid = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, NULL, NULL, NULL, 0);
	else
		pid = fork();
	if (pid < 0) {
		cli_error("run", "cannot create the child: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		munmap(r, sizeof(*r));
		return EXIT_RUN_FAILED;
	}
	if (pid == 0)
		run_child(c);

	if (!sup) {
		/* The child has its own copy of the filters and objects. */
		release(arg);
		rc = cli_wait_forwarding(pid, &set, &status, &forwarded);
	} else {
		if (supervisor_ignore_stop_signals())
			cli_error("run", "warning: cannot ignore job control signals: %s",
				  strerror(errno));
		reaped = wait_published(pid, r, &status);
		stage = __atomic_load_n(&r->stage, __ATOMIC_ACQUIRE);
		if (stage == RUN_STAGE_SETUP || stage == RUN_STAGE_SETUP_FAILED) {
			/* No CMD ran: nothing to serve. A listener installed
			 * right before the child was killed is closed. */
			if (!reaped)
				waitpid(pid, &status, 0);
			if (r->listener_fd >= 0)
				close(r->listener_fd);
		} else if (r->listener_fd < 0) {
			/* Cannot happen: EXEC is only stored after the fd. */
			cli_error("run", "internal error: no listener published");
			if (!reaped) {
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
			}
			sigprocmask(SIG_SETMASK, &old, NULL);
			munmap(r, sizeof(*r));
			return EXIT_RUN_FAILED;
		} else {
			/* Even if CMD is already gone: what it started may
			 * still need the supervisor. */
			rc = serve(pid, reaped, r->listener_fd, sup, &set, &status, &forwarded);
			if (rc && rc != -ECHILD) {
				sigprocmask(SIG_SETMASK, &old, NULL);
				munmap(r, sizeof(*r));
				return EXIT_RUN_FAILED;
			}
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		cli_error("run", "waiting for %s: %s", cmd, strerror(-rc));
		munmap(r, sizeof(*r));
		return EXIT_RUN_FAILED;
	}

	switch (__atomic_load_n(&r->stage, __ATOMIC_ACQUIRE)) {
	case RUN_STAGE_SETUP_FAILED:
		cli_error("run", "cannot install the filters: %s", r->err.msg);
		status = EXIT_RUN_FAILED;
		goto out;
	case RUN_STAGE_EXEC_FAILED:
		cli_error(cmd, "cannot execute it: %s (no permission, or a filter denies execve)",
			  strerror(r->exec_errno));
		status = EXIT_CANNOT_EXEC;
		goto out;
	case RUN_STAGE_SETUP:
		/* Killed before execve: by a signal we forwarded (the user's
		 * wish), or by an earlier filter denying seccomp() with KILL. */
		if (WIFSIGNALED(status) && forwarded) {
			status = 128 + WTERMSIG(status);
			goto out;
		}
		cli_error("run",
			  "the process died while installing the filters (%s%d): a filter given "
			  "earlier may kill seccomp()",
			  WIFSIGNALED(status) ? "signal " : "status ",
			  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		status = EXIT_RUN_FAILED;
		goto out;
	default:
		break;
	}
	if (WIFSIGNALED(status)) {
		sig = WTERMSIG(status);
		if (sig == SIGSYS)
			cli_error(cmd,
				  "killed by SIGSYS: a filter returned KILL (or TRAP, unhandled)");
		status = 128 + sig;
	} else {
		status = WEXITSTATUS(status);
	}
out:
	munmap(r, sizeof(*r));
	return status;
}

/* What run loads and compiles, released once the child has its copy (or,
 * with a supervisor, once the supervisor is done). */
struct run_state {
	struct cli_target *targets;
	int ntargets;
	struct stack_plan plan; /* what is installed, and the runtimes */
	struct cli_set *sets;
	int nsets;
	char *path;
	unsigned int nworkers; /* --workers: supervisor threads = PERCPU slots */
	struct events *events; /* --events: the ring buffer reader, or NULL */
	FILE *events_file;     /* --events=FILE */
	const char *agent_path; /* --agent */
	int agent_fd;		/* connected to it, or -1 */
};

static void run_state_release(void *arg)
{
	struct run_state *s = arg;
	int i;

	/* The reader goes before the runtimes whose rings it reads. */
	events_free(s->events);
	if (s->events_file && fclose(s->events_file))
		cli_error("run", "cannot write the events: %s", strerror(errno));
	stack_plan_free(&s->plan);
	for (i = 0; s->targets && i < s->ntargets; i++)
		cli_close(&s->targets[i]);
	if (s->sets)
		cli_free_sets(s->sets, s->nsets);
	free(s->targets);
	free(s->sets);
	free(s->path);
	if (s->agent_fd >= 0)
		close(s->agent_fd);
	memset(s, 0, sizeof(*s));
	s->agent_fd = -1;
}

/*
 * Whether probe_read_user may read non-dumpable targets for us (seed 009):
 * the policy's answer (CAP_SYS_PTRACE in the initial user namespace). A
 * policy that cannot be read answers no; verification reports it.
 */
static bool run_may_read_nondumpable(void)
{
	struct secbpf_err err = { { 0 } };
	struct policy_decision d;
	struct policy_inputs in;

	if (policy_read_system(&in, NULL, &err) ||
	    policy_decide(&in, SECBPF_TIER_PRIVILEGED, &d, &err))
		return false;
	return d.may_read_nondumpable;
}

/*
 * Compile the targets and plan their stack (lib/install/stack_plan.c, shared with
 * the attach API). may_read_nondumpable is the policy's answer for seed
 * 009's dumpable check. Warns when this process already has filters: CMD
 * inherits them below ours, and a syscall they decide in the kernel with
 * a higher precedence never reaches our programs (docs/design.md §1, stacking
 * divergences). Returns 0, or -1 after printing why.
 */
static int run_plan(struct run_state *s, const char **specs, int n, bool may_read_nondumpable)
{
	struct stack_plan_opts opts = {
		.sz = sizeof(opts),
		.ncpus = s->nworkers, /* one PERCPU slot per supervisor worker */
		.loader_cap_sys_ptrace = may_read_nondumpable,
		/* With an agent, a filter that can return USER_NOTIF is
		 * supervised even without state, so that its USER_NOTIF
		 * reaches the agent. */
		.supervise_user_notif = s->agent_path != NULL,
	};
	struct stack_plan_target *t;
	struct secbpf_err err = { { 0 } };
	int i, existing, rc;

	t = calloc(n, sizeof(*t));
	if (!t) {
		cli_error("run", "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		t[i].obj = s->targets[i].obj;
		t[i].prog = s->targets[i].prog;
		t[i].name = specs[i];
	}
	rc = stack_plan_build(&s->plan, t, n, &opts, &err);
	free(t);
	if (rc) {
		cli_error("run", "%s", err.msg);
		return -1;
	}
	if (!s->plan.stateful)
		return 0;
	if (s->plan.stack.listener_notifies_all)
		fprintf(stderr,
			"secbpf: run: warning: the stateful filters are too long to share "
			"one listener filter; every syscall goes to the supervisor (slower)\n");
	existing = supervisor_count_own_filters();
	if (existing > 0)
		fprintf(stderr,
			"secbpf: run: warning: stacking a stateful filter on %d seccomp filter%s "
			"this process already has: what they decide in the kernel first never "
			"reaches the supervised programs (their maps do not see it)\n",
			existing, existing == 1 ? "" : "s");
	return 0;
}

/*
 * --stats: what the stateful programs kept, once every filtered process is
 * gone (the workers have stopped, so the maps no longer change). One line
 * per global variable ("SPEC VAR = VALUE") and per map entry ("SPEC MAP
 * KEY = VALUE"); integers of 1, 2, 4 or 8 bytes in decimal, anything else
 * in hex, per-CPU values one per worker slot.
 */
static bool stats_iterable(uint32_t type)
{
	switch (type) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_TASK_STORAGE:
		return true;
	default:
		return false;
	}
}

static void stats_map(FILE *f, const char *spec, const char *name, struct map *m)
{
	size_t ksz = map_key_size(m), vsz = map_value_size(m), usz = map_user_value_size(m);
	bool percpu = usz != vsz;
	uint8_t *key, *next, *val;
	unsigned int c;
	void *prev = NULL;

	key = calloc(1, ksz ? ksz : 1);
	next = calloc(1, ksz ? ksz : 1);
	val = calloc(1, usz ? usz : 1);
	if (!key || !next || !val)
		goto out;
	while (map_get_next_key(m, prev, next) == 0) {
		memcpy(key, next, ksz);
		prev = key;
		if (map_lookup_user(m, key, val))
			continue;
		fprintf(f, "%s %s ", spec, name);
		cli_print_value(f, key, ksz);
		fputs(" =", f);
		for (c = 0; c < (percpu ? map_ncpus(m) : 1); c++) {
			fputc(' ', f);
			cli_print_value(f, val + c * ((vsz + 7) / 8 * 8), vsz);
		}
		fputc('\n', f);
	}
out:
	free(key);
	free(next);
	free(val);
}

static void run_stats(const struct run_state *s, const char **specs, const char *path)
{
	const struct object *obj;
	FILE *f = stderr;
	struct map *m;
	void *value;
	uint32_t j;
	int i;

	if (path) {
		f = fopen(path, "we");
		if (!f) {
			cli_error(path, "cannot write the stats: %s", strerror(errno));
			return;
		}
	}
	for (i = 0; i < s->ntargets; i++) {
		if (!s->plan.runtimes[i])
			continue;
		obj = s->targets[i].obj;
		for (j = 0; j < obj->var_cnt; j++) {
			const struct object_var *v = &obj->vars[j];
			const struct object_map *om = &obj->maps[v->map];

			if (v->is_const_volatile || om->kind == OBJECT_MAP_RODATA)
				continue;
			m = runtime_map(s->plan.runtimes[i], om->name);
			if (!m || map_direct_value(m, &value) ||
			    v->offset + v->size > om->value_size)
				continue;
			fprintf(f, "%s %s = ", specs[i], v->name);
			cli_print_value(f, (const uint8_t *)value + v->offset, v->size);
			fputc('\n', f);
		}
		for (j = 0; j < obj->map_cnt; j++) {
			if (obj->maps[j].kind != OBJECT_MAP_BTF ||
			    !stats_iterable(obj->maps[j].type))
				continue;
			m = runtime_map(s->plan.runtimes[i], obj->maps[j].name);
			if (m)
				stats_map(f, specs[i], obj->maps[j].name, m);
		}
	}
	if (path && fclose(f))
		cli_error(path, "cannot write the stats: %s", strerror(errno));
}

/*
 * --events[=FILE]: a reader for the RINGBUF maps of the stateful programs,
 * started with the supervisor's workers (lib/vm/events.c). The file is opened
 * now, close-on-exec, so that a bad path fails before CMD runs. Returns 0,
 * or -1 after printing why.
 */
static int run_open_events(struct run_state *s, const char **specs, const char *path)
{
	struct events_opts opts = { .sz = sizeof(opts) };
	struct secbpf_err err = { { 0 } };
	int i;

	if (path) {
		s->events_file = fopen(path, "we");
		if (!s->events_file) {
			cli_error(path, "cannot write the events: %s", strerror(errno));
			return -1;
		}
		opts.out = s->events_file;
	}
	s->events = events_new(&opts, &err);
	if (!s->events) {
		cli_error("run", "--events: %s", err.msg);
		return -1;
	}
	for (i = 0; i < s->ntargets; i++) {
		if (!s->plan.runtimes[i])
			continue;
		if (events_add_runtime(s->events, s->plan.runtimes[i], s->targets[i].obj, specs[i],
				       &err) < 0) {
			cli_error("run", "--events: %s", err.msg);
			return -1;
		}
	}
	if (events_nrings(s->events) == 0)
		fprintf(stderr, "secbpf: run: warning: --events: no stateful filter has a "
				"BPF_MAP_TYPE_RINGBUF map; there will be no events\n");
	return 0;
}

/* --workers N: 1 to SUPERVISOR_MAX_WORKERS. Returns 0, or -1 after
 * printing why. */
static int run_parse_workers(const char *arg, unsigned int *n)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < 1 || v > SUPERVISOR_MAX_WORKERS) {
		cli_error("run", "--workers: '%s' is not a number from 1 to %d", arg,
			  SUPERVISOR_MAX_WORKERS);
		return -1;
	}
	*n = (unsigned int)v;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "stats", optional_argument, NULL, 'S' },
		{ "events", optional_argument, NULL, 'E' },
		{ "workers", required_argument, NULL, 'w' },
		{ "native", no_argument, NULL, 'N' },
		{ "agent", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct run_state s = { .agent_fd = -1 };
	struct run_child child = { 0 };
	struct run_supervision sup = { 0 };
	const char **specs;
	const char *stats_path = NULL, *events_path = NULL;
	bool stateful = false, stats = false, events = false, native = false;
	int nspecs = 0, c, i, status = EXIT_RUN_FAILED;

	specs = calloc(argc, sizeof(*specs));
	s.sets = calloc(argc, sizeof(*s.sets));
	if (!specs || !s.sets) {
		cli_error("run", "out of memory");
		goto out;
	}
	s.nworkers = supervisor_default_workers();
	/* '+': options end at CMD, whose own options are its business. */
	while ((c = getopt_long(argc, argv, "+f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			specs[nspecs++] = optarg;
			break;
		case 's':
			if (cli_parse_set(optarg, &s.sets[s.nsets]))
				goto out;
			s.nsets++;
			break;
		case 'S':
			stats = true;
			stats_path = optarg;
			break;
		case 'E':
			events = true;
			events_path = optarg;
			break;
		case 'w':
			if (run_parse_workers(optarg, &s.nworkers))
				goto out;
			break;
		case 'N':
			native = true;
			break;
		case 'A':
			s.agent_path = optarg;
			break;
		case 'h':
			run_usage(stdout);
			status = 0;
			goto out;
		default:
			run_usage(stderr);
			goto out;
		}
	}
	if (optind >= argc) {
		cli_error("run", "no command to run (see secbpf run --help)");
		goto out;
	}
	/* Fail closed: running CMD unfiltered because -f was forgotten is
	 * never what a script meant. */
	if (nspecs == 0) {
		cli_error("run", "no filter given: use -f OBJ[:PROG] (see secbpf run --help)");
		goto out;
	}
	if (native && (events || s.agent_path || s.nworkers != supervisor_default_workers())) {
		cli_error("run", "--events, --workers and --agent are for the supervisor; with "
				 "--native the kernel runs the programs");
		goto out;
	}
	if (native) {
		/* The kernel verifies, runs and keeps the state: none of the
		 * user-space machinery below takes part. */
		status = cli_native_run("run", specs, nspecs, s.sets, s.nsets, stats, stats_path,
					argv + optind);
		goto out;
	}

	s.targets = calloc(nspecs, sizeof(*s.targets));
	if (!s.targets) {
		cli_error("run", "out of memory");
		goto out;
	}
	for (i = 0; i < nspecs; i++) {
		if (cli_load(specs[i], &s.targets[i]))
			goto out;
		s.ntargets = i + 1;
	}
	/* All targets at once: a VAR must exist in at least one of them. */
	if (cli_apply_sets(s.targets, s.ntargets, s.sets, s.nsets))
		goto out;
	for (i = 0; i < nspecs; i++) {
		/* As in the kernel, nothing runs that the verifier rejects. The
		 * tier asked for is the highest; the system policy caps it. */
		if (cli_verify_target(&s.targets[i], SECBPF_TIER_PRIVILEGED, false, NULL))
			goto out;
	}
	if (run_plan(&s, specs, nspecs, run_may_read_nondumpable()))
		goto out;
	stateful = s.plan.stateful;
	if (events && run_open_events(&s, specs, events_path))
		goto out;
	s.path = cli_resolve_command("run", argv[optind], &status);
	if (!s.path)
		goto out;
	child.path = s.path;
	child.argv = argv + optind;
	if (s.agent_path) {
		struct secbpf_err err = { { 0 } };

		s.agent_fd = supervisor_agent_connect(s.agent_path, &err);
		if (s.agent_fd < 0) {
			cli_error("--agent", "%s", err.msg);
			status = EXIT_RUN_FAILED;
			goto out;
		}
	}
	if (stateful) {
		child.progs = s.plan.install;
		child.nprogs = s.plan.ninstall;
		child.listener = true;
		sup.progs = s.plan.sv_progs;
		sup.n = nspecs;
		sup.nworkers = s.nworkers;
		sup.events = s.events;
		sup.agent_fd = &s.agent_fd;
		status = run_and_wait(&child, argv[optind], &sup, run_state_release, &s);
		/* Every record the workers submitted, before the stats. */
		events_stop(s.events);
		if (stats)
			run_stats(&s, specs, stats_path);
	} else {
		child.progs = s.plan.install;
		child.nprogs = s.plan.ninstall;
		status = run_and_wait(&child, argv[optind], NULL, run_state_release, &s);
	}
out:
	run_state_release(&s);
	free(specs);
	return status;
}
