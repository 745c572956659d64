/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the Criterion suites (tests/common.c): shell commands
 * with captured output, scratch directories, sample and probe paths, and
 * filter sources written or compiled for a test. Failures are Criterion
 * assertions, so a helper that returns has succeeded.
 */
#ifndef SECBPF_TESTS_COMMON_H
#define SECBPF_TESTS_COMMON_H

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

/* Compile tests/helpers/NAME.bpf.c with clang into dir/NAME.bpf.o, whose
 * path is left in obj. */
void test_compile_helper(const char *dir, const char *name, char *obj, size_t size);

/* A stateful filter body (test_write_filter) named count_closes: it counts
 * close calls in an array map and allows every syscall. */
extern const char test_count_closes_body[];

#endif
