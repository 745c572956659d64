// SPDX-License-Identifier: MIT
/*
 * `secbpf run [-f OBJ[:PROG]]... [--set VAR=VALUE]... [--] CMD [ARG]...`:
 * run CMD under the given filters, installed in a child right before its
 * execve (DESIGN §1, §5). When a filter needs state (maps, helpers), this
 * process becomes the supervisor: it holds the listener of the stack and
 * answers the notified syscalls (lib/supervisor.c) until the last filtered
 * process is gone.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/capability.h>
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

#include "attach.h"
#include "cli.h"
#include "maps.h"
#include "runtime.h"
#include "supervisor.h"
#include "verifier.h"

extern char **environ;

/* Exit statuses of `run` (DESIGN §5, the convention of env and timeout). */

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
		"                  [--agent SOCKET] [--] CMD [ARG]...\n"
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
		"  --agent SOCKET   send syscalls a filter answers with USER_NOTIF to the user\n"
		"                   agent at SOCKET (docs/agent.md); without: they fail, ENOSYS\n"
		"  -h, --help       show this help\n"
		"\n"
		"Exit status: CMD's status; 128+N if CMD was killed by signal N (159 for\n"
		"SIGSYS, a filter's KILL decided by the kernel; 137, SIGKILL, for one decided\n"
		"by the supervisor); 125 if secbpf failed before running CMD; 126 if CMD\n"
		"could not be executed (no permission, or a filter denied execve); 127 if\n"
		"CMD was not found.\n");
}

/*
 * exit_group without going through _exit(): a sanitizer's _exit hook would
 * run leak checks, making syscalls the installed filters may deny. If even
 * exit_group is denied, trap: the kernel kills us without a syscall.
 */
static __attribute__((noreturn)) void child_exit(int status)
{
	syscall(SYS_exit_group, status);
	__builtin_trap();
}

static __attribute__((noreturn)) void child_setup_failed(struct run_report *r)
{
	__atomic_store_n(&r->stage, RUN_STAGE_SETUP_FAILED, __ATOMIC_RELEASE);
	child_exit(EXIT_RUN_FAILED);
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
	size_t nplain = c->listener ? c->nprogs - 1 : c->nprogs;
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
	if (nplain > 0) {
		rc = attach_cbpf_many(c->progs, nplain, 0, &r->err);
		if (rc < 0)
			child_setup_failed(r);
	}
	if (c->listener) {
		rc = attach_cbpf_many(&c->progs[nplain], 1, SUPERVISOR_LISTENER_FLAGS, &r->err);
		if (rc < 0)
			child_setup_failed(r);
		r->listener_fd = rc;
	}
	__atomic_store_n(&r->stage, RUN_STAGE_EXEC, __ATOMIC_RELEASE);
	execve(c->path, c->argv, environ);
	e = errno;
	r->exec_errno = e;
	__atomic_store_n(&r->stage, RUN_STAGE_EXEC_FAILED, __ATOMIC_RELEASE);
	child_exit(EXIT_CANNOT_EXEC);
}

/*
 * Wait for the child, forwarding SIGINT, SIGTERM, SIGHUP and SIGQUIT sent
 * to us by a process. The set (and SIGCHLD) is blocked by the caller and
 * taken with sigwaitinfo, so there is no handler and no global state. A
 * signal from the terminal (si_code SI_KERNEL) went to the whole
 * foreground process group, the child included: not sent twice.
 */
