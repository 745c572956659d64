// SPDX-License-Identifier: MIT
/*
 * End-to-end tests of `secbpf run` (tools/cmd_run.c, tools/run_*.c): real
 * commands under real filters, checking what the filtered programs see and the exit
 * statuses of docs/design.md §5. The probe is tests/progs/close_probe.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static char out[65536];
static char dir[4096];	 /* this test's scratch directory */
static char probe[4200]; /* the close_probe program */
static char seed[4200];	 /* the seed sample object */

/* Use the probe meson built ($SECBPF_CLOSE_PROBE), else build it here. */
static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-run");
	test_sample_path(seed, sizeof(seed), "seed_close");
	test_probe(probe, sizeof(probe), "SECBPF_CLOSE_PROBE", dir, "close_probe", "");
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(run, .init = setup, .fini = teardown);

/* Run `$SECBPF run <args>` in the scratch directory, stderr merged into
 * stdout (kept in out); returns the exit status (-1 if the shell was killed). */
#define secbpf_run(fmt, ...)                                                                       \
	test_shell(out, sizeof(out), "cd '%s' && '%s' run " fmt, dir, getenv("SECBPF"),            \
		   ##__VA_ARGS__)

/* Write a filter source into the scratch directory; returns its path. */
static const char *filter(const char *name, const char *body)
{
	return test_write_filter(dir, name, body);
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

	snprintf(cmd, sizeof(cmd), "'%s'", probe);
	cr_assert_eq(test_capture(out, sizeof(out), cmd), 0);
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
	const char *f = filter("count_closes", test_count_closes_body);
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

/* ---- --events and --workers ------------------------------------------------ */

/* The notify probe (tests/progs/notify_probe.c): meson's, else built here. */
static const char *notify_probe(void)
{
	static char path[4200];

	return test_probe(path, sizeof(path), "SECBPF_NOTIFY_PROBE", dir, "notify_probe",
			  "-pthread ");
}

/* A file of the scratch directory, NUL-terminated, in a static buffer. */
static const char *slurp(const char *name)
{
	static char buf[1 << 20];
	char path[4200];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * For each getppid(0xc0) of the notify probe's "count" mode (0xc0 is its
 * COUNT_MAGIC), one 16-byte record {tid, sequence number of that thread}
 * with the flags rb_flags; a record that does not fit is counted in
 * dropped. 24 bytes with the header: a 4096-byte ring holds 170.
 */
static const char *emit_filter(void)
{
	return filter("emit", "struct rec { __u32 tid; __u32 pad; __u64 seq; };\n"
			      "struct {\n"
			      "	__uint(type, BPF_MAP_TYPE_RINGBUF);\n"
			      "	__uint(max_entries, 4096);\n"
			      "} events SEC(\".maps\");\n"
			      "struct {\n"
			      "	__uint(type, BPF_MAP_TYPE_HASH);\n"
			      "	__uint(max_entries, 1024);\n"
			      "	__type(key, __u32);\n"
			      "	__type(value, __u64);\n"
			      "} seqs SEC(\".maps\");\n"
			      "const volatile __u64 rb_flags = 0;\n"
			      "__u64 dropped = 0;\n"
			      "SEC(\"seccomp\")\n"
			      "int emit(struct seccomp_data *ctx)\n"
			      "{\n"
			      "	struct rec r = {};\n"
			      "	__u64 zero = 0, *seq;\n"
			      "	if (ctx->nr != __NR_getppid || ctx->args[0] != 0xc0)\n"
			      "		return SECCOMP_RET_ALLOW;\n"
			      "	r.tid = (__u32)bpf_get_current_pid_tgid();\n"
			      "	seq = bpf_map_lookup_elem(&seqs, &r.tid);\n"
			      "	if (!seq) {\n"
			      "		bpf_map_update_elem(&seqs, &r.tid, &zero, BPF_NOEXIST);\n"
			      "		seq = bpf_map_lookup_elem(&seqs, &r.tid);\n"
			      "		if (!seq)\n"
			      "			return SECCOMP_RET_ERRNO | ENOMEM;\n"
			      "	}\n"
			      "	r.seq = (*seq)++;\n"
			      "	if (bpf_ringbuf_output(&events, &r, sizeof(r), rb_flags))\n"
			      "		__sync_fetch_and_add(&dropped, 1);\n"
			      "	return SECCOMP_RET_ALLOW;\n"
			      "}\n");
}

/* "SPEC dropped = N" from a --stats file. */
static unsigned long stats_dropped(const char *stats)
{
	const char *p = strstr(stats, " dropped = ");

	cr_assert_not_null(p, "no dropped in: %s", stats);
	return strtoul(p + 11, NULL, 10);
}

static unsigned int hexval(char c)
{
	return c <= '9' ? (unsigned int)(c - '0') : (unsigned int)(c - 'a' + 10);
}

/*
 * Check the events of the emit filter: every line a record of the
 * map "events", each thread's sequence numbers increasing (a gap is a
 * dropped record), `threads` threads in all; returns the number of lines
 * and adds the records accounted for (last sequence + 1 per thread) to
 * *submitted.
 */
static unsigned long check_emitted(const char *text, int threads, unsigned long *submitted)
{
	uint32_t tids[64];
	uint64_t last[64];
	unsigned long lines = 0;
	const char *line = text, *hex;
	int ntids = 0, i, k;

	*submitted = 0;
	while (*line) {
		unsigned char b[16];
		uint32_t tid;
		uint64_t seq;

		cr_assert_eq(strncmp(line, "secbpf: event events 16: ", 25), 0, "bad line: %.80s",
			     line);
		hex = line + 25;
		/* A tid whose bytes read as a short string gets its TEXT. */
		cr_assert(strcspn(hex, "\n") == 32 || !strncmp(hex + 32, " \"", 2),
			  "bad line: %.80s", line);
		for (k = 0; k < 16; k++)
			b[k] = (unsigned char)(hexval(hex[2 * k]) << 4 | hexval(hex[2 * k + 1]));
		memcpy(&tid, b, 4);
		memcpy(&seq, b + 8, 8);
		for (i = 0; i < ntids && tids[i] != tid; i++)
			;
		if (i == ntids) {
			cr_assert_lt(ntids, 64);
			tids[ntids++] = tid;
		} else {
			cr_assert_gt(seq, last[i], "thread %u: %llu after %llu", tid,
				     (unsigned long long)seq, (unsigned long long)last[i]);
		}
		last[i] = seq;
		lines++;
		line = hex + strcspn(hex, "\n") + 1;
	}
	cr_assert_eq(ntids, threads, "%d threads submitted, expected %d", ntids, threads);
	for (i = 0; i < ntids; i++)
		*submitted += last[i] + 1;
	return lines;
}

Test(run, events_of_concurrent_workers_wrap_the_ring)
{
	const char *f = emit_filter();
	unsigned long lines, submitted, dropped;
	const char *p;
	int n;

	/* 4 threads x 3000 records through a ring of 170, 4 workers. */
	cr_assert_eq(secbpf_run("--workers 4 --events=ev --stats=st -f '%s' -- '%s' count 4 3000",
				f, notify_probe()),
		     0, "%s", out);
	lines = check_emitted(slurp("ev"), 4, &submitted);
	dropped = stats_dropped(slurp("st"));
	/* Each record printed once, or counted as dropped: none lost. */
	cr_expect_eq(lines + dropped, 12000, "%lu printed, %lu dropped", lines, dropped);
	/* Each thread's last record printed, unless it was dropped. */
	cr_expect_leq(submitted, 12000, "last sequence numbers: %lu", submitted);
	cr_expect_geq(submitted, 12000 - dropped, "last sequence numbers: %lu", submitted);
	/* Each thread made its 3000 syscalls (the seqs map, per tid). */
	for (p = slurp("st"), n = 0; (p = strstr(p, " seqs ")); p++, n++)
		cr_expect(strstr(p, " = 3000\n") == strchr(p, '=') - 1, "%s", slurp("st"));
	cr_expect_eq(n, 4, "%s", slurp("st"));
	/* The ring went round many times. */
	cr_expect_gt(lines, 10 * 170, "only %lu records printed (%lu dropped)", lines, dropped);
}

Test(run, events_without_wakeups_are_drained_at_exit)
{
	const char *f = emit_filter();
	unsigned long lines, submitted;

	/* BPF_RB_NO_WAKEUP (1): seen at the reader's sweeps and at the end. */
	cr_assert_eq(secbpf_run("--events=ev --stats=st --set rb_flags=1 -f '%s' -- '%s' count 1 "
				"150",
				f, notify_probe()),
		     0, "%s", out);
	lines = check_emitted(slurp("ev"), 1, &submitted);
	cr_expect_eq(lines, 150);
	cr_expect_eq(stats_dropped(slurp("st")), 0);
	/* BPF_RB_FORCE_WAKEUP (2). */
	cr_assert_eq(secbpf_run("--events=ev --stats=st --set rb_flags=2 -f '%s' -- '%s' count 2 "
				"500",
				f, notify_probe()),
		     0, "%s", out);
	lines = check_emitted(slurp("ev"), 2, &submitted);
	cr_expect_eq(lines + stats_dropped(slurp("st")), 1000);
}

Test(run, a_ring_without_reader_drops_records_when_full)
{
	/* The kernel's semantics: 170 records fit, the rest fail. */
	cr_assert_eq(secbpf_run("--stats=st -f '%s' -- '%s' count 1 1000", emit_filter(),
				notify_probe()),
		     0, "%s", out);
	cr_expect_eq(stats_dropped(slurp("st")), 1000 - 170);
	cr_expect_null(strstr(out, "secbpf: event"), "%s", out);
}

Test(run, events_go_to_stderr_before_the_stats)
{
	char denied[4200], line[8400], *ev, *last, *p;
	unsigned long submitted;
	FILE *fp;

	mkdir("/tmp/secbpf-denied", 0755);
	snprintf(denied, sizeof(denied), "/tmp/secbpf-denied/run%d", (int)getpid());
	fp = fopen(denied, "w");
	cr_assert_not_null(fp);
	fclose(fp);
	/* deny_path submits each denied path, with its NUL: shown as text. */
	cr_assert_eq(secbpf_run("--events -f '%s/samples/deny_path.bpf.o' -- sh -c "
				"'cat %s; cat %s; true'",
				getenv("SECBPF_BUILD_DIR"), denied, denied),
		     0, "%s", out);
	snprintf(line, sizeof(line), "secbpf: event denied_paths %zu: 2f746d702f",
		 strlen(denied) + 1);
	ev = strstr(out, line);
	cr_assert_not_null(ev, "%s", out);
	cr_assert_not_null(strstr(ev + 1, line), "one event per denied open: %s", out);
	snprintf(line, sizeof(line), "00 \"%s\"\n", denied);
	cr_expect_not_null(strstr(out, line), "%s", out);
	/* To a file instead: the same lines, none on stderr. */
	cr_assert_eq(secbpf_run("--events=ev -f '%s/samples/deny_path.bpf.o' -- cat %s",
				getenv("SECBPF_BUILD_DIR"), denied),
		     1, "%s", out);
	snprintf(line, sizeof(line), "\"%s\"\n", denied);
	cr_expect(strstr(slurp("ev"), line) && !strstr(out, "secbpf: event"), "%s / %s",
		  slurp("ev"), out);
	unlink(denied);
	/* Every event is printed before the first line of --stats. */
	cr_assert_eq(
		secbpf_run("--events --stats -f '%s' -- sh -c 'exec %s count 1 100 >/dev/null'",
			   emit_filter(), notify_probe()),
		0, "%s", out);
	for (last = NULL, p = out; (p = strstr(p, "secbpf: event ")); p++)
		last = p;
	cr_assert_not_null(last, "%s", out);
	p = strstr(out, " dropped = 0\n");
	cr_assert_not_null(p, "%s", out);
	cr_expect_lt(last, p, "an event after the stats: %s", out);
	/* The events alone, for the count. */
	*strstr(out, "/") = '\0'; /* the stats lines start with the spec */
	cr_expect_eq(check_emitted(out, 1, &submitted), 100);
}

Test(run, events_errors)
{
	/* An unwritable file: 125 before CMD runs. */
	cr_assert_eq(
		secbpf_run("--events=%s/no/such/dir -f '%s' -- '%s'", dir, emit_filter(), probe),
		125, "%s", out);
	cr_assert(strstr(out, "cannot write the events"), "%s", out);
	cr_assert_null(strstr(out, "close("), "the probe ran: %s", out);
	/* Nothing to read: a warning, and the run goes on. */
	cr_assert_eq(secbpf_run("--events -f '%s' -- '%s'", seed, probe), 0, "%s", out);
	cr_assert(strstr(out, "no stateful filter has a BPF_MAP_TYPE_RINGBUF map"), "%s", out);
	cr_assert(strstr(out, SEED_MAIN), "%s", out);
}

/* A PERCPU_ARRAY counting the notify probe's getppid(0xc0): --stats
 * prints one value per slot. */
static const char *percpu_filter(void)
{
	return filter("percpu", "struct {\n"
				"	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n"
				"	__uint(max_entries, 1);\n"
				"	__type(key, __u32);\n"
				"	__type(value, __u64);\n"
				"} hits SEC(\".maps\");\n"
				"SEC(\"seccomp\")\n"
				"int percpu(struct seccomp_data *ctx)\n"
				"{\n"
				"	__u32 k = 0;\n"
				"	__u64 *v;\n"
				"	if (ctx->nr != __NR_getppid || ctx->args[0] != 0xc0)\n"
				"		return SECCOMP_RET_ALLOW;\n"
				"	v = bpf_map_lookup_elem(&hits, &k);\n"
				"	if (v)\n"
				"		__sync_fetch_and_add(v, 1);\n"
				"	return SECCOMP_RET_ALLOW;\n"
				"}\n");
}

/*
 * The supervising process's threads with --workers n, as CMD sees them.
 * CMD may start before the last worker does: wait (up to 10 s) until there
 * are at least n + 3 threads (today: main, reaper, the workers and the
 * control socket's, started last), then give the count. Only differences
 * are checked.
 */
static int supervisor_threads(int n, const char *f)
{
	cr_assert_eq(secbpf_run("--workers %d -f '%s' -- sh -c 'i=0; while [ $i -lt 200 ]; do "
				"n=$(ls /proc/$PPID/task | wc -l); [ $n -gt %d ] && break; "
				"sleep 0.05; i=$((i+1)); done; echo $n'",
				n, f, n + 2),
		     0, "%s", out);
	return atoi(out);
}

Test(run, workers_sets_the_threads_and_the_percpu_slots)
{
	const char *f = percpu_filter();
	const char *p = notify_probe();
	unsigned long a, b, c, sum;
	int n;

	cr_assert_eq(secbpf_run("--workers 1 --stats=st -f '%s' -- '%s' count 2 100", f, p), 0,
		     "%s", out);
	cr_expect_eq(sscanf(slurp("st"), "%*s hits 0 = %lu %lu", &a, &b), 1, "%s", slurp("st"));
	cr_expect_eq(a, 200, "%s", slurp("st"));
	cr_assert_eq(secbpf_run("--workers 3 --stats=st -f '%s' -- '%s' count 4 500", f, p), 0,
		     "%s", out);
	n = sscanf(slurp("st"), "%*s hits 0 = %lu %lu %lu %lu", &a, &b, &c, &sum);
	cr_expect_eq(n, 3, "three slots: %s", slurp("st"));
	cr_expect_eq(a + b + c, 2000, "%s", slurp("st"));
	/* Three more workers, three more threads. */
	a = (unsigned long)supervisor_threads(5, f);
	b = (unsigned long)supervisor_threads(2, f);
	cr_expect_eq(a - b, 3, "--workers 5: %lu threads, --workers 2: %lu", a, b);
	a = (unsigned long)supervisor_threads(64, f);
	b = (unsigned long)supervisor_threads(1, f);
	cr_expect_eq(a - b, 63, "--workers 64: %lu threads, --workers 1: %lu", a, b);
}

Test(run, workers_out_of_range_is_an_error)
{
	static const char *bad[] = { "0", "65", "-1", "x", "", "4x", "99999999999999999999" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(secbpf_run("--workers '%s' -f '%s' -- '%s'", bad[i], seed, probe), 125,
			     "--workers '%s': %s", bad[i], out);
		cr_expect(strstr(out, "--workers") && strstr(out, "from 1 to 64"),
			  "--workers '%s': %s", bad[i], out);
		cr_expect_null(strstr(out, "close("), "the probe ran: %s", out);
	}
	cr_assert_eq(secbpf_run("--help"), 0, "%s", out);
	cr_expect(strstr(out, "--workers N") && strstr(out, "--events[=FILE]"), "%s", out);
}

/*
 * A program with no maps or helpers whose line 8 nests modulos by variables
 * three deep, more than classic BPF's 16 scratch words hold: close(999)
 * gets EPERM through the supervisor (999 % 1000 = 999, 999 % 999 = 0,
 * 999 % 0 = 999).
 */
static const char *supervised_stateless_filter(void)
{
	return filter("div_var", "SEC(\"seccomp\")\n"
				 "int div_var(struct seccomp_data *ctx)\n"
				 "{\n"
				 "	__u64 d = (ctx->args[0] >> 32) | 1000;\n"
				 "	if (ctx->nr != __NR_close)\n"
				 "		return SECCOMP_RET_ALLOW;\n"
				 "	if (ctx->args[0] % (ctx->args[0] % (ctx->args[0] % d)) == 999)\n"
				 "		return SECCOMP_RET_ERRNO | 1;\n"
				 "	return SECCOMP_RET_ALLOW;\n"
				 "}\n");
}

#define DIV_PUNT "div_var.c:8 (insn "
#define DIV_WHY "): an expression nested too deep for cBPF's 16 scratch words\n"

Test(run, a_stateless_filter_that_needs_the_supervisor_warns_per_cause)
{
	const char *f = supervised_stateless_filter();
	char *w;

	cr_assert_eq(secbpf_run("-f '%s' -- '%s'", f, probe), 0, "%s", out);
	w = strstr(out, "secbpf: run: ");
	cr_assert(w && strstr(w, ": warning: supervised, not in the kernel: ") &&
			  strstr(w, DIV_PUNT) && strstr(w, DIV_WHY),
		  "%s", out);
	/* One line per cause, then the probe, decided right by the supervisor. */
	cr_assert_null(strstr(strstr(out, DIV_WHY) + 1, "warning"), "%s", out);
	cr_assert(strstr(out, "\n" SEED_MAIN), "%s", out);
	/* Fully in the kernel: no warning. */
	cr_assert_eq(secbpf_run("-f '%s' -- '%s'", seed, probe), 0, "%s", out);
	cr_assert_str_eq(out, SEED_MAIN);
}

Test(run, no_supervisor_refuses_a_filter_that_needs_one)
{
	const char *f = supervised_stateless_filter();
	const char *counter = filter("count_closes", test_count_closes_body);

	cr_assert_eq(secbpf_run("--no-supervisor -f '%s' -- '%s'", f, probe), 125, "%s", out);
	cr_assert(strstr(out, "secbpf: run: ") && strstr(out, ": not in the kernel: ") &&
			  strstr(out, DIV_PUNT) && strstr(out, DIV_WHY) &&
			  strstr(out, "--no-supervisor: the compiled filter hands") &&
			  strstr(out, "operations not lowered to classic BPF"),
		  "%s", out);
	cr_assert_null(strstr(out, "close("), "the probe ran: %s", out);
	/* Stacked after a filter the kernel decides alone: still refused. */
	cr_assert_eq(secbpf_run("--no-supervisor -f '%s' -f '%s' -- '%s'", seed, f, probe), 125,
		     "%s", out);
	cr_assert_null(strstr(out, "close("), "the probe ran: %s", out);
	/* A stateful program always needs the supervisor: refused, no warning without. */
	cr_assert_eq(secbpf_run("--no-supervisor -f '%s' -- '%s'", counter, probe), 125, "%s", out);
	cr_assert(strstr(out, "uses maps, global data or helpers"), "%s", out);
	cr_assert_eq(secbpf_run("-f '%s' -- true", counter), 0, "%s", out);
	cr_assert_null(strstr(out, "warning"), "%s", out);
	/* In the kernel alone: runs as without the option. */
	cr_assert_eq(secbpf_run("--no-supervisor -f '%s' -- '%s'", seed, probe), 0, "%s", out);
	cr_assert_str_eq(out, SEED_MAIN);
	/* Options that need the supervisor or no compilation. */
	cr_assert_eq(secbpf_run("--no-supervisor --stats -f '%s' -- true", seed), 125, "%s", out);
	cr_assert(strstr(out, "--no-supervisor: --stats needs the supervisor"), "%s", out);
	cr_assert_eq(secbpf_run("--no-supervisor --native -f '%s' -- true", seed), 125, "%s", out);
	cr_assert(strstr(out, "--no-supervisor: --native"), "%s", out);
	cr_assert_eq(secbpf_run("--help"), 0, "%s", out);
	cr_assert(strstr(out, "--no-supervisor"), "%s", out);
}

Test(run, compile_no_supervisor_names_the_line_and_the_operation)
{
	const char *f = supervised_stateless_filter();

	cr_assert_eq(test_shell(out, sizeof(out),
				"cd '%s' && '%s' compile --no-supervisor '%s' -o f.bin", dir,
				getenv("SECBPF"), f),
		     1, "%s", out);
	cr_assert(strstr(out, "secbpf: compile: ") && strstr(out, ": not in the kernel: ") &&
			  strstr(out, DIV_PUNT) && strstr(out, DIV_WHY),
		  "%s", out);
	/* The same cause, in the same words, in --format asm. */
	cr_assert_eq(
		test_shell(out, sizeof(out), "'%s' compile '%s' --format asm", getenv("SECBPF"), f),
		0, "%s", out);
	cr_assert(strstr(out, "# supervised: ") && strstr(out, DIV_PUNT) && strstr(out, DIV_WHY),
		  "%s", out);
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' compile --no-supervisor '%s' --format asm",
				getenv("SECBPF"), seed),
		     0, "%s", out);
	cr_assert_null(strstr(out, "supervised"), "%s", out);
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' compile --help", getenv("SECBPF")), 0, "%s",
		     out);
	cr_assert(strstr(out, "--no-supervisor"), "%s", out);
}
