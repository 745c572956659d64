// SPDX-License-Identifier: MIT
/*
 * Tests of lib/vm/runtime.c: real maps for every map of an object, .rodata
 * frozen and read-only to programs, tail calls through a program array,
 * and concurrent runs from worker threads with exact shared counters. The
 * programs are the tests/helpers objects, compiled here with clang.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "vm/maps.h"
#include "object/object.h"
#include "vm/runtime.h"

static char tmpdir[4096];

static void setup(void)
{
	test_scratch_dir(tmpdir, sizeof(tmpdir), "secbpf-runtime");
}

static void teardown(void)
{
	cr_expect_eq(test_remove_tree(tmpdir), 0);
}

TestSuite(runtime, .init = setup, .fini = teardown);

/* Compile tests/helpers/NAME.bpf.c and open it. */
static struct object *open_test_object(const char *name)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj;
	char out[8192];

	test_compile_helper(tmpdir, name, out, sizeof(out));
	obj = object_open_file(out, &err);
	cr_assert_not_null(obj, "%s", err.msg);
	return obj;
}

static struct runtime *make_runtime(struct object *obj, const char *prog, unsigned int ncpus)
{
	struct runtime_opts opts = { .sz = sizeof(opts), .ncpus = ncpus };
	struct secbpf_err err = { { 0 } };
	struct object_prog *p = object_find_prog(obj, prog, &err);
	struct runtime *rt;

	cr_assert_not_null(p, "%s", err.msg);
	rt = runtime_new_opts(obj, p, &opts, &err);
	cr_assert_not_null(rt, "%s: %s", prog, err.msg);
	return rt;
}

static int run(struct runtime *rt, uint32_t nr, uint64_t a0, uint64_t a1, uint32_t *ret,
	       struct secbpf_err *err)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = 0xc000003e, .args = { a0, a1 } };

	return runtime_run(rt, &sd, ret, err);
}

struct result {
	int64_t rc[4];
	uint64_t val[4];
};

static void read_result(struct runtime *rt, struct result *res)
{
	struct map *bss = runtime_map(rt, ".bss");
	uint32_t zero = 0;

	cr_assert_not_null(bss);
	cr_assert_eq(map_lookup_user(bss, &zero, res), 0);
}

static int prog_index(struct object *obj, const char *name)
{
	uint32_t i;

	for (i = 0; i < obj->prog_cnt; i++)
		if (!strcmp(obj->progs[i].name, name))
			return (int)i;
	cr_assert_fail("no program %s", name);
	return -1;
}

Test(runtime, rodata_frozen_and_read_only)
{
	struct object *obj = open_test_object("maps");
	struct secbpf_err err = { { 0 } };
	struct runtime *rt;
	uint32_t ret = 0, zero = 0, v = 9;
	struct map *ro;

	rt = make_runtime(obj, "rodata_read", 1);
	cr_assert_eq(run(rt, 1, 0, 0, &ret, &err), 0, "%s", err.msg);
	cr_assert_eq(ret, 7);
	ro = runtime_map(rt, ".rodata");
	cr_assert_not_null(ro);
	cr_assert(map_is_frozen(ro));
	cr_assert_eq(map_update_user(ro, &zero, &v, BPF_ANY), -EPERM);
	runtime_free(rt);

	rt = make_runtime(obj, "rodata_write", 1);
	cr_assert_eq(run(rt, 1, 99, 0, &ret, &err), -EFAULT);
	cr_assert(strstr(err.msg, "read-only"), "%s", err.msg);
	runtime_free(rt);
	object_free(obj);
}

Test(runtime, queue_and_delete)
{
	struct object *obj = open_test_object("maps");
	struct secbpf_err err = { { 0 } };
	struct runtime *rt = make_runtime(obj, "queue", 1);
	struct result res;
	uint32_t ret;

	cr_assert_eq(run(rt, 1, 0, 11, &ret, &err), 0, "%s", err.msg);
	cr_assert_eq(run(rt, 1, 0, 12, &ret, &err), 0);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], 0);
	cr_assert_eq(run(rt, 1, 0, 13, &ret, &err), 0);	/* full */
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], -E2BIG);
	cr_assert_eq(run(rt, 1, 2, 0, &ret, &err), 0);	/* peek */
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], 0);
	cr_assert_eq(res.val[0], 11);
	cr_assert_eq(run(rt, 1, 1, 0, &ret, &err), 0);
	cr_assert_eq(run(rt, 1, 1, 0, &ret, &err), 0);
	read_result(rt, &res);
	cr_assert_eq(res.val[0], 12);
	cr_assert_eq(run(rt, 1, 1, 0, &ret, &err), 0);	/* empty: zeroed */
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], -ENOENT);
	cr_assert_eq(res.val[0], 0);
	cr_assert_eq(run(rt, 1, 3, 5, &ret, &err), 0);	/* delete absent */
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], -ENOENT);
	runtime_free(rt);
	object_free(obj);
}

Test(runtime, for_each_map_elem)
{
	struct object *obj = open_test_object("maps");
	struct secbpf_err err = { { 0 } };
	struct runtime *rt = make_runtime(obj, "walk", 1);
	struct map *table = runtime_map(rt, "table");
	struct result res;
	uint64_t v;
	uint32_t i, ret;

	for (i = 0; i < 8; i++) {
		v = i * 10;
		cr_assert_eq(map_update_user(table, &i, &v, BPF_ANY), 0);
	}
	cr_assert_eq(run(rt, 1, 3, 0, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], 4);
	cr_assert_eq(res.val[0], 60);
	cr_assert_eq(res.rc[1], -EINVAL);
	i = 3;
	cr_assert_eq(map_lookup_user(table, &i, &v), 0);
	cr_assert_eq(v, 31);	/* written by the callback */
	i = 4;
	cr_assert_eq(map_lookup_user(table, &i, &v), 0);
	cr_assert_eq(v, 40);
	/* A walk of all 8 elements keeps the run's regions bounded. */
	for (i = 0; i < 100; i++)
		cr_assert_eq(run(rt, 1, 100, 0, &ret, &err), 0, "%s", err.msg);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], 8);
	runtime_free(rt);
	object_free(obj);
}

