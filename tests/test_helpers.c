// SPDX-License-Identifier: MIT
/*
 * Tests of lib/vm/helpers.c on real tasks: forked children stand for the
 * process that made a syscall (their /proc/PID/mem opened as the supervisor
 * would), and each helper family's object from tests/helpers runs on them
 * through runtime_run_task. Also `secbpf test` on an object with helpers.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "vm/maps.h"
#include "object/object.h"
#include "vm/runtime.h"

static char tmpdir[4096];

/* What the children hold at this address (same in parent and child). */
static char secret[64] = "parent";

static void setup(void)
{
	test_scratch_dir(tmpdir, sizeof(tmpdir), "secbpf-helpers");
}

static void teardown(void)
{
	cr_expect_eq(test_remove_tree(tmpdir), 0);
}

TestSuite(helpers, .init = setup, .fini = teardown);

static struct object *open_test_object(const char *name)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj;
	char path[8192];

	test_compile_helper(tmpdir, name, path, sizeof(path));
	obj = object_open_file(path, &err);
	cr_assert_not_null(obj, "%s", err.msg);
	return obj;
}

static struct runtime *make_runtime(struct object *obj, const char *prog, bool cap_ptrace,
				    FILE *log)
{
	struct runtime_opts opts = {
		.sz = sizeof(opts),
		.ncpus = 2,
		.loader_cap_sys_ptrace = cap_ptrace,
		.trace_log = log,
	};
	struct secbpf_err err = { { 0 } };
	struct object_prog *p = object_find_prog(obj, prog, &err);
	struct runtime *rt;

	cr_assert_not_null(p, "%s", err.msg);
	rt = runtime_new_opts(obj, p, &opts, &err);
	cr_assert_not_null(rt, "%s: %s", prog, err.msg);
	return rt;
}

struct result {
	int64_t rc[4];
	uint64_t val[4];
	char str[32];
	char small[4];
};

static void read_result(struct runtime *rt, void *res)
{
	uint32_t zero = 0;

	cr_assert_eq(map_lookup_user(runtime_map(rt, ".bss"), &zero, res), 0);
}

/* ---- children ------------------------------------------------------------- */

enum child_mode {
	CHILD_ROOT,   /* as this process (root in CI) */
	CHILD_NOBODY, /* uid/gid 65534, dumpable again */
	CHILD_NOBODY_NONDUMPABLE,
};

struct child {
	pid_t pid;
	int go; /* closing it lets the child exit */
	int mem_fd;
	bool valid; /* what still_valid reports */
	struct runtime_task task;
};

static int child_still_valid(void *ctx)
{
	struct child *c = ctx;

	return c->valid ? 0 : -ESRCH;
}

static void child_start(struct child *c, enum child_mode mode)
{
	int go[2], ready[2];
	char path[64], b;

	cr_assert_eq(pipe(go), 0);
	cr_assert_eq(pipe(ready), 0);
	c->pid = fork();
	cr_assert_geq(c->pid, 0);
	if (c->pid == 0) {
		/* Hold no other child's pipe open, or that child would never
		 * see the end of its own. */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != go[0] && fd != ready[1])
				close(fd);
		if (mode != CHILD_ROOT &&
		    (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534)))
			_exit(2);
		/* Changing the euid made it non-dumpable; undo that. */
		if (mode == CHILD_NOBODY && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(3);
		if (mode == CHILD_NOBODY_NONDUMPABLE && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
			_exit(4);
		prctl(PR_SET_NAME, "secbpf-kid", 0, 0, 0);
		snprintf(secret, sizeof(secret), "child %d secret", (int)getpid());
		if (write(ready[1], "r", 1) != 1)
			_exit(5);
		while (read(go[0], &b, 1) > 0)
			;
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	cr_assert_eq(read(ready[0], &b, 1), 1, "the child did not start");
	close(ready[0]);
	c->go = go[1];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)c->pid);
	c->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	c->valid = true;
	c->task = (struct runtime_task){
		.tid = c->pid,
		.tgid = c->pid,
		.mem_fd = c->mem_fd,
		.still_valid = child_still_valid,
		.still_valid_ctx = c,
		.cpu = 1,
	};
}

/* Let the child exit; returns its wait status. */
static int child_stop(struct child *c)
{
	int st = 0;

	if (c->mem_fd >= 0)
		close(c->mem_fd);
	close(c->go);
	cr_assert_eq(waitpid(c->pid, &st, 0), c->pid);
	return st;
}

