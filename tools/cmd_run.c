// SPDX-License-Identifier: MIT
/*
 * `secbpf run [-f OBJ[:PROG]]... [--set VAR=VALUE]... [--] CMD [ARG]...`:
 * run CMD under the given filters, installed in a child right before its
 * execve (DESIGN §1, §5). This version runs stateless filters only.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach.h"
#include "cli.h"
#include "verifier.h"

extern char **environ;

/* Exit statuses of `run` (DESIGN §5, the convention of env and timeout). */
#define EXIT_RUN_FAILED 125  /* secbpf failed before running CMD */
#define EXIT_CANNOT_EXEC 126 /* CMD found but could not be executed */
#define EXIT_NOT_FOUND 127   /* CMD not found */

/*
 * What the child tells the parent, through a MAP_SHARED page: plain
 * stores, so that reporting a failure after a filter is installed needs no
 * syscall the filter could deny. execve unmaps the page from the child, so
 * CMD never sees it. The parent reads it only after waitpid().
 */
enum run_stage {
	RUN_STAGE_SETUP,	/* setting no_new_privs, installing filters */
	RUN_STAGE_SETUP_FAILED, /* err says why */
	RUN_STAGE_EXEC,		/* filters installed, execve called */
	RUN_STAGE_EXEC_FAILED,	/* exec_errno says why */
};

struct run_report {
	int stage;
	int exec_errno;
	struct secbpf_err err;
};

/* Everything the child needs, prepared before fork: after the last filter
 * is installed the child may not allocate, print or make any syscall other
 * than execve (and exit_group if execve fails). */
struct run_child {
	const char *path;		/* CMD resolved with PATH */
	char **argv;			/* CMD [ARG]... */
	const struct sock_fprog *progs; /* in installation order */
	size_t nprogs;
	sigset_t sigmask;	   /* the mask CMD must start with */
	struct run_report *report; /* the shared page */
};

static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void run_usage(FILE *f)
{
	fprintf(f, "usage: secbpf run [-f OBJ[:PROG]]... [--set VAR=VALUE]... [--] CMD [ARG]...\n"
		   "\n"
		   "Run CMD under the filters: they are installed, in the order given, right\n"
		   "before CMD's execve, and apply to CMD and everything it starts. The last\n"
		   "filter given wins ties (as with several seccomp() calls). no_new_privs is\n"
		   "set for CMD. OBJ may be a .c file, compiled first. This version runs\n"
		   "filters that the kernel can decide alone (no maps, no helpers).\n"
		   "\n"
		   "  -f OBJ[:PROG]    a filter to install (at least one)\n"
		   "  --set VAR=VALUE  write a const volatile global in every object defining it\n"
		   "  -h, --help       show this help\n"
		   "\n"
		   "Exit status: CMD's status; 128+N if CMD was killed by signal N (159 for\n"
		   "SIGSYS, a filter's KILL); 125 if secbpf failed before running CMD; 126 if\n"
		   "CMD could not be executed (no permission, or a filter denied execve);\n"
		   "127 if CMD was not found.\n");
}

/* Whether path names something execve could run: a file with execute
 * permission for us. Sets *e to the reason when it is not. */
static bool is_executable(const char *path, int *e)
{
	struct stat st;

	if (stat(path, &st)) {
		*e = errno;
		return false;
	}
	if (S_ISDIR(st.st_mode)) {
		*e = EISDIR;
		return false;
	}
	if (access(path, X_OK)) {
		*e = errno;
		return false;
	}
	return true;
}

/*
 * Resolve CMD as execvp would (PATH, or "/bin:/usr/bin" when unset; a name
 * with a '/' is taken as is), before any filter is installed: the search
 * makes syscalls that a filter may deny. Returns the malloc'ed path, or
 * NULL with *status set to 126 or 127 after printing why.
 */
