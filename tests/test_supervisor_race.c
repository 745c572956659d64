// SPDX-License-Identifier: MIT
/*
 * Races of the supervisor (lib/supervisor/) with dying targets: callers exit or
 * exec while the supervisor reads them (probe_read_user, pid_tgid, task
 * storage), in a pid namespace whose small pid_max recycles TIDs at once.
 * The wrong task must never be read, and no call may be let through.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static char out[65536];
static char dir[4096];
static char probe[4200];

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-race");
	test_probe(probe, sizeof(probe), "SECBPF_RACE_PROBE", dir, "race_probe", "-pthread ");
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(supervisor_race, .init = setup, .fini = teardown);

/*
 * getppid(RACE_ADDR) is read at RACE_ADDR: a caller keeps there its tag,
 * TGID and a nonce per process (tests/progs/race_probe.c), a decoy MARKER.
 * The filter answers EXDEV when it read the caller that asked, and counts
 * what it should never see: MARKER (another process's memory), a TGID
 * other than the memory's, or task storage left by an earlier process of
 * that TGID. getppid(0x5ecb, i, k) returns bits 10k.. of counter i.
 * Workers run it at once for the threads of a caller: its shared state is
 * only touched atomically (cmpxchg needs --mcpu v3), so that TSan
 * (scripts/test-tsan) sees no race that the program itself makes.
 */
static const char race_src[] =
	"struct state { __u64 nonce; };\n"
	"struct {\n"
	"	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);\n"
	"	__uint(map_flags, BPF_F_NO_PREALLOC);\n"
	"	__type(key, int);\n"
	"	__type(value, struct state);\n"
	"} seen SEC(\".maps\");\n"
	"struct record { __u64 tag, tgid, nonce; };\n"
	"__u64 genuine, marker, tgid_mismatch, stale_state, bad_tag, read_failed;\n"
	"static __u64 counter(__u64 i)\n"
	"{\n"
	"	if (i == 0) return genuine;\n"
	"	if (i == 1) return marker;\n"
	"	if (i == 2) return tgid_mismatch;\n"
	"	if (i == 3) return stale_state;\n"
	"	if (i == 4) return bad_tag;\n"
	"	return read_failed;\n"
	"}\n"
	"SEC(\"seccomp\")\n"
	"int race(struct seccomp_data *ctx)\n"
	"{\n"
	"	struct record r;\n"
	"	struct state *st;\n"
	"	__u64 pt, old;\n"
	"	if (ctx->nr != __NR_getppid)\n"
	"		return SECCOMP_RET_ALLOW;\n"
	"	if (ctx->args[0] == 0x5ecb && ctx->args[2] < 4)\n"
	"		return SECCOMP_RET_ERRNO | (((counter(ctx->args[1]) >> "
	"(ctx->args[2] * 10)) & 0x3ff) + 1);\n"
	"	if (ctx->args[0] != 0x5ace0000)\n"
	"		return SECCOMP_RET_ALLOW;\n"
	/* ALLOW on a failed read: a live caller's read cannot fail, so the
	 * caller seeing its syscall run means the supervisor let it through. */
	"	if (bpf_probe_read_user(&r, sizeof(r), (const void *)ctx->args[0])) {\n"
	"		__sync_fetch_and_add(&read_failed, 1);\n"
	"		return SECCOMP_RET_ALLOW;\n"
	"	}\n"
	"	if (r.tag == 0xdec0de5decULL) {\n"
	"		__sync_fetch_and_add(&marker, 1);\n"
	"		return SECCOMP_RET_ERRNO | ENOTUNIQ;\n"
	"	}\n"
	"	if (r.tag != 0x6e75696e65ULL) {\n"
	"		__sync_fetch_and_add(&bad_tag, 1);\n"
	"		return SECCOMP_RET_ERRNO | EBADMSG;\n"
	"	}\n"
	"	pt = bpf_get_current_pid_tgid();\n"
	"	if ((pt >> 32) != r.tgid) {\n"
	"		__sync_fetch_and_add(&tgid_mismatch, 1);\n"
	"		return SECCOMP_RET_ERRNO | EL2HLT;\n"
	"	}\n"
	"	st = bpf_task_storage_get(&seen, NULL, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);\n"
	"	if (!st)\n"
	"		return SECCOMP_RET_ERRNO | ENOMEM;\n"
	"	old = __sync_val_compare_and_swap(&st->nonce, 0, r.nonce);\n"
	"	if (old != 0 && old != r.nonce) {\n"
	"		__sync_fetch_and_add(&stale_state, 1);\n"
	"		return SECCOMP_RET_ERRNO | ESTALE;\n"
	"	}\n"
	"	__sync_fetch_and_add(&genuine, 1);\n"
	"	return SECCOMP_RET_ERRNO | EXDEV;\n"
	"}\n";

