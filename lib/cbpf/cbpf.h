/* SPDX-License-Identifier: MIT */
/*
 * Classic BPF for seccomp: the eBPF-to-cBPF compiler (cbpf.c), a checker
 * with the kernel's rules for seccomp filters (cbpf_check.c), a simulator
 * that runs a filter on a seccomp_data exactly as the kernel would
 * (cbpf_sim.c) and a disassembler (cbpf_disasm.c).
 */
#ifndef SECBPF_CBPF_H
#define SECBPF_CBPF_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "object/object.h"

#define CBPF_MAX_INSNS 4096	/* BPF_MAXINSNS: the kernel's limit per filter */

struct cbpf_prog {
	struct sock_filter *insns;	/* malloc'ed */
	uint32_t len;
	/* Some input gets SECCOMP_RET_USER_NOTIF: a path needs a helper or a
	 * map, or did not fit in cBPF. Such a filter needs a supervisor. */
	bool needs_supervisor;
	/* Statistics for `secbpf compile` and the benchmarks. */
	uint32_t cells;			/* (arch, nr) ranges after merging */
	uint32_t notif_cells;		/* of which decided by the supervisor */
};

struct cbpf_compile_opts {
	size_t sz;			/* sizeof(struct cbpf_compile_opts) */
	/* Add the listener guard: deny seccomp(SET_MODE_FILTER) with
	 * SECCOMP_FILTER_FLAG_NEW_LISTENER for every arch (docs/design.md §1). */
	bool listener_guard;
};

/*
 * Compile prog (relocated, from obj; .rodata values as set by --set are
 * folded as constants) into a seccomp cBPF filter that returns, for every
 * seccomp_data, the program's value, or SECCOMP_RET_USER_NOTIF where the
 * program needs state or the cell did not fit. The result always passes
 * cbpf_check(). Returns 0 or a negative errno with err set.
 */
int cbpf_compile(const struct object *obj, const struct object_prog *prog,
		 const struct cbpf_compile_opts *opts, struct cbpf_prog *out,
		 struct secbpf_err *err);
void cbpf_prog_free(struct cbpf_prog *p);

/*
 * Where the listener guard looks (docs/design.md §1): the seccomp() syscall on
 * every arch libseccomp knows, as (AUDIT_ARCH, nr) pairs, x32's under
 * AUDIT_ARCH_X86_64 with bit 30 in nr, without repeats. Writes at most max
 * pairs to out and returns their number.
 */
struct cbpf_guard_target {
	uint32_t arch;
	uint32_t nr;
};
size_t cbpf_guard_targets(struct cbpf_guard_target *out, size_t max);

/*
 * The kernel's acceptance rules for a seccomp cBPF filter (sk_chk_filter
 * plus seccomp_check_filter): length 1..4096, known opcodes only, LD W ABS
 * aligned and inside seccomp_data, no other packet loads, M[] indices < 16,
 * jumps inside the program, the last instruction a RET, no division by a
 * constant 0. Returns 0 or -EINVAL with err naming the instruction.
 */
int cbpf_check(const struct sock_filter *insns, size_t len, struct secbpf_err *err);

/*
 * Run a filter on sd as the kernel does (a division by zero returns 0,
 * i.e. SECCOMP_RET_KILL_THREAD; reading M[k] never written reads 0 as the
 * kernel zeroes them). The filter must have passed cbpf_check().
 */
uint32_t cbpf_sim_run(const struct sock_filter *insns, size_t len, const struct seccomp_data *sd);

/* One instruction in readable form (like libseccomp's scmp_bpf_disasm). */
void cbpf_disasm_insn(const struct sock_filter *insns, size_t len, size_t idx, char *buf,
		      size_t buflen);

/*
 * The second half of this header is internal to lib/cbpf*.c: the symbolic
 * expressions and residual decision trees the front end (cbpf.c) builds and
 * the back end (cbpf_emit.c) lays out as cBPF.
 */

