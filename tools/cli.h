/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of the secbpf command-line tool: error printing in the
 * `secbpf: <what>: <why>` form, OBJ[:PROG] parsing, compiling .c filters
 * and loading objects with --set applied; options.h parses the options.
 */
#ifndef SECBPF_CLI_H
#define SECBPF_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <secbpf.h>

/* Internal header: object/object.h, the loader's object and program
 * (struct cli_target): the compiler, verifier, runtime and disassembler
 * take them, and the public API has no compile, verify or disassemble. */
#include "object/object.h"
#include "options.h"

/* Exit statuses shared by the commands (docs/design.md §5). */
#define EXIT_REJECTED 1 /* verify: program rejected; test: the run faulted */
#define EXIT_USAGE 2	/* usage or input error */
/* run and native-run (the convention of env and timeout): */
#define EXIT_RUN_FAILED 125  /* secbpf failed before running CMD */
#define EXIT_CANNOT_EXEC 126 /* CMD found but could not be executed */
#define EXIT_NOT_FOUND 127   /* CMD not found */

void cli_error(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A loaded OBJ[:PROG] target: opened and its program found through the
 * public API (include/secbpf.h), whose handles the tools are a client of.
 * obj and prog are the loader's object and program behind those handles
 * (lib/api/api.h), for what the API does not offer: compiling to cBPF,
 * verifying for a tier, disassembling with line info, planning a stack.
 */
struct cli_target {
	struct secbpf_object *handle;
	struct secbpf_program *program;
	struct object *obj;
	struct object_prog *prog;
	char *tmp_obj; /* compiled object of a .c input, removed on close */
};

/*
 * Load spec (OBJ[:PROG], OBJ may be a .c file which is compiled first),
 * and pick the program. The sets are applied separately (cli_apply_sets:
 * each VAR must exist in at least one of the targets of a command).
 * Prints the error and returns -1 on failure.
 */
int cli_load(const char *spec, struct cli_target *t);
void cli_close(struct cli_target *t);

/* cli_load, then cli_apply_sets on that one target; closed on failure. */
int cli_open_target(const char *spec, const struct cli_sets *sets, struct cli_target *t);

/* Whether s is a C identifier (a VAR of --set, a PROG of OBJ:PROG). */
bool cli_is_c_identifier(const char *s);

/* Apply every --set to the targets; each VAR must exist in at least one. */
int cli_apply_sets(struct cli_target *targets, int ntargets, const struct cli_sets *sets);

/*
 * Resolve CMD as execvp would (PATH, or "/bin:/usr/bin" when unset; a name
 * with a '/' is taken as is), before any filter is installed: the search
 * makes syscalls that a filter may deny. Returns the malloc'ed path, or
 * NULL with *status set to 125, 126 or 127 after printing why (what names
 * the command in messages).
 */
char *cli_resolve_command(const char *what, const char *cmd, int *status);

/*
 * exit_group without going through _exit(), for the child of run and
 * native-run once its filters may be installed: a sanitizer's _exit hook
 * would run leak checks, making syscalls the filters may deny. If even
 * exit_group is denied, trap: the kernel kills us without a syscall.
 */
void cli_child_exit(int status) __attribute__((noreturn));

/*
 * Wait for pid, forwarding the signals of set (blocked by the caller with
 * SIGCHLD, taken with sigwaitinfo: no handler, no global state) that a
 * process sent us. A signal from the terminal (si_code SI_KERNEL) went to
 * the whole foreground process group, the child included: not sent twice.
 * *forwarded (if not NULL) is set once a signal was sent. Returns 0 with
 * *status set, or -errno.
 */
int cli_wait_forwarding(pid_t pid, const sigset_t *set, int *status, bool *forwarded);

/*
 * Compile a filter source with clang for the BPF target. extra is a
 * NULL-terminated list of additional clang arguments (may be NULL).
 * Returns 0, or -1 after printing why.
 */
int cli_compile(const char *src, const char *out, const char *const *extra);

struct cbpf_prog;

/* Compile a loaded target to cBPF; prints the error and returns -1. */
int cli_compile_target(struct cli_target *t, struct cbpf_prog *out);
/* The same, split into stacked filters past 4096 instructions as `run`
 * installs it (cbpf_prog.filters). */
int cli_compile_target_stack(struct cli_target *t, struct cbpf_prog *out);
/* Print a compiled filter as `secbpf compile --format asm` does. */
void cli_print_cbpf(FILE *f, const struct cbpf_prog *p);

/*
 * One line per reason p hands a path to the supervisor: LEAD, then
 * "FILE:LINE (insn N): WHAT" (or "insn N: WHAT", or "WHAT"), and with
 * source the C line under it, prefixed with cont. The one wording of a
 * punt for compile --format asm|c, --no-supervisor and run's warnings.
 */
void cli_print_punts(FILE *f, const struct cbpf_prog *p, const struct object_prog *prog,
		     const char *lead, const char *cont, bool source);

/*
 * --no-supervisor (compile, run): refuse a filter that hands any path to
 * the supervisor, one error line per reason naming the C line and the
 * operation. what names the command ("compile", "run"), spec the target.
 * Returns 0, or -1 after printing why.
 */
int cli_refuse_supervised(const char *what, const char *spec, const struct cbpf_prog *p,
			  const struct object_prog *prog);

/*
 * Verify a loaded target for the requested tier as capped by the system
 * policy; prints the reason on rejection. Returns 0 (accepted),
 * EXIT_REJECTED or EXIT_USAGE (the policy could not be read). verbose_log
 * receives the full verifier log when not NULL.
 */
int cli_verify_target(struct cli_target *t, int requested_tier, bool strict, FILE *verbose_log);

/* A map key, value or variable for --stats: an integer of 1, 2, 4 or 8
 * bytes in decimal, anything else as 0x and hex bytes. */
void cli_print_value(FILE *f, const uint8_t *p, size_t n);

/* Where --stats[=FILE] goes: stderr, or FILE opened (close-on-exec);
 * NULL after printing why. cli_stats_close closes FILE, saying if the
 * write failed. */
FILE *cli_stats_open(const char *path);
void cli_stats_close(FILE *f, const char *path);

struct json_object;

/* -j: a key, value or variable as JSON: an integer of 1, 2, 4 or 8 bytes
 * as a number, anything else as a "0x..." string of its bytes. */
struct json_object *cli_json_value(const uint8_t *p, size_t n);

/* -j: {"key": K, "value": V} for a map entry; V is an array of nvals
 * values stride bytes apart when percpu. */
struct json_object *cli_json_entry(const uint8_t *key, size_t ksize, const uint8_t *val,
				   size_t vsize, size_t stride, unsigned int nvals, bool percpu);

/* Whether --stats=FILE can be written: FILE is created (or truncated)
 * before CMD runs. 0, or -1 after printing why; 0 for NULL (stderr). */
int cli_stats_check(const char *path);

/*
 * Whether --stats lists the entries of a map of this type: the hash and
 * array kinds, and task storage when with_task_storage (the supervisor's
 * maps; the kernel's cannot be iterated from user space).
 */
bool cli_stats_iterable(uint32_t type, bool with_task_storage);

/* "SPEC VAR = VALUE": a global variable of size bytes. */
void cli_stats_var(FILE *f, const char *spec, const char *var, const uint8_t *value, size_t size);

/* "SPEC MAP KEY = VALUE... (NOTE)": a map entry with nvals values of vsize
 * bytes, stride bytes apart (one per CPU slot of a per-CPU map); note (the
 * syscall a key stands for) may be NULL or "". */
void cli_stats_entry(FILE *f, const char *spec, const char *map, const uint8_t *key, size_t ksize,
		     const uint8_t *val, size_t vsize, size_t stride, unsigned int nvals,
		     const char *note);

/* Whether a map's keys are syscall numbers: its BTF key type is the
 * typedef secbpf_syscall_nr of <secbpf/filter.h> (numbers of the native
 * ABI). cli_stats_syscall_name names one into buf ("" if none). */
bool cli_stats_syscall_keys(const struct object *obj, const struct object_map *om);
const char *cli_stats_syscall_name(const uint8_t *key, char *buf, size_t len);

/*
 * `run --native` and `native-run`: load the n programs into a kernel with
 * the seccomp-eBPF port, attach them in order in a child and run CMD
 * (cmd_argv) there; with stats, print the kernel's copy of their globals
 * and maps at the end (to stats_path, or stderr). Returns the exit status
 * of docs/design.md §5 (125 on a stock kernel, with a message saying so).
 */
int cli_native_run(const char *what, const char **specs, int n, const struct cli_sets *sets,
		   bool stats, const char *stats_path, char **cmd_argv);

int cmd_cc(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_native_run(int argc, char **argv);
int cmd_native_verify(int argc, char **argv);
int cmd_oci(int argc, char **argv);
int cmd_export_oci(int argc, char **argv);
int cmd_dis(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sys(int argc, char **argv);
int cmd_import_oci(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_verify(int argc, char **argv);

#endif