/* The value of "key=N" in out, or -1. */
static long long value_of(const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\n%s=", key);
	p = strstr(out, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/*
 * In the namespace's init (pid 1): mount its /proc, so that /proc/TID
 * names the supervisor's TIDs, set pid_max, run `secbpf run` and reap
 * every orphan until it ends. Returns its exit status.
 */
static int namespace_init(const char *obj, const char *log, const char *mode, const char *secs,
			  int pid_max)
{
	char value[16];
	int fd, status, code = 127;
	pid_t run, pid;

	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return 120;
	fd = open("/proc/sys/kernel/pid_max", O_WRONLY);
	snprintf(value, sizeof(value), "%d", pid_max);
	if (fd < 0 || write(fd, value, strlen(value)) < 0)
		return 121;
	close(fd);
	run = fork();
	if (run == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(122);
		execl(getenv("SECBPF"), "secbpf", "run", "-f", obj, "--", probe, mode, secs,
		      (char *)NULL);
		_exit(127);
	}
	if (run < 0)
		return 123;
	while ((pid = wait(&status)) != -1 || errno == EINTR)
		if (pid == run)
			code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return code;
}

/* Run `race_probe MODE [SECS]` under obj in a new pid namespace; its output
 * (and the supervisor's) in out, after a newline. */
static void run_in_namespace(const char *obj, const char *mode, const char *secs, int pid_max)
{
	char log[4200];
	int status, fd, i;
	ssize_t n;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/race.log", dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* A timed-out test takes the namespace with it: its init dies
		 * with this child, and this child with the test. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
			_exit(116);
		if (unshare(CLONE_NEWPID | CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(119);
		pid = fork();
		if (pid == 0) {
			if (prctl(PR_SET_PDEATHSIG, SIGKILL))
				_exit(115);
			_exit(namespace_init(obj, log, mode, secs, pid_max));
		}
		if (pid < 0)
			_exit(118);
		/* A hung supervisor fails the test, and its namespace goes. */
		for (i = 0; waitpid(pid, &status, WNOHANG) != pid; i++) {
			if (i == 60 * 100) {
				kill(pid, SIGKILL);
				_exit(114);
			}
			usleep(10000);
		}
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 117);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	out[0] = '\n';
	fd = open(log, O_RDONLY);
	n = fd < 0 ? 0 : read(fd, out + 1, sizeof(out) - 2);
	out[n > 0 ? n + 1 : 1] = '\0';
	if (fd >= 0)
		close(fd);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x:%s", status, out);
}

/* The race filter compiled into the scratch directory; its path. */
static const char *race_object(void)
{
	static char path[4200];
	const char *src = test_write_filter(dir, "race", race_src);

	snprintf(path, sizeof(path), "%.*s.o", (int)(strlen(src) - 2), src);
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' cc --mcpu v3 '%s' -o '%s'", getenv("SECBPF"),
				src, path),
		     0, "%s", out);
	return path;
}

/* No Criterion timeout (its timer leaks under LeakSanitizer): the test
 * bounds its own waits, and meson's timeout is the last resort. */
Test(supervisor_race, a_recycled_tid_is_never_read_and_calls_fail_closed)
{
	const char *obj;

	if (geteuid() != 0)
		cr_skip_test("a pid namespace with its own pid_max needs root");
	obj = race_object();
	/* 301 is the smallest pid_max: TIDs 300..400 go round every few rounds. */
	run_in_namespace(obj, "drive", "6", 400);
	cr_log_info("race: %s", out);

	/* The test exercised the race: TIDs wrapped, callers were read, and
	 * some died between receive and reply (seen by the filter, or failed). */
	cr_assert_gt(value_of("rounds"), 100, "%s", out);
	cr_assert_gt(value_of("pid_wraps"), 10, "%s", out);
	cr_assert_gt(value_of("filter_genuine"), 100, "%s", out);
	cr_assert_gt(value_of("reply_genuine"), 100, "%s", out);
	cr_assert_gt(value_of("filter_genuine"), value_of("reply_genuine"),
		     "no caller died between its read and the reply:%s", out);

	/* The wrong task is never acted on. */
	cr_expect_eq(value_of("filter_marker"), 0, "another process's memory read:%s", out);
	cr_expect_eq(value_of("filter_tgid_mismatch"), 0, "memory and TGID of two tasks:%s", out);
	cr_expect_eq(value_of("filter_stale_state"), 0, "task storage of a dead process:%s", out);
	cr_expect_eq(value_of("filter_bad_tag"), 0, "%s", out);
	/* Calls fail closed: a live caller is answered by its own record or
	 * with an error; its syscall never runs. */
	cr_expect_eq(value_of("reply_allowed"), 0, "a call was let through:%s", out);
	cr_expect_eq(value_of("reply_other"), 0, "%s", out);
}

/*
 * A target that takes every TID of its pid namespace must not stop the
 * supervisor: freeing the task storage of a process that exits then may
 * not need a thread that cannot be created (liburcu's call_rcu worker).
 */
Test(supervisor_race, the_supervisor_survives_a_target_that_takes_every_tid)
{
	const char *obj;

	if (geteuid() != 0)
		cr_skip_test("a pid namespace with its own pid_max needs root");
	obj = race_object();
	run_in_namespace(obj, "exhaust", NULL, 400);
	cr_assert_gt(value_of("fillers"), 300, "%s", out);
	cr_expect_eq(value_of("filter_genuine"), 1, "%s", out);
}
