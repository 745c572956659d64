/* SPDX-License-Identifier: MIT */
/*
 * Classic BPF for seccomp, for callers outside lib/cbpf: the eBPF-to-cBPF
 * compiler (explore.c, layout.c and the files cbpf_internal.h lists), the
 * listener guard (guard.c), a checker with the kernel's rules for seccomp
 * filters (cbpf_check.c), a simulator that runs a filter on a seccomp_data
 * exactly as the kernel would (cbpf_sim.c) and a disassembler
 * (cbpf_disasm.c).
 */
#ifndef SECBPF_CBPF_H
#define SECBPF_CBPF_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "object/object.h"

#define CBPF_MAX_INSNS 4096	/* BPF_MAXINSNS: the kernel's limit per filter */
/* MAX_INSNS_PER_PATH: the kernel's limit on the instructions of every
 * filter of a stack, each counted with 4 more. */
#define CBPF_MAX_STACK_INSNS 32768
#define CBPF_STACK_INSN_OVERHEAD 4
/* At most this many filters for one program split by cells. */
#define CBPF_MAX_FILTERS 8

/* Why some input is left to the supervisor: the eBPF instruction that
 * caused it (CBPF_PUNT_NO_INSN when none does) and what it does there. */
#define CBPF_PUNT_NO_INSN UINT32_MAX
#define CBPF_PUNT_MAX 64
struct cbpf_punt {
	uint32_t insn;
	const char *why;		/* a static string */
	bool needs_state;		/* a map, global data or a helper: only
					 * the supervisor can ever decide it */
};

struct cbpf_prog {
	struct sock_filter *insns;	/* malloc'ed */
	uint32_t len;
	/* The reasons for USER_NOTIF, each once (at most CBPF_PUNT_MAX); malloc'ed. */
	struct cbpf_punt *punts;
	uint32_t npunts;
	/* Some punt needs state (a map, global data, a helper), even one past
	 * CBPF_PUNT_MAX: the program is stateful. When false, every punt is
	 * an operation the compiler does not lower to cBPF yet. */
	bool needs_state;
	/* Some input gets SECCOMP_RET_USER_NOTIF: a path needs a helper or a
	 * map, or did not fit in cBPF. Such a filter needs a supervisor. */
	bool needs_supervisor;
	/* Every filter of the program, in installation order: one, or with
	 * cbpf_compile_opts.max_filters > 1 up to that many when one filter
	 * would exceed CBPF_MAX_INSNS. filters[0] is insns/len. Each filter
	 * owns some (arch, nr) cells, returns the program's value for them
	 * and SECCOMP_RET_ALLOW for every other cell, so that the stack of
	 * them decides as one filter would (docs/architecture.md, Split). malloc'ed. */
	struct sock_fprog *filters;
	uint32_t nfilters;
	/* Statistics for `secbpf compile` and the benchmarks. */
	uint32_t cells;			/* (arch, nr) ranges after merging */
	uint32_t notif_cells;		/* of which decided by the supervisor */
	/* The exploration's work, in the units its budget counts
	 * (explore.c): the same for a program on every machine. */
	uint64_t work;
};

struct cbpf_compile_opts {
	size_t sz;			/* sizeof(struct cbpf_compile_opts) */
	/* Add the listener guard: deny seccomp(SET_MODE_FILTER) with
	 * SECCOMP_FILTER_FLAG_NEW_LISTENER for every arch (docs/design.md §1). */
	bool listener_guard;
	/* Filters the program may be split into when it does not fit in one
	 * (0 or 1: never split; the largest cells go to the supervisor). The
	 * caller must then install every filter of cbpf_prog.filters. */
	uint32_t max_filters;
};

/*
 * Compile prog (relocated, from obj; .rodata values as set by --set are
 * folded as constants) into a seccomp cBPF filter that returns, for every
 * seccomp_data, the program's value, or SECCOMP_RET_USER_NOTIF where the
 * program needs state or the cell did not fit; with opts->max_filters > 1,
 * as several filters to stack when one would not fit (out->filters). The
 * result always passes cbpf_check(). Returns 0 or a negative errno with err set (-E2BIG: it
 * does not fit in CBPF_MAX_INSNS, or the listener guard cannot hold every
 * arch's seccomp()).
 */
int cbpf_compile(const struct object *obj, const struct object_prog *prog,
		 const struct cbpf_compile_opts *opts, struct cbpf_prog *out,
		 struct secbpf_err *err);
void cbpf_prog_free(struct cbpf_prog *p);

/*
 * The listener guard alone, for a filter built outside the compiler (the
 * supervisor's combined listener filter): a syscall it does not deny
 * falls through past its last instruction, to what the caller puts after
 * it. *out is malloc'ed. Returns 0, or -E2BIG (the targets do not fit the
 * guard) or -ENOMEM with err set.
 */
int cbpf_guard_build(struct sock_filter **out, size_t *len, struct secbpf_err *err);

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