static int wait_forwarding(pid_t pid, const sigset_t *set, int *status, bool *forwarded)
{
	siginfo_t info;
	pid_t w;
	int sig;

	for (;;) {
		w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		sig = sigwaitinfo(set, &info);
		if (sig < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (sig == SIGCHLD || info.si_code == SI_KERNEL)
			continue;
		if (kill(pid, sig) == 0)
			*forwarded = true;
	}
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

/*
 * Be the supervisor of the child's listener until the child has exited
 * (reaped says it already has) and no process uses the filter any more
 * (the listener hangs up), forwarding signals as wait_forwarding does; the
 * set is taken from a signalfd. Every fd opened here is close-on-exec:
 * until the child's execve completes, it shares our fd table. Returns 0
 * with *status set, or a negative errno after printing why (the child is
 * then killed and reaped: CMD must not run with nobody to answer its
 * filter).
 */
static int serve(pid_t pid, bool reaped, int listener, const struct supervisor_prog *progs,
		 size_t n, int *agent_fd, const sigset_t *set, int *status, bool *forwarded)
{
	struct supervisor_opts opts = {
		.sz = sizeof(opts),
		.nworkers = supervisor_default_workers(), /* = the runtimes' ncpus */
		.agent_fd = *agent_fd,
	};
	struct secbpf_err err = { { 0 } };
	struct signalfd_siginfo si;
	struct supervisor *sv;
	struct pollfd pfd[2];
	bool hup = false;
	int sfd, rc;

	sv = supervisor_new(listener, progs, n, &opts, &err);
	if (!sv) {
		close(listener);
		cli_error("run", "cannot start the supervisor: %s", err.msg);
		rc = -ENOMEM;
		goto kill_child;
	}
	*agent_fd = -1; /* the supervisor's now */
	rc = supervisor_start(sv, &err);
	if (rc) {
		cli_error("run", "cannot start the supervisor: %s", err.msg);
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

/* What run_and_wait needs for a stack with a supervisor (NULL: none). */
struct run_supervision {
	const struct supervisor_prog *progs;
	size_t n;
	int *agent_fd; /* -1: none; set to -1 once the supervisor owns it */
};

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
		rc = wait_forwarding(pid, &set, &status, &forwarded);
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
			rc = serve(pid, reaped, r->listener_fd, sup->progs, sup->n, sup->agent_fd,
				   &set, &status, &forwarded);
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
	struct cbpf_prog *compiled;
	struct runtime **runtimes; /* per target; NULL when stateless */
	struct sock_fprog *progs;
	struct supervisor_prog *sv_progs;
	struct supervisor_stack stack;
	struct cli_set *sets;
	int nsets;
	char *path;
	const char *agent_path; /* --agent */
	int agent_fd;		/* connected to it, or -1 */
};

static void run_state_release(void *arg)
{
	struct run_state *s = arg;
	int i;

	supervisor_stack_free(&s->stack);
	for (i = 0; s->runtimes && i < s->ntargets; i++)
		runtime_free(s->runtimes[i]);
	for (i = 0; s->compiled && i < s->ntargets; i++)
		cbpf_prog_free(&s->compiled[i]);
	for (i = 0; s->targets && i < s->ntargets; i++)
		cli_close(&s->targets[i]);
	if (s->sets)
		cli_free_sets(s->sets, s->nsets);
	free(s->runtimes);
	free(s->compiled);
	free(s->progs);
	free(s->sv_progs);
	free(s->targets);
	free(s->sets);
	free(s->path);
	if (s->agent_fd >= 0)
		close(s->agent_fd);
	memset(s, 0, sizeof(*s));
	s->agent_fd = -1;
}

/*
 * Whether we, the loader, may let probe_read_user read non-dumpable
 * targets (seed 009): CAP_SYS_PTRACE, counted only in the initial user
 * namespace (DESIGN §2). Anything unreadable counts as no. To be replaced
 * by the policy module's decision (lib/policy.c) once it is in the build.
 */
static bool loader_may_read_nondumpable(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	char self[64] = "", init[64] = "";
	unsigned long inside, outside, count;
	FILE *f;
	bool full;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return false;
	if (!(data[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective & CAP_TO_MASK(CAP_SYS_PTRACE)))
		return false;
	if (readlink("/proc/self/ns/user", self, sizeof(self) - 1) > 0 &&
	    readlink("/proc/1/ns/user", init, sizeof(init) - 1) > 0)
		return strcmp(self, init) == 0;
	/* /proc/1 hidden from us: only the initial namespace maps all 2^32
	 * ids (a child's map is limited to ids valid in its parent, which
	 * excludes 4294967295). */
	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return false;
	full = fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 &&
	       outside == 0 && count == 4294967295ul;
	fclose(f);
	return full;
}

/* sock_fprog.len is an unsigned short: never let it truncate. */
static int run_check_len(struct run_state *s, int i, const char *spec)
{
	struct cbpf_prog *cp = &s->compiled[i];

	if (cp->len == 0 || cp->len > CBPF_MAX_INSNS) {
		cli_error(spec, "the compiled filter has %u instructions (1 to %d allowed)",
			  cp->len, CBPF_MAX_INSNS);
		return -1;
	}
	s->progs[i].len = (unsigned short)cp->len;
	s->progs[i].filter = cp->insns;
	return 0;
}

/*
 * Compile target i (without the listener guard: see run_plan_supervision).
 * A filter with stateful paths gets a runtime for its program. Returns 0,
 * or -1 after printing why.
 */
static int run_compile(struct run_state *s, int i, const char *spec)
{
	struct cbpf_compile_opts opts = { .sz = sizeof(opts), .listener_guard = false };
	struct runtime_opts rt_opts = {
		.sz = sizeof(rt_opts),
		.ncpus = supervisor_default_workers(),
		.loader_cap_sys_ptrace = loader_may_read_nondumpable(),
	};
	struct cli_target *t = &s->targets[i];
	struct secbpf_err err = { { 0 } };
	struct cbpf_prog *cp = &s->compiled[i];

	if (cbpf_compile(t->obj, t->prog, &opts, cp, &err)) {
		cli_error(spec, "%s", err.msg);
		return -1;
	}
	/* With an agent, a filter that can return USER_NOTIF is supervised
	 * even without state, so that its USER_NOTIF reaches the agent. */
	if (cp->needs_supervisor ||
	    (s->agent_path && supervisor_filter_may_notify(cp->insns, cp->len))) {
		/* One PERCPU slot per supervisor worker. */
		s->runtimes[i] = runtime_new_opts(t->obj, t->prog, &rt_opts, &err);
		if (!s->runtimes[i]) {
			cli_error(spec, "cannot prepare the program for the supervisor: %s",
				  err.msg);
			return -1;
		}
	}
	return run_check_len(s, i, spec);
}

/*
 * Whether a program of obj (any of them: tail calls reach the others)
 * calls a helper that reads the target's memory. Only a hint for the
 * supervisor (it then opens /proc/TID/mem for each notification).
 */
static bool object_reads_memory(const struct object *obj)
{
	const struct bpf_insn *in;
	uint32_t i, j;

	for (i = 0; i < obj->prog_cnt; i++)
		for (j = 0; j < obj->progs[i].insn_cnt; j++) {
			in = &obj->progs[i].insns[j];
			if (in->code != (BPF_JMP | BPF_CALL) || in->src_reg != 0)
				continue;
			switch (in->imm) {
			case BPF_FUNC_probe_read:
			case BPF_FUNC_probe_read_str:
			case BPF_FUNC_probe_read_user:
			case BPF_FUNC_probe_read_user_str:
			case BPF_FUNC_copy_from_user:
				return true;
			default:
				break;
			}
		}
	return false;
}

/*
 * Lay out the supervised stack. Warns when this process already has
 * filters: CMD inherits them below ours, and a syscall they decide in the
 * kernel with a higher precedence never reaches our programs (DESIGN §1,
 * stacking divergences). Returns 0, or -1 after printing why.
 */
static int run_plan_supervision(struct run_state *s, const char **specs, int n)
{
	struct secbpf_err err = { { 0 } };
	int i, existing;

	s->sv_progs = calloc(n, sizeof(*s->sv_progs));
	if (!s->sv_progs) {
		cli_error("run", "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		s->sv_progs[i].rt = s->runtimes[i];
		s->sv_progs[i].name = specs[i];
		s->sv_progs[i].reads_memory = object_reads_memory(s->targets[i].obj);
	}
	/* A lone stateful filter given last is the listener filter itself:
	 * it needs the listener guard, so that a filtered process cannot
	 * install a listener of its own once ours is gone. */
	if (supervisor_stack_single(s->sv_progs, n)) {
		struct cbpf_compile_opts opts = { .sz = sizeof(opts), .listener_guard = true };
		struct cli_target *t = &s->targets[n - 1];

		cbpf_prog_free(&s->compiled[n - 1]);
		memset(&s->compiled[n - 1], 0, sizeof(s->compiled[n - 1]));
		if (cbpf_compile(t->obj, t->prog, &opts, &s->compiled[n - 1], &err)) {
			cli_error(specs[n - 1], "%s", err.msg);
			return -1;
		}
		if (run_check_len(s, n - 1, specs[n - 1]))
			return -1;
	}
	for (i = 0; i < n; i++) {
		s->sv_progs[i].insns = s->compiled[i].insns;
		s->sv_progs[i].len = s->compiled[i].len;
	}
	if (supervisor_stack_build(s->sv_progs, n, &s->stack, &err)) {
		cli_error("run", "%s", err.msg);
		return -1;
	}
	if (s->stack.listener_notifies_all)
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
static void stats_value(FILE *f, const uint8_t *p, size_t n)
{
	uint64_t v;
	size_t i;

	switch (n) {
	case 1:
		v = *p;
		break;
	case 2: {
		uint16_t x;

		memcpy(&x, p, 2);
		v = x;
		break;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p, 4);
		v = x;
		break;
	}
	case 8:
		memcpy(&v, p, 8);
		break;
	default:
		fputs("0x", f);
		for (i = 0; i < n; i++)
			fprintf(f, "%02x", p[i]);
		return;
	}
	fprintf(f, "%llu", (unsigned long long)v);
}

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
		stats_value(f, key, ksz);
		fputs(" =", f);
		for (c = 0; c < (percpu ? map_ncpus(m) : 1); c++) {
			fputc(' ', f);
			stats_value(f, val + c * ((vsz + 7) / 8 * 8), vsz);
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
		if (!s->runtimes[i])
			continue;
		obj = s->targets[i].obj;
		for (j = 0; j < obj->var_cnt; j++) {
			const struct object_var *v = &obj->vars[j];
			const struct object_map *om = &obj->maps[v->map];

			if (v->is_const_volatile || om->kind == OBJECT_MAP_RODATA)
				continue;
			m = runtime_map(s->runtimes[i], om->name);
			if (!m || map_direct_value(m, &value) ||
			    v->offset + v->size > om->value_size)
				continue;
			fprintf(f, "%s %s = ", specs[i], v->name);
			stats_value(f, (const uint8_t *)value + v->offset, v->size);
			fputc('\n', f);
		}
		for (j = 0; j < obj->map_cnt; j++) {
			if (obj->maps[j].kind != OBJECT_MAP_BTF ||
			    !stats_iterable(obj->maps[j].type))
				continue;
			m = runtime_map(s->runtimes[i], obj->maps[j].name);
			if (m)
				stats_map(f, specs[i], obj->maps[j].name, m);
		}
	}
	if (path && fclose(f))
		cli_error(path, "cannot write the stats: %s", strerror(errno));
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "stats", optional_argument, NULL, 'S' },
		{ "agent", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct run_state s = { .agent_fd = -1 };
	struct run_child child = { 0 };
	struct run_supervision sup = { 0 };
	const char **specs;
	const char *stats_path = NULL;
	bool stateful = false, stats = false;
	int nspecs = 0, c, i, status = EXIT_RUN_FAILED;

	specs = calloc(argc, sizeof(*specs));
	s.sets = calloc(argc, sizeof(*s.sets));
	if (!specs || !s.sets) {
		cli_error("run", "out of memory");
		goto out;
	}
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

	s.targets = calloc(nspecs, sizeof(*s.targets));
	s.compiled = calloc(nspecs, sizeof(*s.compiled));
	s.runtimes = calloc(nspecs, sizeof(*s.runtimes));
	s.progs = calloc(nspecs, sizeof(*s.progs));
	if (!s.targets || !s.compiled || !s.runtimes || !s.progs) {
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
		if (run_compile(&s, i, specs[i]))
			goto out;
		stateful |= s.runtimes[i] != NULL;
	}

	if (stateful && run_plan_supervision(&s, specs, nspecs))
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
		child.progs = s.stack.progs;
		child.nprogs = s.stack.n;
		child.listener = true;
		sup.progs = s.sv_progs;
		sup.n = nspecs;
		sup.agent_fd = &s.agent_fd;
		status = run_and_wait(&child, argv[optind], &sup, run_state_release, &s);
		if (stats)
			run_stats(&s, specs, stats_path);
	} else {
		child.progs = s.progs;
		child.nprogs = nspecs;
		status = run_and_wait(&child, argv[optind], NULL, run_state_release, &s);
	}
out:
	run_state_release(&s);
	free(specs);
	return status;
}
