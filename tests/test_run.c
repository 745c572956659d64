// SPDX-License-Identifier: MIT
/*
 * End-to-end tests of `secbpf run` (tools/cmd_run.c): real commands under
 * real filters, checking what the filtered programs see and the exit
 * statuses of DESIGN §5. The probe is tests/progs/close_probe.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char out[65536];
static char dir[4096];	 /* this test's scratch directory */
static char probe[4200]; /* the close_probe program */
static char seed[4200];	 /* the seed sample object */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* The seed sample built by meson: samples/ in the build directory, or
 * the build directory itself (where a top-level custom_target puts it). */
static void seed_path(char *buf, size_t size)
{
	const char *build = getenv("SECBPF_BUILD_DIR");

	snprintf(buf, size, "%s/samples/seed_close.bpf.o", build);
	if (access(buf, R_OK) == 0)
		return;
	snprintf(buf, size, "%s/seed_close.bpf.o", build);
}

/* Use the probe meson built ($SECBPF_CLOSE_PROBE), else build it here. */
static void setup(void)
{
	const char *built = getenv("SECBPF_CLOSE_PROBE");
	const char *cc = getenv("CC");
	char cmd[16384];

	snprintf(dir, sizeof(dir), "%s/secbpf-test-run-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(dir));
	seed_path(seed, sizeof(seed));
	if (built && *built && access(built, X_OK) == 0) {
		snprintf(probe, sizeof(probe), "%s", built);
		return;
	}
	snprintf(probe, sizeof(probe), "%s/close_probe", dir);
	snprintf(cmd, sizeof(cmd), "'%s' -O1 -o '%s' '%s/tests/progs/close_probe.c'",
		 cc && *cc ? cc : "cc", probe, getenv("SECBPF_SOURCE_DIR"));
	cr_assert_eq(system(cmd), 0, "cannot build the probe: %s", cmd);
}

static void teardown(void)
{
	if (dir[0])
		nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(run, .init = setup, .fini = teardown);

/* Run `$SECBPF run <args>` in the scratch directory, stderr merged into
 * stdout; returns the exit status (-1 if the shell was killed). */
static int secbpf_run(const char *fmt, ...)
{
	char args[8192], cmd[16384];
	va_list ap;
	size_t n;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' run %s 2>&1", dir, getenv("SECBPF"), args);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Write a filter source into the scratch directory; returns its path. */
static const char *filter(const char *name, const char *body)
{
	static char path[4][4200];
	static int i;
	FILE *f;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s.c", dir, name);
	f = fopen(path[i], "w");
	cr_assert_not_null(f);
	fprintf(f,
		"#include <secbpf/filter.h>\n"
		"%s\n"
		"char _license[] SEC(\"license\") = \"GPL\";\n",
		body);
	fclose(f);
	return path[i];
}

/* A filter named fn: close(fd) gets action, the rest is allowed. */
static const char *close_filter(const char *fn, int fd, const char *action)
{
	char body[2048];

	snprintf(body, sizeof(body),
		 "SEC(\"seccomp\")\n"
		 "int %s(struct seccomp_data *ctx)\n"
		 "{\n"
		 "	if (ctx->arch != SECBPF_AUDIT_ARCH_NATIVE)\n"
		 "		return SECCOMP_RET_KILL_PROCESS;\n"
		 "	if (ctx->nr == __NR_close && ctx->args[0] == %d)\n"
		 "		return %s;\n"
		 "	return SECCOMP_RET_ALLOW;\n"
		 "}\n",
		 fn, fd, action);
	return filter(fn, body);
}

#define UNFILTERED "main close(999)=9 close(111)=9\n"
#define SEED_MAIN "main close(999)=1 close(111)=9\n"

Test(run, the_probe_is_unfiltered_without_secbpf)
{
	char cmd[8400];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "'%s'", probe);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	cr_assert_eq(pclose(p), 0);
	cr_assert_str_eq(out, UNFILTERED);
}

Test(run, seed_sample_denies_close_999_only)
{
	cr_assert_eq(secbpf_run("-f '%s' -- '%s'", seed, probe), 0, "%s", out);
	cr_assert_str_eq(out, SEED_MAIN);
}

Test(run, options_end_at_the_command)
{
	/* No "--": the command's own options are not secbpf's. */
	cr_assert_eq(secbpf_run("-f '%s' sh -c 'exit 3' -f x", seed), 3, "%s", out);
	cr_assert_eq(secbpf_run("-f '%s' '%s' self -h", seed, probe), 0, "%s", out);
	cr_assert_str_eq(out, "-h close(999)=1 close(111)=9\n");
}

Test(run, forked_and_execed_descendants_are_filtered)
{
	cr_assert_eq(secbpf_run("-f '%s' -- '%s' fork", seed, probe), 0, "%s", out);
	cr_assert_str_eq(out, "child close(999)=1 close(111)=9\n" SEED_MAIN);
	cr_assert_eq(secbpf_run("-f '%s' -- '%s' exec", seed, probe), 0, "%s", out);
	cr_assert_str_eq(out, "exec close(999)=1 close(111)=9\n");
	cr_assert_eq(secbpf_run("-f '%s' -- '%s' fork-exec", seed, probe), 0, "%s", out);
	cr_assert_str_eq(out, "fork-exec close(999)=1 close(111)=9\n" SEED_MAIN);
	/* Through a shell, which forks and execs the probe. */
	cr_assert_eq(secbpf_run("-f '%s' -- sh -c \"'%s'; true\"", seed, probe), 0, "%s", out);
	cr_assert_str_eq(out, SEED_MAIN);
}

Test(run, no_new_privs_is_set_and_one_filter_per_f)
{
	const char *grep = "grep -E '^(NoNewPrivs|Seccomp|Seccomp_filters):' /proc/self/status";

	cr_assert_eq(secbpf_run("-f '%s' -- %s", seed, grep), 0, "%s", out);
	cr_assert_str_eq(out, "NoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n");
	cr_assert_eq(secbpf_run("-f '%s' -f '%s' -- %s", seed, seed, grep), 0, "%s", out);
	cr_assert_str_eq(out, "NoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t2\n");
}

Test(run, kill_process_gives_159)
{
	const char *kill = close_filter("kill_close_999", 999, "SECCOMP_RET_KILL_PROCESS");

	cr_assert_eq(secbpf_run("-f '%s' -- '%s'", kill, probe), 159, "%s", out);
	cr_assert(strstr(out, "SIGSYS"), "%s", out);
	/* A killed child: the probe reports it, and is killed itself next. */
	cr_assert_eq(secbpf_run("-f '%s' -- '%s' fork", kill, probe), 159, "%s", out);
}

Test(run, the_last_filter_given_wins_ties)
{
	const char *eacces =
		close_filter("deny_close_111_eacces", 111, "SECCOMP_RET_ERRNO | EACCES");
	const char *enoent =
		close_filter("deny_close_111_enoent", 111, "SECCOMP_RET_ERRNO | ENOENT");

	cr_assert_eq(secbpf_run("-f '%s' -f '%s' -- '%s'", eacces, enoent, probe), 0, "%s", out);
	cr_assert_str_eq(out, "main close(999)=9 close(111)=2\n");
	cr_assert_eq(secbpf_run("-f '%s' -f '%s' -- '%s'", enoent, eacces, probe), 0, "%s", out);
	cr_assert_str_eq(out, "main close(999)=9 close(111)=13\n");
	/* Filters that do not tie combine. */
	cr_assert_eq(secbpf_run("-f '%s' -f '%s' -- '%s'", seed, enoent, probe), 0, "%s", out);
	cr_assert_str_eq(out, "main close(999)=1 close(111)=2\n");
}

Test(run, kill_outranks_errno_in_either_order)
{
	const char *kill = close_filter("kill_close_999", 999, "SECCOMP_RET_KILL_PROCESS");

	cr_assert_eq(secbpf_run("-f '%s' -f '%s' -- '%s'", kill, seed, probe), 159, "%s", out);
	cr_assert_eq(secbpf_run("-f '%s' -f '%s' -- '%s'", seed, kill, probe), 159, "%s", out);
}

Test(run, set_writes_a_const_volatile_global)
{
	const char *f = filter(
		"deny_close_var",
		"const volatile int blocked_fd = 0;\n"
		"SEC(\"seccomp\")\n"
		"int deny_close_var(struct seccomp_data *ctx)\n"
		"{\n"
		"	if (ctx->arch != SECBPF_AUDIT_ARCH_NATIVE)\n"
		"		return SECCOMP_RET_KILL_PROCESS;\n"
		"	if (ctx->nr == __NR_close && ctx->args[0] == (__u64)(__s64)blocked_fd)\n"
		"		return SECCOMP_RET_ERRNO | EPERM;\n"
		"	return SECCOMP_RET_ALLOW;\n"
		"}\n");

	cr_assert_eq(secbpf_run("-f '%s' --set blocked_fd=111 -- '%s'", f, probe), 0, "%s", out);
	cr_assert_str_eq(out, "main close(999)=9 close(111)=1\n");
	/* Every target at once: the seed has no blocked_fd, one object does. */
	cr_assert_eq(secbpf_run("-f '%s' -f '%s' --set blocked_fd=111 -- '%s'", seed, f, probe), 0,
		     "%s", out);
	cr_assert_str_eq(out, "main close(999)=1 close(111)=1\n");
	cr_assert_eq(secbpf_run("-f '%s' --set no_such_var=1 -- '%s'", f, probe), 125, "%s", out);
	cr_assert(strstr(out, "no_such_var"), "%s", out);
}

Test(run, a_stateful_filter_runs_under_the_supervisor)
{
	const char *f = filter("count_closes", "struct {\n"
					       "	__uint(type, BPF_MAP_TYPE_ARRAY);\n"
					       "	__uint(max_entries, 1);\n"
					       "	__type(key, __u32);\n"
					       "	__type(value, __u64);\n"
					       "} counts SEC(\".maps\");\n"
					       "SEC(\"seccomp\")\n"
					       "int count_closes(struct seccomp_data *ctx)\n"
					       "{\n"
					       "	__u32 k = 0;\n"
					       "	__u64 *v;\n"
					       "	if (ctx->nr != __NR_close)\n"
					       "		return SECCOMP_RET_ALLOW;\n"
					       "	v = bpf_map_lookup_elem(&counts, &k);\n"
					       "	if (v)\n"
					       "		__sync_fetch_and_add(v, 1);\n"
					       "	return SECCOMP_RET_ALLOW;\n"
					       "}\n");
	char marker[4200];

	snprintf(marker, sizeof(marker), "%s/ran", dir);
	cr_assert_eq(secbpf_run("-f '%s' -- touch '%s'", f, marker), 0, "%s", out);
	cr_assert_eq(access(marker, F_OK), 0, "the command did not run: %s", out);
	unlink(marker);
	/* Also when stacked with a stateless one. */
	cr_assert_eq(secbpf_run("-f '%s' -f '%s' -- touch '%s'", seed, f, marker), 0, "%s", out);
	cr_assert_eq(access(marker, F_OK), 0, "the command did not run: %s", out);
}

Test(run, exit_status_is_the_commands)
{
	cr_assert_eq(secbpf_run("-f '%s' -- sh -c 'exit 42'", seed), 42, "%s", out);
	cr_assert_eq(secbpf_run("-f '%s' -- true", seed), 0, "%s", out);
	cr_assert_eq(secbpf_run("-f '%s' -- false", seed), 1, "%s", out);
	/* Killed by signal N: 128+N. */
	cr_assert_eq(secbpf_run("-f '%s' -- sh -c 'kill -USR1 $$'", seed), 128 + SIGUSR1, "%s",
		     out);
}

Test(run, secbpf_failures_give_125)
{
	cr_assert_eq(secbpf_run("-- true"), 125, "%s", out);
	cr_assert(strstr(out, "-f"), "%s", out);
	cr_assert_eq(secbpf_run("-f '%s'", seed), 125, "%s", out);
	cr_assert_eq(secbpf_run("-f '%s/missing.o' -- true", dir), 125, "%s", out);
	cr_assert_eq(secbpf_run("--bogus -f '%s' -- true", seed), 125, "%s", out);
	cr_assert_eq(secbpf_run("-f '%s' --set novalue -- true", seed), 125, "%s", out);
	cr_assert_eq(secbpf_run("--help"), 0, "%s", out);
	cr_assert(strstr(out, "usage: secbpf run"), "%s", out);
}

/* --native needs the seccomp-eBPF port (kernel/); this host kernel is a
 * stock one, so it must refuse with 125 and say why, and never run CMD. */
Test(run, native_on_a_stock_kernel_gives_125_and_says_why)
{
	if (access("/proc/sys/kernel/seccomp/extended", F_OK) == 0)
		cr_skip_test("this kernel has the eBPF seccomp port");
	cr_assert_eq(secbpf_run("--native -f '%s' -- '%s'", seed, probe), 125, "%s", out);
	cr_assert(strstr(out, "secbpf: run: this kernel lacks eBPF seccomp support"), "%s", out);
	cr_assert(strstr(out, "kernel.seccomp.extended"), "%s", out);
	cr_assert(strstr(out, "BPF_PROG_TYPE_SECCOMP"), "%s", out);
	cr_assert_null(strstr(out, "close("), "the probe ran: %s", out);
	/* the same with several filters, --stats and --set */
	cr_assert_eq(secbpf_run("--native --stats -f '%s' -f '%s' -- true", seed, seed), 125, "%s",
		     out);
	cr_assert(strstr(out, "lacks eBPF seccomp support"), "%s", out);
	/* usage errors come first, as without --native */
	cr_assert_eq(secbpf_run("--native -- true"), 125, "%s", out);
	cr_assert(strstr(out, "no filter given"), "%s", out);
}

Test(run, not_found_gives_127)
{
	cr_assert_eq(secbpf_run("-f '%s' -- no-such-command-secbpf", seed), 127, "%s", out);
	cr_assert(strstr(out, "secbpf: no-such-command-secbpf: "), "%s", out);
	cr_assert_eq(secbpf_run("-f '%s' -- ./no-such-file", seed), 127, "%s", out);
	cr_assert_eq(secbpf_run("-f '%s' -- /nonexistent/dir/cmd", seed), 127, "%s", out);
	cr_assert_eq(secbpf_run("-f '%s' -- ''", seed), 127, "%s", out);
}

Test(run, not_executable_gives_126)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/not-executable", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	cr_assert_eq(secbpf_run("-f '%s' -- '%s'", seed, path), 126, "%s", out);
	cr_assert_eq(secbpf_run("-f '%s' -- ./not-executable", seed), 126, "%s", out);
	/* A directory. */
	cr_assert_eq(secbpf_run("-f '%s' -- '%s'", seed, dir), 126, "%s", out);
}

Test(run, not_executable_in_path_gives_126)
{
	char path[4200], cmd[16384];
	FILE *p;
	int fd, st;

	snprintf(path, sizeof(path), "%s/not-executable", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "PATH='%s' '%s' run -f '%s' -- not-executable 2>&1", dir,
		 getenv("SECBPF"), seed);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	out[fread(out, 1, sizeof(out) - 1, p)] = '\0';
	st = pclose(p);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 126, "status 0x%x: %s", st, out);
}