/* What an expression reads from seccomp_data. */
enum cbpf_dep {
	CBPF_DEP_NR = 1 << 0,
	CBPF_DEP_ARCH = 1 << 1,
	CBPF_DEP_DATA = 1 << 2,		/* instruction_pointer or args */
};

enum cbpf_expr_kind {
	CBPF_X_CONST,		/* imm */
	CBPF_X_FIELD,		/* imm = offset, width bits, zero-extended */
	CBPF_X_ALU,		/* op(a, b): BPF_ADD ... BPF_ARSH, 32- or 64-bit */
	CBPF_X_NEG,		/* -a */
	CBPF_X_TRUNC,		/* a & ((1 << width) - 1) */
	CBPF_X_SEXT,		/* the low width bits of a, sign-extended */
	CBPF_X_BSWAP,		/* byte swap of the low width bits of a */
};

/*
 * A pure function of seccomp_data, hash-consed: two equal expressions are
 * the same pointer. is32 results are zero-extended from 32 bits, exactly
 * as eBPF's 32-bit ALU defines them.
 */
struct cbpf_expr {
	struct cbpf_expr *hnext;
	const struct cbpf_expr *a, *b;
	uint64_t imm;
	uint32_t hash;
	uint32_t size;		/* tree size, saturating: bounds every recursion */
	uint8_t kind;
	uint8_t op;		/* CBPF_X_ALU: BPF_OP() of the instruction */
	uint8_t width;		/* CBPF_X_FIELD, _TRUNC, _SEXT, _BSWAP: bits */
	uint8_t deps;		/* enum cbpf_dep */
	bool is32;
	bool sgn;		/* CBPF_X_ALU DIV/MOD: signed (cpu v4) */
	bool hi_zero;		/* < 2^32 for every input */
};

uint64_t cbpf_expr_eval(const struct cbpf_expr *e, const struct seccomp_data *sd);

/* Normalized conditions: JNE/JLT/JLE and friends become these, negated. */
enum cbpf_cond_op { CBPF_C_EQ, CBPF_C_GT, CBPF_C_GE, CBPF_C_SET };

enum cbpf_rnode_kind {
	CBPF_R_RET,		/* return the low 32 bits of ret */
	CBPF_R_NOTIF,		/* SECCOMP_RET_USER_NOTIF: the supervisor decides */
	CBPF_R_BRANCH,		/* if (a op b) t else f */
};

/* A node of a residual decision tree; hash-consed like expressions. The
 * em_* fields belong to the back end. */
struct cbpf_rnode {
	struct cbpf_rnode *hnext;
	uint32_t hash;
	uint8_t kind;
	uint8_t op;		/* enum cbpf_cond_op */
	bool sgn, is32;
	const struct cbpf_expr *a, *b, *ret;
	struct cbpf_rnode *t, *f;
	/* back end scratch */
	uint32_t em_label;
	uint32_t em_size;
	uint32_t em_mark;
	bool em_unsupported;
	bool em_notif;		/* a NOTIF is reachable from here */
	uint64_t em_words;	/* a Bloom set of the words tested under here */
};

/* One merged range of nr for one arch class and its outcome. */
struct cbpf_range {
	uint32_t lo, hi;
	struct cbpf_rnode *out;
};

struct cbpf_arch_class {
	bool other;		/* every arch not listed explicitly */
	uint32_t arch;
	struct cbpf_range *ranges;	/* sorted, covering 0..UINT32_MAX */
	uint32_t nranges;
};

struct cbpf_plan {
	struct cbpf_arch_class *classes;	/* explicit ones, then "other" */
	uint32_t nclasses;
	struct cbpf_rnode *notif;		/* the shared NOTIF leaf */
};

/* Lay plan out as a checked seccomp filter (cbpf_emit.c). May replace
 * outcomes in plan by plan->notif to fit in CBPF_MAX_INSNS. */
int cbpf_emit_plan(struct cbpf_plan *plan, const struct cbpf_compile_opts *opts,
		   struct cbpf_prog *out, struct secbpf_err *err);

#endif
