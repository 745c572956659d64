// SPDX-License-Identifier: MIT
/*
 * `secbpf native-run OBJ[:PROG] -- CMD` and `secbpf native-verify OBJ[:PROG]`:
 * the program loaded and enforced by a kernel carrying the seccomp-eBPF
 * patch set (lib/install/native.c), the fidelity oracle for `run` and `test`.
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

/* Internal header: install/native.h, loading into and attaching with a
 * kernel carrying the port, and reading its maps (--stats); the public
 * API's SECBPF_ATTACH_NATIVE attaches to the caller only, and keeps the
 * prog and map fds to itself. */
#include "cli.h"
#include "install/native.h"
/* supervisor/supervisor.h: only supervisor_make_undumpable, the one way
 * every process secbpf leaves running keeps the filtered tree out. */
#include "supervisor/supervisor.h"

extern char **environ;

/* Exit statuses, as for `run` (docs/design.md §5). */

static void native_run_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf native-run [--set VAR=VALUE]... [--stats[=FILE]] OBJ[:PROG] [--]\n"
		"                         CMD [ARG]...\n"
		"\n"
		"Run CMD under the program, loaded into and enforced by the kernel itself\n"
		"(BPF_PROG_TYPE_SECCOMP, a kernel with the seccomp-eBPF patch set, see\n"
		"kernel/README.md). no_new_privs is set for CMD. OBJ may be a .c file.\n"
		"The same as 'secbpf run --native -f OBJ[:PROG]'.\n"
		"\n"
		"  --set VAR=VALUE  write a const volatile global before loading\n"
		"  --stats[=FILE]   when CMD has exited, print the program's global variables\n"
		"                   and map entries as the kernel holds them (to stderr, or\n"
		"                   FILE), in the format of 'secbpf run --stats'\n"
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
 * The options of both commands: --set, --help and, for native-run only
 * (stats not NULL), --stats; options end at OBJ. Returns 0 when parsed,
 * 1 after --help, -1 on a usage error (printed).
 */
static int native_parse(int argc, char **argv, struct cli_sets *sets, void (*usage)(FILE *),
			bool *stats, const char **stats_path, struct cli_options *o)
{
	static const struct option longopts[] = {
		{ "stats", optional_argument, NULL, 'S' },
		{ 0 },
	};
	int c;

	/* '+': CMD's own options are its business. */
	cli_options_init(o, argc, argv, "+", longopts, usage, sets);
	while ((c = cli_options_next(o)) > 0) {
		if (!stats) {
			cli_error(argv[0], "--stats is an option of native-run only");
			fprintf(stderr, "try 'secbpf %s --help'\n", argv[0]);
			return -1;
		}
		*stats = true;
		*stats_path = optarg;
	}
	return c == CLI_OPTIONS_END ? 0 : c == CLI_OPTIONS_HELP ? 1 : -1;
}

/* Close what native_prepare opened (n targets). */
static void native_release(struct cli_target *t, struct native_prog *np, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		native_prog_close(&np[i]);
		cli_close(&t[i]);
	}
}

/*
 * Detect the port, load every spec, apply the sets (each VAR must exist in
 * one of them), load each program into the kernel. Returns 0 (t[] and np[]
 * hold n loaded targets), or the exit status for "rejected" (1) / "other
 * failure" (2) after printing why, with everything closed; the kernel
 * verifier's log is printed to stderr on rejection.
 */
static int native_prepare(const char *cmd, const char **specs, int n, const struct cli_sets *sets,
			  struct native_abi *abi, struct cli_target *t, struct native_prog *np)
{
	struct secbpf_err err = { { 0 } };
	int i, loaded = 0, rc = EXIT_USAGE;
	char *log = NULL;

	memset(t, 0, n * sizeof(*t));
	memset(np, 0, n * sizeof(*np));
	for (i = 0; i < n; i++)
		np[i].prog_fd = -1;
	/* Support first: on a stock kernel say so before anything else. */
	if (native_detect(abi, &err)) {
		cli_error(cmd, "%s", err.msg);
		return EXIT_USAGE;
	}
	for (i = 0; i < n; i++) {
		if (cli_load(specs[i], &t[i]))
			goto fail;
		loaded = i + 1;
	}
	if (cli_apply_sets(t, n, sets))
		goto fail;
	for (i = 0; i < n; i++) {
		if (!native_load(abi, t[i].obj, t[i].prog, &np[i], &log, &err))
			continue;
		if (log) {
			fprintf(stderr, "%s", log);
			if (*log && log[strlen(log) - 1] != '\n')
				fputc('\n', stderr);
			free(log);
			rc = EXIT_REJECTED;
		}
		cli_error(specs[i], "%s", err.msg);
		goto fail;
	}
	return 0;
fail:
	native_release(t, np, loaded);
	return rc;
}

