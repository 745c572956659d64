/* SPDX-License-Identifier: MIT */
/*
 * The eBPF interpreter (RFC 9669 ISA). It is memory-safe on any program,
 * verified or not: every load and store is checked against the regions the
 * program may touch (its stack frames, the regions given to the run, the
 * map values its ld_imm64 references, and regions added by helpers), and a
 * bad access, a bad call or a runaway program stops the run with an error.
 */
#ifndef SECBPF_INTERP_H
#define SECBPF_INTERP_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define INTERP_STACK_SIZE 512	/* bytes per frame, as in the kernel */
#define INTERP_MAX_FRAMES 8	/* MAX_CALL_FRAMES in the kernel */
#define INTERP_MAX_REGIONS 64	/* per run, fixed plus helper-added */

/* A host memory range the program may access. */
struct interp_region {
	uint64_t base;
	uint64_t size;
	bool writable;
};

/*
 * What an ld_imm64 with a pseudo source register loads. For
 * BPF_PSEUDO_MAP_FD the program gets handle (opaque to it; helpers turn it
 * back into a map). For BPF_PSEUDO_MAP_VALUE the program gets
 * value + offset and the value becomes a region for every run.
 */
struct interp_map_ref {
	uint64_t handle;
	void *value;		/* NULL if the map has no direct value */
	uint32_t value_size;
	bool writable;		/* false for .rodata */
};

struct interp_call;

/*
 * A helper: args are r1..r5; the return value goes to r0. A helper must
 * check every pointer argument with interp_call_check() before using it;
 * it may stop the program with interp_call_exit() or interp_call_fail().
 */
typedef uint64_t (*interp_helper_fn)(struct interp_call *call,
				     const uint64_t args[5]);

/*
 * The calls a program may make, supplied by whoever runs it (the runtime's
 * helpers, the conformance suite's one helper): the interpreter itself
 * knows no helper. Helpers reach back into the run only through the
 * interp_call_*() functions below; interp_call_subprog() is the entry point
 * for the callbacks of bpf_loop and for_each_map_elem.
 */
struct interp_call_table {
	/* The helper with this id, or NULL when there is none. Asked once per
	 * call site by interp_new(), and during a run for a callx whose
	 * register holds a helper id. user is the config's. */
	interp_helper_fn (*resolve)(void *user, int32_t id);
};

struct interp_config {
	const struct bpf_insn *insns;	/* relocated program (pseudo forms) */
	uint32_t cnt;
	const struct interp_map_ref *maps;
	uint32_t nmaps;
	const struct interp_call_table *calls;	/* NULL: no helper calls */
	void *user;			/* passed to calls->resolve and to helpers */
	uint64_t insn_limit;		/* max executed insns per run, 0 = 1<<24 */
};

struct interp;

/*
 * Prepare a program for running: validates its structure (insn_validate),
 * resolves helpers and map references. Returns NULL with err set on failure.
 * The config's arrays must outlive the interp.
 */
struct interp *interp_new(const struct interp_config *cfg,
			  struct secbpf_err *err);
void interp_free(struct interp *in);

/*
 * Run the program once. r1..r5 are set from args (NULL = all zero);
 * regions lists the memory passed in (the context, conformance memory).
 * Returns 0 with *r0 set, or a negative errno with err naming the
 * instruction and the fault (a bad access, division trap never: the ISA
 * defines division by zero, the insn limit, a helper failure).
 * Thread-safe: several threads may run one interp at once.
 */
int interp_run(const struct interp *in, const uint64_t args[5],
	       const struct interp_region *regions, size_t nregions,
	       uint64_t *r0, struct secbpf_err *err);

/*
 * The same as interp_run, with run_ctx handed to helpers through
 * interp_call_run_ctx(): state that belongs to one run (the task a syscall
 * came from, pending tail calls), where the config's user pointer is shared
 * by all runs.
 */
int interp_run_ctx(const struct interp *in, const uint64_t args[5],
		   const struct interp_region *regions, size_t nregions,
		   void *run_ctx, uint64_t *r0, struct secbpf_err *err);

/* For helpers: the user pointer of the config. */
void *interp_call_user(struct interp_call *call);

/* For helpers: the run_ctx of interp_run_ctx (NULL from interp_run). */
void *interp_call_run_ctx(struct interp_call *call);

/* For helpers: frames in use; 1 when called from the program's entry
 * function, more from a subprogram or a callback. */
unsigned int interp_call_depth(struct interp_call *call);

/* For helpers that add a region per callback invocation
 * (for_each_map_elem): mark the regions added so far, and later drop every
 * region added after the mark, so a long walk does not run out of them.
 * A pointer into a dropped region then faults, which stops the run. */
size_t interp_call_region_mark(struct interp_call *call);
void interp_call_region_release(struct interp_call *call, size_t mark);

/* For helpers: 0 if [addr, addr+size) is accessible (writable if write),
 * else -EFAULT. size 0 is always accessible. */
int interp_call_check(struct interp_call *call, uint64_t addr, uint64_t size,
		      bool write);

/* For helpers: add a region the program may use for the rest of the run
 * (a map value returned by a lookup). Returns 0 or -ENOSPC. */
int interp_call_add_region(struct interp_call *call, void *base, uint64_t size,
			   bool writable);

/* For helpers: stop the program now; the run returns 0 with r0 = value. */
void interp_call_exit(struct interp_call *call, uint64_t value);

/* For helpers: stop the program with an error (the run returns -errnum). */
void interp_call_fail(struct interp_call *call, int errnum, const char *fmt,
		      ...) __attribute__((format(printf, 3, 4)));

/* For helpers that call back into the program (bpf_loop,
 * for_each_map_elem): func is the value the program loaded with an
 * ld_imm64 BPF_PSEUDO_FUNC (checked here: anything else fails the run).
 * Runs that subprogram with args r1..r5 in a new frame; returns 0 with *r0,
 * or a negative errno (the run is then already marked failed). */
int interp_call_subprog(struct interp_call *call, uint64_t func,
			const uint64_t args[5], uint64_t *r0);

#endif
