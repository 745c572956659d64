// SPDX-License-Identifier: MIT
/*
 * Tests of lib/supervisor/: the reply table of docs/design.md §1
 * (decide.c), the stack layout (supervisor.c, checked by simulation, as
 * every generated cBPF is), the combined
 * decision of several programs, and end-to-end runs of `secbpf run` with
 * stateful filters on real processes (tests/progs/notify_probe.c): exact
 * counts under 8 threads, fork and exec, every action, a kill from the
 * supervisor (137), fail-closed when the supervisor dies, a target that
 * cannot ptrace the supervisor, and the samples.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "install/action.h"
#include "common.h"
#include "cbpf/cbpf.h"
#include "install/attach.h"
#include "object/object.h"
#include "service/protocol.h"
#include "vm/runtime.h"
#include "supervisor/supervisor.h"

static char out[65536];
static char dir[4096];	 /* this test's scratch directory */
static char probe[4200]; /* the notify_probe program */

/* Use the probe meson built ($SECBPF_NOTIFY_PROBE), else build it here. */
static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-sv");
	/* Readable by the unprivileged user of the ptrace test. */
	chmod(dir, 0755);
	test_probe(probe, sizeof(probe), "SECBPF_NOTIFY_PROBE", dir, "notify_probe", "-pthread ");
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(supervisor, .init = setup, .fini = teardown);

/* Run a shell command (printf-style) in the scratch directory, stderr
 * merged into stdout (kept in out); returns the exit status or -1. */
#define shell(fmt, ...) test_shell(out, sizeof(out), "cd '%s' && " fmt, dir, ##__VA_ARGS__)

#define SECBPF_RUN "'%s' run "
#define SECBPF_BIN getenv("SECBPF")

/* Write a filter source into the scratch directory; returns its path. */
static const char *filter(const char *name, const char *body)
{
	return test_write_filter(dir, name, body);
}

/* Compile a filter source to an object next to it; returns its path. */
static const char *object(const char *src)
{
	static char path[4][4200];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%.*s.o", (int)(strlen(src) - 2), src);
	cr_assert_eq(
		shell("ASAN_OPTIONS=detect_leaks=0 '%s' cc '%s' -o '%s'", SECBPF_BIN, src, path[i]),
		0, "%s", out);
	chmod(path[i], 0644);
	return path[i];
}

/* A sample built by meson. */
static const char *sample(const char *name)
{
	static char path[4][4200];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/samples/%s.bpf.o", getenv("SECBPF_BUILD_DIR"), name);
	cr_assert_eq(access(path[i], R_OK), 0, "%s not built", path[i]);
	return path[i];
}

/*
 * Counts getppid(0xc0) in global data (a stateful path: only those and
 * the queries reach the supervisor; other getppid calls, like those of a
 * sanitizer runtime, stay in the kernel) and answers getppid(0x5ecb, i)
 * with ERRNO(1 + bits 10i.. of the count), which the probe reads back.
 */
static const char count_src[] = "__u64 calls;\n"
				"SEC(\"seccomp\")\n"
				"int count(struct seccomp_data *ctx)\n"
				"{\n"
				"	if (ctx->nr != __NR_getppid)\n"
				"		return SECCOMP_RET_ALLOW;\n"
				"	if (ctx->args[0] == 0x5ecb)\n"
				"		return SECCOMP_RET_ERRNO | (((calls >> "
				"(ctx->args[1] * 10)) & 0x3ff) + 1);\n"
				"	if (ctx->args[0] != 0xc0)\n"
				"		return SECCOMP_RET_ALLOW;\n"
				"	__sync_fetch_and_add(&calls, 1);\n"
				"	return SECCOMP_RET_ALLOW;\n"
				"}\n";

/* getppid(0xac, k) gets action k, decided by the supervisor; getpgid is
 * notified and allowed. Other getppid calls stay in the kernel (a
 * sanitizer runtime checks its parent with getppid). */
static const char actions_src[] = "__u64 calls;\n"
				  "SEC(\"seccomp\")\n"
				  "int actions(struct seccomp_data *ctx)\n"
				  "{\n"
				  "	if (ctx->nr != __NR_getppid && ctx->nr != __NR_getpgid)\n"
				  "		return SECCOMP_RET_ALLOW;\n"
				  "	if (ctx->nr == __NR_getppid && ctx->args[0] != 0xac)\n"
				  "		return SECCOMP_RET_ALLOW;\n"
				  "	__sync_fetch_and_add(&calls, 1);\n"
				  "	if (ctx->nr == __NR_getpgid)\n"
				  "		return SECCOMP_RET_ALLOW;\n"
				  "	switch (ctx->args[1]) {\n"
				  "	case 1: return SECCOMP_RET_ALLOW;\n"
				  "	case 2: return SECCOMP_RET_ERRNO | 5;\n"
				  "	case 3: return SECCOMP_RET_ERRNO | 5000;\n"
				  "	case 4: return SECCOMP_RET_TRAP | 7;\n"
				  "	case 5: return SECCOMP_RET_TRACE | 1;\n"
				  "	case 6: return SECCOMP_RET_LOG;\n"
				  "	case 7: return SECCOMP_RET_USER_NOTIF;\n"
				  "	case 8: return SECCOMP_RET_KILL_PROCESS;\n"
				  "	case 9: return SECCOMP_RET_KILL_THREAD;\n"
				  "	default: return SECCOMP_RET_ERRNO | 1;\n"
				  "	}\n"
				  "}\n";

/* ------------------------------------------------------------------ */
/* Units                                                                */
/* ------------------------------------------------------------------ */