int cmd_native_verify(int argc, char **argv)
{
	struct cli_sets sets = { 0 };
	struct native_prog np;
	struct native_abi abi;
	struct cli_options o;
	struct cli_target t;
	const char *spec;
	int rc;

	rc = native_parse(argc, argv, &sets, native_verify_usage, NULL, NULL, &o);
	if (rc) {
		cli_sets_free(&sets);
		return rc > 0 ? 0 : EXIT_USAGE;
	}
	spec = cli_one_target(&o, "native-verify");
	if (!spec) {
		cli_sets_free(&sets);
		return EXIT_USAGE;
	}
	rc = native_prepare("native-verify", &spec, 1, &sets, &abi, &t, &np);
	cli_sets_free(&sets);
	if (rc)
		return rc;
	printf("accepted\n");
	native_release(&t, &np, 1);
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

/* The child: CMD's signal mask, no_new_privs + attach of every program in
 * order, execve. After the last attach the only syscalls are execve and,
 * if it fails, exit_group. Kept apart from run_child (run_child.c) on
 * purpose: that one installs a cBPF stack (attach.h), maybe with a
 * listener, in one call; only their exit is shared. */
static __attribute__((noreturn)) void native_child(const struct native_abi *abi,
						   const struct native_prog *np, int n,
						   const char *path, char **cmd_argv,
						   const sigset_t *mask, struct native_report *r)
{
	int i;

	if (sigprocmask(SIG_SETMASK, mask, NULL)) {
		err_set(&r->err, errno, "cannot restore the signal mask: %s", strerror(errno));
		__atomic_store_n(&r->stage, NATIVE_STAGE_SETUP_FAILED, __ATOMIC_RELEASE);
		cli_child_exit(EXIT_RUN_FAILED);
	}
	for (i = 0; i < n; i++) {
		if (native_attach(abi, np[i].prog_fd, 0, &r->err)) {
			__atomic_store_n(&r->stage, NATIVE_STAGE_SETUP_FAILED, __ATOMIC_RELEASE);
			cli_child_exit(EXIT_RUN_FAILED);
		}
	}
	__atomic_store_n(&r->stage, NATIVE_STAGE_EXEC, __ATOMIC_RELEASE);
	execve(path, cmd_argv, environ);
	r->exec_errno = errno;
	__atomic_store_n(&r->stage, NATIVE_STAGE_EXEC_FAILED, __ATOMIC_RELEASE);
	cli_child_exit(EXIT_CANNOT_EXEC);
}

/* Fork (this process non-dumpable first), attach in the child, exec CMD;
 * map what happened to an exit status. */
static int native_exec(const struct native_abi *abi, const struct native_prog *np, int n,
		       const char *path, char **cmd_argv)
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
	/* Not dumpable before CMD exists (the child is until its execve):
	 * CMD must not ptrace this unfiltered process, read or write its
	 * memory or take its fds (docs/threat-model.md). */
	rc = supervisor_make_undumpable();
	if (rc) {
		cli_error("native-run", "cannot make this process non-dumpable: %s", strerror(-rc));
		munmap(r, sizeof(*r));
		return EXIT_RUN_FAILED;
	}
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
		native_child(abi, np, n, path, cmd_argv, &old, r);
	rc = cli_wait_forwarding(pid, &set, &status, NULL);
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

/* ------------------------------------------------------------ --stats */

/*
 * The kernel's copy of each program's state, after CMD has exited, in the
 * lines `run --stats` prints: "SPEC VAR = VALUE" for the writable globals
 * (.data, .bss: element 0 of their array map) and "SPEC MAP KEY = VALUE"
 * per entry of the maps the kernel can iterate. Task storage cannot be
 * iterated from user space (its key is a pidfd of a live process).
 */
static void native_stats_map(FILE *f, const char *spec, const struct object *obj,
			     const struct object_map *om, int fd)
{
	bool syscall_keys = cli_stats_syscall_keys(obj, om);
	char note[64] = "";
	size_t vstride = (om->value_size + 7) / 8 * 8;
	bool percpu = om->type == BPF_MAP_TYPE_PERCPU_HASH ||
		      om->type == BPF_MAP_TYPE_PERCPU_ARRAY ||
		      om->type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	unsigned int ncpus = percpu ? native_possible_cpus() : 1;
	uint8_t *key, *next, *val;
	void *prev = NULL;

	key = calloc(1, om->key_size ? om->key_size : 1);
	next = calloc(1, om->key_size ? om->key_size : 1);
	val = calloc(ncpus, vstride ? vstride : 8);
	if (!key || !next || !val)
		goto out;
	while (native_map_next_key(fd, prev, next) == 0) {
		memcpy(key, next, om->key_size);
		prev = key;
		if (native_map_lookup(fd, key, val))
			continue;
		if (syscall_keys)
			cli_stats_syscall_name(key, note, sizeof(note));
		cli_stats_entry(f, spec, om->name, key, om->key_size, val, om->value_size, vstride,
				ncpus, note);
	}
out:
	free(key);
	free(next);
	free(val);
}

static void native_stats(const char **specs, const struct cli_target *t,
			 const struct native_prog *np, int n, const char *path)
{
	FILE *f = cli_stats_open(path);
	uint32_t j, key = 0;
	uint8_t *value;
	int i;

	if (!f)
		return;
	for (i = 0; i < n; i++) {
		const struct object *obj = t[i].obj;

		for (j = 0; j < obj->var_cnt; j++) {
			const struct object_var *v = &obj->vars[j];
			const struct object_map *om = &obj->maps[v->map];

			if (v->is_const_volatile || om->kind == OBJECT_MAP_RODATA ||
			    v->offset + v->size > om->value_size)
				continue;
			value = malloc(om->value_size ? om->value_size : 1);
			if (value && !native_map_lookup(np[i].map_fds[v->map], &key, value)) {
				cli_stats_var(f, specs[i], v->name, value + v->offset, v->size);
			}
			free(value);
		}
		for (j = 0; j < obj->map_cnt; j++)
			if (obj->maps[j].kind == OBJECT_MAP_BTF &&
			    cli_stats_iterable(obj->maps[j].type, false))
				native_stats_map(f, specs[i], obj, &obj->maps[j], np[i].map_fds[j]);
	}
	cli_stats_close(f, path);
}

int cli_native_run(const char *what, const char **specs, int n, const struct cli_sets *sets,
		   bool stats, const char *stats_path, char **cmd_argv)
{
	struct native_prog *np = calloc(n, sizeof(*np));
	struct cli_target *t = calloc(n, sizeof(*t));
	struct native_abi abi;
	int status;
	char *path;

	if (!np || !t) {
		cli_error(what, "out of memory");
		free(np);
		free(t);
		return EXIT_RUN_FAILED;
	}
	if (native_prepare(what, specs, n, sets, &abi, t, np)) {
		free(np);
		free(t);
		return EXIT_RUN_FAILED;
	}
	if (stats && cli_stats_check(stats_path)) {
		native_release(t, np, n);
		free(np);
		free(t);
		return EXIT_RUN_FAILED;
	}
	path = cli_resolve_command(what, cmd_argv[0], &status);
	if (path) {
		status = native_exec(&abi, np, n, path, cmd_argv);
		free(path);
		/* CMD and its descendants are gone (or hold their own
		 * references): the maps no longer change under us. */
		if (stats)
			native_stats(specs, t, np, n, stats_path);
	}
	native_release(t, np, n);
	free(np);
	free(t);
	return status;
}

int cmd_native_run(int argc, char **argv)
{
	const char *spec, *stats_path = NULL;
	struct cli_sets sets = { 0 };
	struct cli_options o;
	bool stats = false;
	int rc, status;

	rc = native_parse(argc, argv, &sets, native_run_usage, &stats, &stats_path, &o);
	if (rc) {
		status = rc > 0 ? 0 : EXIT_RUN_FAILED;
		goto out;
	}
	status = EXIT_RUN_FAILED;
	if (optind >= argc) {
		cli_error("native-run", "expected OBJ[:PROG] -- CMD [ARG]... (see --help)");
		goto out;
	}
	spec = argv[optind++];
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc) {
		cli_error("native-run", "no command given (OBJ[:PROG] -- CMD [ARG]...)");
		goto out;
	}
	status = cli_native_run("native-run", &spec, 1, &sets, stats, stats_path, argv + optind);
out:
	cli_sets_free(&sets);
	return status;
}
