// SPDX-License-Identifier: MIT
/*
 * What a filter cannot promise, as docs/divergences.md says, measured on
 * the real kernel: a stopped supervisor allows nothing, a notified syscall
 * interrupted by a handler without SA_RESTART returns EINTR, and recent
 * kernels run uretprobe and uprobe without consulting seccomp at all.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static char out[65536];
static char dir[4096];
static char probe[4200];

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-limits");
	test_probe(probe, sizeof(probe), "SECBPF_EDGE_PROBE", dir, "edge_probe", "");
}

/* What the EINTR test started, killed whatever happened to the test. */
static pid_t started_supervisor, started_probe;

static void teardown(void)
{
	if (started_probe > 0)
		kill(started_probe, SIGKILL);
	if (started_supervisor > 0) {
		kill(started_supervisor, SIGKILL);
		waitpid(started_supervisor, NULL, 0);
	}
	test_remove_tree(dir);
}

TestSuite(limits, .init = setup, .fini = teardown);

#define secbpf(fmt, ...)                                                                           \
	test_shell(out, sizeof(out), "cd '%s' && '%s' " fmt, dir, getenv("SECBPF"), ##__VA_ARGS__)

/* A stateful filter: getppid goes to the supervisor (it counts them). */
static const char *count_getppid(void)
{
	return test_write_filter(dir, "count_getppid",
				 "struct {\n"
				 "	__uint(type, BPF_MAP_TYPE_ARRAY);\n"
				 "	__uint(max_entries, 1);\n"
				 "	__type(key, __u32);\n"
				 "	__type(value, __u64);\n"
				 "} calls SEC(\".maps\");\n"
				 "SEC(\"seccomp\")\n"
				 "int count_getppid(struct seccomp_data *ctx)\n"
				 "{\n"
				 "	__u32 k = 0;\n"
				 "	__u64 *v;\n"
				 "	if (ctx->arch != SECBPF_AUDIT_ARCH_NATIVE)\n"
				 "		return SECCOMP_RET_KILL_PROCESS;\n"
				 "	if (ctx->nr != __NR_getppid)\n"
				 "		return SECCOMP_RET_ALLOW;\n"
				 "	v = bpf_map_lookup_elem(&calls, &k);\n"
				 "	if (v)\n"
				 "		__sync_fetch_and_add(v, 1);\n"
				 "	return SECCOMP_RET_ALLOW;\n"
				 "}\n");
}

/* The pid the probe printed first ("pid=N") into path, once it is there. */
struct pid_file {
	const char *path;
	pid_t pid;
};

static bool pid_printed(void *arg)
{
	struct pid_file *p = arg;
	FILE *f = fopen(p->path, "r");
	int pid = 0;

	if (!f)
		return false;
	if (fscanf(f, "pid=%d", &pid) != 1)
		pid = 0;
	fclose(f);
	p->pid = pid;
	return pid > 0;
}

/* Whether pid is in syscall nr (the first field of /proc/PID/syscall). */
struct in_syscall {
	pid_t pid;
	long nr;
};

static bool in_syscall(void *arg)
{
	struct in_syscall *s = arg;
	char path[64];
	long nr = -2;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)s->pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -2;
	fclose(f);
	return nr == s->nr;
}

/* Whether every thread of pid is stopped: none can be inside the
 * receive ioctl then (a stop signal ends it first). */
static bool all_threads_stopped(void *arg)
{
	pid_t pid = *(pid_t *)arg;
	char cmd[128], buf[4096];

	snprintf(cmd, sizeof(cmd),
		 "for s in /proc/%d/task/*/stat; do sed 's/.*) //' $s | cut -c1; done", (int)pid);
	if (test_capture(buf, sizeof(buf), cmd) != 0 || !buf[0])
		return false;
	for (char *p = buf; *p; p++)
		if (*p != '\n' && *p != 'T' && *p != 't')
			return false;
	return true;
}

/* Whether the probe printed what getppid returned into the file path. */
static bool getppid_printed(void *path)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, "getppid=") != NULL;
}

static void pause_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