Test(runtime, tail_calls)
{
	struct object *obj = open_test_object("control");
	struct secbpf_err err = { { 0 } };
	struct runtime *rt = make_runtime(obj, "entry", 1);
	struct map *jumps = runtime_map(rt, "jumps");
	uint32_t idx, prog, ret;
	struct result res;

	cr_assert_not_null(jumps);
	/* Empty program array: every tail call falls through. */
	cr_assert_eq(run(rt, 1, 1, 0, &ret, &err), 0, "%s", err.msg);
	cr_assert_eq(ret, 1000);
	read_result(rt, &res);
	cr_assert_eq(res.rc[0], -ENOENT);

	idx = 1;
	prog = (uint32_t)prog_index(obj, "target");
	cr_assert_eq(map_update_user(jumps, &idx, &prog, BPF_ANY), 0);
	idx = 2;
	prog = (uint32_t)prog_index(obj, "again");
	cr_assert_eq(map_update_user(jumps, &idx, &prog, BPF_ANY), 0);

	cr_assert_eq(run(rt, 1, 1, 0, &ret, &err), 0, "%s", err.msg);
	cr_assert_eq(ret, 42);
	cr_assert_eq(run(rt, 1, 3, 0, &ret, &err), 0);	/* empty slot */
	cr_assert_eq(ret, 1000);
	cr_assert_eq(run(rt, 1, 1ULL << 32 | 9, 0, &ret, &err), 0); /* out of range */
	cr_assert_eq(ret, 1000);
	/* entry -> again -> again ...: 33 tail calls, then it falls through. */
	cr_assert_eq(run(rt, 1, 2, 0, &ret, &err), 0, "%s", err.msg);
	cr_assert_eq(ret, 7);
	read_result(rt, &res);
	cr_assert_eq(res.val[0], 33);
	runtime_free(rt);

	/* From a subprogram: the kernel returns into the caller's caller,
	 * which this runtime does not do, so the run fails. */
	rt = make_runtime(obj, "from_sub", 1);
	jumps = runtime_map(rt, "jumps");
	idx = 1;
	prog = (uint32_t)prog_index(obj, "target");
	cr_assert_eq(map_update_user(jumps, &idx, &prog, BPF_ANY), 0);
	cr_assert_lt(run(rt, 1, 0, 0, &ret, &err), 0);
	cr_assert(strstr(err.msg, "subprogram"), "%s", err.msg);
	runtime_free(rt);
	object_free(obj);
}

struct worker {
	struct runtime *rt;
	unsigned int cpu;
	int failures;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct runtime_task task = {
		.tid = gettid(), .tgid = getpid(), .mem_fd = -1, .cpu = w->cpu,
	};
	struct seccomp_data sd = { .nr = 39, .arch = 0xc000003e };
	struct secbpf_err err;
	uint32_t ret;
	int i;

	for (i = 0; i < 100000; i++)
		if (runtime_run_task(w->rt, &sd, &task, &ret, &err) || ret != SECCOMP_RET_ALLOW)
			w->failures++;
	return NULL;
}

Test(runtime, concurrent_counters_are_exact, .timeout = 120)
{
	struct object *obj = open_test_object("maps");
	struct runtime *rt = make_runtime(obj, "count", 4);
	struct worker w[4];
	pthread_t th[4];
	uint64_t count, slots[4];
	uint32_t nr = 39, zero = 0;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		w[i] = (struct worker){ .rt = rt, .cpu = i };
		cr_assert_eq(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		cr_assert_eq(w[i].failures, 0);
	}
	cr_assert_eq(map_lookup_user(runtime_map(rt, "counts"), &nr, &count), 0);
	cr_assert_eq(count, 400000);
	cr_assert_eq(map_user_value_size(runtime_map(rt, "slots")), sizeof(slots));
	cr_assert_eq(map_lookup_user(runtime_map(rt, "slots"), &zero, slots), 0);
	for (i = 0; i < 4; i++)
		cr_assert_eq(slots[i], 100000, "slot %u: %llu", i, (unsigned long long)slots[i]);
	runtime_free(rt);
	object_free(obj);
}

Test(runtime, bad_worker_slot_and_options)
{
	struct object *obj = open_test_object("maps");
	struct runtime *rt = make_runtime(obj, "count", 2);
	struct runtime_task task = { .tid = gettid(), .tgid = getpid(), .mem_fd = -1, .cpu = 2 };
	struct seccomp_data sd = { .nr = 1 };
	struct secbpf_err err = { { 0 } };
	struct runtime_opts opts = { 0 };
	uint32_t ret;

	cr_assert_eq(runtime_run_task(rt, &sd, &task, &ret, &err), -EINVAL);
	task.cpu = 1;
	cr_assert_eq(runtime_run_task(rt, &sd, &task, &ret, &err), 0, "%s", err.msg);
	runtime_free(rt);
	cr_assert_null(runtime_new_opts(obj, &obj->progs[0], &opts, &err));
	object_free(obj);
}
