// SPDX-License-Identifier: MIT
/*
 * Tests for lib/vm/maps.c: every map type's operations and kernel error codes,
 * LRU eviction, queue/stack and ring buffer wraparound, iteration, and
 * multi-threaded exactness (run under ASan/UBSan and TSan as well).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/maps.h"

#ifndef TEST_MAPS_NO_CRITERION
#include <criterion/criterion.h>
#else
/*
 * Criterion cannot start under ThreadSanitizer (its arena mapping fails,
 * upstream issue Snaipe/Criterion#274), so -DTEST_MAPS_NO_CRITERION builds
 * these same tests with a minimal runner: assertions abort with file:line.
 */
#include <stdio.h>
#include <sys/wait.h>

static struct {
	const char *name;
	void (*fn)(void);
} shim_tests[64];
static int shim_count;

static void shim_register(const char *name, void (*fn)(void))
{
	if (shim_count < 64)
		shim_tests[shim_count++] = (typeof(shim_tests[0])){ name, fn };
}

static void shim_check(bool ok, const char *expr, const char *file, int line)
{
	if (ok)
		return;
	fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, expr);
	abort();
}

#define Test(suite, name, ...)                                                                     \
	static void suite##_##name(void);                                                          \
	__attribute__((constructor)) static void suite##_##name##_register(void)                   \
	{                                                                                          \
		shim_register(#suite "::" #name, suite##_##name);                                  \
	}                                                                                          \
	static void suite##_##name(void)
#define SHIM(cond, text) shim_check((cond), text, __FILE__, __LINE__)
#define cr_assert(c, ...) SHIM(!!(c), #c)
#define cr_assert_not(c, ...) SHIM(!(c), "!" #c)
#define cr_assert_null(p, ...) SHIM((p) == NULL, #p " == NULL")
#define cr_assert_not_null(p, ...) SHIM((p) != NULL, #p " != NULL")
#define cr_assert_eq(a, b, ...) SHIM((a) == (b), #a " == " #b)
#define cr_assert_neq(a, b, ...) SHIM((a) != (b), #a " != " #b)
#define cr_assert_lt(a, b, ...) SHIM((a) < (b), #a " < " #b)
#define cr_assert_leq(a, b, ...) SHIM((a) <= (b), #a " <= " #b)
#define cr_assert_gt(a, b, ...) SHIM((a) > (b), #a " > " #b)
#define cr_assert_geq(a, b, ...) SHIM((a) >= (b), #a " >= " #b)
#define cr_assert_str_eq(a, b, ...) SHIM(!strcmp((a), (b)), #a " == " #b)
#define cr_assert_fail(...) SHIM(false, "fail")

/*
 * Each test runs in a child, as under Criterion, so that one failure (an
 * assertion's abort, or a ThreadSanitizer report: scripts/test-tsan sets
 * halt_on_error and exitcode) counts once and the others still run. The
 * last line is Criterion's Synthesis line, which scripts/test counts.
 * liburcu is not instrumented: scripts/test-tsan passes tests/tsan.supp.
 */
int main(int argc, char **argv)
{
	int i, status, run = 0, failed = 0, crashed = 0;
	pid_t pid;

	for (i = 0; i < shim_count; i++) {
		if (argc > 1 && !strstr(shim_tests[i].name, argv[1]))
			continue;
		run++;
		fflush(stderr);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			shim_tests[i].fn();
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid) {
			perror("waitpid");
			return 1;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		if (WIFSIGNALED(status))
			crashed++;
		failed++;
		fprintf(stderr, "[FAIL] %s: %s %d\n", shim_tests[i].name,
			WIFSIGNALED(status) ? "signal" : "exit status",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
	/* Criterion's "Failing" includes "Crashing". */
	fprintf(stderr, "[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: %d\n",
		run, run - failed, failed, crashed);
	return failed ? 1 : 0;
}
#endif

static struct object_map spec(uint32_t type, uint32_t key_size, uint32_t value_size,
			      uint32_t max_entries, uint32_t flags)
{
	struct object_map s = {
		.name = "m",
		.kind = OBJECT_MAP_BTF,
		.type = type,
		.key_size = key_size,
		.value_size = value_size,
		.max_entries = max_entries,
		.map_flags = flags,
	};
	return s;
}

static struct map *make(uint32_t type, uint32_t key_size, uint32_t value_size, uint32_t max_entries,
			uint32_t flags, unsigned int ncpus)
{
	struct object_map s = spec(type, key_size, value_size, max_entries, flags);
	struct secbpf_err err = { { 0 } };
	struct map *m = map_create(&s, ncpus, &err);

	cr_assert_not_null(m, "map_create: %s", err.msg);
	return m;
}

/* map_create must fail with errno == want and a message. */
static void create_fails(uint32_t type, uint32_t key_size, uint32_t value_size,
			 uint32_t max_entries, uint32_t flags, int want)
{
	struct object_map s = spec(type, key_size, value_size, max_entries, flags);
	struct secbpf_err err = { { 0 } };
	struct map *m;

	errno = 0;
	m = map_create(&s, 2, &err);
	cr_assert_null(m, "type %u ks %u vs %u n %u flags 0x%x accepted", type, key_size,
		       value_size, max_entries, flags);
	cr_assert_eq(errno, want, "type %u ks %u vs %u n %u flags 0x%x: errno %d, want %d (%s)",
		     type, key_size, value_size, max_entries, flags, errno, want, err.msg);
	cr_assert(err.msg[0], "no message");
}

/* ---- creation ---------------------------------------------------------- */

Test(maps_create, rejects_bad_specs)
{
	create_fails(BPF_MAP_TYPE_HASH, 0, 8, 10, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_HASH, 4, 0, 10, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_HASH, 4, 8, 0, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_HASH, 513, 8, 10, 0, E2BIG);
	create_fails(BPF_MAP_TYPE_HASH, 4, 8, 10, BPF_F_NUMA_NODE, EINVAL);
	create_fails(BPF_MAP_TYPE_HASH, 4, 8, 10, BPF_F_NO_COMMON_LRU, EINVAL);
	create_fails(BPF_MAP_TYPE_HASH, 4, 8, 10, BPF_F_RDONLY | BPF_F_WRONLY, EINVAL);
	create_fails(BPF_MAP_TYPE_HASH, 4, 8, 10, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG, EINVAL);
	create_fails(BPF_MAP_TYPE_LRU_HASH, 4, 8, 10, BPF_F_NO_PREALLOC, ENOTSUPP);
	create_fails(BPF_MAP_TYPE_PERCPU_HASH, 4, 40000, 10, 0, E2BIG);
	create_fails(BPF_MAP_TYPE_HASH, 4, 1 << 22, 10, 0, E2BIG);
	create_fails(BPF_MAP_TYPE_HASH, 8, 4096, 1 << 20, 0, ENOMEM);
	create_fails(BPF_MAP_TYPE_ARRAY, 8, 8, 10, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_ARRAY, 4, 0, 10, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_ARRAY, 4, 8, 0, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_ARRAY, 4, 8, 10, BPF_F_NO_PREALLOC, EINVAL);
	create_fails(BPF_MAP_TYPE_ARRAY, 4, 1 << 20, 2048, 0, ENOMEM);
	create_fails(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 10, BPF_F_MMAPABLE, EINVAL);
	create_fails(BPF_MAP_TYPE_PROG_ARRAY, 4, 8, 10, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 10, BPF_F_RDONLY_PROG, EINVAL);
	create_fails(BPF_MAP_TYPE_QUEUE, 4, 8, 10, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_STACK, 0, 0, 10, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_QUEUE, 0, 8, 10, BPF_F_NO_PREALLOC, EINVAL);
	create_fails(BPF_MAP_TYPE_RINGBUF, 0, 0, 4096 * 3, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_RINGBUF, 0, 0, 2048, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_RINGBUF, 4, 0, 4096, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, BPF_F_RDONLY, EINVAL);
	create_fails(BPF_MAP_TYPE_RINGBUF, 0, 0, 1U << 31, 0, ENOMEM);
	create_fails(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, 4, 0, EINVAL);
	create_fails(BPF_MAP_TYPE_SK_STORAGE, 4, 4, 4, 0, EINVAL);
}

Test(maps_create, accepts_kernel_flags_and_reports_sizes)
{
	struct map *m = make(BPF_MAP_TYPE_HASH, 6, 12, 7,
			     BPF_F_NO_PREALLOC | BPF_F_ZERO_SEED | BPF_F_RDONLY_PROG, 3);

	cr_assert_str_eq(map_name(m), "m");
	cr_assert_eq(map_type(m), BPF_MAP_TYPE_HASH);
	cr_assert_eq(map_key_size(m), 6);
	cr_assert_eq(map_value_size(m), 12);
	cr_assert_eq(map_max_entries(m), 7);
	cr_assert_eq(map_ncpus(m), 3);
	cr_assert_eq(map_user_value_size(m), 12);
	cr_assert_not(map_prog_writable(m));
	map_free(m);

	m = make(BPF_MAP_TYPE_PERCPU_HASH, 4, 12, 7, 0, 3);
	cr_assert_eq(map_user_value_size(m), 3 * 16);
	map_free(m);
	m = make(BPF_MAP_TYPE_LRU_PERCPU_HASH, 4, 4, 7, BPF_F_NO_COMMON_LRU, 1);
	map_free(m);
	m = make(BPF_MAP_TYPE_ARRAY, 4, 4, 7, BPF_F_MMAPABLE | BPF_F_RDONLY_PROG, 1);
	map_free(m);
	cr_assert_null(map_create(NULL, 1, NULL));
	map_free(NULL);
}

Test(maps_create, bad_ncpus)
{
	struct object_map s = spec(BPF_MAP_TYPE_HASH, 4, 4, 4, 0);

	errno = 0;
	cr_assert_null(map_create(&s, 0, NULL));
	cr_assert_eq(errno, EINVAL);
}

/* ---- hash --------------------------------------------------------------- */

Test(maps_hash, update_lookup_delete_and_flags)
{
	struct map *m = make(BPF_MAP_TYPE_HASH, 4, 8, 2, 0, 1);
	uint32_t k1 = 1, k2 = 2, k3 = 3;
	uint64_t v = 10, out;
	uint64_t *p;

	cr_assert_null(map_lookup(m, &k1, 0));
	cr_assert_eq(map_update(m, &k1, &v, BPF_EXIST, 0), -ENOENT);
	cr_assert_eq(map_update(m, &k1, &v, BPF_NOEXIST, 0), 0);
	cr_assert_eq(map_update(m, &k1, &v, BPF_NOEXIST, 0), -EEXIST);
	v = 11;
	cr_assert_eq(map_update(m, &k1, &v, BPF_EXIST, 0), 0);
	map_rcu_read_lock();
	p = map_lookup(m, &k1, 0);
	cr_assert_not_null(p);
	cr_assert_eq(*p, 11);
	map_rcu_read_unlock();

	cr_assert_eq(map_update(m, &k2, &v, BPF_ANY, 0), 0);
	cr_assert_eq(map_update(m, &k3, &v, BPF_ANY, 0), -E2BIG, "full");
	cr_assert_eq(map_update(m, &k3, &v, BPF_NOEXIST, 0), -E2BIG);
	v = 12;
	cr_assert_eq(map_update(m, &k2, &v, BPF_ANY, 0), 0, "replace when full");
	cr_assert_eq(map_update(m, &k2, &v, BPF_F_LOCK, 0), -EINVAL);
	cr_assert_eq(map_update(m, &k2, &v, BPF_EXIST | BPF_F_LOCK, 0), -EINVAL);
	cr_assert_eq(map_update(m, &k2, &v, 3, 0), -EINVAL);
	cr_assert_eq(map_update(m, &k2, &v, 8, 0), -EINVAL);
	cr_assert_eq(map_update(m, &k2, &v, BPF_ANY, 1), -EINVAL, "cpu out of range");

	cr_assert_eq(map_delete(m, &k3), -ENOENT);
	cr_assert_eq(map_delete(m, &k1), 0);
	cr_assert_eq(map_delete(m, &k1), -ENOENT);
	cr_assert_null(map_lookup(m, &k1, 0));
	cr_assert_eq(map_update(m, &k3, &v, BPF_NOEXIST, 0), 0, "slot freed by delete");

	cr_assert_eq(map_lookup_user(m, &k2, &out), 0);
	cr_assert_eq(out, 12);
	cr_assert_eq(map_lookup_user(m, &k1, &out), -ENOENT);
	cr_assert_eq(map_update_user(m, &k1, &v, BPF_ANY), -E2BIG);
	cr_assert_eq(map_delete_user(m, &k2), 0);
	cr_assert_eq(map_update_user(m, &k1, &v, BPF_ANY), 0);
	cr_assert_eq(map_update_user(m, &k1, &v, BPF_F_LOCK), -EINVAL);
	map_free(m);
}

Test(maps_hash, odd_key_and_value_sizes)
{
	struct map *m = make(BPF_MAP_TYPE_HASH, 13, 3, 64, 0, 1);
	unsigned char key[13], val[3], out[3];
	int i;

	for (i = 0; i < 64; i++) {
		memset(key, i, sizeof(key));
		key[12] = (unsigned char)(255 - i);
		memset(val, i + 1, sizeof(val));
		cr_assert_eq(map_update(m, key, val, BPF_NOEXIST, 0), 0);
	}
	for (i = 0; i < 64; i++) {
		memset(key, i, sizeof(key));
		key[12] = (unsigned char)(255 - i);
		cr_assert_eq(map_lookup_user(m, key, out), 0);
		cr_assert_eq(out[0], i + 1);
		cr_assert_eq(out[2], i + 1);
	}
	map_free(m);
}

Test(maps_hash, replaced_value_stays_readable_in_section)
{
	struct map *m = make(BPF_MAP_TYPE_HASH, 4, 8, 4, 0, 1);
	uint32_t k = 7;
	uint64_t v = 1, *old, *cur;

	cr_assert_eq(map_update(m, &k, &v, BPF_ANY, 0), 0);
	map_rcu_read_lock();
	old = map_lookup(m, &k, 0);
	v = 2;
	cr_assert_eq(map_update(m, &k, &v, BPF_ANY, 0), 0);
	cur = map_lookup(m, &k, 0);
	cr_assert_neq(old, cur, "BPF_ANY installs a new element");
	cr_assert_eq(*old, 1, "a reader keeps the old value");
	cr_assert_eq(*cur, 2);
	cr_assert_eq(map_delete(m, &k), 0);
	cr_assert_eq(*cur, 2, "deleted memory lives until the section ends");
	map_rcu_read_unlock();
	map_rcu_barrier();
	map_free(m);
}

Test(maps_hash, value_updated_in_place)
{
	struct map *m = make(BPF_MAP_TYPE_HASH, 4, 8, 4, 0, 1);
	uint32_t k = 1;
	uint64_t v = 5, out;
	uint64_t *p;

	map_update(m, &k, &v, BPF_ANY, 0);
	map_rcu_read_lock();
	p = map_lookup(m, &k, 0);
	__atomic_fetch_add(p, 3, __ATOMIC_RELAXED);
	map_rcu_read_unlock();
	cr_assert_eq(map_lookup_user(m, &k, &out), 0);
	cr_assert_eq(out, 8);
	map_free(m);
}

Test(maps_hash, get_next_key_visits_every_key_once)
{
	enum { N = 1000 };
	struct map *m = make(BPF_MAP_TYPE_HASH, 4, 4, N, 0, 1);
	static unsigned char seen[N];
	uint32_t k, next, missing = N + 5;
	int count = 0, ret;
	uint32_t *prev = NULL;

	cr_assert_eq(map_get_next_key(m, NULL, &next), -ENOENT, "empty");
	for (k = 0; k < N; k++)
		cr_assert_eq(map_update(m, &k, &k, BPF_NOEXIST, 0), 0);
	while ((ret = map_get_next_key(m, prev, &next)) == 0) {
		cr_assert_lt(next, N);
		cr_assert_eq(seen[next], 0, "key %u seen twice", next);
		seen[next] = 1;
		count++;
		k = next;
		prev = &k;
	}
	cr_assert_eq(ret, -ENOENT);
	cr_assert_eq(count, N);
	/* A key that is not there restarts from the first key. */
	cr_assert_eq(map_get_next_key(m, &missing, &next), 0);
	cr_assert_eq(map_get_next_key(m, NULL, &k), 0);
	cr_assert_eq(next, k);
	map_free(m);
}

/* Deleting while iterating (the usual dump-and-clear loop). */
Test(maps_hash, get_next_key_with_delete)
{
	struct map *m = make(BPF_MAP_TYPE_HASH, 4, 4, 100, 0, 1);
	uint32_t k, next;
	int n = 0;

	for (k = 0; k < 100; k++)
		map_update(m, &k, &k, BPF_ANY, 0);
	while (map_get_next_key(m, NULL, &next) == 0) {
		cr_assert_eq(map_delete_user(m, &next), 0);
		n++;
	}
	cr_assert_eq(n, 100);
	map_free(m);
}

Test(maps_hash, zero_seed_is_deterministic_order)
{
	struct map *a = make(BPF_MAP_TYPE_HASH, 4, 4, 64, BPF_F_ZERO_SEED, 1);
	struct map *b = make(BPF_MAP_TYPE_HASH, 4, 4, 64, BPF_F_ZERO_SEED, 1);
	uint32_t k, ka, kb;
	int ra, rb;

	for (k = 0; k < 50; k++) {
		map_update(a, &k, &k, BPF_ANY, 0);
		map_update(b, &k, &k, BPF_ANY, 0);
	}
	ra = map_get_next_key(a, NULL, &ka);
	rb = map_get_next_key(b, NULL, &kb);
	while (ra == 0 && rb == 0) {
		cr_assert_eq(ka, kb);
		ra = map_get_next_key(a, &ka, &ka);
		rb = map_get_next_key(b, &kb, &kb);
	}
	cr_assert_eq(ra, rb);
	map_free(a);
	map_free(b);
}

Test(maps_percpu_hash, slots_are_separate)
{
	struct map *m = make(BPF_MAP_TYPE_PERCPU_HASH, 4, 4, 8, 0, 3);
	uint32_t k = 9, v = 5, all[3 * 2] = { 0 };
	uint32_t *p0, *p1;

	cr_assert_eq(map_update(m, &k, &v, BPF_NOEXIST, 1), 0);
	cr_assert_eq(map_lookup_user(m, &k, all), 0);
	/* Stride is round_up(4, 8) = 8 bytes: two u32 per slot. */
	cr_assert_eq(all[0], 0, "other slots start at zero");
	cr_assert_eq(all[2], 5);
	cr_assert_eq(all[4], 0);

	v = 7;
	cr_assert_eq(map_update(m, &k, &v, BPF_EXIST, 0), 0);
	map_rcu_read_lock();
	p0 = map_lookup(m, &k, 0);
	p1 = map_lookup(m, &k, 1);
	cr_assert_eq(*p0, 7);
	cr_assert_eq(*p1, 5, "update from slot 0 leaves slot 1 alone");
	cr_assert_null(map_lookup(m, &k, 3), "slot out of range");
	map_rcu_read_unlock();

	all[0] = 100;
	all[2] = 101;
	all[4] = 102;
	cr_assert_eq(map_update_user(m, &k, all, BPF_EXIST), 0);
	memset(all, 0, sizeof(all));
	cr_assert_eq(map_lookup_user(m, &k, all), 0);
	cr_assert_eq(all[0], 100);
	cr_assert_eq(all[2], 101);
	cr_assert_eq(all[4], 102);
	k = 10;
	cr_assert_eq(map_update_user(m, &k, all, BPF_ANY), 0);
	cr_assert_eq(map_update(m, &k, &v, BPF_NOEXIST, 2), -EEXIST);
	map_free(m);
}

/* ---- LRU ---------------------------------------------------------------- */

Test(maps_lru, evicts_oldest_unreferenced)
{
	struct map *m = make(BPF_MAP_TYPE_LRU_HASH, 4, 4, 4, 0, 1);
	uint32_t k, v = 0;

	for (k = 1; k <= 4; k++)
		cr_assert_eq(map_update(m, &k, &k, BPF_NOEXIST, 0), 0);
	/* Touch 1: it gets a second chance; 2 is the oldest untouched. */
	k = 1;
	cr_assert_not_null(map_lookup(m, &k, 0));
	k = 5;
	cr_assert_eq(map_update(m, &k, &k, BPF_NOEXIST, 0), 0, "full LRU evicts, no -E2BIG");
	k = 2;
	cr_assert_eq(map_lookup_user(m, &k, &v), -ENOENT, "2 evicted");
	for (k = 1; k <= 5; k++)
		if (k != 2)
			cr_assert_eq(map_lookup_user(m, &k, &v), 0, "%u kept", k);
	k = 6;
	cr_assert_eq(map_update(m, &k, &k, BPF_ANY, 0), 0);
	k = 3;
	cr_assert_eq(map_lookup_user(m, &k, &v), -ENOENT, "3 evicted next");

	/* Flags keep their meaning. */
	k = 6;
	cr_assert_eq(map_update(m, &k, &k, BPF_NOEXIST, 0), -EEXIST);
	k = 42;
	cr_assert_eq(map_update(m, &k, &k, BPF_EXIST, 0), -ENOENT);
	cr_assert_eq(map_delete(m, &k), -ENOENT);
	k = 6;
	cr_assert_eq(map_delete(m, &k), 0);
	cr_assert_eq(map_lookup_user(m, &k, &v), -ENOENT);
	map_free(m);
}

Test(maps_lru, never_exceeds_max_entries)
{
	struct map *m = make(BPF_MAP_TYPE_LRU_HASH, 4, 4, 16, 0, 1);
	uint32_t k, next;
	int n = 0;

	for (k = 0; k < 1000; k++) {
		cr_assert_eq(map_update(m, &k, &k, BPF_ANY, 0), 0);
		if (k % 3 == 0)
			map_lookup(m, &k, 0);
	}
	k = 999;
	cr_assert_eq(map_lookup_user(m, &k, &next), 0, "newest kept");
	while (map_get_next_key(m, n ? &k : NULL, &next) == 0) {
		k = next;
		n++;
	}
	cr_assert_eq(n, 16);
	map_free(m);
}

Test(maps_lru, percpu)
{
	struct map *m = make(BPF_MAP_TYPE_LRU_PERCPU_HASH, 4, 8, 2, 0, 2);
	uint32_t k;
	uint64_t v = 3, all[2];

	for (k = 0; k < 3; k++)
		cr_assert_eq(map_update(m, &k, &v, BPF_ANY, 1), 0);
	k = 0;
	cr_assert_eq(map_lookup_user(m, &k, all), -ENOENT);
	k = 2;
	cr_assert_eq(map_lookup_user(m, &k, all), 0);
	cr_assert_eq(all[0], 0);
	cr_assert_eq(all[1], 3);
	v = 4;
	cr_assert_eq(map_update(m, &k, &v, BPF_EXIST, 0), 0);
	cr_assert_eq(map_lookup_user(m, &k, all), 0);
	cr_assert_eq(all[0], 4);
	cr_assert_eq(all[1], 3);
	k = 9;
	cr_assert_eq(map_update(m, &k, &v, BPF_EXIST, 0), -ENOENT);
	map_free(m);
}

/* ---- arrays ---------------------------------------------------------------- */

Test(maps_array, semantics)
{
	struct map *m = make(BPF_MAP_TYPE_ARRAY, 4, 12, 4, 0, 1);
	uint32_t k = 2, bad = 4, next;
	unsigned char v[12], out[12];
	unsigned char *p;

	p = map_lookup(m, &k, 0);
	cr_assert_not_null(p);
	cr_assert_eq(((uintptr_t)p) % 8, 0, "values 8-byte aligned");
	memset(out, 1, sizeof(out));
	cr_assert_eq(map_lookup_user(m, &k, out), 0);
	for (int i = 0; i < 12; i++)
		cr_assert_eq(out[i], 0, "zero initialised");
	cr_assert_null(map_lookup(m, &bad, 0));
	memset(v, 0xab, sizeof(v));
	cr_assert_eq(map_update(m, &bad, v, BPF_ANY, 0), -E2BIG);
	cr_assert_eq(map_update(m, &bad, v, BPF_F_LOCK, 0), -E2BIG, "index checked before lock");
	cr_assert_eq(map_update(m, &k, v, BPF_NOEXIST, 0), -EEXIST);
	cr_assert_eq(map_update(m, &k, v, BPF_F_LOCK, 0), -EINVAL);
	cr_assert_eq(map_update(m, &k, v, 3, 0), -EINVAL);
	cr_assert_eq(map_update(m, &k, v, BPF_EXIST, 0), 0);
	cr_assert_eq(map_update(m, &k, v, BPF_ANY, 0), 0);
	cr_assert_eq(p[11], 0xab, "update is in place");
	cr_assert_eq(map_delete(m, &k), -EINVAL);
	cr_assert_eq(map_delete_user(m, &k), -EINVAL);
	cr_assert_eq(map_lookup_user(m, &bad, out), -ENOENT);

	cr_assert_eq(map_get_next_key(m, NULL, &next), 0);
	cr_assert_eq(next, 0);
	cr_assert_eq(map_get_next_key(m, &k, &next), 0);
	cr_assert_eq(next, 3);
	k = 3;
	cr_assert_eq(map_get_next_key(m, &k, &next), -ENOENT);
	cr_assert_eq(map_get_next_key(m, &bad, &next), 0);
	cr_assert_eq(next, 0);
	map_free(m);
}

Test(maps_array, percpu)
{
	struct map *m = make(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 4, 3, 0, 4);
	uint32_t k = 1, v = 9, all[8];
	uint32_t *p;

	cr_assert_eq(map_update(m, &k, &v, BPF_ANY, 2), 0);
	p = map_lookup(m, &k, 2);
	cr_assert_eq(*p, 9);
	cr_assert_eq(*(uint32_t *)map_lookup(m, &k, 1), 0);
	cr_assert_null(map_lookup(m, &k, 4));
	memset(all, 0xff, sizeof(all));
	cr_assert_eq(map_lookup_user(m, &k, all), 0);
	cr_assert_eq(all[0], 0);
	cr_assert_eq(all[1], 0, "padding of the user layout is zeroed");
	cr_assert_eq(all[4], 9);
	for (int i = 0; i < 8; i++)
		all[i] = (uint32_t)i;
	cr_assert_eq(map_update_user(m, &k, all, BPF_ANY), 0);
	cr_assert_eq(*(uint32_t *)map_lookup(m, &k, 3), 6);
	map_free(m);
}

Test(maps_array, prog_array)
{
	struct map *m = make(BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0, 1);
	uint32_t k = 1, prog = 3, out, bad = 9, next;

	cr_assert_eq(map_prog_array_get(m, 1, &out), -ENOENT);
	cr_assert_eq(map_prog_array_get(m, 7, &out), -ENOENT);
	cr_assert_null(map_lookup(m, &k, 0), "no direct lookup from a program");
	cr_assert_eq(map_update_user(m, &k, &prog, BPF_NOEXIST), -EINVAL);
	cr_assert_eq(map_update_user(m, &bad, &prog, BPF_ANY), -E2BIG);
	cr_assert_eq(map_update_user(m, &k, &prog, BPF_ANY), 0);
	cr_assert_eq(map_prog_array_get(m, 1, &out), 0);
	cr_assert_eq(out, 3);
	cr_assert_eq(map_lookup_user(m, &k, &out), 0);
	cr_assert_eq(out, 3);
	prog = 0;
	cr_assert_eq(map_update_user(m, &k, &prog, BPF_ANY), 0);
	cr_assert_eq(map_prog_array_get(m, 1, &out), 0);
	cr_assert_eq(out, 0, "program index 0 is a real program");
	cr_assert_eq(map_update(m, &k, &prog, BPF_ANY, 0), -EINVAL, "not from a program");
	cr_assert_eq(map_delete_user(m, &bad), -E2BIG);
	cr_assert_eq(map_delete_user(m, &k), 0);
	cr_assert_eq(map_delete_user(m, &k), -ENOENT);
	cr_assert_eq(map_lookup_user(m, &k, &out), -ENOENT);
	cr_assert_eq(map_get_next_key(m, NULL, &next), 0);
	cr_assert_eq(next, 0);
	map_free(m);
}

Test(maps_array, global_data)
{
	uint8_t init[6] = { 1, 2, 3, 4, 5, 6 };
	struct object_map s = spec(BPF_MAP_TYPE_ARRAY, 4, 6, 1, 0);
	struct secbpf_err err = { { 0 } };
	struct map *data, *ro, *bss;
	uint8_t *p, buf[6] = { 9, 9, 9, 9, 9, 9 };
	uint32_t k = 0;

	s.kind = OBJECT_MAP_DATA;
	s.name = ".data";
	s.init_data = init;
	data = map_create(&s, 2, &err);
	cr_assert_not_null(data, "%s", err.msg);
	cr_assert_eq(map_direct_value(data, (void **)&p), 0);
	cr_assert_eq(p[5], 6);
	cr_assert(map_prog_writable(data));
	cr_assert_eq(map_update(data, &k, buf, BPF_ANY, 0), 0);
	cr_assert_eq(p[0], 9);

	s.kind = OBJECT_MAP_RODATA;
	s.name = ".rodata";
	ro = map_create(&s, 2, &err);
	cr_assert_not_null(ro, "%s", err.msg);
	cr_assert_not(map_prog_writable(ro));
	cr_assert(map_flags(ro) & BPF_F_RDONLY_PROG);
	cr_assert_eq(map_update(ro, &k, buf, BPF_ANY, 0), -EPERM, "programs cannot write");
	buf[0] = 42;
	cr_assert_eq(map_update_user(ro, &k, buf, BPF_ANY), 0, "writable before load");
	cr_assert_eq(map_freeze(ro), 0);
	cr_assert(map_is_frozen(ro));
	cr_assert_eq(map_freeze(ro), -EPERM);
	cr_assert_eq(map_update_user(ro, &k, buf, BPF_ANY), -EPERM);
	cr_assert_eq(map_direct_value(ro, (void **)&p), 0);
	cr_assert_eq(p[0], 42);
	cr_assert_eq(p[1], 9);
	cr_assert_eq(map_lookup_user(ro, &k, buf), 0, "frozen maps stay readable");

	s.kind = OBJECT_MAP_BSS;
	s.name = ".bss";
	s.init_data = NULL;
	bss = map_create(&s, 2, &err);
	cr_assert_not_null(bss, "%s", err.msg);
	cr_assert_eq(map_direct_value(bss, (void **)&p), 0);
	cr_assert_eq(p[0] | p[5], 0);

	s.max_entries = 2;
	errno = 0;
	cr_assert_null(map_create(&s, 2, &err));
	cr_assert_eq(errno, EINVAL);
	cr_assert(strstr(err.msg, ".bss"), "message names the map: %s", err.msg);

	map_free(data);
	map_free(ro);
	map_free(bss);
}

Test(maps_array, direct_value_only_single_array)
{
	struct map *m = make(BPF_MAP_TYPE_ARRAY, 4, 4, 2, 0, 1);
	void *p;

	cr_assert_eq(map_direct_value(m, &p), -EOPNOTSUPP);
	map_free(m);
	m = make(BPF_MAP_TYPE_HASH, 4, 4, 1, 0, 1);
	cr_assert_eq(map_direct_value(m, &p), -EOPNOTSUPP);
	map_free(m);
}

Test(maps_access, rdonly_wronly)
{
	struct map *m = make(BPF_MAP_TYPE_HASH, 4, 4, 4, BPF_F_RDONLY, 1);
	uint32_t k = 1, v = 1;

	cr_assert_eq(map_update_user(m, &k, &v, BPF_ANY), -EPERM);
	cr_assert_eq(map_update(m, &k, &v, BPF_ANY, 0), 0, "programs may still write");
	cr_assert_eq(map_delete_user(m, &k), -EPERM);
	cr_assert_eq(map_lookup_user(m, &k, &v), 0);
	cr_assert_eq(map_freeze(m), -EPERM);
	map_free(m);

	m = make(BPF_MAP_TYPE_HASH, 4, 4, 4, BPF_F_WRONLY, 1);
	cr_assert_eq(map_update_user(m, &k, &v, BPF_ANY), 0);
	cr_assert_eq(map_lookup_user(m, &k, &v), -EPERM);
	cr_assert_eq(map_get_next_key(m, NULL, &k), -EPERM);
	map_free(m);
}

/* ---- for_each ------------------------------------------------------------- */

struct walk {
	long stop_after;
	uint64_t key_sum;
	uint64_t value_sum;
	long calls;
};

static long walk_cb(struct map *map, const void *key, void *value, void *ctx)
{
	struct walk *w = ctx;
	uint32_t k;

	(void)map;
	memcpy(&k, key, 4);
	w->key_sum += k;
	w->value_sum += *(uint32_t *)value;
	w->calls++;
	return w->calls == w->stop_after;
}

static long delete_cb(struct map *map, const void *key, void *value, void *ctx)
{
	(void)value;
	(void)ctx;
	cr_assert_eq(map_delete(map, key), 0);
	return 0;
}

Test(maps_for_each, hash_and_array)
{
	struct map *h = make(BPF_MAP_TYPE_HASH, 4, 4, 16, 0, 1);
	struct map *a = make(BPF_MAP_TYPE_ARRAY, 4, 4, 5, 0, 1);
	struct map *q = make(BPF_MAP_TYPE_QUEUE, 0, 4, 5, 0, 1);
	struct walk w = { 0 };
	uint32_t k, v, next;

	for (k = 1; k <= 10; k++) {
		v = k * 10;
		map_update(h, &k, &v, BPF_ANY, 0);
	}
	cr_assert_eq(map_for_each(h, walk_cb, &w, 0, 0), 10);
	cr_assert_eq(w.key_sum, 55);
	cr_assert_eq(w.value_sum, 550);
	w = (struct walk){ .stop_after = 3 };
	cr_assert_eq(map_for_each(h, walk_cb, &w, 0, 0), 3, "the stopping element counts");
	cr_assert_eq(map_for_each(h, walk_cb, &w, 1, 0), -EINVAL);
	cr_assert_eq(map_for_each(h, delete_cb, NULL, 0, 0), 10);
	cr_assert_eq(map_get_next_key(h, NULL, &next), -ENOENT, "callback deleted all");

	for (k = 0; k < 5; k++)
		map_update(a, &k, &k, BPF_ANY, 0);
	w = (struct walk){ 0 };
	cr_assert_eq(map_for_each(a, walk_cb, &w, 0, 0), 5);
	cr_assert_eq(w.key_sum, 10);
	cr_assert_eq(w.value_sum, 10);
	w = (struct walk){ .stop_after = 1 };
	cr_assert_eq(map_for_each(a, walk_cb, &w, 0, 0), 1);
	cr_assert_eq(map_for_each(q, walk_cb, &w, 0, 0), -EINVAL);
	map_rcu_barrier();
	map_free(h);
	map_free(a);
	map_free(q);
}

Test(maps_for_each, percpu_uses_the_slot)
{
	struct map *m = make(BPF_MAP_TYPE_PERCPU_HASH, 4, 4, 4, 0, 2);
	struct walk w = { 0 };
	uint32_t k = 1, v = 5;

	map_update(m, &k, &v, BPF_ANY, 1);
	cr_assert_eq(map_for_each(m, walk_cb, &w, 0, 0), 1);
	cr_assert_eq(w.value_sum, 0);
	w = (struct walk){ 0 };
	cr_assert_eq(map_for_each(m, walk_cb, &w, 0, 1), 1);
	cr_assert_eq(w.value_sum, 5);
	map_free(m);
}

/* ---- queue and stack ------------------------------------------------------ */

Test(maps_queue, fifo_full_overwrite_wrap)
{
	struct map *m = make(BPF_MAP_TYPE_QUEUE, 0, 4, 3, 0, 1);
	uint32_t v, i, next;

	cr_assert_eq(map_pop(m, &v), -ENOENT);
	cr_assert_eq(map_peek(m, &v), -ENOENT);
	cr_assert_null(map_lookup(m, NULL, 0));
	for (i = 1; i <= 3; i++)
		cr_assert_eq(map_push(m, &i, BPF_ANY), 0);
	i = 4;
	cr_assert_eq(map_push(m, &i, BPF_ANY), -E2BIG);
	cr_assert_eq(map_push(m, &i, BPF_NOEXIST), -E2BIG);
	cr_assert_eq(map_push(m, &i, BPF_F_LOCK), -EINVAL);
	cr_assert_eq(map_push(m, &i, BPF_EXIST), 0, "overwrites the oldest");
	cr_assert_eq(map_peek(m, &v), 0);
	cr_assert_eq(v, 2);
	/* Many rounds through the ring: order is preserved across the wrap. */
	for (i = 5; i < 50; i++) {
		cr_assert_eq(map_pop(m, &v), 0);
		cr_assert_eq(v, i - 3);
		cr_assert_eq(map_push(m, &i, BPF_ANY), 0);
	}
	cr_assert_eq(map_lookup_user(m, NULL, &v), 0, "user lookup peeks");
	cr_assert_eq(v, 47);
	cr_assert_eq(map_pop_user(m, &v), 0);
	cr_assert_eq(v, 47);
	i = 100;
	cr_assert_eq(map_update_user(m, NULL, &i, BPF_ANY), 0, "user update pushes");
	cr_assert_eq(map_pop(m, &v), 0);
	cr_assert_eq(v, 48);
	cr_assert_eq(map_pop(m, &v), 0);
	cr_assert_eq(v, 49);
	cr_assert_eq(map_pop(m, &v), 0);
	cr_assert_eq(v, 100);
	cr_assert_eq(map_pop(m, &v), -ENOENT);
	cr_assert_eq(map_update(m, NULL, &v, BPF_ANY, 0), -EINVAL);
	cr_assert_eq(map_delete(m, NULL), -EINVAL);
	cr_assert_eq(map_delete_user(m, NULL), -EINVAL);
	cr_assert_eq(map_get_next_key(m, NULL, &next), -EINVAL);
	map_free(m);
}

Test(maps_queue, stack_lifo_and_overwrite)
{
	struct map *m = make(BPF_MAP_TYPE_STACK, 0, 8, 3, 0, 1);
	uint64_t v, i;

	for (i = 1; i <= 3; i++)
		cr_assert_eq(map_push(m, &i, BPF_ANY), 0);
	i = 4;
	cr_assert_eq(map_push(m, &i, BPF_ANY), -E2BIG);
	cr_assert_eq(map_push(m, &i, BPF_EXIST), 0, "drops the oldest (1)");
	cr_assert_eq(map_peek(m, &v), 0);
	cr_assert_eq(v, 4);
	cr_assert_eq(map_pop(m, &v), 0);
	cr_assert_eq(v, 4);
	cr_assert_eq(map_pop(m, &v), 0);
	cr_assert_eq(v, 3);
	cr_assert_eq(map_pop(m, &v), 0);
	cr_assert_eq(v, 2);
	cr_assert_eq(map_pop(m, &v), -ENOENT);
	/* Wrap: overwriting pushes walk the oldest end around the slots. */
	for (i = 10; i < 30; i++)
		cr_assert_eq(map_push(m, &i, BPF_EXIST), 0);
	for (i = 29; i >= 27; i--) {
		cr_assert_eq(map_pop(m, &v), 0);
		cr_assert_eq(v, i);
	}
	cr_assert_eq(map_pop(m, &v), -ENOENT);
	map_free(m);
}

/* ---- ring buffer ------------------------------------------------------------- */

struct records {
	int n;
	uint32_t sizes[64];
	unsigned char first[64];
	unsigned char last[64];
	int fail_at;
};

static int record_cb(void *ctx, void *data, uint32_t size)
{
	struct records *r = ctx;
	unsigned char *d = data;

	if (r->n < 64) {
		r->sizes[r->n] = size;
		r->first[r->n] = size ? d[0] : 0;
		r->last[r->n] = size ? d[size - 1] : 0;
	}
	r->n++;
	if (r->fail_at && r->n == r->fail_at)
		return -EIO;
	return 0;
}

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

Test(maps_ringbuf, reserve_submit_discard_consume)
{
	struct map *m = make(BPF_MAP_TYPE_RINGBUF, 0, 0, (uint32_t)page_size(), 0, 1);
	struct records r = { 0 };
	unsigned char *a, *b, *c;
	uint32_t *hdr;

	cr_assert_null(map_ringbuf_reserve(m, 8, 1), "flags must be 0");
	a = map_ringbuf_reserve(m, 5, 0);
	b = map_ringbuf_reserve(m, 16, 0);
	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_assert_eq(b - a, 16, "5 bytes + 8 header rounded to 16");
	hdr = (uint32_t *)(a - 8);
	cr_assert_eq(hdr[0], 5 | BPF_RINGBUF_BUSY_BIT);
	cr_assert_eq(map_ringbuf_query(m, BPF_RB_AVAIL_DATA), 16 + 24);
	cr_assert_eq(map_ringbuf_query(m, BPF_RB_RING_SIZE), (uint64_t)page_size());
	cr_assert_eq(map_ringbuf_query(m, BPF_RB_PROD_POS), 40);
	cr_assert_eq(map_ringbuf_query(m, BPF_RB_CONS_POS), 0);
	cr_assert_eq(map_ringbuf_query(m, 99), 0);

	memset(b, 0x22, 16);
	cr_assert_eq(map_ringbuf_submit(m, b, 0), 0);
	cr_assert_eq(map_ringbuf_consume(m, record_cb, &r), 0, "a is still reserved: stop");
	memset(a, 0x11, 5);
	cr_assert_eq(map_ringbuf_discard(m, a, 0), 0);
	cr_assert_eq(hdr[0], 5 | BPF_RINGBUF_DISCARD_BIT);
	cr_assert_eq(map_ringbuf_submit(m, a, 0), -EINVAL, "already committed");
	cr_assert_eq(map_ringbuf_submit(m, a + 1, 0), -EINVAL);
	cr_assert_eq(map_ringbuf_submit(m, &r, 0), -EINVAL);
	cr_assert_eq(map_ringbuf_consume(m, record_cb, &r), 1, "discarded one skipped");
	cr_assert_eq(r.sizes[0], 16);
	cr_assert_eq(r.first[0], 0x22);
	cr_assert_eq(map_ringbuf_query(m, BPF_RB_AVAIL_DATA), 0);
	cr_assert_eq(map_ringbuf_query(m, BPF_RB_CONS_POS), 40);

	c = map_ringbuf_reserve(m, 0, 0);
	cr_assert_not_null(c, "empty records are allowed");
	cr_assert_eq(map_ringbuf_submit(m, c, BPF_RB_NO_WAKEUP), 0);
	cr_assert_eq(map_ringbuf_output(m, "hello", 5, 0), 0);
	cr_assert_eq(map_ringbuf_output(m, "hello", 5, 4), -EINVAL);
	r = (struct records){ 0 };
	cr_assert_eq(map_ringbuf_consume(m, record_cb, &r), 2);
	cr_assert_eq(r.sizes[0], 0);
	cr_assert_eq(r.sizes[1], 5);
	cr_assert_eq(r.last[1], 'o');

	cr_assert_null(map_lookup(m, NULL, 0));
	cr_assert_eq(map_lookup_user(m, NULL, &r), -ENOTSUPP);
	cr_assert_eq(map_update_user(m, NULL, &r, 0), -ENOTSUPP);
	cr_assert_eq(map_delete_user(m, NULL), -ENOTSUPP);
	cr_assert_eq(map_get_next_key(m, NULL, &r), -ENOTSUPP);
	cr_assert_eq(map_update(m, NULL, &r, 0, 0), -EINVAL);
	map_free(m);
}

Test(maps_ringbuf, full_returns_null)
{
	long size = page_size();
	struct map *m = make(BPF_MAP_TYPE_RINGBUF, 0, 0, (uint32_t)size, 0, 1);
	struct records r = { 0 };
	void *p;

	cr_assert_null(map_ringbuf_reserve(m, size - 8, 0), "a full ring's worth never fits");
	p = map_ringbuf_reserve(m, size - 16, 0);
	cr_assert_not_null(p, "size - 8 bytes with its header is the most");
	cr_assert_null(map_ringbuf_reserve(m, 0, 0), "full: NULL");
	cr_assert_eq(map_ringbuf_output(m, "x", 1, 0), -EAGAIN);
	cr_assert_null(map_ringbuf_reserve(m, (uint64_t)UINT32_MAX, 0));
	cr_assert_eq(map_ringbuf_submit(m, p, 0), 0);
	cr_assert_eq(map_ringbuf_consume(m, record_cb, &r), 1);
	cr_assert_eq(r.sizes[0], size - 16);
	cr_assert_not_null(map_ringbuf_reserve(m, 100, 0), "room again");
	map_free(m);
}

Test(maps_ringbuf, record_wraps_contiguously)
{
	long size = page_size();
	struct map *m = make(BPF_MAP_TYPE_RINGBUF, 0, 0, (uint32_t)size, 0, 1);
	struct records r = { 0 };
	unsigned char *p;
	int round;

	/* Records of 1000+8 bytes drift across the end of the ring. */
	for (round = 0; round < 20; round++) {
		p = map_ringbuf_reserve(m, 1000, 0);
		cr_assert_not_null(p, "round %d", round);
		memset(p, round + 1, 1000);
		cr_assert_eq(map_ringbuf_submit(m, p, 0), 0);
		r = (struct records){ 0 };
		cr_assert_eq(map_ringbuf_consume(m, record_cb, &r), 1);
		cr_assert_eq(r.sizes[0], 1000);
		cr_assert_eq(r.first[0], round + 1);
		cr_assert_eq(r.last[0], round + 1, "round %d: tail of a wrapped record", round);
	}
	cr_assert_gt(map_ringbuf_query(m, BPF_RB_PROD_POS), (uint64_t)size * 4);
	map_free(m);
}

Test(maps_ringbuf, callback_error_stops_after_record)
{
	struct map *m = make(BPF_MAP_TYPE_RINGBUF, 0, 0, (uint32_t)page_size(), 0, 1);
	struct records r = { .fail_at = 2 };
	int i;

	for (i = 0; i < 4; i++)
		cr_assert_eq(map_ringbuf_output(m, &i, sizeof(i), 0), 0);
	cr_assert_eq(map_ringbuf_consume(m, record_cb, &r), -EIO);
	r.fail_at = 0;
	r.n = 0;
	cr_assert_eq(map_ringbuf_consume(m, record_cb, &r), 2, "records 3 and 4 left");
	cr_assert_eq(r.first[0], 2);
	map_free(m);
}

static bool fd_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

static void fd_drain(int fd)
{
	uint64_t v;

	cr_assert_eq(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
}

Test(maps_ringbuf, wakeup_rules)
{
	struct map *m = make(BPF_MAP_TYPE_RINGBUF, 0, 0, (uint32_t)page_size(), 0, 1);
	struct records r = { 0 };
	int fd = map_ringbuf_wait_fd(m);
	void *a, *b;

	cr_assert_geq(fd, 0);
	cr_assert_not(fd_readable(fd));
	cr_assert_eq(map_ringbuf_output(m, "a", 1, BPF_RB_NO_WAKEUP), 0);
	cr_assert_not(fd_readable(fd));
	cr_assert_eq(map_ringbuf_output(m, "b", 1, 0), 0);
	cr_assert_not(fd_readable(fd), "consumer is behind: no wakeup needed");
	cr_assert_eq(map_ringbuf_output(m, "c", 1, BPF_RB_FORCE_WAKEUP), 0);
	cr_assert(fd_readable(fd));
	fd_drain(fd);
	cr_assert_eq(map_ringbuf_consume(m, record_cb, &r), 3);
	cr_assert_eq(map_ringbuf_output(m, "d", 1, 0), 0);
	cr_assert(fd_readable(fd), "consumer caught up: wake it");
	fd_drain(fd);
	map_ringbuf_consume(m, record_cb, &r);

	/* Out-of-order submission: the first record's submit wakes. */
	a = map_ringbuf_reserve(m, 1, 0);
	b = map_ringbuf_reserve(m, 1, 0);
	cr_assert_eq(map_ringbuf_submit(m, b, 0), 0);
	cr_assert_not(fd_readable(fd));
	cr_assert_eq(map_ringbuf_submit(m, a, 0), 0);
	cr_assert(fd_readable(fd));
	map_free(m);
}

/* ---- concurrency -------------------------------------------------------------- */

enum { THREADS = 8, INCREMENTS = 100000 };

struct counter_arg {
	struct map *hash;
	struct map *array;
	struct map *percpu;
	unsigned int slot;
};

static void *counter_thread(void *p)
{
	struct counter_arg *a = p;
	uint32_t hkey = 77, akey;
	uint64_t *v;
	int i;

	for (i = 0; i < INCREMENTS; i++) {
		/* As the interpreter runs a program: inside a read section. */
		map_rcu_read_lock();
		v = map_lookup(a->hash, &hkey, a->slot);
		cr_assert_not_null(v);
		__atomic_fetch_add(v, 1, __ATOMIC_RELAXED);
		akey = (uint32_t)i % 4;
		v = map_lookup(a->array, &akey, a->slot);
		__atomic_fetch_add(v, 1, __ATOMIC_RELAXED);
		v = map_lookup(a->percpu, &akey, a->slot);
		(*v)++; /* own slot: no atomics needed */
		map_rcu_read_unlock();
	}
	return NULL;
}

Test(maps_stress, exact_atomic_increments, .timeout = 120)
{
	struct map *hash = make(BPF_MAP_TYPE_HASH, 4, 8, 16, 0, THREADS);
	struct map *array = make(BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0, THREADS);
	struct map *percpu = make(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, 0, THREADS);
	struct counter_arg args[THREADS];
	pthread_t tid[THREADS];
	uint64_t zero = 0, v, sum = 0, all[THREADS];
	uint32_t k = 77;
	int t;

	cr_assert_eq(map_update(hash, &k, &zero, BPF_NOEXIST, 0), 0);
	for (t = 0; t < THREADS; t++) {
		args[t] = (struct counter_arg){ hash, array, percpu, (unsigned int)t };
		pthread_create(&tid[t], NULL, counter_thread, &args[t]);
	}
	for (t = 0; t < THREADS; t++)
		pthread_join(tid[t], NULL);
	cr_assert_eq(map_lookup_user(hash, &k, &v), 0);
	cr_assert_eq(v, (uint64_t)THREADS * INCREMENTS);
	for (k = 0; k < 4; k++) {
		cr_assert_eq(map_lookup_user(array, &k, &v), 0);
		sum += v;
		cr_assert_eq(v, (uint64_t)THREADS * INCREMENTS / 4);
		cr_assert_eq(map_lookup_user(percpu, &k, all), 0);
		for (t = 0; t < THREADS; t++)
			cr_assert_eq(all[t], INCREMENTS / 4);
	}
	cr_assert_eq(sum, (uint64_t)THREADS * INCREMENTS);
	map_free(hash);
	map_free(array);
	map_free(percpu);
}

enum { CHURN_KEYS = 64, CHURN_OPS = 50000 };

struct churn_arg {
	struct map *map;
	unsigned int seed;
	bool reader;
	long inserted;
	long deleted;
	long bad;
};

static volatile int churn_stop;

/*
 * Writers insert and delete keys whose value is derived from the key;
 * readers check every value they see, which would show a freed or torn
 * element. Each writer counts its own successful inserts and deletes.
 */
static void *churn_thread(void *p)
{
	struct churn_arg *a = p;
	uint64_t val[4], *v;
	uint32_t key;
	int i;

	for (i = 0; a->reader ? !__atomic_load_n(&churn_stop, __ATOMIC_RELAXED) : i < CHURN_OPS;
	     i++) {
		key = (uint32_t)rand_r(&a->seed) % CHURN_KEYS;
		if (a->reader) {
			map_rcu_read_lock();
			v = map_lookup(a->map, &key, 0);
			if (v && (__atomic_load_n(&v[0], __ATOMIC_RELAXED) != key * 3 ||
				  __atomic_load_n(&v[3], __ATOMIC_RELAXED) != key * 7))
				a->bad++;
			map_rcu_read_unlock();
			continue;
		}
		val[0] = key * 3;
		val[1] = val[2] = 0;
		val[3] = key * 7;
		switch (rand_r(&a->seed) % 3) {
		case 0:
			if (map_update(a->map, &key, val, BPF_NOEXIST, 0) == 0)
				a->inserted++;
			break;
		case 1:
			if (map_delete(a->map, &key) == 0)
				a->deleted++;
			break;
		default:
			/* Replacement: readers must see old or new, both valid. */
			map_update(a->map, &key, val, BPF_EXIST, 0);
			break;
		}
	}
	return NULL;
}

static void churn(uint32_t type, uint32_t max_entries)
{
	struct map *m = make(type, 4, 32, max_entries, 0, 1);
	struct churn_arg args[THREADS];
	pthread_t tid[THREADS];
	long inserted = 0, deleted = 0, present = 0;
	uint32_t k, next;
	int t;

	churn_stop = 0;
	for (t = 0; t < THREADS; t++) {
		args[t] = (struct churn_arg){ .map = m,
					      .seed = (unsigned int)t * 7919 + 1,
					      .reader = t >= THREADS / 2 };
		pthread_create(&tid[t], NULL, churn_thread, &args[t]);
	}
	for (t = 0; t < THREADS / 2; t++)
		pthread_join(tid[t], NULL);
	__atomic_store_n(&churn_stop, 1, __ATOMIC_RELAXED);
	for (; t < THREADS; t++)
		pthread_join(tid[t], NULL);
	for (t = 0; t < THREADS; t++) {
		inserted += args[t].inserted;
		deleted += args[t].deleted;
		cr_assert_eq(args[t].bad, 0, "reader %d saw a bad value", t);
	}
	while (map_get_next_key(m, present ? &k : NULL, &next) == 0) {
		k = next;
		present++;
	}
	cr_assert_leq(present, max_entries);
	if (type == BPF_MAP_TYPE_HASH)
		cr_assert_eq(inserted - deleted, present, "inserted %ld deleted %ld present %ld",
			     inserted, deleted, present);
	cr_assert_gt(inserted, 0);
	map_rcu_barrier();
	map_free(m);
}

Test(maps_stress, hash_churn_with_readers, .timeout = 120)
{
	churn(BPF_MAP_TYPE_HASH, CHURN_KEYS);
}

Test(maps_stress, hash_churn_when_full, .timeout = 120)
{
	/* Fewer slots than keys: -E2BIG races with deletes. */
	churn(BPF_MAP_TYPE_HASH, CHURN_KEYS / 4);
}

Test(maps_stress, lru_churn_with_readers, .timeout = 120)
{
	churn(BPF_MAP_TYPE_LRU_HASH, CHURN_KEYS / 4);
}

struct rb_producer {
	struct map *map;
	uint32_t id;
	int sent;
};

enum { RB_RECORDS = 20000 };

static void *rb_producer_thread(void *p)
{
	struct rb_producer *a = p;
	uint32_t rec[3];
	uint32_t *s;
	int i = 0;

	while (i < RB_RECORDS) {
		if (i % 2) {
			rec[0] = a->id;
			rec[1] = (uint32_t)i;
			rec[2] = a->id ^ (uint32_t)i;
			if (map_ringbuf_output(a->map, rec, sizeof(rec), 0) == 0)
				i++;
			continue;
		}
		s = map_ringbuf_reserve(a->map, sizeof(rec), 0);
		if (!s)
			continue; /* full: the consumer will catch up */
		s[0] = a->id;
		s[1] = (uint32_t)i;
		s[2] = a->id ^ (uint32_t)i;
		cr_assert_eq(map_ringbuf_submit(a->map, s, 0), 0);
		i++;
	}
	a->sent = i;
	return NULL;
}

struct rb_check {
	int next[4];
	long total;
	long bad;
};

static int rb_check_cb(void *ctx, void *data, uint32_t size)
{
	struct rb_check *c = ctx;
	uint32_t *rec = data;

	if (size != 12 || rec[0] >= 4 || rec[1] != (uint32_t)c->next[rec[0]] ||
	    rec[2] != (rec[0] ^ rec[1]))
		c->bad++;
	else
		c->next[rec[0]]++;
	c->total++;
	return 0;
}

Test(maps_stress, ringbuf_producers_and_consumer, .timeout = 120)
{
	struct map *m = make(BPF_MAP_TYPE_RINGBUF, 0, 0, (uint32_t)page_size(), 0, 4);
	struct rb_producer prod[4];
	struct rb_check check = { .total = 0 };
	pthread_t tid[4];
	struct pollfd pfd = { .fd = map_ringbuf_wait_fd(m), .events = POLLIN };
	uint64_t dummy;
	int t;

	for (t = 0; t < 4; t++) {
		prod[t] = (struct rb_producer){ m, (uint32_t)t, 0 };
		pthread_create(&tid[t], NULL, rb_producer_thread, &prod[t]);
	}
	while (check.total < 4L * RB_RECORDS) {
		/* Short timeout only as a safety net for the test. */
		if (poll(&pfd, 1, 100) == 1 && read(pfd.fd, &dummy, sizeof(dummy)) < 0)
			cr_assert_fail("read eventfd");
		cr_assert_geq(map_ringbuf_consume(m, rb_check_cb, &check), 0);
	}
	for (t = 0; t < 4; t++)
		pthread_join(tid[t], NULL);
	cr_assert_eq(check.bad, 0);
	cr_assert_eq(check.total, 4L * RB_RECORDS);
	cr_assert_eq(map_ringbuf_query(m, BPF_RB_AVAIL_DATA), 0);
	map_free(m);
}

struct queue_arg {
	struct map *map;
	uint64_t sum;
	long n;
	bool producer;
};

static void *queue_thread(void *p)
{
	struct queue_arg *a = p;
	uint64_t v;
	long i;

	for (i = 0; i < 20000; i++) {
		if (a->producer) {
			v = (uint64_t)i + 1;
			while (map_push(a->map, &v, BPF_ANY) == -E2BIG)
				;
			a->sum += v;
		} else {
			while (map_pop(a->map, &v) == -ENOENT)
				;
			a->sum += v;
		}
		a->n++;
	}
	return NULL;
}

Test(maps_stress, queue_mpmc_conserves_elements, .timeout = 120)
{
	struct map *m = make(BPF_MAP_TYPE_QUEUE, 0, 8, 16, 0, 1);
	struct queue_arg args[4];
	pthread_t tid[4];
	uint64_t pushed = 0, popped = 0;
	int t;

	for (t = 0; t < 4; t++) {
		args[t] = (struct queue_arg){ .map = m, .producer = t < 2 };
		pthread_create(&tid[t], NULL, queue_thread, &args[t]);
	}
	for (t = 0; t < 4; t++) {
		pthread_join(tid[t], NULL);
		if (args[t].producer)
			pushed += args[t].sum;
		else
			popped += args[t].sum;
	}
	cr_assert_eq(pushed, popped);
	map_free(m);
}
