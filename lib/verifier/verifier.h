/* SPDX-License-Identifier: MIT */
/*
 * The verifier: proves, before a filter runs, that every path through it is
 * memory safe, terminates, leaks no pointer and uses only what its tier allows.
 * It also hands the cBPF compiler per-instruction facts (reachability, the
 * ranges of every register) so that the compiler never has to re-derive them.
 *
 * This header is for callers; verifier_internal.h holds what the verifier's
 * own files share (the abstract state the exploration works on).
 */
#ifndef SECBPF_VERIFIER_H
#define SECBPF_VERIFIER_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "object/object.h"
#include "secbpf.h" /* enum secbpf_tier, secbpf_tier_name/parse: public API */


/* The kernel's BPF_COMPLEXITY_LIMIT_INSNS. */
#define VERIFIER_COMPLEXITY_LIMIT 1000000
#define VERIFIER_MAX_FRAMES 8	/* MAX_CALL_FRAMES, as interp.h */
#define VERIFIER_STACK_SIZE 512 /* bytes per frame */
#define VERIFIER_CTX_SIZE 64	/* sizeof(struct seccomp_data) */

struct verifier_opts {
	size_t sz;	       /* sizeof(struct verifier_opts), 0 = this size */
	enum secbpf_tier tier; /* already capped by the policy */
	/* Why the tier is what it is ("capped by ptrace_scope=3"), appended to
	 * rejections for a helper or map the tier does not allow; may be NULL. */
	const char *tier_reason;
	bool strict;		   /* the seed's exact context rules (--strict) */
	bool verbose;		   /* log every instruction visited with its state */
	FILE *log;		   /* where verbose output goes; NULL = none */
	uint32_t complexity_limit; /* 0 = VERIFIER_COMPLEXITY_LIMIT */
};

/* What a register held at an instruction, joined over every path reaching it. */
enum verifier_fact_type {
	VERIFIER_FACT_NONE,    /* not initialized on some path (or unreached) */
	VERIFIER_FACT_SCALAR,  /* a number: the ranges below hold */
	VERIFIER_FACT_CTX,     /* pointer to struct seccomp_data (off below) */
	VERIFIER_FACT_POINTER, /* any other pointer */
	VERIFIER_FACT_MIXED,   /* different kinds on different paths */
};

struct verifier_reg_fact {
	enum verifier_fact_type type;
	/* Known bits: bit i is known iff !(mask & 1<<i), then it equals value's. */
	uint64_t value;
	uint64_t mask;
	uint64_t umin, umax;
	int64_t smin, smax;
	int32_t ctx_off; /* VERIFIER_FACT_CTX: fixed offset */
};

enum verifier_insn_flags {
	VERIFIER_INSN_REACHABLE = 1 << 0,    /* some path executes it */
	VERIFIER_INSN_HELPER_CALL = 1 << 1,  /* call of a helper */
	VERIFIER_INSN_MAP_ACCESS = 1 << 2,   /* loads/stores map memory or a
					      * ringbuf record, or ld_imm64 of
					      * a map (pseudo map fd/value) */
	VERIFIER_INSN_SUBPROG_CALL = 1 << 3, /* bpf-to-bpf call */
	VERIFIER_INSN_CTX_LOAD = 1 << 4,     /* reads struct seccomp_data */
	VERIFIER_INSN_STACK_ACCESS = 1 << 5, /* reads or writes the stack */
	/* The instruction's outcome depends on state outside the context
	 * (helpers, maps, ringbuf): a path through it needs the supervisor. */
	VERIFIER_INSN_NEEDS_STATE = 1 << 6,
};

/* Facts about one instruction slot; regs[] describe the state *before* it. */
struct verifier_insn_fact {
	uint32_t flags; /* enum verifier_insn_flags */
	uint32_t frame; /* call depth (0 = main) when it ran */
	struct verifier_reg_fact regs[MAX_BPF_REG];
};

struct verifier_facts {
	uint32_t insn_cnt; /* equals prog->insn_cnt */
	struct verifier_insn_fact *insns;
	uint64_t insns_processed; /* for statistics and tests */
	uint32_t states_stored;
	uint32_t max_stack_depth; /* bytes, over the deepest call chain */
	bool uses_helpers;	  /* any helper call reachable */
	bool uses_maps;		  /* any map reference reachable */
};

/*
 * Verify prog (from obj, which supplies maps and line info) for opts->tier.
 * Returns 0 when every path is safe; facts (if not NULL) then receives the
 * per-instruction facts, to free with verifier_facts_free(). On rejection
 * returns -EACCES (unsafe or not allowed) or -EINVAL (malformed), -E2BIG
 * (too complex), -ENOMEM; err holds one line naming file.c:LINE, the
 * instruction, its disassembly, the reason and the register state.
 */
int verifier_check(const struct object *obj, const struct object_prog *prog,
		   const struct verifier_opts *opts, struct verifier_facts **facts,
		   struct secbpf_err *err);

void verifier_facts_free(struct verifier_facts *facts);

#endif