Test(limits, a_stopped_supervisor_allows_nothing_and_a_signal_gives_eintr)
{
	const char *f = count_getppid();
	char outfile[4200];
	struct pid_file pf = { .path = outfile };
	struct in_syscall blocked;
	pid_t sup;
	int st, i;

	snprintf(outfile, sizeof(outfile), "%s/probe.out", dir);
	sup = fork();
	cr_assert_geq(sup, 0);
	if (sup == 0) {
		if (!freopen(outfile, "w", stdout))
			_exit(120);
		execl(getenv("SECBPF"), "secbpf", "run", "-f", f, "--", probe, "eintr",
		      (char *)NULL);
		_exit(121);
	}
	started_supervisor = sup;
	cr_assert(test_wait_for(pid_printed, &pf, 20000), "the probe never started");
	started_probe = pf.pid;
	/* Stop the supervisor (any process of the user may), then let the
	 * probe make its notified getppid. Every worker must be stopped
	 * first: one still in the receive ioctl would take it. */
	cr_assert_eq(kill(sup, SIGSTOP), 0);
	cr_assert(test_wait_for(all_threads_stopped, &sup, 10000), "the supervisor never stopped");
	cr_assert_eq(kill(pf.pid, SIGUSR2), 0);
	blocked = (struct in_syscall){ .pid = pf.pid, .nr = 110 /* getppid */ };
	cr_assert(test_wait_for(in_syscall, &blocked, 10000), "getppid never started");
	/* Fail closed: it waits as long as the supervisor is stopped. */
	for (i = 0; i < 5; i++) {
		pause_ms(40);
		cr_assert(in_syscall(&blocked), "getppid went on with the supervisor stopped");
	}
	/* A handler without SA_RESTART: getppid, which natively cannot,
	 * returns EINTR. */
	cr_assert_eq(kill(pf.pid, SIGUSR1), 0);
	/* Only then may the supervisor go on: had it received the
	 * notification first, only a fatal signal could interrupt the wait
	 * (SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV). */
	cr_assert(test_wait_for(getppid_printed, outfile, 10000), "getppid never returned");
	cr_assert_eq(kill(sup, SIGCONT), 0);
	cr_assert_eq(waitpid(sup, &st, 0), sup);
	started_supervisor = started_probe = 0;
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	cr_assert_eq(test_shell(out, sizeof(out), "cat '%s'", outfile), 0);
	snprintf(outfile, sizeof(outfile), "pid=%d\ngetppid=%d\n", (int)pf.pid, EINTR);
	cr_expect_str_eq(out, outfile);
}

Test(limits, uretprobe_and_uprobe_do_not_consult_seccomp)
{
	const char *f =
		test_write_filter(dir, "deny_uprobes",
				  "SEC(\"seccomp\")\n"
				  "int deny_uprobes(struct seccomp_data *ctx)\n"
				  "{\n"
				  "	if (ctx->arch != SECBPF_AUDIT_ARCH_NATIVE)\n"
				  "		return SECCOMP_RET_KILL_PROCESS;\n"
				  "	if (ctx->nr == 335 || ctx->nr == 336 || ctx->nr == 337)\n"
				  "		return SECCOMP_RET_ERRNO | 7;\n"
				  "	return SECCOMP_RET_ALLOW;\n"
				  "}\n");

	/* What secbpf test says, and what the kernel does with 337, which
	 * goes through seccomp like any syscall. */
	cr_assert_eq(secbpf("test '%s' --nr 335", f), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(7)\n");
	cr_assert_eq(secbpf("test '%s' --cbpf --nr 336", f), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(7) kernel\n");
	cr_assert_eq(secbpf("run -f '%s' -- '%s' 337", f, probe), 0, "%s", out);
	cr_expect_str_eq(out, "337=7\n");

	/* Kernels before uprobe (336) answer ENOSYS (38), filter or not. */
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' 336", probe), 0, "%s", out);
	if (!strcmp(out, "336=38\n"))
		cr_skip_test("this kernel has no uprobe syscall (336)");
	cr_assert_eq(secbpf("run -f '%s' -- '%s' 336", f, probe), 0, "%s", out);
	cr_expect_str_eq(out, "336=6\n", "uprobe: ENXIO, not the filter's 7");
	/* uretprobe outside a trampoline: SIGILL (132), not the filter's 7. */
	cr_expect_eq(secbpf("run -f '%s' -- '%s' 335", f, probe), 128 + SIGILL, "%s", out);
}