Test(supervisor, reply_table_follows_design)
{
	struct seccomp_notif_resp r;

	memset(&r, 0, sizeof(r));
	cr_expect_eq(supervisor_reply_for(SECCOMP_RET_ALLOW, &r), SUPERVISOR_CONTINUE);
	cr_expect(r.error == 0 && r.flags == SECCOMP_USER_NOTIF_FLAG_CONTINUE);
	cr_expect_eq(supervisor_reply_for(SECCOMP_RET_LOG, &r), SUPERVISOR_LOG);
	cr_expect(r.error == 0 && r.flags == SECCOMP_USER_NOTIF_FLAG_CONTINUE);
	cr_expect_eq(supervisor_reply_for(SECCOMP_RET_ERRNO | 13, &r), SUPERVISOR_FAIL);
	cr_expect(r.error == -13 && r.flags == 0 && r.val == 0);
	/* Capped like the kernel does. */
	cr_expect_eq(supervisor_reply_for(SECCOMP_RET_ERRNO | 0xffff, &r), SUPERVISOR_FAIL);
	cr_expect_eq(r.error, -ACTION_MAX_ERRNO);
	/* ERRNO(0): the syscall is skipped and returns 0. */
	cr_expect_eq(supervisor_reply_for(SECCOMP_RET_ERRNO, &r), SUPERVISOR_FAIL);
	cr_expect(r.error == 0 && r.flags == 0 && r.val == 0);
	cr_expect_eq(supervisor_reply_for(SECCOMP_RET_TRAP | 3, &r), SUPERVISOR_TRAP);
	cr_expect(r.error == -ENOSYS && r.flags == 0);
	cr_expect_eq(supervisor_reply_for(SECCOMP_RET_TRACE | 3, &r), SUPERVISOR_FAIL);
	cr_expect(r.error == -ENOSYS && r.flags == 0);
	/* To the user agent; ENOSYS unless it answers (tests/test_agent.c). */
	cr_expect_eq(supervisor_reply_for(SECCOMP_RET_USER_NOTIF, &r), SUPERVISOR_AGENT);
	cr_expect(r.error == -ENOSYS && r.flags == 0);
	cr_expect_eq(supervisor_reply_for(SECCOMP_RET_KILL_PROCESS, &r), SUPERVISOR_KILL);
	cr_expect(r.error < 0 && r.flags == 0);
	cr_expect_eq(supervisor_reply_for(SECCOMP_RET_KILL_THREAD, &r), SUPERVISOR_KILL);
	cr_expect(r.error < 0 && r.flags == 0);
	/* An unknown action is KILL_PROCESS for the kernel. */
	cr_expect_eq(supervisor_reply_for(0x12340000, &r), SUPERVISOR_KILL);
	cr_expect(r.error < 0 && r.flags == 0);
}

/* A compiled program and its runtime, for the units below. */
struct loaded {
	struct object *obj;
	struct object_prog *prog;
	struct cbpf_prog cp;
	struct runtime *rt;
};

static void load(struct loaded *l, const char *obj_path, bool guard)
{
	struct cbpf_compile_opts opts = { .sz = sizeof(opts), .listener_guard = guard };
	struct runtime_opts ro = { .sz = sizeof(ro), .ncpus = 1 };
	struct secbpf_err err = { { 0 } };

	memset(l, 0, sizeof(*l));
	l->obj = object_open_file(obj_path, &err);
	cr_assert_not_null(l->obj, "%s", err.msg);
	l->prog = object_find_prog(l->obj, NULL, &err);
	cr_assert_not_null(l->prog, "%s", err.msg);
	cr_assert_eq(cbpf_compile(l->obj, l->prog, &opts, &l->cp, &err), 0, "%s", err.msg);
	if (l->cp.needs_supervisor) {
		l->rt = runtime_new_opts(l->obj, l->prog, &ro, &err);
		cr_assert_not_null(l->rt, "%s", err.msg);
	}
}

static void unload(struct loaded *l)
{
	runtime_free(l->rt);
	cbpf_prog_free(&l->cp);
	object_free(l->obj);
}

static struct seccomp_data sd_of(uint32_t arch, int nr, uint64_t a0, uint64_t a1)
{
	struct seccomp_data sd;

	memset(&sd, 0, sizeof(sd));
	sd.arch = arch;
	sd.nr = nr;
	sd.args[0] = a0;
	sd.args[1] = a1;
	return sd;
}

/* The listener guard: seccomp(SET_MODE_FILTER, NEW_LISTENER) is EPERM on
 * x86_64, x32 and i386 (nr 354); without NEW_LISTENER it is not. */
static void expect_guard(const struct sock_filter *f, size_t len)
{
	struct seccomp_data sd;

	sd = sd_of(AUDIT_ARCH_X86_64, 317, SECCOMP_SET_MODE_FILTER,
		   SECCOMP_FILTER_FLAG_NEW_LISTENER);
	cr_expect_eq(cbpf_sim_run(f, len, &sd), SECCOMP_RET_ERRNO | EPERM);
	sd = sd_of(AUDIT_ARCH_X86_64, 0x40000000 | 317, SECCOMP_SET_MODE_FILTER,
		   SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_TSYNC);
	cr_expect_eq(cbpf_sim_run(f, len, &sd), SECCOMP_RET_ERRNO | EPERM);
	sd = sd_of(AUDIT_ARCH_I386, 354, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER);
	cr_expect_eq(cbpf_sim_run(f, len, &sd), SECCOMP_RET_ERRNO | EPERM);
	/* High words do not count: the kernel takes unsigned ints. */
	sd = sd_of(AUDIT_ARCH_I386, 354, 0xffffffff00000000ull | SECCOMP_SET_MODE_FILTER,
		   0xffffffff00000000ull | SECCOMP_FILTER_FLAG_NEW_LISTENER);
	cr_expect_eq(cbpf_sim_run(f, len, &sd), SECCOMP_RET_ERRNO | EPERM);
	sd = sd_of(AUDIT_ARCH_I386, 354, SECCOMP_SET_MODE_FILTER, 0);
	cr_expect_neq(cbpf_sim_run(f, len, &sd), SECCOMP_RET_ERRNO | EPERM);
	sd = sd_of(AUDIT_ARCH_X86_64, 317, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC);
	cr_expect_neq(cbpf_sim_run(f, len, &sd), SECCOMP_RET_ERRNO | EPERM);
}

