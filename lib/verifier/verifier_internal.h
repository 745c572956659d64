/* SPDX-License-Identifier: MIT */
/*
 * Internal to lib/verifier/: the abstract state the exploration works on
 * (registers as tnums and bounds, stack slots, frames, checkpoints), the
 * per-verification environment, and what the verifier's files share. Callers
 * of the verifier include verifier.h only.
 */
#ifndef SECBPF_VERIFIER_INTERNAL_H
#define SECBPF_VERIFIER_INTERNAL_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "object/object.h"
#include "verifier/verifier.h"

#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80 /* sign-extending load (ISA v4), newer headers */
#endif

/* A tristate number: bit i is unknown iff mask bit i is set; known bits are
 * those of value (value & mask == 0 always). */
struct tnum {
	uint64_t value;
	uint64_t mask;
};

struct tnum tnum_const(uint64_t v);
struct tnum tnum_unknown(void);
struct tnum tnum_range(uint64_t min, uint64_t max);
struct tnum tnum_add(struct tnum a, struct tnum b);
struct tnum tnum_sub(struct tnum a, struct tnum b);
struct tnum tnum_and(struct tnum a, struct tnum b);
struct tnum tnum_or(struct tnum a, struct tnum b);
struct tnum tnum_xor(struct tnum a, struct tnum b);
struct tnum tnum_mul(struct tnum a, struct tnum b);
struct tnum tnum_lshift(struct tnum a, unsigned shift);
struct tnum tnum_rshift(struct tnum a, unsigned shift);
struct tnum tnum_arshift(struct tnum a, unsigned shift, unsigned width);
struct tnum tnum_intersect(struct tnum a, struct tnum b);
struct tnum tnum_union(struct tnum a, struct tnum b);
struct tnum tnum_cast(struct tnum a, unsigned bytes);
bool tnum_is_const(struct tnum a);
/* Every value b can take, a can take too. */
bool tnum_in(struct tnum a, struct tnum b);

enum reg_type {
	REG_NOT_INIT,
	REG_SCALAR,
	REG_PTR_TO_CTX,
	REG_PTR_TO_STACK,
	REG_PTR_TO_MAP_VALUE,
	REG_PTR_TO_MAP_VALUE_OR_NULL,
	REG_CONST_PTR_TO_MAP,
	REG_PTR_TO_MEM, /* ringbuf record or map key given to a callback */
	REG_PTR_TO_MEM_OR_NULL,
	REG_PTR_TO_FUNC, /* ld_imm64 BPF_PSEUDO_FUNC */
};

/*
 * One register. For a scalar the bounds and var_off describe its value; for
 * a pointer they describe the variable part of its offset, and off is the
 * fixed part. The four bound pairs and var_off are kept consistent by
 * reg_bounds_sync().
 */
struct reg_state {
	enum reg_type type;
	int32_t off; /* pointers: fixed offset */
	struct tnum var_off;
	int64_t smin, smax;
	uint64_t umin, umax;
	int32_t s32_min, s32_max;
	uint32_t u32_min, u32_max;
	uint32_t map;	     /* map pointers and values: index in obj->maps */
	uint32_t mem_size;   /* PTR_TO_MEM: size of the region */
	uint32_t frameno;    /* PTR_TO_STACK: whose frame */
	uint32_t func;	     /* PTR_TO_FUNC: start slot of the subprogram */
	uint32_t id;	     /* copies of one maybe-NULL pointer share it */
	uint32_t ref_obj_id; /* ringbuf record this points into, 0 if none */
	bool rdonly;	     /* PTR_TO_MEM/MAP_VALUE: writes forbidden */
};

/* What a stack byte holds. */
enum stack_byte {
	STACK_INVALID, /* never written: reading it is an error */
	STACK_MISC,    /* some scalar bytes */
	STACK_ZERO,    /* known zero */
	STACK_SPILL,   /* part of the register saved in the slot */
};

/* 8 bytes of stack; spilled is meaningful when all 8 bytes are STACK_SPILL. */
struct stack_slot {
	uint8_t bytes[8]; /* enum stack_byte; bytes[0] is the lowest address */
	struct reg_state spilled;
};

struct func_state {
	struct reg_state regs[MAX_BPF_REG];
	uint32_t frameno;
	uint32_t callsite; /* caller's call insn, for frames > 0 */
	uint32_t subprog;  /* start slot of the function */
	bool is_callback;  /* entered from bpf_loop/for_each_map_elem */
	/* slots[i] covers fp-8*(i+1) .. fp-8*i-1; only allocated ones exist */
	uint32_t nslots;
	struct stack_slot *slots;
};