static int run_task(struct runtime *rt, struct child *c, uint64_t a0, uint32_t *ret,
		    struct secbpf_err *err)
{
	struct seccomp_data sd = { .nr = 39, .arch = 0xc000003e, .args = { a0 } };

	return runtime_run_task(rt, &sd, &c->task, ret, err);
}

/* ---- the calling task -------------------------------------------------------- */

Test(helpers, pid_tgid_uid_gid_and_slot)
{
	struct object *obj = open_test_object("task");
	struct runtime *rt = make_runtime(obj, "ids", false, NULL);
	struct secbpf_err err = { { 0 } };
	struct child c;
	struct result res;
	uint32_t ret;

	if (geteuid() != 0)
		test_skip_unless_ci("needs root to make a child with another uid");
	child_start(&c, CHILD_NOBODY);
	cr_assert_eq(run_task(rt, &c, 0, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.val[0], (uint64_t)c.pid << 32 | (uint32_t)c.pid);
	cr_assert_eq(res.val[1], 65534ULL << 32 | 65534);
	cr_assert_eq(res.val[2], 1);
	/* A notification that went away fails the run: no ids are guessed. */
	c.valid = false;
	cr_assert_lt(run_task(rt, &c, 0, &ret, &err), 0);
	child_stop(&c);
	/* runtime_run: this process itself. */
	{
		struct seccomp_data sd = { .nr = 1 };

		cr_assert_eq(runtime_run(rt, &sd, &ret, &err), 0, "%s", err.msg);
		read_result(rt, &res);
		cr_assert_eq(res.val[0], (uint64_t)getpid() << 32 | (uint32_t)gettid());
		cr_assert_eq(res.val[1], (uint64_t)getgid() << 32 | getuid());
	}
	runtime_free(rt);
	object_free(obj);
}

Test(helpers, probe_read_user_str_of_a_child)
{
	struct object *obj = open_test_object("task");
	struct runtime *rt = make_runtime(obj, "read_str", false, NULL);
	struct secbpf_err err = { { 0 } };
	char want[64];
	struct result res;
	struct child c;
	uint32_t ret;

	if (geteuid() != 0)
		test_skip_unless_ci("needs root to make a child with another uid");
	child_start(&c, CHILD_NOBODY);
	cr_assert_geq(c.mem_fd, 0);
	snprintf(want, sizeof(want), "child %d secret", (int)c.pid);
	cr_assert_eq(run_task(rt, &c, (uint64_t)(uintptr_t)secret, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], (int64_t)strlen(want) + 1);
	cr_assert_str_eq(res.str, want);
	cr_assert_eq(res.rc[1], 4); /* truncated, NUL-terminated */
	cr_assert_eq(memcmp(res.small, "chi", 4), 0);
	/* An unmapped address: -EFAULT and a zeroed buffer. */
	cr_assert_eq(run_task(rt, &c, 16, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], -EFAULT);
	cr_assert_eq(res.str[0], 0);
	/* A kernel address is refused as access_ok() would. */
	cr_assert_eq(run_task(rt, &c, 0xffffffffff600000ULL, &ret, &err), 0);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], -EFAULT);
	/* Without /proc/PID/mem: process_vm_readv, same result. */
	c.task.mem_fd = -1;
	cr_assert_eq(run_task(rt, &c, (uint64_t)(uintptr_t)secret, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_str_eq(res.str, want);
	/* Read, then the notification is found invalid: fail closed. */
	c.task.mem_fd = c.mem_fd;
	c.valid = false;
	cr_assert_lt(run_task(rt, &c, (uint64_t)(uintptr_t)secret, &ret, &err), 0);
	child_stop(&c);
	runtime_free(rt);
	object_free(obj);
}

/* A string that ends right before an unmapped page reads in full. */
Test(helpers, probe_read_user_str_at_a_page_end)
{
	struct object *obj = open_test_object("task");
	struct runtime *rt = make_runtime(obj, "read_str", true, NULL);
	struct secbpf_err err = { { 0 } };
	long page = sysconf(_SC_PAGESIZE);
	struct result res;
	uint32_t ret;
	char *p;

	p = aligned_alloc((size_t)page, 2 * (size_t)page);
	cr_assert_not_null(p);
	cr_assert_eq(mprotect(p + page, (size_t)page, PROT_NONE), 0);
	memcpy(p + page - 4, "end", 4);
	{
		struct seccomp_data sd = { .nr = 1,
					   .args = { (uint64_t)(uintptr_t)(p + page - 4) } };

		cr_assert_eq(runtime_run(rt, &sd, &ret, &err), 0, "%s", err.msg);
	}
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], 4);
	cr_assert_str_eq(res.str, "end");
	mprotect(p + page, (size_t)page, PROT_READ | PROT_WRITE);
	free(p);
	runtime_free(rt);
	object_free(obj);
}