Test(supervisor, a_single_stateful_filter_is_the_guarded_listener)
{
	struct supervisor_stack st;
	struct supervisor_prog p[2];
	struct secbpf_err err = { { 0 } };
	struct loaded seed, cnt;

	load(&seed, sample("seed_close"), false);
	load(&cnt, object(filter("count", count_src)), true);
	cr_assert(!seed.cp.needs_supervisor && cnt.cp.needs_supervisor);
	p[0] = (struct supervisor_prog){
		.insns = seed.cp.insns, .len = seed.cp.len, .rt = NULL, .name = "seed"
	};
	p[1] = (struct supervisor_prog){
		.insns = cnt.cp.insns, .len = cnt.cp.len, .rt = cnt.rt, .name = "count"
	};
	cr_assert(supervisor_stack_single(p, 2));
	cr_assert_eq(supervisor_stack_build(p, 2, &st, &err), 0, "%s", err.msg);
	cr_expect_eq(st.n, 2);
	cr_expect_eq(st.progs[1].filter, cnt.cp.insns);
	expect_guard(st.progs[1].filter, st.progs[1].len);
	supervisor_stack_free(&st);

	/* Compiled without the guard: refused, never installed. */
	unload(&cnt);
	load(&cnt, object(filter("count", count_src)), false);
	p[1] = (struct supervisor_prog){
		.insns = cnt.cp.insns, .len = cnt.cp.len, .rt = cnt.rt, .name = "count"
	};
	cr_expect_eq(supervisor_stack_build(p, 2, &st, &err), -EINVAL);
	cr_expect(strstr(err.msg, "listener guard"), "%s", err.msg);
	unload(&cnt);
	unload(&seed);
}

Test(supervisor, several_stateful_filters_share_one_listener)
{
	struct supervisor_stack st;
	struct supervisor_prog p[3];
	struct secbpf_err err = { { 0 } };
	struct loaded a, b, seed;
	uint32_t nr, k, ra, rb;
	size_t i, j;

	load(&a, object(filter("count", count_src)), false);
	load(&seed, sample("seed_close"), false);
	load(&b, object(filter("actions", actions_src)), false);
	p[0] = (struct supervisor_prog){
		.insns = a.cp.insns, .len = a.cp.len, .rt = a.rt, .name = "count"
	};
	p[1] = (struct supervisor_prog){
		.insns = seed.cp.insns, .len = seed.cp.len, .rt = NULL, .name = "seed"
	};
	p[2] = (struct supervisor_prog){
		.insns = b.cp.insns, .len = b.cp.len, .rt = b.rt, .name = "actions"
	};
	cr_assert(!supervisor_stack_single(p, 3));
	cr_assert_eq(supervisor_stack_build(p, 3, &st, &err), 0, "%s", err.msg);
	cr_assert_eq(st.n, 4);
	cr_expect(!st.listener_notifies_all);
	for (i = 0; i < st.n; i++)
		cr_expect_eq(cbpf_check(st.progs[i].filter, st.progs[i].len, &err), 0, "%zu: %s", i,
			     err.msg);
	/* Only the listener (last) may return USER_NOTIF. */
	for (i = 0; i + 1 < st.n; i++)
		for (j = 0; j < st.progs[i].len; j++)
			cr_expect(!(st.progs[i].filter[j].code == (BPF_RET | BPF_K) &&
				    (st.progs[i].filter[j].k & SECCOMP_RET_ACTION_FULL) ==
					    SECCOMP_RET_USER_NOTIF),
				  "filter %zu insn %zu returns USER_NOTIF", i, j);
	expect_guard(st.progs[3].filter, st.progs[3].len);
	/* By simulation over a range of inputs: each kernel part is its
	 * filter with USER_NOTIF made ALLOW; the listener notifies iff one
	 * of the stateful filters does, else allows. */
	for (nr = 0; nr < 460; nr++)
		for (k = 0; k < 12; k++) {
			uint64_t a0 = k < 6 ? 0xac : (k < 9 ? 0x5ecb : k);
			struct seccomp_data sd = sd_of(AUDIT_ARCH_X86_64, (int)nr, a0, k % 10);
			uint32_t l = cbpf_sim_run(st.progs[3].filter, st.progs[3].len, &sd);
			bool notif;

			if (nr == 317)
				continue; /* the guard, tested above */
			ra = cbpf_sim_run(a.cp.insns, a.cp.len, &sd);
			rb = cbpf_sim_run(b.cp.insns, b.cp.len, &sd);
			notif = ra == SECCOMP_RET_USER_NOTIF || rb == SECCOMP_RET_USER_NOTIF;
			cr_expect_eq(l, notif ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW,
				     "nr %u k %u", nr, k);
			cr_expect_eq(cbpf_sim_run(st.progs[0].filter, st.progs[0].len, &sd),
				     ra == SECCOMP_RET_USER_NOTIF ? SECCOMP_RET_ALLOW : ra);
			cr_expect_eq(cbpf_sim_run(st.progs[2].filter, st.progs[2].len, &sd),
				     rb == SECCOMP_RET_USER_NOTIF ? SECCOMP_RET_ALLOW : rb);
		}
	supervisor_stack_free(&st);
	unload(&a);
	unload(&b);
	unload(&seed);
}