/* An acquired ringbuf record that must be submitted or discarded. */
struct ref_state {
	uint32_t id;
	uint32_t insn;	  /* where it was reserved, for messages */
	uint32_t frameno; /* frame that reserved it */
};

#define VERIFIER_MAX_REFS 16

struct vstate_node;

struct vstate {
	struct func_state *frames[VERIFIER_MAX_FRAMES];
	uint32_t curframe;
	uint32_t insn; /* next instruction to run */
	uint32_t nrefs;
	struct ref_state refs[VERIFIER_MAX_REFS];
	struct vstate_node *parent; /* latest checkpoint on this path */
	uint32_t last_insn;	    /* previous instruction (for the log) */
	/* Back at a callback-running helper call after one callback run:
	 * the iterations may be cut off against an unfinished checkpoint
	 * (the helper bounds them), see is_state_visited(). */
	bool reentry;
	/* Callback runs so far on this path: a callback body reaching the
	 * state of an earlier run is converging, not looping forever. */
	uint32_t cb_iter;
};

/* A checkpoint: a state stored at a prune point, used to cut off later
 * paths that reach the same point in a state it covers. */
struct vstate_node {
	struct vstate st;
	struct vstate_node *parent; /* the checkpoint before it on its path */
	struct vstate_node *next;   /* same instruction, older */
	uint32_t branches;	    /* paths below it still being explored */
	uint32_t hits, misses;	    /* later states it covered, or did not */
};

/* Per-instruction properties found before exploration. */
enum insn_aux_flags {
	AUX_PRUNE_POINT = 1 << 0, /* jump target, branch fall-through, call */
	AUX_SUBPROG_START = 1 << 1,
	AUX_LD_IMM64_HI = 1 << 2,   /* second slot of an ld_imm64 */
	AUX_SEEN = 1 << 3,	    /* reached by the CFG walk */
	AUX_CALLBACK_CALL = 1 << 4, /* a helper call that runs a callback */
	AUX_WIDE_QUEUED = 1 << 5,   /* on facts_widen_from()'s work list */
};

struct insn_aux {
	uint32_t flags;
	uint32_t subprog; /* start slot of the function holding it */
	uint32_t nstates; /* checkpoints stored here */
	struct vstate_node *states;
	/* Before the insn, in its own frame (verifier_live.c): registers and
	 * stack slots (bit spi: fp-8*(spi+1)) read later (live), and those
	 * whose value may decide acceptance or a branch (need). */
	uint16_t live_regs, need_regs;
	uint64_t live_slots, need_slots;
	/* Registers whose facts here are widened: they may carry a value of a
	 * path pruned against a checkpoint that held another (wide_mem: so
	 * may any load), see facts_widen_from(). */
	uint16_t wide_regs;
	bool wide_mem;
};

struct helper_proto;

/* Everything one verifier_check() call works on; no global state. */
struct verifier_env {
	const struct object *obj;
	const struct object_prog *prog;
	const struct bpf_insn *insns;
	uint32_t cnt;
	struct verifier_opts opts;
	struct insn_aux *aux;
	struct vstate *cur;
	struct vstate **pending; /* branches still to explore (LIFO) */
	uint32_t npending, cap_pending;
	uint32_t next_id; /* for maybe-NULL ids and references */
	uint64_t processed;
	uint32_t states_stored;
	/* Checkpoints taken off full lists while paths below them still ran:
	 * kept (without their state) for the branch counts, freed at the end. */
	struct vstate_node *retired;
	struct verifier_facts *facts;
	char reason[SECBPF_ERR_MAX]; /* why the current instruction failed */
	bool has_reason;
	const struct object_line *last_line; /* the log's current C line */
};

/* verifier_scalar.c */
void reg_mark_unknown(struct reg_state *r);
void reg_mark_const(struct reg_state *r, uint64_t v);
void reg_set_var_const(struct reg_state *r, uint64_t v);
void reg_mark_not_init(struct reg_state *r);
void reg_mark_unknown_size(struct reg_state *r, unsigned bytes);
void reg_mark_unknown_sext(struct reg_state *r, unsigned bytes);
/* Make all bounds agree; false if they describe no value at all. */
bool reg_bounds_sync(struct reg_state *r);
void scalar_alu(struct reg_state *dst, const struct reg_state *src, uint8_t op, bool is64,
		bool is_signed);
