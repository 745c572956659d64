// SPDX-License-Identifier: MIT
/*
 * `secbpf native-run OBJ[:PROG] -- CMD` and `secbpf native-verify OBJ[:PROG]`:
 * the program loaded and enforced by a kernel carrying the seccomp-eBPF
 * patch set (lib/native.c), the fidelity oracle for `run` and `test`.
 * On a stock kernel both fail with a message saying so.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "native.h"

extern char **environ;

/* Exit statuses, as for `run` (DESIGN §5). */

static void native_run_usage(FILE *f)
{
	fprintf(f, "usage: secbpf native-run [--set VAR=VALUE]... OBJ[:PROG] [--] CMD [ARG]...\n"
		   "\n"
		   "Run CMD under the program, loaded into and enforced by the kernel itself\n"
		   "(BPF_PROG_TYPE_SECCOMP, a kernel with the seccomp-eBPF patch set, see\n"
		   "kernel/README.md). no_new_privs is set for CMD. OBJ may be a .c file.\n"
		   "\n"
		   "  --set VAR=VALUE  write a const volatile global before loading\n"
		   "  -h, --help       show this help\n"
		   "\n"
		   "Exit status: CMD's status; 128+N if CMD was killed by signal N; 125 if\n"
		   "secbpf failed before running CMD (also: the kernel lacks eBPF seccomp\n"
		   "support, or its verifier rejected the program); 126 if CMD could not be\n"
		   "executed; 127 if it was not found.\n");
}

static void native_verify_usage(FILE *f)
{
	fprintf(f, "usage: secbpf native-verify [--set VAR=VALUE]... OBJ[:PROG]\n"
		   "\n"
		   "Load the program into the kernel as BPF_PROG_TYPE_SECCOMP (a kernel with\n"
		   "the seccomp-eBPF patch set) and print 'accepted', or the kernel\n"
		   "verifier's log. Nothing is attached.\n"
		   "\n"
		   "  --set VAR=VALUE  write a const volatile global before loading\n"
		   "  -h, --help       show this help\n"
		   "\n"
		   "Exit status: 0 accepted, 1 rejected by the kernel verifier, 2 on a usage\n"
		   "or input error, or when the kernel lacks eBPF seccomp support.\n");
}

/*
 * Options shared by both commands: --set and --help. Returns 1 after
 * --help, 0 when parsed, -1 on a usage error (printed).
 */
static int native_parse(int argc, char **argv, struct cli_set *sets, int *nsets,
			void (*usage)(FILE *))
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	/* '+': options end at OBJ; CMD's own options are its business. */
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (cli_parse_set(optarg, &sets[(*nsets)++]))
				return -1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	return 0;
}

/* Load spec, apply the sets, load it into the kernel. Returns 0, or the
 * exit status for "rejected" (1) / "other failure" (2) after printing why;
 * the verifier's log is printed to stderr on rejection. */
static int native_prepare(const char *cmd, const char *spec, const struct cli_set *sets, int nsets,
			  struct native_abi *abi, struct cli_target *t, struct native_prog *np)
{
	struct secbpf_err err = { { 0 } };
	char *log = NULL;

	if (native_detect(abi, &err)) {
		cli_error(cmd, "%s", err.msg);
		return EXIT_USAGE;
	}
	if (cli_load(spec, t))
		return EXIT_USAGE;
	if (cli_apply_sets(t, 1, sets, nsets)) {
		cli_close(t);
		return EXIT_USAGE;
	}
	if (native_load(abi, t->obj, t->prog, np, &log, &err)) {
		if (log) {
			fprintf(stderr, "%s", log);
			if (*log && log[strlen(log) - 1] != '\n')
				fputc('\n', stderr);
		}
		cli_error(spec, "%s", err.msg);
		cli_close(t);
		if (log) {
			free(log);
			return EXIT_REJECTED;
		}
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_native_verify(int argc, char **argv)
{
	struct cli_set *sets = calloc(argc, sizeof(*sets));
	struct native_prog np;
	struct native_abi abi;
	struct cli_target t;
	int nsets = 0, rc;

	if (!sets) {
		cli_error("native-verify", "out of memory");
		return EXIT_USAGE;
	}
	rc = native_parse(argc, argv, sets, &nsets, native_verify_usage);
	if (rc) {
		cli_free_sets(sets, nsets);
		free(sets);
		return rc > 0 ? 0 : EXIT_USAGE;
	}
	if (optind + 1 != argc) {
		cli_error("native-verify", "expected exactly one OBJ[:PROG] (see --help)");
		cli_free_sets(sets, nsets);
		free(sets);
		return EXIT_USAGE;
	}
	rc = native_prepare("native-verify", argv[optind], sets, nsets, &abi, &t, &np);
	cli_free_sets(sets, nsets);
	free(sets);
	if (rc)
		return rc;
	printf("accepted\n");
	native_prog_close(&np);
	cli_close(&t);
	return 0;
}

/* ---------------------------------------------------------------- run */

/* What the child reports through a MAP_SHARED page: plain stores, so that
 * a failure after attaching needs no syscall the filter could deny. */
enum native_stage {
	NATIVE_STAGE_SETUP,
	NATIVE_STAGE_SETUP_FAILED,
	NATIVE_STAGE_EXEC,
	NATIVE_STAGE_EXEC_FAILED,
};

struct native_report {
	int stage;
	int exec_errno;
	struct secbpf_err err;
};

static __attribute__((noreturn)) void native_child_exit(int status)
{
	syscall(SYS_exit_group, status);
	__builtin_trap();
}

/* The child: CMD's signal mask, no_new_privs + attach, execve. After the
 * attach the only syscalls are execve and, if it fails, exit_group. */
static __attribute__((noreturn)) void native_child(const struct native_abi *abi, int prog_fd,
						   const char *path, char **cmd_argv,
						   const sigset_t *mask, struct native_report *r)
{
	if (sigprocmask(SIG_SETMASK, mask, NULL)) {
		err_set(&r->err, errno, "cannot restore the signal mask: %s", strerror(errno));
		__atomic_store_n(&r->stage, NATIVE_STAGE_SETUP_FAILED, __ATOMIC_RELEASE);
		native_child_exit(EXIT_RUN_FAILED);
	}
	if (native_attach(abi, prog_fd, 0, &r->err)) {
		__atomic_store_n(&r->stage, NATIVE_STAGE_SETUP_FAILED, __ATOMIC_RELEASE);
		native_child_exit(EXIT_RUN_FAILED);
	}
	__atomic_store_n(&r->stage, NATIVE_STAGE_EXEC, __ATOMIC_RELEASE);
	execve(path, cmd_argv, environ);
	r->exec_errno = errno;
	__atomic_store_n(&r->stage, NATIVE_STAGE_EXEC_FAILED, __ATOMIC_RELEASE);
	native_child_exit(EXIT_CANNOT_EXEC);
}

/*
 * Wait for pid, forwarding SIGINT, SIGTERM, SIGHUP and SIGQUIT that a
 * process sent us (blocked by the caller with SIGCHLD, taken with
 * sigwaitinfo); terminal signals reached the child's group already.
 */
static int native_wait(pid_t pid, const sigset_t *set, int *status)
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
		if (sig != SIGCHLD && info.si_code != SI_KERNEL)
			kill(pid, sig);
	}
}