/* An eventfd stands for the listener: supervisor_decide never uses it. */
static struct supervisor *decider(const struct supervisor_prog *p, size_t n)
{
	struct secbpf_err err = { { 0 } };
	struct supervisor_opts o = { .sz = sizeof(o), .nworkers = 1 };
	struct supervisor *sv;
	int fd = eventfd(0, EFD_CLOEXEC);

	cr_assert_geq(fd, 0);
	sv = supervisor_new(fd, p, n, &o, &err);
	cr_assert_not_null(sv, "%s", err.msg);
	return sv;
}

Test(supervisor, decide_combines_newest_first_by_precedence)
{
	static const char errno_src[] = "__u64 seen;\n"
					"SEC(\"seccomp\")\n"
					"int errnos(struct seccomp_data *ctx)\n"
					"{\n"
					"	if (ctx->nr != __NR_getppid)\n"
					"		return SECCOMP_RET_ALLOW;\n"
					"	seen++;\n"
					"	return SECCOMP_RET_ERRNO | ctx->args[2];\n"
					"}\n";
	struct runtime_task task = { .tid = getpid(), .tgid = getpid(), .mem_fd = -1 };
	struct secbpf_err err = { { 0 } };
	struct supervisor_prog p[2];
	struct supervisor *sv;
	struct seccomp_data sd;
	struct loaded a, e;
	uint32_t ret;

	load(&e, object(filter("errnos", errno_src)), false);
	load(&a, object(filter("actions", actions_src)), false);
	/* errnos older, actions newer. */
	p[0] = (struct supervisor_prog){
		.insns = e.cp.insns, .len = e.cp.len, .rt = e.rt, .name = "errnos"
	};
	p[1] = (struct supervisor_prog){
		.insns = a.cp.insns, .len = a.cp.len, .rt = a.rt, .name = "actions"
	};
	sv = decider(p, 2);

	/* ERRNO(5) newer vs ERRNO(9) older: same action, the newer wins. */
	sd = sd_of(AUDIT_ARCH_X86_64, __NR_getppid, 0xac, 2);
	sd.args[2] = 9;
	cr_assert_eq(supervisor_decide(sv, &sd, &task, &ret, &err), 0, "%s", err.msg);
	cr_expect_eq(ret, SECCOMP_RET_ERRNO | 5);
	/* KILL_PROCESS beats ERRNO whatever the order. */
	sd.args[1] = 8;
	cr_assert_eq(supervisor_decide(sv, &sd, &task, &ret, &err), 0, "%s", err.msg);
	cr_expect_eq(ret, SECCOMP_RET_KILL_PROCESS);
	/* ERRNO (older) beats LOG (newer); TRAP (newer) beats ERRNO. */
	sd.args[1] = 6;
	cr_assert_eq(supervisor_decide(sv, &sd, &task, &ret, &err), 0, "%s", err.msg);
	cr_expect_eq(ret, SECCOMP_RET_ERRNO | 9);
	sd.args[1] = 4;
	cr_assert_eq(supervisor_decide(sv, &sd, &task, &ret, &err), 0, "%s", err.msg);
	cr_expect_eq(ret, SECCOMP_RET_TRAP | 7);
	/* A syscall neither notifies: the kernel parts' ALLOW. */
	sd = sd_of(AUDIT_ARCH_X86_64, __NR_getpid, 0, 0);
	cr_assert_eq(supervisor_decide(sv, &sd, &task, &ret, &err), 0, "%s", err.msg);
	cr_expect_eq(ret, SECCOMP_RET_ALLOW);
	supervisor_free(sv);
	unload(&a);
	unload(&e);
}

/* ------------------------------------------------------------------ */
/* End to end                                                           */
/* ------------------------------------------------------------------ */

/* The contents of a file in the scratch directory, in out. */
static const char *slurp(const char *name)
{
	char path[4200];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "r");
	cr_assert_not_null(fp, "%s", path);
	n = fread(out, 1, sizeof(out) - 1, fp);
	out[n] = '\0';
	fclose(fp);
	return out;
}

Test(supervisor, eight_threads_counted_exactly, .timeout = 300)
{
	const char *f = object(filter("count", count_src));
	char line[8400];
	struct timespec t0, t1;
	double secs;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(shell(SECBPF_RUN "--stats=stats -f '%s' -- '%s' count 8 100000", SECBPF_BIN, f,
			   probe),
		     0, "%s", out);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_expect_str_eq(out, "count=800000\n");
	/* The same count in the map dump written at the end. */
	snprintf(line, sizeof(line), "%s calls = 800000\n", f);
	cr_expect_str_eq(slurp("stats"), line);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_log_info("800000 notified syscalls from 8 threads in %.2f s (%.1f us each)", secs,
		    secs * 1e6 / 800000);
}

Test(supervisor, fork_and_exec_stay_supervised)
{
	const char *f = object(filter("count", count_src));

	/* 1000 getppid in the probe, in a forked child, in its exec'd copy. */
	cr_assert_eq(shell(SECBPF_RUN "-f '%s' -- '%s' forkexec 1000", SECBPF_BIN, f, probe), 0,
		     "%s", out);
	cr_expect_str_eq(out, "count=3000\n");
}

