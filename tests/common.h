/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the Criterion suites (tests/common.c): shell commands
 * with captured output, scratch directories, sample and probe paths, and
 * filter sources written or compiled for a test. Failures are Criterion
 * assertions, so a helper that returns has succeeded.
 */
#ifndef SECBPF_TESTS_COMMON_H
#define SECBPF_TESTS_COMMON_H

#include <stdbool.h>
#include <stddef.h>

/* Run cmd through the shell; its stdout (at most size - 1 bytes) is left
 * NUL-terminated in out. Returns the exit status, -1 if it was killed. */
int test_capture(char *out, size_t size, const char *cmd);

/* test_capture of the command formatted from fmt, stderr merged into
 * stdout (`CMD 2>&1`). */
int test_shell(char *out, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Make a fresh directory $TMPDIR/NAME-XXXXXX (/tmp without TMPDIR). */
void test_scratch_dir(char *dir, size_t size, const char *name);

/* Remove dir and everything below it, links not followed; nothing if dir
 * is empty. Returns 0 when all of it is gone. */
int test_remove_tree(const char *dir);

/* The sample object NAME built by meson: samples/ in the build directory,
 * or the build directory itself (where a top-level custom_target puts it). */
void test_sample_path(char *buf, size_t size, const char *name);

/* The test program tests/progs/NAME.c: the one meson built (path in the
 * environment variable env) if executable, else compiled into dir with
 * $CC (cc) -O1 and cflags. Returns path. */
const char *test_probe(char *path, size_t size, const char *env, const char *dir, const char *name,
		       const char *cflags);

/* Write dir/NAME.c: the secbpf filter header, body and a GPL license.
 * Returns its path, in one of 4 static buffers used in turn. */
const char *test_write_filter(const char *dir, const char *name, const char *body);

/* Compile the BPF C file source (a path) with clang into obj, as the
 * build does (tests/meson.build, bpf_cflags); fails the test if it cannot. */
void test_compile_bpf(const char *source, const char *obj);

/* Compile tests/helpers/NAME.bpf.c with clang into dir/NAME.bpf.o, whose
 * path is left in obj. */
void test_compile_helper(const char *dir, const char *name, char *obj, size_t size);

/* Whether this run is CI (CI or SECBPF_CI set and not "0"; .ci/run sets
 * SECBPF_CI=1). In CI a skip is an error unless the kernel lacks a feature. */
bool test_in_ci(void);

/* Skip the current test for a reason that is not a missing kernel feature
 * (no root, an unreachable file...): outside CI a skip, in CI a failure.
 * The reason is a format string literal. A skip because the kernel lacks a
 * feature stays a plain cr_skip_test that names the feature. */
#define test_skip_unless_ci(...)                                                                   \
	do {                                                                                       \
		if (test_in_ci())                                                                  \
			cr_assert_fail("a skip in CI is an error: " __VA_ARGS__);                  \
		cr_skip_test(__VA_ARGS__);                                                         \
	} while (0)

/* Poll cond(arg) until it holds or timeout_ms have passed (monotonic
 * clock; short, growing pauses between tries). Returns the last cond. For
 * conditions no fd or wait can signal: another process's state, a file. */
bool test_wait_for(bool (*cond)(void *arg), void *arg, int timeout_ms);

/* Copy the program exe, and each shared library it loads from the build
 * directory (under the name it is loaded by), into a fresh 0755 directory
 * under /tmp, every copy 0755: so that another user (uid 65534) can run it
 * even when the build directory is out of its reach (a clone under a 0700
 * home). The directory is left in dir; returns the copy of exe in staged. */
void test_stage_for_other_users(const char *exe, char *dir, size_t dsize, char *staged,
				size_t ssize);

/* A stateful filter body (test_write_filter) named count_closes: it counts
 * close calls in an array map and allows every syscall. */
extern const char test_count_closes_body[];

#endif