Test(helpers, probe_read_user_needs_a_dumpable_task)
{
	struct object *obj = open_test_object("task");
	struct runtime *rt = make_runtime(obj, "read_mem", false, NULL);
	struct runtime *rt_cap = make_runtime(obj, "read_mem", true, NULL);
	struct secbpf_err err = { { 0 } };
	struct result res;
	struct child c;
	uint32_t ret;

	if (geteuid() != 0)
		test_skip_unless_ci("needs root to make a child with another uid");
	child_start(&c, CHILD_NOBODY_NONDUMPABLE);
	cr_assert_geq(c.mem_fd, 0); /* root may open it; the helper must refuse */
	cr_assert_eq(run_task(rt, &c, (uint64_t)(uintptr_t)secret, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], -EPERM);
	cr_assert_eq(res.str[0], 0);
	/* CAP_SYS_PTRACE at load time lifts the rule (seed 009). */
	cr_assert_eq(run_task(rt_cap, &c, (uint64_t)(uintptr_t)secret, &ret, &err), 0, "%s",
		     err.msg);
	read_result(rt_cap, &res);
	cr_assert_eq(res.rc[0], 0);
	cr_assert_eq(strncmp(res.str, "child ", 6), 0);
	child_stop(&c);

	child_start(&c, CHILD_NOBODY);
	cr_assert_eq(run_task(rt, &c, (uint64_t)(uintptr_t)secret, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], 0);
	child_stop(&c);

	/* A root task: /proc cannot tell dumpable from not, so fail closed. */
	child_start(&c, CHILD_ROOT);
	cr_assert_eq(run_task(rt, &c, (uint64_t)(uintptr_t)secret, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], -EPERM);
	child_stop(&c);
	runtime_free(rt);
	runtime_free(rt_cap);
	object_free(obj);
}

Test(helpers, task_storage_is_per_process)
{
	struct object *obj = open_test_object("task");
	struct runtime *rt = make_runtime(obj, "storage", false, NULL);
	struct secbpf_err err = { { 0 } };
	struct child a, b;
	uint32_t ret;

	child_start(&a, CHILD_ROOT);
	child_start(&b, CHILD_ROOT);
	cr_assert_eq(runtime_task_begin(rt, a.pid, 100), 0);
	cr_assert_eq(run_task(rt, &a, 0, &ret, &err), 0, "%s", err.msg);
	cr_assert_eq(ret, 1);
	cr_assert_eq(run_task(rt, &a, 0, &ret, &err), 0);
	cr_assert_eq(ret, 2);
	cr_assert_eq(run_task(rt, &b, 0, &ret, &err), 0);
	cr_assert_eq(ret, 1);
	cr_assert_eq(run_task(rt, &a, 2, &ret, &err), 0); /* bad flags: NULL */
	cr_assert_eq(ret, 0);
	cr_assert_eq(run_task(rt, &b, 1, &ret, &err), 0); /* delete */
	cr_assert_eq(ret, 0);
	cr_assert_eq(run_task(rt, &b, 1, &ret, &err), 0);
	cr_assert_eq((int32_t)ret, -ENOENT);
	/* The exit of an earlier process with a's PID (start time 99) leaves
	 * a's storage alone. */
	runtime_task_exit(rt, a.pid, 99);
	cr_assert_eq(run_task(rt, &a, 0, &ret, &err), 0);
	cr_assert_eq(ret, 3);
	/* A later process with the PID (start 200) begins: what the earlier
	 * one left is gone before it runs, whichever supervisor saw it... */
	cr_assert_eq(runtime_task_begin(rt, a.pid, 200), 0);
	cr_assert_eq(run_task(rt, &a, 0, &ret, &err), 0);
	cr_assert_eq(ret, 1);
	/* ...and the earlier one's exit, seen late, does not free the new
	 * process's storage. */
	runtime_task_exit(rt, a.pid, 100);
	cr_assert_eq(run_task(rt, &a, 0, &ret, &err), 0);
	cr_assert_eq(ret, 2);
	/* The process exits: its storage goes. */
	runtime_task_exit(rt, a.pid, 200);
	cr_assert_eq(run_task(rt, &a, 0, &ret, &err), 0);
	cr_assert_eq(ret, 1);
	/* Creating storage for a task that went away fails, and leaves none. */
	b.valid = false;
	cr_assert_lt(run_task(rt, &b, 0, &ret, &err), 0);
	b.valid = true;
	cr_assert_eq(run_task(rt, &b, 0, &ret, &err), 0);
	cr_assert_eq(ret, 1);
	/* A run that outlived its process (its notification no longer valid)
	 * while a later process with the PID began and made storage: the old
	 * run neither reads nor deletes the new process's storage. */
	runtime_task_exit(rt, a.pid, 200);
	cr_assert_eq(runtime_task_begin(rt, a.pid, 300), 0);
	cr_assert_eq(run_task(rt, &a, 0, &ret, &err), 0);
	cr_assert_eq(ret, 1);
	a.valid = false;
	cr_assert_lt(run_task(rt, &a, 0, &ret, &err), 0, "a dead process's run saw storage");
	cr_assert_lt(run_task(rt, &a, 1, &ret, &err), 0, "a dead process's run deleted storage");
	a.valid = true;
	cr_assert_eq(run_task(rt, &a, 0, &ret, &err), 0);
	cr_assert_eq(ret, 2, "the new process's storage changed under a dead run");
	child_stop(&a);
	child_stop(&b);
	runtime_free(rt);
	object_free(obj);
}