Test(supervisor, threads_that_come_and_go_or_exec)
{
	const char *f = object(filter("count", count_src));

	cr_assert_eq(shell(SECBPF_RUN "-f '%s' -- '%s' churn 200 10", SECBPF_BIN, f, probe), 0,
		     "%s", out);
	cr_expect_str_eq(out, "count=2000\n");
	/* A non-leader thread execs: it takes the leader's TID. */
	cr_assert_eq(shell(SECBPF_RUN "-f '%s' -- '%s' threadexec", SECBPF_BIN, f, probe), 0, "%s",
		     out);
	cr_expect_str_eq(out, "count=20\n");
}

Test(supervisor, serves_descendants_that_outlive_the_command)
{
	const char *f = object(filter("count", count_src));
	char path[4200];

	snprintf(path, sizeof(path), "%s/late", dir);
	/* CMD (sh) exits at once; its background child keeps making
	 * notified syscalls; run returns sh's status once it is done. */
	cr_assert_eq(shell(SECBPF_RUN "-f '%s' -- sh -c \"(sleep 0.3; '%s' count 1 100 > '%s') & "
				      "exit 7\"",
			   SECBPF_BIN, f, probe, path),
		     7, "%s", out);
	cr_expect_str_eq(slurp("late"), "count=100\n");
}

Test(supervisor, every_action_as_designed)
{
	const char *f = object(filter("actions", actions_src));

	cr_assert_eq(shell(SECBPF_RUN "-f '%s' -- '%s' actions", SECBPF_BIN, f, probe), 0, "%s",
		     out);
	cr_expect(strstr(out, "action1=1/0\n"), "ALLOW: %s", out);
	cr_expect(strstr(out, "action2=-1/5\n"), "ERRNO(5): %s", out);
	cr_expect(strstr(out, "action3=-1/4095\n"), "ERRNO(5000) capped: %s", out);
	cr_expect(strstr(out, "action4=-1/38 sigsys code=-1 errno=7\n"), "TRAP: %s", out);
	cr_expect(strstr(out, "action5=-1/38\n"), "TRACE: %s", out);
	cr_expect(strstr(out, "action6=1/0\n"), "LOG: %s", out);
	cr_expect(strstr(out, "LOG: pid "), "LOG is logged: %s", out);
	cr_expect(strstr(out, "action7=-1/38\n"), "USER_NOTIF: %s", out);
}

Test(supervisor, a_kill_decided_by_the_supervisor_gives_137)
{
	const char *f = object(filter("actions", actions_src));

	cr_expect_eq(shell(SECBPF_RUN "-f '%s' -- '%s' kill 8", SECBPF_BIN, f, probe), 137, "%s",
		     out);
	cr_expect(strstr(out, "before\n") && !strstr(out, "survived"), "%s", out);
	/* KILL_THREAD kills the whole process too (a documented divergence). */
	cr_expect_eq(shell(SECBPF_RUN "-f '%s' -- '%s' kill 9", SECBPF_BIN, f, probe), 137, "%s",
		     out);
	cr_expect(strstr(out, "before\n") && !strstr(out, "survived"), "%s", out);
}

Test(supervisor, fails_closed_when_the_supervisor_dies)
{
	const char *f = object(filter("actions", actions_src));
	char seed[4200];

	/* The probe kills secbpf (its parent), then tries again. The shell
	 * waits for the probe's output, so it sees the end. */
	shell(SECBPF_RUN "-f '%s' -- '%s' failclosed", SECBPF_BIN, f, probe);
	cr_expect(strstr(out, "before=0\n"), "%s", out);
	cr_expect(strstr(out, "after=38\n"), "a notified syscall must fail with ENOSYS: %s", out);
	cr_expect(strstr(out, "listener=1\n"), "a listener of its own must be EPERM: %s", out);
	cr_expect(strstr(out, "plain=0\n"), "a plain filter stays allowed: %s", out);

	/* The same with the listener built for a stack. */
	snprintf(seed, sizeof(seed), "%s/samples/seed_close.bpf.o", getenv("SECBPF_BUILD_DIR"));
	shell(SECBPF_RUN "-f '%s' -f '%s' -f '%s' -- '%s' failclosed", SECBPF_BIN, f,
	      object(filter("count", count_src)), seed, probe);
	cr_expect(strstr(out, "before=0\n"), "%s", out);
	cr_expect(strstr(out, "after=38\n"), "%s", out);
	cr_expect(strstr(out, "listener=1\n"), "%s", out);
}

Test(supervisor, a_target_cannot_ptrace_or_read_the_supervisor)
{
	const char *f = object(filter("actions", actions_src));
	char tool_dir[64], tool[4096], probe_dir[64], staged_probe[4096];
	int rc;

	if (access("/usr/bin/setpriv", X_OK)) {
		test_skip_unless_ci("setpriv(1) is needed to run the target unprivileged");
		return;
	}
	/* uid 65534 runs copies under /tmp: the build directory may be out
	 * of its reach (a clone under a 0700 home). */
	test_stage_for_other_users(SECBPF_BIN, tool_dir, sizeof(tool_dir), tool, sizeof(tool));
	test_stage_for_other_users(probe, probe_dir, sizeof(probe_dir), staged_probe,
				   sizeof(staged_probe));
	/* Unprivileged, same uid as the supervisor: only the supervisor
	 * being non-dumpable stands in the way (without Yama). */
	/* LeakSanitizer cannot stop a non-dumpable process unprivileged. */
	rc = shell("ASAN_OPTIONS=detect_leaks=0 setpriv --reuid=65534 --regid=65534 "
		   "--clear-groups " SECBPF_RUN "-f '%s' -- '%s' ptrace",
		   tool, f, staged_probe);
	test_remove_tree(tool_dir);
	test_remove_tree(probe_dir);
	cr_assert_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "notified=0\n"), "%s", out);
	cr_expect(strstr(out, "attach=1\n"), "PTRACE_ATTACH must be EPERM: %s", out);
	cr_expect(strstr(out, "vm_readv=1\n"), "process_vm_readv must be EPERM: %s", out);
	cr_expect(strstr(out, "mem=13\n"), "/proc/PID/mem must be EACCES: %s", out);
}