/* Fork, attach in the child, exec CMD; map what happened to an exit status. */
static int native_exec(const struct native_abi *abi, int prog_fd, const char *path, char **cmd_argv)
{
	static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD };
	struct native_report *r;
	sigset_t set, old;
	int status = 0, rc;
	size_t i;
	pid_t pid;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED) {
		cli_error("native-run", "cannot map the report page: %s", strerror(errno));
		return EXIT_RUN_FAILED;
	}
	memset(r, 0, sizeof(*r));
	sigemptyset(&set);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	if (sigprocmask(SIG_BLOCK, &set, &old)) {
		cli_error("native-run", "cannot block signals: %s", strerror(errno));
		munmap(r, sizeof(*r));
		return EXIT_RUN_FAILED;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		cli_error("native-run", "cannot fork: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		munmap(r, sizeof(*r));
		return EXIT_RUN_FAILED;
	}
	if (pid == 0)
		native_child(abi, prog_fd, path, cmd_argv, &old, r);
	rc = native_wait(pid, &set, &status);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		cli_error("native-run", "waiting for %s: %s", cmd_argv[0], strerror(-rc));
		munmap(r, sizeof(*r));
		return EXIT_RUN_FAILED;
	}
	switch (__atomic_load_n(&r->stage, __ATOMIC_ACQUIRE)) {
	case NATIVE_STAGE_SETUP_FAILED:
		cli_error("native-run", "cannot attach the filter: %s", r->err.msg);
		status = EXIT_RUN_FAILED;
		break;
	case NATIVE_STAGE_EXEC_FAILED:
		cli_error(cmd_argv[0],
			  "cannot execute it: %s (no permission, or the filter "
			  "denies execve)",
			  strerror(r->exec_errno));
		status = EXIT_CANNOT_EXEC;
		break;
	case NATIVE_STAGE_SETUP:
		cli_error("native-run", "the process died while attaching the filter (%s %d)",
			  WIFSIGNALED(status) ? "signal" : "status",
			  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		status = EXIT_RUN_FAILED;
		break;
	default:
		if (WIFSIGNALED(status)) {
			if (WTERMSIG(status) == SIGSYS)
				cli_error(cmd_argv[0], "killed by SIGSYS: the filter returned KILL "
						       "(or TRAP, unhandled)");
			status = 128 + WTERMSIG(status);
		} else {
			status = WEXITSTATUS(status);
		}
	}
	munmap(r, sizeof(*r));
	return status;
}

int cmd_native_run(int argc, char **argv)
{
	struct cli_set *sets = calloc(argc, sizeof(*sets));
	struct native_prog np;
	struct native_abi abi;
	struct cli_target t;
	const char *spec;
	int nsets = 0, rc, status;
	char *path;

	if (!sets) {
		cli_error("native-run", "out of memory");
		return EXIT_RUN_FAILED;
	}
	rc = native_parse(argc, argv, sets, &nsets, native_run_usage);
	if (rc) {
		cli_free_sets(sets, nsets);
		free(sets);
		return rc > 0 ? 0 : EXIT_RUN_FAILED;
	}
	if (optind >= argc) {
		cli_error("native-run", "expected OBJ[:PROG] -- CMD [ARG]... (see --help)");
		goto fail;
	}
	spec = argv[optind++];
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc) {
		cli_error("native-run", "no command given (OBJ[:PROG] -- CMD [ARG]...)");
		goto fail;
	}
	rc = native_prepare("native-run", spec, sets, nsets, &abi, &t, &np);
	cli_free_sets(sets, nsets);
	free(sets);
	if (rc)
		return EXIT_RUN_FAILED;
	cli_close(&t);
	path = cli_resolve_command("native-run", argv[optind], &status);
	if (!path) {
		native_prog_close(&np);
		return status;
	}
	status = native_exec(&abi, np.prog_fd, path, argv + optind);
	free(path);
	native_prog_close(&np);
	return status;
fail:
	cli_free_sets(sets, nsets);
	free(sets);
	return EXIT_RUN_FAILED;
}