Test(run, a_filter_denying_execve_gives_126)
{
	const char *f =
		filter("deny_execve", "SEC(\"seccomp\")\n"
				      "int deny_execve(struct seccomp_data *ctx)\n"
				      "{\n"
				      "	if (ctx->arch != SECBPF_AUDIT_ARCH_NATIVE)\n"
				      "		return SECCOMP_RET_KILL_PROCESS;\n"
				      "	if (ctx->nr == __NR_execve || ctx->nr == __NR_execveat)\n"
				      "		return SECCOMP_RET_ERRNO | EPERM;\n"
				      "	return SECCOMP_RET_ALLOW;\n"
				      "}\n");

	cr_assert_eq(secbpf_run("-f '%s' -- '%s'", f, probe), 126, "%s", out);
	cr_assert(strstr(out, "cannot execute"), "%s", out);
	cr_assert(strstr(out, "Operation not permitted"), "%s", out);
	cr_assert_null(strstr(out, "close("), "the probe ran: %s", out);
}

Test(run, termination_signals_are_forwarded)
{
	char ready[16];
	int pipefd[2], st;
	ssize_t n;
	pid_t pid;

	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execl(getenv("SECBPF"), "secbpf", "run", "-f", seed, "--", "sh", "-c",
		      "echo ready; exec sleep 30", (char *)NULL);
		_exit(99);
	}
	close(pipefd[1]);
	n = read(pipefd[0], ready, sizeof(ready) - 1);
	cr_assert_gt(n, 0);
	ready[n] = '\0';
	cr_assert_str_eq(ready, "ready\n");
	/* sleep runs under the filter now; secbpf must pass SIGTERM on. */
	cr_assert_eq(kill(pid, SIGTERM), 0);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "secbpf itself was killed by %d", WTERMSIG(st));
	cr_assert_eq(WEXITSTATUS(st), 128 + SIGTERM);
	/* sleep is gone: the pipe's write end closed with it. */
	cr_assert_eq(read(pipefd[0], ready, sizeof(ready)), 0);
	close(pipefd[0]);
}