void scalar_zext32(struct reg_state *r);
void scalar_end(struct reg_state *r, unsigned bits, bool swap);
void scalar_movsx(struct reg_state *r, unsigned bits, bool is64);
/* 1: "a OP b" always holds, 0: never, -1: depends on the values. */
int scalar_branch_taken(const struct reg_state *a, const struct reg_state *b, uint8_t op,
			bool is64);
/* Narrow a and b to the edge where "a OP b" is taken (or not); false when
 * that edge cannot be followed with these values. */
bool scalar_branch_refine(struct reg_state *a, struct reg_state *b, uint8_t op, bool is64,
			  bool taken);

/* verifier_cfg.c */
int verifier_cfg_check(struct verifier_env *env, uint32_t *bad_insn);
bool vinsn_is_cond_jump(uint8_t op);
bool vinsn_is_ja(const struct bpf_insn *in);
bool vinsn_is_exit(const struct bpf_insn *in);
int64_t vinsn_jump_target(const struct bpf_insn *in, uint32_t i);

/* verifier_live.c */
int verifier_liveness(struct verifier_env *env);

/* verifier_state.c */
void frame_free(struct func_state *f);
int state_copy_into(struct vstate *dst, const struct vstate *src);
void path_done(struct vstate *st);
/* At a prune point: 1 if an explored checkpoint covers the current state,
 * 0 to go on (after storing a checkpoint), <0 on an infinite loop. */
int is_state_visited(struct verifier_env *env, uint32_t insn);

/* verifier.c: shared by the other parts */
int verr(struct verifier_env *env, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct func_state *cur_frame(struct verifier_env *env);
struct reg_state *cur_regs(struct verifier_env *env);
const char *reg_type_name(enum reg_type t);
bool reg_is_pointer(const struct reg_state *r);
int check_reg_read(struct verifier_env *env, uint32_t regno);
uint32_t env_new_id(struct verifier_env *env);
void state_free(struct vstate *st);
struct vstate *state_clone(const struct vstate *st);
int push_pending(struct verifier_env *env, struct vstate *st);
struct func_state *frame_new(uint32_t frameno, uint32_t subprog, uint32_t callsite);
const struct object_map *env_map(const struct verifier_env *env, uint32_t idx);
bool map_is_rdonly(const struct object_map *m);
void fact_flag(struct verifier_env *env, uint32_t insn, uint32_t flags);
/* A path was pruned at insn against a checkpoint that holds other values
 * in the registers regs (and in stack slots when mem), values that do not
 * matter for safety: from insn on, the facts no longer bound them, nor
 * anything computed from them. */
void facts_widen_from(struct verifier_env *env, uint32_t insn, uint16_t regs, bool mem);
void format_reg(char *buf, size_t len, const struct verifier_env *env, const struct reg_state *r);

/* verifier_mem.c */
enum mem_access { MEM_READ, MEM_WRITE, MEM_ATOMIC };
int check_mem_access(struct verifier_env *env, uint32_t insn_idx, uint32_t regno, int32_t off,
		     uint32_t size, enum mem_access kind, int value_regno, bool sign_ext);
/* A helper reading (or writing, when write) up to max_size bytes at reg. */
int check_helper_mem(struct verifier_env *env, uint32_t regno, uint64_t max_size, bool write,
		     const char *what);
struct stack_slot *stack_slot_get(struct func_state *f, uint32_t spi, bool grow);

/* verifier_call.c */
int check_helper_call(struct verifier_env *env, const struct bpf_insn *insn, uint32_t insn_idx);
int check_subprog_call(struct verifier_env *env, const struct bpf_insn *insn, uint32_t insn_idx);
/* exit: returns 1 when the whole path ended (main function returned). */
int check_exit(struct verifier_env *env, uint32_t insn_idx);
/* The ringbuf record ref_obj_id of st is given back: forget the reference
 * and make every copy of its pointer unusable. */
int release_reference(struct verifier_env *env, struct vstate *st, uint32_t ref_obj_id);

/* The bytes a load or store of code moves (BPF_B/H/W/DW). */
static inline unsigned verifier_access_size(uint8_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B:
		return 1;
	case BPF_H:
		return 2;
	case BPF_W:
		return 4;
	default:
		return 8;
	}
}

#endif
