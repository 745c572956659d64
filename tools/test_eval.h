/* SPDX-License-Identifier: MIT */
/*
 * What `secbpf test` runs a syscall on (tools/test_eval.c): the program in
 * the interpreter with maps kept between syscalls, or with --cbpf the
 * compiled classic BPF on the simulator first, as the kernel would, and
 * the program only where that notifies the supervisor; and how a result
 * is printed, as text or JSON. tools/cmd_test.c reads the command line,
 * tools/test_batch.c the lines of --batch.
 */
#ifndef SECBPF_CLI_TEST_EVAL_H
#define SECBPF_CLI_TEST_EVAL_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cbpf/cbpf.h"
#include "cli.h"

struct json_object;

/* One syscall of a test: the seccomp_data and what gave it. */
struct test_syscall {
	struct seccomp_data sd;
	int line; /* in the --batch file; 0: the command line */
};

/* The options of test that describe a syscall (--nr, --arch, --ip, --arg),
 * as given, before they are resolved into a test_syscall. */
struct test_syscall_args {
	const char *nr;
	const char *arch;
	uint64_t ip;
	uint64_t args[6];
	int nargs;
};

/* getopt_long values of those options. */
enum { TEST_OPT_NR = 'n', TEST_OPT_ARCH = 'a', TEST_OPT_IP = 'i', TEST_OPT_ARG = 'g' };

/*
 * Take one of those options (c, with its value arg) into a. Returns 0, or
 * -1 after printing why. (tools/cmd_test.c, with the parsers of --nr and
 * --arch.)
 */
int test_syscall_option(struct test_syscall_args *a, int c, const char *arg);

/* Resolve a (--arch names, --nr names for that arch) into sd. Returns 0,
 * or -1 after printing why. */
int test_syscall_resolve(const struct test_syscall_args *a, struct seccomp_data *sd);

enum test_decider {
	TEST_DECIDED_PROGRAM,	 /* no --cbpf: the program's own answer */
	TEST_DECIDED_KERNEL,	 /* --cbpf: the compiled filter returns it */
	TEST_DECIDED_SUPERVISOR, /* --cbpf: notified; the program decides */
};

struct test_result {
	uint32_t ret; /* the filter's 32-bit return value */
	enum test_decider by;
};

struct test_eval {
	struct runtime *rt;  /* the program; its maps live as long as it */
	bool cbpf;	     /* --cbpf */
	struct cbpf_prog cp; /* --cbpf: what `run` would install */
	const char *spec;    /* OBJ[:PROG], for messages */
};

/* Prepare to test t's program (and with cbpf, compile it). Returns 0, or
 * EXIT_USAGE after printing why. */
int test_eval_init(struct test_eval *e, struct cli_target *t, const char *spec, bool cbpf);
void test_eval_free(struct test_eval *e);

/* Run one syscall. Returns 0 with *r set, or EXIT_REJECTED after printing
 * why (the program faulted). */
int test_eval_run(struct test_eval *e, const struct test_syscall *s, struct test_result *r);

/* "ERRNO(1)", and with --cbpf " kernel" or " supervisor", and a newline. */
void test_result_print(FILE *f, const struct test_result *r);

/* {"action": "ERRNO(1)", "ret": N, "errno": 1 | "data": N,
 *  "decided_by": "kernel"|"supervisor" (--cbpf only), "line": N (batch)}. */
struct json_object *test_result_json(const struct test_syscall *s, const struct test_result *r);

/* Print a JSON document on stdout and free it. */
void test_json_print(struct json_object *doc);

/* `secbpf test OBJ --batch FILE`: run every line of FILE (the options a
 * syscall takes after OBJ) through e, one result per line, maps kept.
 * Returns test's exit status. */
int test_batch(struct test_eval *e, const char *path, bool json);

#endif