static char *resolve_command(const char *cmd, int *status)
{
	const char *path_env, *p, *end;
	bool denied = false;
	int e = ENOENT;
	char *cand;
	size_t dlen;

	if (!*cmd) {
		cli_error("run", "empty command name");
		*status = EXIT_NOT_FOUND;
		return NULL;
	}
	if (strchr(cmd, '/')) {
		if (!is_executable(cmd, &e)) {
			cli_error(cmd, "%s", strerror(e));
			*status = (e == ENOENT || e == ENOTDIR) ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
			return NULL;
		}
		cand = strdup(cmd);
		if (!cand) {
			cli_error("run", "out of memory");
			*status = EXIT_RUN_FAILED;
		}
		return cand;
	}
	path_env = getenv("PATH");
	if (!path_env)
		path_env = "/bin:/usr/bin";
	for (p = path_env;; p = end + 1) {
		end = strchrnul(p, ':');
		dlen = end - p;
		/* An empty PATH element means the current directory. */
		if (asprintf(&cand, "%.*s/%s", (int)(dlen ? dlen : 1), dlen ? p : ".", cmd) < 0) {
			cli_error("run", "out of memory");
			*status = EXIT_RUN_FAILED;
			return NULL;
		}
		if (is_executable(cand, &e))
			return cand;
		free(cand);
		/* Like execvp: a match we may not execute is remembered, and
		 * reported if nothing later in PATH works. */
		if (e != ENOENT && e != ENOTDIR)
			denied = true;
		if (!*end)
			break;
	}
	if (denied) {
		cli_error(cmd, "found in PATH but not executable: %s", strerror(EACCES));
		*status = EXIT_CANNOT_EXEC;
		return NULL;
	}
	cli_error(cmd, "command not found in PATH");
	*status = EXIT_NOT_FOUND;
	return NULL;
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
 * are execve and, if it fails, exit_group.
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
	rc = attach_cbpf_many(c->progs, c->nprogs, 0, &r->err);
	if (rc < 0)
		child_setup_failed(r);
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
 * Fork, run the child and turn what happened into run's exit status. Once
 * the child exists, release(arg) frees the parent's copy of what c points
 * to (temporary objects are removed before CMD runs for long).
 */
static int run_and_wait(struct run_child *c, const char *cmd, void (*release)(void *), void *arg)
{
	struct run_report *r;
	sigset_t set, old;
	bool forwarded = false;
	size_t i;
	int status = 0, rc, sig;
	pid_t pid;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED) {
		cli_error("run", "cannot map the report page: %s", strerror(errno));
		return EXIT_RUN_FAILED;
	}
	memset(r, 0, sizeof(*r));
	r->stage = RUN_STAGE_SETUP;
	c->report = r;

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
	pid = fork();
	if (pid < 0) {
		cli_error("run", "cannot fork: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		munmap(r, sizeof(*r));
		return EXIT_RUN_FAILED;
	}
	if (pid == 0)
		run_child(c);

	/* The child has its own copy of the filters and objects. */
	release(arg);
	rc = wait_forwarding(pid, &set, &status, &forwarded);
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

/* What run loads and compiles, released once the child has its copy. */
struct run_state {
	struct cli_target *targets;
	int ntargets;
	struct cbpf_prog *compiled;
	struct sock_fprog *progs;
	struct cli_set *sets;
	int nsets;
	char *path;
};

static void run_state_release(void *arg)
{
	struct run_state *s = arg;
	int i;

	for (i = 0; s->compiled && i < s->ntargets; i++)
		cbpf_prog_free(&s->compiled[i]);
	for (i = 0; s->targets && i < s->ntargets; i++)
		cli_close(&s->targets[i]);
	if (s->sets)
		cli_free_sets(s->sets, s->nsets);
	free(s->compiled);
	free(s->progs);
	free(s->targets);
	free(s->sets);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct secbpf_err err = { { 0 } };
	struct run_state s = { 0 };
	struct run_child child = { 0 };
	const char **specs;
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
	s.progs = calloc(nspecs, sizeof(*s.progs));
	if (!s.targets || !s.compiled || !s.progs) {
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
		if (attach_prepare(s.targets[i].obj, s.targets[i].prog, 0, &s.compiled[i], &err)) {
			cli_error(specs[i], "%s", err.msg);
			goto out;
		}
		/* sock_fprog.len is an unsigned short: never let it truncate. */
		if (s.compiled[i].len == 0 || s.compiled[i].len > CBPF_MAX_INSNS) {
			cli_error(specs[i],
				  "the compiled filter has %u instructions (1 to %d allowed)",
				  s.compiled[i].len, CBPF_MAX_INSNS);
			goto out;
		}
		s.progs[i].len = (unsigned short)s.compiled[i].len;
		s.progs[i].filter = s.compiled[i].insns;
	}

	s.path = resolve_command(argv[optind], &status);
	if (!s.path)
		goto out;
	child.path = s.path;
	child.argv = argv + optind;
	child.progs = s.progs;
	child.nprogs = nspecs;
	status = run_and_wait(&child, argv[optind], run_state_release, &s);
out:
	run_state_release(&s);
	free(specs);
	return status;
}