/* A filter allowing nothing but execve: the child makes no other syscall
 * after installing it, so CMD starts and is killed at its first syscall
 * (159); a stray syscall before execve would have shown as 125. */
Test(run, execve_is_the_only_syscall_after_the_last_install)
{
	const char *f = filter(
		"only_execve",
		"SEC(\"seccomp\")\n"
		"int only_execve(struct seccomp_data *ctx)\n"
		"{\n"
		"	if (ctx->arch == SECBPF_AUDIT_ARCH_NATIVE && ctx->nr == __NR_execve)\n"
		"		return SECCOMP_RET_ALLOW;\n"
		"	return SECCOMP_RET_KILL_PROCESS;\n"
		"}\n");

	cr_assert_eq(secbpf_run("-f '%s' -- '%s'", f, probe), 159, "%s", out);
	cr_assert_null(strstr(out, "install"), "%s", out);
	/* Stacked after another filter: between installs only seccomp(). */
	cr_assert_eq(secbpf_run("-f '%s' -f '%s' -- '%s'", seed, f, probe), 159, "%s", out);
}

/* An earlier filter that denies seccomp() stops the next install: secbpf
 * reports it (125) and CMD never runs. */
Test(run, a_filter_denying_seccomp_stops_the_next_install)
{
	const char *deny =
		filter("deny_seccomp", "SEC(\"seccomp\")\n"
				       "int deny_seccomp(struct seccomp_data *ctx)\n"
				       "{\n"
				       "	if (ctx->arch != SECBPF_AUDIT_ARCH_NATIVE)\n"
				       "		return SECCOMP_RET_KILL_PROCESS;\n"
				       "	if (ctx->nr == __NR_seccomp)\n"
				       "		return SECCOMP_RET_ERRNO | EPERM;\n"
				       "	return SECCOMP_RET_ALLOW;\n"
				       "}\n");
	const char *kill =
		filter("kill_seccomp", "SEC(\"seccomp\")\n"
				       "int kill_seccomp(struct seccomp_data *ctx)\n"
				       "{\n"
				       "	if (ctx->arch != SECBPF_AUDIT_ARCH_NATIVE)\n"
				       "		return SECCOMP_RET_KILL_PROCESS;\n"
				       "	if (ctx->nr == __NR_seccomp)\n"
				       "		return SECCOMP_RET_KILL_PROCESS;\n"
				       "	return SECCOMP_RET_ALLOW;\n"
				       "}\n");

	/* Alone, it is just a filter. */
	cr_assert_eq(secbpf_run("-f '%s' -- '%s'", deny, probe), 0, "%s", out);
	cr_assert_str_eq(out, UNFILTERED);
	cr_assert_eq(secbpf_run("-f '%s' -f '%s' -- '%s'", deny, seed, probe), 125, "%s", out);
	cr_assert(strstr(out, "filter 2 of 2"), "%s", out);
	cr_assert_null(strstr(out, "close("), "the probe ran: %s", out);
	cr_assert_eq(secbpf_run("-f '%s' -f '%s' -- '%s'", kill, seed, probe), 125, "%s", out);
	cr_assert(strstr(out, "installing the filters"), "%s", out);
	cr_assert_null(strstr(out, "close("), "the probe ran: %s", out);
}