Test(helpers, comm_cgroup_and_signal)
{
	struct object *obj = open_test_object("task");
	struct runtime *rt = make_runtime(obj, "comm", false, NULL);
	struct secbpf_err err = { { 0 } };
	char line[4096], path[8192], mnt[4096];
	struct result res;
	struct child c;
	struct stat st;
	uint32_t ret;
	FILE *f;
	int wst;

	child_start(&c, CHILD_ROOT);
	cr_assert_eq(run_task(rt, &c, 0, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], 0);
	cr_assert_str_eq(res.str, "secbpf-kid");
	cr_assert_eq(memcmp(res.small, "sec", 4), 0);
	runtime_free(rt);

	rt = make_runtime(obj, "cgroup", false, NULL);
	/* The expected id: the inode of our cgroup under the cgroup2 mount
	 * (the child is in the same cgroup). */
	mnt[0] = '\0';
	f = fopen("/proc/self/mountinfo", "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " - cgroup2 ") && sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1)
			break;
	fclose(f);
	path[0] = '\0';
	f = fopen("/proc/self/cgroup", "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (mnt[0] && !strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, sizeof(path), "%s%s", mnt, line + 3);
		}
	fclose(f);
	if (path[0] && stat(path, &st) == 0) {
		cr_assert_eq(run_task(rt, &c, 0, &ret, &err), 0, "%s", err.msg);
		read_result(rt, &res);
		cr_assert_eq(res.val[0], st.st_ino);
	}
	runtime_free(rt);

	rt = make_runtime(obj, "signal", false, NULL);
	cr_assert_eq(run_task(rt, &c, 65, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], -EINVAL);
	cr_assert_eq(run_task(rt, &c, SIGTERM, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], 0);
	wst = child_stop(&c);
	cr_assert(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGTERM, "status 0x%x", wst);
	/* runtime_run simulates: this process must not get the signal. */
	{
		struct seccomp_data sd = { .nr = 1, .args = { SIGTERM } };

		cr_assert_eq(runtime_run(rt, &sd, &ret, &err), 0, "%s", err.msg);
	}
	runtime_free(rt);
	object_free(obj);
}

Test(helpers, time_random_strncmp_printk)
{
	struct object *obj = open_test_object("task");
	char *log = NULL;
	size_t loglen = 0;
	FILE *f = open_memstream(&log, &loglen);
	struct runtime *rt = make_runtime(obj, "misc", false, f);
	struct secbpf_err err = { { 0 } };
	struct seccomp_data sd = { .nr = 39, .args = { 0xabc } };
	struct result res;
	uint64_t rnd;
	uint32_t ret;
	char want[128];

	cr_assert_eq(runtime_run(rt, &sd, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.val[0], 1);
	cr_assert_gt(res.val[1], 0);
	cr_assert_gt(res.val[2], 0);
	rnd = res.val[3];
	cr_assert_eq(res.rc[0], -100 + 0 + 1);
	cr_assert_eq(res.rc[1], (int64_t)strlen("nr=39 arg=abc s=abc"));
	cr_assert_eq(res.rc[2], -EINVAL);
	cr_assert_eq(runtime_run(rt, &sd, &ret, &err), 0);
	read_result(rt, &res);
	cr_assert_neq(res.val[3], rnd);
	fflush(f);
	snprintf(want, sizeof(want), "%d: nr=39 arg=abc s=abc\n%d: nr=39 arg=abc s=abc\n",
		 (int)gettid(), (int)gettid());
	cr_assert_str_eq(log, want);
	runtime_free(rt);
	fclose(f);
	free(log);
	object_free(obj);
}

Test(helpers, bpf_loop)
{
	struct object *obj = open_test_object("control");
	struct runtime *rt = make_runtime(obj, "loop", false, NULL);
	struct secbpf_err err = { { 0 } };
	struct seccomp_data sd = { .nr = 1, .args = { 10, 5 } };
	struct result {
		int64_t rc[4];
		uint64_t val[4];
	} res;
	uint32_t ret;

	cr_assert_eq(runtime_run(rt, &sd, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], 6); /* stopped by index 5 */
	cr_assert_eq(res.val[0], 15);
	cr_assert_eq(res.rc[1], -EINVAL);
	cr_assert_eq(res.rc[2], -E2BIG);
	sd.args[1] = 1000;
	cr_assert_eq(runtime_run(rt, &sd, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], 10);
	cr_assert_eq(res.val[0], 45);
	runtime_free(rt);
	object_free(obj);
}

struct seen {
	int n;
	uint32_t seq[8];
	uint64_t arg[8];
};

static int on_record(void *ctx, void *data, uint32_t size)
{
	struct seen *s = ctx;
	uint32_t rec[4];

	cr_assert_eq(size, 16);
	memcpy(rec, data, sizeof(rec));
	if (s->n < 8) {
		s->seq[s->n] = rec[1];
		memcpy(&s->arg[s->n], &rec[2], 8);
	}
	s->n++;
	return 0;
}

Test(helpers, ringbuf)
{
	struct object *obj = open_test_object("ringbuf");
	struct runtime *rt = make_runtime(obj, "emit", false, NULL);
	struct runtime *leak = make_runtime(obj, "leak", false, NULL);
	struct secbpf_err err = { { 0 } };
	struct seccomp_data sd = { .nr = 5, .args = { 111, 222, 0 } };
	struct result {
		int64_t rc[4];
		uint64_t val[4];
	} res;
	struct seen seen = { 0 };
	uint32_t ret;

	cr_assert_eq(runtime_run(rt, &sd, &ret, &err), 0, "%s", err.msg);
	cr_assert_eq(ret, SECCOMP_RET_ALLOW);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], 0);
	cr_assert_eq(res.val[0], 3 * 24); /* three records with headers */
	cr_assert_eq(res.val[1], 4096);
	cr_assert_eq(res.rc[1], -EINVAL);
	cr_assert_eq(map_ringbuf_consume(runtime_map(rt, "events"), on_record, &seen), 2);
	cr_assert_eq(seen.seq[0], 1);
	cr_assert_eq(seen.arg[0], 111);
	cr_assert_eq(seen.seq[1], 2);
	cr_assert_eq(seen.arg[1], 222);

	/* A run that faults holding a reservation: the record is discarded,
	 * so the consumer does not wait on it forever. */
	cr_assert_eq(runtime_run(leak, &sd, &ret, &err), -EFAULT);
	cr_assert_eq(map_ringbuf_query(runtime_map(leak, "events"), BPF_RB_AVAIL_DATA), 24);
	memset(&seen, 0, sizeof(seen));
	cr_assert_eq(map_ringbuf_consume(runtime_map(leak, "events"), on_record, &seen), 0);
	cr_assert_eq(map_ringbuf_query(runtime_map(leak, "events"), BPF_RB_AVAIL_DATA), 0);
	runtime_free(leak);
	runtime_free(rt);
	object_free(obj);
}

/* `secbpf test` runs programs with maps and helpers on fresh maps. */
Test(helpers, secbpf_test_with_helpers)
{
	const char *secbpf = getenv("SECBPF");
	char obj[8192], cmd[16384], out[256] = "";
	FILE *p;

	if (!secbpf)
		test_skip_unless_ci("SECBPF is not set");
	test_compile_helper(tmpdir, "control", obj, sizeof(obj));
	snprintf(cmd, sizeof(cmd), "'%s' test '%s:loop_errno' --nr getpid --arg 7 --arg 100",
		 secbpf, obj);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_not_null(fgets(out, sizeof(out), p));
	cr_assert_eq(pclose(p), 0);
	cr_assert_str_eq(out, "ERRNO(7)\n");

	test_compile_helper(tmpdir, "maps", obj, sizeof(obj));
	snprintf(cmd, sizeof(cmd), "'%s' test '%s:count' --nr getpid", secbpf, obj);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_not_null(fgets(out, sizeof(out), p));
	cr_assert_eq(pclose(p), 0);
	cr_assert_str_eq(out, "ALLOW\n");
}