Test(supervisor, stacked_stateful_filters_combine)
{
	const char *c = object(filter("count", count_src));
	const char *a = object(filter("actions", actions_src));

	cr_assert_eq(
		shell(SECBPF_RUN "-f '%s' -f '%s' -- '%s' count 2 1000", SECBPF_BIN, c, a, probe),
		0, "%s", out);
	cr_expect_str_eq(out, "count=2000\n");
	cr_assert_eq(shell(SECBPF_RUN "-f '%s' -f '%s' -f '%s' -- '%s' actions", SECBPF_BIN, a, c,
			   sample("seed_close"), probe),
		     0, "%s", out);
	cr_expect(strstr(out, "action2=-1/5\n"), "%s", out);
	cr_expect(strstr(out, "action4=-1/38 sigsys code=-1 errno=7\n"), "%s", out);
}

Test(supervisor, exit_statuses_and_signals)
{
	const char *f = object(filter("count", count_src));

	cr_expect_eq(shell(SECBPF_RUN "-f '%s' -- sh -c 'exit 42'", SECBPF_BIN, f), 42, "%s", out);
	cr_expect_eq(shell(SECBPF_RUN "-f '%s' -- sh -c 'kill -TERM $$'", SECBPF_BIN, f), 143, "%s",
		     out);
	cr_expect_eq(shell(SECBPF_RUN "-f '%s' -- no-such-command-h10", SECBPF_BIN, f), 127, "%s",
		     out);
}

Test(supervisor, warns_when_stacking_on_existing_filters)
{
	const char *f = object(filter("count", count_src));

	cr_assert_eq(shell(SECBPF_RUN "-f '%s' -- '%s' run -f '%s' -- true", SECBPF_BIN,
			   sample("seed_close"), SECBPF_BIN, f),
		     0, "%s", out);
	cr_expect(strstr(out, "warning: stacking a stateful filter on 1 seccomp filter"), "%s",
		  out);
}

/* ---- the samples ---- */

Test(supervisor, sample_startup_lockdown)
{
	cr_assert_eq(shell(SECBPF_RUN "-f '%s' -- sh -c \"'%s' run /bin/true; '%s' marker "
				      "0x5ecb0d0e; /bin/true; echo after=\\$?\"",
			   SECBPF_BIN, sample("startup_lockdown"), probe, probe),
		     0, "%s", out);
	cr_expect(strstr(out, "exec=0\n"), "exec before the marker: %s", out);
	cr_expect(strstr(out, "marker=9\n"), "%s", out);
	cr_expect(strstr(out, "after=126\n"), "exec after the marker: %s", out);
}

Test(supervisor, sample_exec_once)
{
	/* CMD's own execve is the process's one: a second one fails. */
	cr_expect_eq(shell(SECBPF_RUN "-f '%s' -- sh -c 'exec /bin/true'", SECBPF_BIN,
			   sample("exec_once")),
		     126, "%s", out);
	/* A forked child is a new process: it may exec once. */
	cr_assert_eq(shell(SECBPF_RUN "-f '%s' -- '%s' run /bin/true", SECBPF_BIN,
			   sample("exec_once"), probe),
		     0, "%s", out);
	cr_expect_str_eq(out, "exec=0\n");
}

Test(supervisor, sample_deny_path)
{
	char denied[4200];
	FILE *fp;

	/* The sample's prefix is fixed; a file per test run under it. */
	mkdir("/tmp/secbpf-denied", 0755);
	snprintf(denied, sizeof(denied), "/tmp/secbpf-denied/t%d", (int)getpid());
	fp = fopen(denied, "w");
	cr_assert_not_null(fp);
	fclose(fp);
	cr_assert_eq(shell(SECBPF_RUN "-f '%s' -- '%s' open '%s'", SECBPF_BIN, sample("deny_path"),
			   probe, denied),
		     0, "%s", out);
	cr_expect_str_eq(out, "open=13\n");
	cr_assert_eq(shell(SECBPF_RUN "-f '%s' -- '%s' open /etc/passwd", SECBPF_BIN,
			   sample("deny_path"), probe),
		     0, "%s", out);
	cr_expect_str_eq(out, "open=0\n");
	unlink(denied);
}

Test(supervisor, sample_rate_limit)
{
	/* getppid limited to a burst of 5 and 1 per second: of 20 in a
	 * row, 15 fail with EAGAIN. */
	cr_assert_eq(shell(SECBPF_RUN "-f '%s' --set limited_nr=%d --set burst=5 --set "
				      "per_second=1 -- '%s' burst 20 %d",
			   SECBPF_BIN, sample("rate_limit"), __NR_getppid, probe, __NR_getppid),
		     0, "%s", out);
	cr_expect_str_eq(out, "failed=15 errno=11\n");
}