/*
 * Run a stack of filters on sd as the kernel's seccomp_run_filters() does:
 * filters[n - 1] was installed last and runs first; the result is
 * SECCOMP_RET_ALLOW unless a filter returns an action of a lower
 * precedence (ACTION_ONLY, signed), the first such filter in that order
 * winning ties. Every filter must have passed cbpf_check().
 */
uint32_t cbpf_sim_run_stack(const struct sock_fprog *filters, size_t n,
			    const struct seccomp_data *sd);

/* What a run leaves: A, X and M[] when it ended, the instructions it
 * executed (the RET included: the path length the kernel runs), how
 * often it loaded each 32-bit word of seccomp_data (LD or LDX W ABS) and
 * how many shifts by X it ran with X >= 32, whose result the kernel does
 * not define alike everywhere (a compiled filter must have none). */
struct cbpf_sim_state {
	uint32_t a, x;
	uint32_t mem[BPF_MEMWORDS];
	uint32_t steps;
	uint32_t loads[sizeof(struct seccomp_data) / 4];	/* by offset / 4 */
	uint32_t wide_shifts;
};

/* The simulator's ALU on A (BPF_ALU code, src the K or X operand): false
 * when the filter ends with 0 there (a division by zero). And its jump
 * condition (BPF_JMP code other than JA). Shared with the cell explorer
 * (cell_paths.h), so that both evaluate classic BPF alike. */
bool cbpf_sim_alu(uint16_t code, uint32_t *a, uint32_t src);
bool cbpf_sim_cond(uint16_t code, uint32_t a, uint32_t src);

/* cbpf_sim_run() that also fills *st (st may be NULL). */
uint32_t cbpf_sim_exec(const struct sock_filter *insns, size_t len, const struct seccomp_data *sd,
		       struct cbpf_sim_state *st);

/*
 * The kernel's seccomp_is_const_allow() (kernel/seccomp.c): true iff the
 * filter, run with only nr and arch known and the instructions the kernel
 * emulates, provably returns exactly SECCOMP_RET_ALLOW for (arch, nr)
 * whatever the arguments: the kernel's action cache then skips the filter.
 */
bool cbpf_sim_const_allow(const struct sock_filter *insns, size_t len, uint32_t arch, uint32_t nr);

/*
 * What the compiler's exploration sees, for the lints (lib/lint): each cell
 * of the (arch, nr) domain it partitions the program into, with what the
 * paths of that cell did. A path that needs the supervisor (a helper, a
 * map) ends where it needs it and leaves no exit event.
 */
struct cbpf_cell {
	bool arch_fixed;	/* arch == arch; else arch is none of excl[] */
	uint32_t arch;
	const uint32_t *excl;
	uint32_t nexcl;
	uint32_t lo, hi;	/* nr in [lo, hi], unsigned */
};

enum cbpf_event_kind {
	CBPF_EV_EXIT,		/* a path returns at insn */
	CBPF_EV_ARG_COMPARE,	/* a compare at insn reads the upper half of args[arg] */
};

struct cbpf_event {
	uint8_t kind;
	uint8_t arg;		/* CBPF_EV_ARG_COMPARE: the index into args[] */
	bool value_known;	/* CBPF_EV_EXIT: the same value for every input of the path */
	bool arch_tested;	/* CBPF_EV_EXIT: the path tested arch other than by cells */
	uint32_t insn;		/* the compare; for an exit, where R0 got its value */
	uint32_t branch_insn;	/* CBPF_EV_EXIT: the last conditional jump, or UINT32_MAX */
	uint32_t value;		/* CBPF_EV_EXIT, when value_known */
};

struct cbpf_observer {
	void *ctx;
	/* Called once per cell explored to its end (or given to the
	 * supervisor, then outcome_supervised), with the events of its paths.
	 * outcome identifies the cell's decision: cells deciding alike for
	 * every input have the same outcome. Nonzero stops the exploration
	 * and is returned. */
	int (*cell)(void *ctx, const struct cbpf_cell *cell, const void *outcome,
		    bool outcome_supervised, const struct cbpf_event *ev, size_t nev);
};

/*
 * Explore prog as cbpf_compile() does, without laying out a filter, and
 * report every cell to obs. Returns 0, the observer's nonzero value, or a
 * negative errno with err set (the program does not compile).
 */
int cbpf_observe(const struct object *obj, const struct object_prog *prog,
		 const struct cbpf_observer *obs, struct secbpf_err *err);

/* One instruction in readable form (like libseccomp's scmp_bpf_disasm). */
void cbpf_disasm_insn(const struct sock_filter *insns, size_t len, size_t idx, char *buf,
		      size_t buflen);

/*
 * A whole filter, one instruction per line after indent, as
 * cbpf_disasm_insn() writes them, with names next to numbers as
 * libseccomp's PFC output has them: a compare of nr on a path that has
 * checked the arch names the syscall ("; execve"), a compare of arch the
 * ABI ("; x86_64"). When the filter starts with secbpf's listener guard,
 * a line before it and one after it say where it starts and ends.
 */
void cbpf_disasm_print(FILE *f, const struct sock_filter *insns, size_t len, const char *indent);

#endif