Test(supervisor, sample_syscall_count)
{
	char line[8400];

	/* Every syscall goes to the supervisor and is allowed. */
	cr_expect_eq(shell(SECBPF_RUN "--stats=stats -f '%s' -- sh -c 'echo hello; exit 3'",
			   SECBPF_BIN, sample("syscall_count")),
		     3, "%s", out);
	cr_expect_str_eq(out, "hello\n");
	/* The keys are secbpf_syscall_nr: --stats names them. */
	snprintf(line, sizeof(line), "%s syscall_counts %d = 1 (exit_group)\n",
		 sample("syscall_count"), __NR_exit_group);
	cr_expect(strstr(slurp("stats"), line), "%s", out);
	/* Only the syscall asked for, counted exactly. */
	cr_expect_eq(shell(SECBPF_RUN "--stats=stats --set counted_nr=%d -f '%s' -- '%s' burst "
				      "1000 %d",
			   SECBPF_BIN, __NR_getpgid, sample("syscall_count"), probe, __NR_getpgid),
		     0, "%s", out);
	snprintf(line, sizeof(line),
		 "%s other_abi_calls = 0\n%s syscall_counts %d = 1000 (getpgid)\n",
		 sample("syscall_count"), sample("syscall_count"), __NR_getpgid);
	cr_expect_str_eq(slurp("stats"), line);
}

Test(supervisor, the_thread_group_is_found_when_a_helper_needs_it)
{
	const char *f = object(filter("pidtgid",
				      "SEC(\"seccomp\")\n"
				      "int f(struct seccomp_data *ctx)\n"
				      "{\n"
				      "	__u64 pt;\n"
				      "	if (ctx->nr == __NR_getpgid)\n"
				      "		return SECCOMP_RET_ERRNO | 7;\n"
				      "	if (ctx->nr != __NR_getsid)\n"
				      "		return SECCOMP_RET_ALLOW;\n"
				      "	pt = bpf_get_current_pid_tgid();\n"
				      "	if ((__u32)pt != (__u32)(pt >> 32))\n"
				      "		return SECCOMP_RET_ERRNO | 4095;\n"
				      "	return SECCOMP_RET_ERRNO | ((pt >> 32) % 4000 + 1);\n"
				      "}\n"));
	char want[64];
	int pid;

	/* getpgid needs no thread group (the supervisor does not look for
	 * it); getsid asks for it, once and again. */
	cr_assert_eq(
		shell(SECBPF_RUN "-f '%s' -- sh -c 'echo pid=$$; exec \"$0\" call %d %d %d %d' "
				 "'%s'",
		      SECBPF_BIN, f, __NR_getpgid, __NR_getsid, __NR_getpgid, __NR_getsid, probe),
		0, "%s", out);
	cr_assert_eq(sscanf(out, "pid=%d", &pid), 1, "%s", out);
	snprintf(want, sizeof(want), "%d=-1/%d\n", __NR_getsid, pid % 4000 + 1);
	cr_expect(strstr(out, want) && strstr(strstr(out, want) + 1, want), "%s", out);
	snprintf(want, sizeof(want), "%d=-1/7\n", __NR_getpgid);
	cr_expect(strstr(out, want), "%s", out);
}

/* ------------------------------------------------------------------ */
/* Caps on the processes tracked                                        */
/* ------------------------------------------------------------------ */

/* getppid(0xc3) counts the calling process's calls in task storage and
 * answers ERRNO(count): each process that makes it is tracked. */
static const char per_process_src[] = "struct {\n"
				      "	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);\n"
				      "	__uint(map_flags, BPF_F_NO_PREALLOC);\n"
				      "	__type(key, int);\n"
				      "	__type(value, __u32);\n"
				      "} calls SEC(\".maps\");\n"
				      "SEC(\"seccomp\")\n"
				      "int procs(struct seccomp_data *ctx)\n"
				      "{\n"
				      "	__u32 *n;\n"
				      "	if (ctx->nr != __NR_getppid || ctx->args[0] != 0xc3)\n"
				      "		return SECCOMP_RET_ALLOW;\n"
				      "	n = bpf_task_storage_get(&calls, NULL, NULL,\n"
				      "				 BPF_LOCAL_STORAGE_GET_F_CREATE);\n"
				      "	if (!n)\n"
				      "		return SECCOMP_RET_ERRNO | ENOMEM;\n"
				      "	*n += 1;\n"
				      "	return SECCOMP_RET_ERRNO | (*n & 0x3ff);\n"
				      "}\n";

#define CAP_PROCS 5 /* processes each filtered tree starts */

/* A filtered tree: its first process (pid), the socket to it. */
struct capped_tree {
	pid_t pid;
	int sock;
	int *res; /* shared: the errno each process got, then how many did */
};

/*
 * In a child: install the filter with a listener, send the listener on
 * sock, and on a byte from it start CAP_PROCS processes that each make
 * getppid(0xc3) once; a byte back once they all got their answer, and
 * they stay until one more byte comes.
 */
static int capped_tree_main(const struct loaded *l, int sock, int *res)
{
	struct secbpf_err err = { { 0 } };
	int listener, quit[2], i;
	char c;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return 1;
	listener = attach_cbpf(l->cp.insns, l->cp.len, SUPERVISOR_LISTENER_FLAGS, &err);
	if (listener < 0 || svc_send(sock, SVC_REQ_ATTACH, NULL, 0, listener, &err))
		return 2;
	close(listener);
	if (read(sock, &c, 1) != 1 || pipe(quit))
		return 3;
	for (i = 0; i < CAP_PROCS; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 4;
		if (pid == 0) {
			close(quit[1]);
			errno = 0;
			res[i] = syscall(SYS_getppid, 0xc3) == -1 ? errno : 0;
			__atomic_add_fetch(&res[CAP_PROCS], 1, __ATOMIC_SEQ_CST);
			while (read(quit[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
	}
	while (__atomic_load_n(&res[CAP_PROCS], __ATOMIC_SEQ_CST) < CAP_PROCS)
		usleep(1000);
	/* Then wait for a byte: another tree, forked by the test, may hold
	 * the test's end of this socket too, so its close is no signal. */
	if (write(sock, "d", 1) != 1 || read(sock, &c, 1) != 1)
		return 5;
	close(quit[1]);
	while (wait(NULL) > 0)
		;
	return 0;
}

/* How many times what occurs in text. */
static int count_of(const char *text, const char *what)
{
	int n = 0;

	for (; (text = strstr(text, what)); text += strlen(what))
		n++;
	return n;
}

/* Start a capped tree and a supervisor for its listener. */
static struct supervisor *capped_tree_start(struct capped_tree *t, const struct loaded *l,
					    struct supervisor_prog *p, size_t max,
					    struct supervisor_quota *q, FILE *log)
{
	struct supervisor_opts o = { .sz = sizeof(o), .nworkers = 1, .log = log };
	struct secbpf_err err = { { 0 } };
	struct supervisor *sv;
	struct svc_msg m;
	int sp[2];

	t->res = mmap(NULL, (CAP_PROCS + 1) * sizeof(int), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(t->res, MAP_FAILED);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	t->pid = fork();
	cr_assert_geq(t->pid, 0);
	if (t->pid == 0) {
		close(sp[0]);
		_exit(capped_tree_main(l, sp[1], t->res));
	}
	close(sp[1]);
	t->sock = sp[0];
	cr_assert_eq(svc_recv(t->sock, &m, &err), 0, "%s", err.msg);
	cr_assert_geq(m.fd, 0);
	o.target_pid = t->pid;
	o.max_tracked = max;
	o.quota = q;
	sv = supervisor_new(m.fd, p, 1, &o, &err);
	cr_assert_not_null(sv, "%s", err.msg);
	cr_assert_eq(supervisor_start(sv, &err), 0, "%s", err.msg);
	return sv;
}

/* Let the tree's processes make their call; how many got 1 and EAGAIN. */
static void capped_tree_run(struct capped_tree *t, int *tracked, int *refused)
{
	char c;
	int i;

	cr_assert_eq(write(t->sock, "g", 1), 1);
	cr_assert_eq(read(t->sock, &c, 1), 1, "the tree failed");
	*tracked = *refused = 0;
	for (i = 0; i < CAP_PROCS; i++) {
		*tracked += t->res[i] == 1;
		*refused += t->res[i] == EAGAIN;
		cr_expect(t->res[i] == 1 || t->res[i] == EAGAIN, "process %d got %d", i, t->res[i]);
	}
}

static void capped_tree_end(struct capped_tree *t, struct supervisor *sv)
{
	int st;

	cr_assert_eq(write(t->sock, "q", 1), 1);
	close(t->sock);
	cr_assert_eq(waitpid(t->pid, &st, 0), t->pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	supervisor_wait(sv);
	supervisor_release_tasks(sv);
	supervisor_free(sv);
	munmap(t->res, (CAP_PROCS + 1) * sizeof(int));
}

/*
 * Two supervisors, each capped at 4 processes, share a quota of 6 (as
 * secbpfd's attachments of one uid do): the first tree's fifth process
 * is refused by its supervisor's cap, the second tree's last three by the
 * quota. Refused calls fail with EAGAIN, each cap is logged once, and the
 * quota is whole again once the trees are gone.
 */
Test(supervisor, caps_on_tracked_processes_fail_closed_and_log_once)
{
	struct supervisor_quota q = { .max = 6, .name = "the test's quota" };
	struct capped_tree a, b;
	struct supervisor_prog p;
	struct supervisor *sva, *svb;
	struct loaded l;
	int tracked, refused;
	char *logbuf = NULL, expect[128];
	size_t loglen = 0;
	FILE *log = open_memstream(&logbuf, &loglen);

	cr_assert_not_null(log);
	load(&l, object(filter("procs", per_process_src)), true);
	p = (struct supervisor_prog){
		.insns = l.cp.insns, .len = l.cp.len, .rt = l.rt, .name = "procs"
	};
	sva = capped_tree_start(&a, &l, &p, 4, &q, log);
	svb = capped_tree_start(&b, &l, &p, 4, &q, log);
	capped_tree_run(&a, &tracked, &refused);
	cr_expect_eq(tracked, 4);
	cr_expect_eq(refused, CAP_PROCS - 4);
	cr_expect_eq(__atomic_load_n(&q.used, __ATOMIC_SEQ_CST), 4);
	capped_tree_run(&b, &tracked, &refused);
	cr_expect_eq(tracked, 2);
	cr_expect_eq(refused, CAP_PROCS - 2);
	cr_expect_eq(__atomic_load_n(&q.used, __ATOMIC_SEQ_CST), 6);
	capped_tree_end(&a, sva);
	capped_tree_end(&b, svb);
	cr_expect_eq(__atomic_load_n(&q.used, __ATOMIC_SEQ_CST), 0);
	fclose(log);
	snprintf(expect, sizeof(expect), "uid %u: 4 processes tracked by the supervisor of pid %d",
		 (unsigned int)getuid(), (int)a.pid);
	cr_expect(strstr(logbuf, expect), "%s", logbuf);
	cr_expect(strstr(logbuf, "the test's quota: 6 processes tracked, the cap"), "%s", logbuf);
	/* Once each: 1 refusal by a's cap, 3 by the quota, 2 lines. */
	cr_expect_eq(count_of(logbuf, "processes tracked"), 2, "%s", logbuf);
	free(logbuf);
	unload(&l);
}
