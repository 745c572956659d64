// SPDX-License-Identifier: MIT
/*
 * The eBPF-to-cBPF compiler, front end (docs/design.md §1): explores the relocated
 * program with nr and arch abstract and the rest of seccomp_data symbolic,
 * partitions the (arch, nr) domain into cells, and gives each cell an
 * outcome: a constant, a residual decision tree on args/ip, or USER_NOTIF.
 * layout.c lays the result out as a seccomp filter.
 *
 * Invariant: every outcome is exact for every seccomp_data in its cell, or
 * USER_NOTIF (the supervisor then runs the real program). Anything the
 * exploration cannot follow exactly ends in USER_NOTIF, never in a guess.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf_internal.h"
#include "common/syscall_name.h"
#include "vm/insn.h"

#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80	/* cpu v4 sign-extending load; older uapi headers lack it */
#endif

/* Budgets: beyond them a cell (or the rest of the domain) is supervised. */
#define EXPLORE_CELL_STEPS (1u << 20)	/* instructions explored per cell */
#define EXPLORE_TOTAL_STEPS (1u << 25)	/* instructions explored in all */
#define EXPLORE_CELL_BRANCHES 4096		/* residual branches per cell */
#define EXPLORE_MAX_DEPTH 512		/* nested residual branches on a path */
#define EXPLORE_MAX_CELLS 20000		/* cells explored */
#define EXPLORE_MAX_SLOTS 96			/* tracked stack entries per state */
#define EXPLORE_MAX_FRAMES 8
#define EXPLORE_STACK_SIZE 512
/*
 * Work (struct cbpf_store): an expression built or looked up, an
 * instruction explored, an instruction of a trial lowering, a node a key
 * search looks at. Counted, not timed, so that where a budget runs out is
 * the same on every machine and every run. A cell past EXPLORE_CELL_WORK
 * is supervised, and past EXPLORE_TOTAL_WORK so is every cell left. One
 * core does 20 to 75 million units a second where the work is (measured
 * on tests/cbpf/hash_break.bpf.c and work_budget.bpf.c): at most about 1 s per
 * cell and 3 s in all, so that secbpfd, which compiles every approved
 * program at start and on reload, is never stuck on one.
 */
#define EXPLORE_CELL_WORK (1ull << 24)
#define EXPLORE_TOTAL_WORK (1ull << 26)

/* Results of the exploration, besides negative errnos (program rejected). */
enum {
	EXPLORE_CONT = 0,	/* keep going */
	EXPLORE_DONE,	/* *out is the path's outcome */
	EXPLORE_NOTIF,	/* the path needs the supervisor */
	EXPLORE_SPLIT,	/* the cell must be split first (cc->split) */
	EXPLORE_GIVEUP,	/* budget exceeded: the whole cell is supervised */
};

/* ---- cells of the (arch, nr) domain ---- */

struct nr_cell {
	bool arch_fixed;
	uint32_t arch;
	uint32_t nexcl;		/* !arch_fixed: arch is none of excl[] */
	uint32_t *excl;
	uint32_t lo, hi;	/* nr in [lo, hi] (unsigned) */
};

struct cell_leaf {
	struct nr_cell cell;
	struct cbpf_rnode *out;
};

/* ---- abstract values and states ---- */

enum abs_val_kind {
	CV_UNINIT,
	CV_SCALAR, /* e */
	CV_CTX,	   /* pointer to seccomp_data + off */
	CV_STACK,  /* frame's r10 + off (+ e if not NULL: an array index) */
	CV_RODATA, /* .rodata map + off (+ e if not NULL): frozen, loads fold;
		    * also .data or .bss that nothing writes */
	CV_STATE,  /* a map, global data or function: needs the supervisor */
};

struct abs_val {
	uint8_t kind;
	uint8_t frame;
	uint32_t map;
	int64_t off;
	const struct cbpf_expr *e;
	uint32_t origin;	/* the instruction that produced it (for the lints) */
};

/* A stack entry: the low size bytes of v (little endian) at frame:off. */
struct stack_slot {
	uint8_t frame;
	uint8_t size;
	int16_t off;
	struct abs_val v;
};

struct explore_state {
	uint32_t pc;
	uint32_t depth;
	bool arch_tested;	/* a residual test of arch is on the path */
	uint32_t last_branch;	/* the last conditional jump on the path */
	struct abs_val r[11];
	struct {
		uint32_t ret_pc;
		struct abs_val saved[4];	/* r6..r9 */
	} frames[EXPLORE_MAX_FRAMES];
	uint32_t nslots;
	struct stack_slot slots[EXPLORE_MAX_SLOTS];
};


struct cbpf_cc {
	const struct object *obj;
	const struct object_prog *prog;
	struct secbpf_err *err;
	struct cbpf_store store;	/* expressions, nodes, cells and the plan */
	bool *frozen;			/* by map: read-only at run time */

	const struct cbpf_expr *nr_field, *arch_field;
	struct cbpf_rnode *notif;

	struct nr_cell cell;	/* being explored */
	uint32_t pc;		/* the instruction being explored */
	uint64_t steps, cell_steps;
	uint32_t cell_branches;
	struct cbpf_nr_split split;

	struct cell_leaf *leaves;
	uint32_t nleaves, leaves_cap;

	struct cbpf_prog punts;	/* why paths were left to the supervisor */

	/* cbpf_observe(): what the paths of the current cell did. */
	const struct cbpf_observer *obs;
	struct cbpf_event *events;
	uint32_t nevents, events_cap;
};

/* Note ev for the observer (a no-op when compiling). */
static int explore_record(struct cbpf_cc *cc, const struct cbpf_event *ev)
{
	if (!cc->obs)
		return 0;
	if (cc->nevents == cc->events_cap) {
		uint32_t cap = cc->events_cap ? cc->events_cap * 2 : 64;
		struct cbpf_event *n = realloc(cc->events, cap * sizeof(*n));

		if (!n)
			return err_set(cc->err, ENOMEM, "out of memory");
		cc->events = n;
		cc->events_cap = cap;
	}
	cc->events[cc->nevents++] = *ev;
	return 0;
}

/* The arguments whose upper 32 bits a residual compare c depends on. */
static int explore_record_arg_compare(struct cbpf_cc *cc, uint32_t pc, const struct cbpf_cond *c)
{
	uint64_t da = c->is32 ? 0xffffffffull : ~0ull, db = da;
	unsigned i;
	int rc;

	if (!cc->obs || !((c->a->deps | c->b->deps) & CBPF_DEP_DATA))
		return 0;
	if (c->op == CBPF_C_SET && c->b->kind == CBPF_X_CONST)
		da &= c->b->imm;
	for (i = 0; i < 6; i++) {
		uint32_t off = (uint32_t)offsetof(struct seccomp_data, args[i]);
		uint64_t bits = cbpf_expr_field_bits(c->a, off, da) |
				cbpf_expr_field_bits(c->b, off, db);
		struct cbpf_event ev = { .kind = CBPF_EV_ARG_COMPARE, .arg = (uint8_t)i,
					 .insn = pc };

		if (bits >> 32 && (rc = explore_record(cc, &ev)))
			return rc;
	}
	return 0;
}

static struct cbpf_rnode *explore_branch(struct cbpf_cc *cc, const struct cbpf_cond *c,
					 struct cbpf_rnode *t, struct cbpf_rnode *f, uint32_t pc)
{
	/* Both ways end the same: no test needed. A test with no cBPF of its
	 * own is split on a key with few values when it has one. */
	return cbpf_key_branch(&cc->store, c, t, f, pc);
}

/* ---- the exploration ---- */

static int explore_reject(struct cbpf_cc *cc, uint32_t pc, const char *why)
{
	const struct object_line *l = object_prog_line(cc->prog, pc);

	if (l && l->file)
		return err_set(cc->err, EINVAL, "%s: insn %u (%s:%u): %s", cc->prog->name, pc,
			       l->file, l->line, why);
	return err_set(cc->err, EINVAL, "%s: insn %u: %s", cc->prog->name, pc, why);
}

/* The path at pc is the supervisor's because of why. */
static int explore_punt(struct cbpf_cc *cc, uint32_t pc, const char *why)
{
	if (cbpf_punt_note(&cc->punts, pc, why))
		return err_set(cc->err, ENOMEM, "out of memory");
	return EXPLORE_NOTIF;
}

/* The path at pc is the supervisor's: it reads or writes state, or calls a
 * helper (why says which). */
static int explore_punt_state(struct cbpf_cc *cc, uint32_t pc, const char *why)
{
	if (cbpf_punt_note_state(&cc->punts, pc, why))
		return err_set(cc->err, ENOMEM, "out of memory");
	return EXPLORE_NOTIF;
}

/* The cell is the supervisor's (a budget ran out at pc) because of why. */
static int explore_giveup(struct cbpf_cc *cc, uint32_t pc, const char *why)
{
	if (cbpf_punt_note(&cc->punts, pc, why))
		return err_set(cc->err, ENOMEM, "out of memory");
	return EXPLORE_GIVEUP;
}

/* The work budget ran out in the cell (at cc->pc): the cell is the
 * supervisor's, and the reason names which budget. */
static int explore_out_of_work(struct cbpf_cc *cc)
{
	if (cc->store.work > EXPLORE_TOTAL_WORK)
		return explore_giveup(cc, cc->pc,
				      "the compiler's work budget for the program ran out here "
				      "(this cell and the cells not explored yet are supervised)");
	return explore_giveup(cc, cc->pc,
			      "the compiler's work budget for one (arch, nr) cell ran out here");
}

/* A NULL expression: out of memory (fatal), past the work budget or too
 * large (give up). */
static int explore_null_expr(struct cbpf_cc *cc)
{
	if (cc->store.oom)
		return err_set(cc->err, ENOMEM, "out of memory");
	if (cc->store.out_of_work)
		return explore_out_of_work(cc);
	return explore_giveup(cc, CBPF_PUNT_NO_INSN,
			      "an expression grew past the compiler's size limit");
}

static struct abs_val val_scalar(const struct cbpf_expr *e)
{
	struct abs_val v = { .kind = CV_SCALAR, .e = e };

	return v;
}

static bool val_is_ptr(const struct abs_val *v)
{
	return v->kind != CV_UNINIT && v->kind != CV_SCALAR;
}

/* The value of a context field read: nr and arch narrowed from their
 * abstract value, the others symbolic. Rejects what the seed forbids. */
static int explore_ctx_load(struct cbpf_cc *cc, uint32_t pc, int64_t off, unsigned size,
			    struct abs_val *dst)
{
	unsigned fsize = off < 8 ? 4 : 8;
	const struct cbpf_expr *base, *e;
	struct cbpf_expr t = { .kind = CBPF_X_FIELD };

	if (off < 0 || off + size > (int64_t)sizeof(struct seccomp_data))
		return explore_reject(cc, pc, "read outside struct seccomp_data");
	if (off % size)
		return explore_reject(cc, pc, "unaligned read of struct seccomp_data");
	if (size > fsize)
		return explore_reject(cc, pc, "read of struct seccomp_data spans two fields");
	if (off < 8) {
		if (off < 4)
			base = cc->cell.lo == cc->cell.hi ? cbpf_expr_const(&cc->store, cc->cell.lo)
							  : cc->nr_field;
		else
			base = cc->cell.arch_fixed ? cbpf_expr_const(&cc->store, cc->cell.arch)
						   : cc->arch_field;
		e = cbpf_expr_alu(&cc->store, BPF_RSH, false, false, base,
				  cbpf_expr_const(&cc->store, (off & 3) * 8));
		e = cbpf_expr_trunc(&cc->store, e, size * 8);
	} else {
		t.imm = (uint64_t)off;
		t.width = size * 8;
		e = cbpf_expr_intern(&cc->store, &t);
	}
	if (!e)
		return explore_null_expr(cc);
	*dst = val_scalar(e);
	return EXPLORE_CONT;
}

static int explore_rodata_load(struct cbpf_cc *cc, uint32_t pc, const struct abs_val *p,
			       int64_t off, unsigned size, struct abs_val *dst)
{
	const struct object_map *m = &cc->obj->maps[p->map];
	uint64_t v = 0;

	if (off < 0 || off + size > m->value_size)
		return explore_reject(cc, pc, "read outside a global data section");
	/* Frozen before the program runs: the bytes are final. */
	if (m->init_data)
		memcpy(&v, m->init_data + off, size);
	*dst = val_scalar(cbpf_expr_const(&cc->store, v));
	return dst->e ? EXPLORE_CONT : explore_null_expr(cc);
}

static int explore_stack_load(struct cbpf_cc *cc, struct explore_state *st, uint32_t frame,
			      int64_t off, unsigned size, struct abs_val *dst)
{
	const struct cbpf_expr *acc = NULL;
	int64_t pos = off;
	uint32_t i;

	while (pos < off + size) {
		const struct stack_slot *s = NULL;
		const struct cbpf_expr *piece;
		int64_t end;

		for (i = 0; i < st->nslots; i++)
			if (st->slots[i].frame == frame && st->slots[i].off <= pos &&
			    pos < st->slots[i].off + st->slots[i].size) {
				s = &st->slots[i];
				break;
			}
		/* Bytes we do not know (never written, or lost to a partial
		 * overwrite of a pointer): let the supervisor run it. */
		if (!s)
			return explore_punt(cc, st->pc,
					"read of stack bytes that were "
					"never written or were partly overwritten");
		if (s->v.kind != CV_SCALAR) {
			if (s->off != off || s->size != 8 || size != 8)
				return explore_punt(cc, st->pc, "read of a part of a pointer saved on the stack");
			*dst = s->v;
			return EXPLORE_CONT;
		}
		end = s->off + s->size < off + size ? s->off + s->size : off + size;
		piece = cbpf_expr_alu(&cc->store, BPF_RSH, false, false, s->v.e,
				      cbpf_expr_const(&cc->store, (pos - s->off) * 8));
		piece = cbpf_expr_trunc(&cc->store, piece, (unsigned)(end - pos) * 8);
		piece = cbpf_expr_alu(&cc->store, BPF_LSH, false, false, piece,
				      cbpf_expr_const(&cc->store, (pos - off) * 8));
		acc = acc ? cbpf_expr_alu(&cc->store, BPF_OR, false, false, acc, piece) : piece;
		if (!acc)
			return explore_null_expr(cc);
		pos = end;
	}
	*dst = val_scalar(acc);
	return EXPLORE_CONT;
}

/* Store v's low size bytes at frame:off, trimming what it overlaps. */
static int explore_stack_store(struct cbpf_cc *cc, struct explore_state *st, uint32_t frame,
			       int64_t off, unsigned size, const struct abs_val *v)
{
	int64_t end = off + size;
	uint32_t i = 0;

	if (st->nslots + 2 > EXPLORE_MAX_SLOTS)
		return explore_giveup(cc, st->pc, "more stack slots than the compiler follows");
	while (i < st->nslots) {
		struct stack_slot *s = &st->slots[i];
		int64_t send = s->off + s->size;

		if (s->frame != frame || send <= off || s->off >= end) {
			i++;
			continue;
		}
		if (s->v.kind == CV_SCALAR && send > end) {
			struct stack_slot r = *s;

			r.v.e = cbpf_expr_alu(&cc->store, BPF_RSH, false, false, s->v.e,
					      cbpf_expr_const(&cc->store, (end - s->off) * 8));
			if (!r.v.e)
				return explore_null_expr(cc);
			r.off = (int16_t)end;
			r.size = (uint8_t)(send - end);
			st->slots[st->nslots++] = r;
		}
		if (s->v.kind == CV_SCALAR && s->off < off) {
			s->size = (uint8_t)(off - s->off);
			i++;
			continue;
		}
		*s = st->slots[--st->nslots];
	}
	if (v->kind == CV_SCALAR || size == 8) {
		struct stack_slot n = { .frame = (uint8_t)frame, .size = (uint8_t)size,
				     .off = (int16_t)off, .v = *v };

		if (v->kind != CV_SCALAR && off % 8)
			return EXPLORE_CONT;
		st->slots[st->nslots++] = n;
	}
	return EXPLORE_CONT;
}

static unsigned insn_size_bytes(uint8_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B: return 1;
	case BPF_H: return 2;
	case BPF_W: return 4;
	}
	return 8;
}

static int explore_ldx(struct cbpf_cc *cc, struct explore_state *st, const struct bpf_insn *in)
{
	const struct abs_val *p = &st->r[in->src_reg];
	unsigned size = insn_size_bytes(in->code);
	struct abs_val v;
	int64_t off;
	int rc;

	if (BPF_MODE(in->code) != BPF_MEM && BPF_MODE(in->code) != BPF_MEMSX)
		return explore_reject(cc, st->pc, "unknown load mode");
	off = p->off + in->off;
	switch (p->kind) {
	case CV_CTX:
		if (BPF_MODE(in->code) == BPF_MEMSX)
			return explore_reject(cc, st->pc,
					      "sign-extending read of struct seccomp_data");
		rc = explore_ctx_load(cc, st->pc, off, size, &v);
		break;
	case CV_STACK:
		if (off < -EXPLORE_STACK_SIZE || off + size > 0)
			return explore_reject(cc, st->pc, "stack read out of bounds");
		rc = explore_stack_load(cc, st, p->frame, off, size, &v);
		if (rc == EXPLORE_CONT && v.kind == CV_SCALAR)
			v.e = cbpf_expr_trunc(&cc->store, v.e, size * 8);
		break;
	case CV_RODATA:
		rc = explore_rodata_load(cc, st->pc, p, off, size, &v);
		break;
	case CV_STATE:
		return explore_punt_state(cc, st->pc, "read from a map or global data (.data, .bss)");
	default:
		return explore_reject(cc, st->pc, "read through a register that is not a pointer");
	}
	if (rc != EXPLORE_CONT)
		return rc;
	if (BPF_MODE(in->code) == BPF_MEMSX && v.kind == CV_SCALAR)
		v.e = cbpf_expr_unary(&cc->store, CBPF_X_SEXT, false, size * 8, v.e);
	if (v.kind == CV_SCALAR && !v.e)
		return explore_null_expr(cc);
	st->r[in->dst_reg] = v;
	return EXPLORE_CONT;
}

static int explore_store(struct cbpf_cc *cc, struct explore_state *st, const struct bpf_insn *in)
{
	const struct abs_val *p = &st->r[in->dst_reg];
	unsigned size = insn_size_bytes(in->code);
	int64_t off = p->off + in->off;
	struct abs_val v;

	switch (p->kind) {
	case CV_CTX:
		return explore_reject(cc, st->pc, "write to struct seccomp_data (it is read-only)");
	case CV_RODATA:
		return explore_reject(cc, st->pc, "write to .rodata (it is read-only)");
	case CV_STATE:
		return explore_punt_state(cc, st->pc, "write to a map or global data (.data, .bss)");
	case CV_STACK:
		if (p->e)
			return explore_punt(cc, st->pc, "write to the stack at a variable offset");
		break;
	default:
		return explore_reject(cc, st->pc, "write through a register that is not a pointer");
	}
	if (off < -EXPLORE_STACK_SIZE || off + size > 0)
		return explore_reject(cc, st->pc, "stack write out of bounds");
	if (BPF_CLASS(in->code) == BPF_STX && BPF_MODE(in->code) == BPF_ATOMIC)
		return explore_punt(cc, st->pc, "atomic operation on the stack");
	if (BPF_MODE(in->code) != BPF_MEM)
		return explore_reject(cc, st->pc, "unknown store mode");
	if (BPF_CLASS(in->code) == BPF_ST) {
		v = val_scalar(cbpf_expr_const(&cc->store, (uint64_t)(int64_t)in->imm));
		if (!v.e)
			return explore_null_expr(cc);
	} else {
		v = st->r[in->src_reg];
		if (v.kind == CV_UNINIT)
			return explore_reject(cc, st->pc, "store of an uninitialized register");
	}
	return explore_stack_store(cc, st, p->frame, off, size, &v);
}

static int explore_alu(struct cbpf_cc *cc, struct explore_state *st, const struct bpf_insn *in)
{
	bool is32 = BPF_CLASS(in->code) == BPF_ALU;
	unsigned op = BPF_OP(in->code);
	struct abs_val *dst = &st->r[in->dst_reg];
	struct abs_val src;
	const struct cbpf_expr *e;

	if (in->dst_reg >= 10)
		return explore_reject(cc, st->pc, "write to r10");
	if (op == BPF_END || op == BPF_NEG) {
		if (dst->kind != CV_SCALAR)
			return dst->kind == CV_UNINIT
				       ? explore_reject(cc, st->pc,
							"use of an uninitialized register")
				       : explore_punt(cc, st->pc, "byte swap or negation of a pointer");
		if (op == BPF_NEG)
			e = cbpf_expr_unary(&cc->store, CBPF_X_NEG, is32, 0, dst->e);
		else if (is32 && BPF_SRC(in->code) == BPF_K)	/* to little endian */
			e = cbpf_expr_trunc(&cc->store, dst->e, (unsigned)in->imm);
		else
			e = cbpf_expr_unary(&cc->store, CBPF_X_BSWAP, false, (unsigned)in->imm,
					    dst->e);
		if (!e)
			return explore_null_expr(cc);
		*dst = val_scalar(e);
		return EXPLORE_CONT;
	}
	if (BPF_SRC(in->code) == BPF_K) {
		src = val_scalar(cbpf_expr_const(&cc->store, is32 ? (uint32_t)in->imm
								  : (uint64_t)(int64_t)in->imm));
		if (!src.e)
			return explore_null_expr(cc);
	} else {
		src = st->r[in->src_reg];
		if (src.kind == CV_UNINIT)
			return explore_reject(cc, st->pc, "use of an uninitialized register");
	}
	if (op == BPF_MOV) {
		if (in->off) {		/* movsx */
			if (src.kind != CV_SCALAR)
				return explore_punt(cc, st->pc, "sign extension of a pointer");
			e = cbpf_expr_unary(&cc->store, CBPF_X_SEXT, is32, (unsigned)in->off,
					    src.e);
			if (!e)
				return explore_null_expr(cc);
			*dst = val_scalar(e);
		} else if (!is32) {
			*dst = src;
		} else if (src.kind == CV_SCALAR) {
			e = cbpf_expr_trunc(&cc->store, src.e, 32);
			if (!e)
				return explore_null_expr(cc);
			*dst = val_scalar(e);
		} else {
			return explore_punt(cc, st->pc, "32-bit copy of a pointer");
		}
		return EXPLORE_CONT;
	}
	if (dst->kind == CV_UNINIT)
		return explore_reject(cc, st->pc, "use of an uninitialized register");
	if (val_is_ptr(dst) || val_is_ptr(&src)) {
		struct abs_val *ptr = val_is_ptr(dst) ? dst : &src;
		struct abs_val *num = val_is_ptr(dst) ? &src : dst;
		struct abs_val res;

		/* Pointer plus or minus a constant. A state pointer (map value,
		 * global data) stays one whatever is added: any use of it is
		 * the supervisor's. Anything else (variable offsets into the
		 * context or stack) is left to the supervisor too. */
		if (ptr->kind == CV_STATE && !is32 && (op == BPF_ADD || op == BPF_SUB) &&
		    num->kind == CV_SCALAR) {
			*dst = *ptr;
			return EXPLORE_CONT;
		}
		/* A .rodata or stack pointer plus a variable: an index into a
		 * table or an array, kept as an expression (loads split on
		 * its values). */
		if ((ptr->kind == CV_RODATA || ptr->kind == CV_STACK) && !is32 &&
		    num->kind == CV_SCALAR && num->e->kind != CBPF_X_CONST &&
		    (op == BPF_ADD || (op == BPF_SUB && ptr == dst))) {
			const struct cbpf_expr *idx = num->e;

			if (op == BPF_SUB)
				idx = cbpf_expr_unary(&cc->store, CBPF_X_NEG, false, 0, idx);
			res = *ptr;
			res.e = res.e ? cbpf_expr_alu(&cc->store, BPF_ADD, false, false, res.e, idx)
				      : idx;
			if (!res.e)
				return explore_null_expr(cc);
			*dst = res;
			return EXPLORE_CONT;
		}
		if (is32 || num->kind != CV_SCALAR || num->e->kind != CBPF_X_CONST ||
		    (op != BPF_ADD && !(op == BPF_SUB && ptr == dst)))
			return explore_punt(cc, st->pc, "pointer arithmetic the compiler does not follow");
		res = *ptr;
		res.off += op == BPF_ADD ? (int64_t)num->e->imm : -(int64_t)num->e->imm;
		if (res.off > (1 << 29) || res.off < -(1 << 29))
			return explore_punt(cc, st->pc, "pointer arithmetic the compiler does not follow");
		*dst = res;
		return EXPLORE_CONT;
	}
	e = cbpf_expr_alu(&cc->store, op, is32, in->off == 1, dst->e, src.e);
	if (!e)
		return explore_null_expr(cc);
	*dst = val_scalar(e);
	return EXPLORE_CONT;
}

static int explore_ld_imm64(struct cbpf_cc *cc, struct explore_state *st, const struct bpf_insn *in)
{
	struct abs_val v = { .kind = CV_STATE };

	if (in->code != (BPF_LD | BPF_IMM | BPF_DW) || st->pc + 1 >= cc->prog->insn_cnt)
		return explore_reject(cc, st->pc, "legacy packet loads are not allowed in seccomp");
	switch (in->src_reg) {
	case 0:
		v = val_scalar(cbpf_expr_const(&cc->store, insn_ld_imm64_value(in)));
		if (!v.e)
			return explore_null_expr(cc);
		break;
	case BPF_PSEUDO_MAP_VALUE:
		if ((uint32_t)in->imm < cc->obj->map_cnt && cc->frozen[in->imm]) {
			v.kind = CV_RODATA;
			v.map = (uint32_t)in->imm;
			v.off = (uint32_t)in[1].imm;
		}
		break;
	default:
		break;		/* maps, .data/.bss, functions: the supervisor's */
	}
	if (in->dst_reg >= 10)
		return explore_reject(cc, st->pc, "write to r10");
	st->r[in->dst_reg] = v;
	st->pc += 2;
	return EXPLORE_CONT;
}

/* An upper bound of e (unsigned), from its shape. */
static uint64_t expr_umax(const struct cbpf_expr *e)
{
	uint64_t m = e->hi_zero ? 0xffffffffull : ~0ull, a;

	switch (e->kind) {
	case CBPF_X_CONST:
		return e->imm;
	case CBPF_X_FIELD:
	case CBPF_X_TRUNC:
		return cbpf_width_mask(e->width);
	case CBPF_X_ALU:
		if (e->b->kind != CBPF_X_CONST)
			break;
		a = expr_umax(e->a);
		if (e->is32 && a > 0xffffffffull)
			break;
		if (e->op == BPF_AND)
			return a < e->b->imm ? a : e->b->imm & m;
		if (e->op == BPF_RSH)
			return a >> e->b->imm;
		break;
	}
	return m;
}

/* Compares of a bounded value with a constant out of its range: 1 true,
 * 0 false, -1 not decided. */
static int decide_by_range(const struct cbpf_cond *c)
{
	uint64_t max = expr_umax(c->a), k, sb = c->is32 ? 0x80000000ull : 1ull << 63;

	if (c->b->kind != CBPF_X_CONST || c->op == CBPF_C_SET)
		return -1;
	k = c->b->imm;
	if (c->is32) {
		if (max > 0xffffffffull)
			return -1;
		k = (uint32_t)k;
	}
	if (c->sgn) {
		if (max >= sb)
			return -1;	/* may be negative */
		if (k & sb)		/* a >= 0 > k */
			return c->op != CBPF_C_EQ;
	}
	switch (c->op) {
	case CBPF_C_EQ:
		return k > max ? 0 : -1;
	case CBPF_C_GT:
		return max <= k ? 0 : -1;
	default:
		return k == 0 ? 1 : max < k ? 0 : -1;
	}
}

/* How c (without its neg) comes out in the current cell: constant, to be
 * tested at run time, or the cell must be split first (cc->split). */
enum { CD_FALSE, CD_TRUE, CD_RESIDUAL, CD_SPLIT };

static int explore_decide(struct cbpf_cc *cc, const struct cbpf_cond *c)
{
	const struct cbpf_expr *ka, *kb;
	struct nr_cell *cell = &cc->cell;
	unsigned deps = c->a->deps | c->b->deps;
	uint32_t i;
	int d;

	if (c->a->kind == CBPF_X_CONST && c->b->kind == CBPF_X_CONST)
		return cbpf_cond_holds_for(c, c->a->imm, c->b->imm);
	if (c->a == c->b && c->op != CBPF_C_SET)
		return c->op != CBPF_C_GT;
	d = decide_by_range(c);
	if (d >= 0)
		return d;
	if (deps == CBPF_DEP_NR) {
		if (!cbpf_split_nr(cc->nr_field, c, cell->lo, cell->hi, &cc->split))
			return CD_RESIDUAL;
		if (cc->split.n == 1)
			return cc->split.truth[0];
		return CD_SPLIT;
	}
	if (deps == CBPF_DEP_ARCH && c->op == CBPF_C_EQ && !cell->arch_fixed) {
		ka = c->a->kind == CBPF_X_CONST ? c->a : NULL;
		kb = c->b->kind == CBPF_X_CONST ? c->b : NULL;
		if ((c->a == cc->arch_field && kb) || (c->b == cc->arch_field && ka)) {
			uint64_t k = (ka ? ka : kb)->imm;

			if (c->is32)
				k = (uint32_t)k;
			if (k > 0xffffffffull)
				return CD_FALSE;
			for (i = 0; i < cell->nexcl; i++)
				if (cell->excl[i] == k)
					return CD_FALSE;
			cc->split.arch = true;
			cc->split.arch_value = (uint32_t)k;
			return CD_SPLIT;
		}
	}
	return CD_RESIDUAL;
}

static void cond_normalize(const struct bpf_insn *in, struct cbpf_cond *c)
{
	unsigned op = BPF_OP(in->code);

	c->is32 = BPF_CLASS(in->code) == BPF_JMP32;
	c->sgn = op == BPF_JSGT || op == BPF_JSGE || op == BPF_JSLT || op == BPF_JSLE;
	c->neg = op == BPF_JNE || op == BPF_JLT || op == BPF_JLE || op == BPF_JSLT ||
		 op == BPF_JSLE;
	switch (op) {
	case BPF_JEQ:
	case BPF_JNE:
		c->op = CBPF_C_EQ;
		break;
	case BPF_JGT:
	case BPF_JLE:
	case BPF_JSGT:
	case BPF_JSLE:
		c->op = CBPF_C_GT;
		break;
	case BPF_JGE:
	case BPF_JLT:
	case BPF_JSGE:
	case BPF_JSLT:
		c->op = CBPF_C_GE;
		break;
	default:
		c->op = CBPF_C_SET;
		break;
	}
}

static int explore_run(struct cbpf_cc *cc, struct explore_state *st, struct cbpf_rnode **out,
		       unsigned depth);

static bool jmp_op_known(unsigned op)
{
	switch (op) {
	case BPF_JEQ: case BPF_JNE: case BPF_JGT: case BPF_JGE: case BPF_JLT: case BPF_JLE:
	case BPF_JSGT: case BPF_JSGE: case BPF_JSLT: case BPF_JSLE: case BPF_JSET:
		return true;
	}
	return false;
}

static int explore_cond_jump(struct cbpf_cc *cc, struct explore_state *st,
			     const struct bpf_insn *in, struct cbpf_rnode **out, unsigned depth)
{
	uint32_t target = st->pc + 1 + in->off, pc = st->pc;
	struct abs_val a = st->r[in->dst_reg], b;
	struct cbpf_rnode *t = NULL, *f = NULL;
	struct explore_state *fork;
	struct cbpf_cond c;
	int d, rc;

	if (!jmp_op_known(BPF_OP(in->code)))
		return explore_reject(cc, st->pc, "unknown jump");
	if (BPF_SRC(in->code) == BPF_K) {
		b = val_scalar(cbpf_expr_const(&cc->store, BPF_CLASS(in->code) == BPF_JMP32 ?
					   (uint32_t)in->imm : (uint64_t)(int64_t)in->imm));
		if (!b.e)
			return explore_null_expr(cc);
	} else {
		b = st->r[in->src_reg];
	}
	if (a.kind == CV_UNINIT || b.kind == CV_UNINIT)
		return explore_reject(cc, st->pc, "compare of an uninitialized register");
	if (a.kind != CV_SCALAR || b.kind != CV_SCALAR)
		return explore_punt(cc, st->pc, "comparison of pointers");
	if (target >= cc->prog->insn_cnt)
		return explore_reject(cc, st->pc, "jump out of the program");
	st->last_branch = st->pc;
	cond_normalize(in, &c);
	c.a = a.e;
	c.b = b.e;
	/* Constants on the right, where cBPF's K operand takes them:
	 * k > x is !(x >= k), k >= x is !(x > k). */
	if (c.a->kind == CBPF_X_CONST && c.b->kind != CBPF_X_CONST) {
		c.a = b.e;
		c.b = a.e;
		if (c.op == CBPF_C_GT || c.op == CBPF_C_GE) {
			c.op = c.op == CBPF_C_GT ? CBPF_C_GE : CBPF_C_GT;
			c.neg = !c.neg;
		}
	}
	d = explore_decide(cc, &c);
	if (d == CD_SPLIT)
		return EXPLORE_SPLIT;
	if (d != CD_RESIDUAL) {
		st->pc = (d == CD_TRUE) != c.neg ? target : st->pc + 1;
		return EXPLORE_CONT;
	}
	rc = explore_record_arg_compare(cc, st->pc, &c);
	if (rc)
		return rc;
	if ((c.a->deps | c.b->deps) & CBPF_DEP_ARCH)
		st->arch_tested = true;
	if (++cc->cell_branches > EXPLORE_CELL_BRANCHES || depth >= EXPLORE_MAX_DEPTH)
		return explore_giveup(cc, st->pc,
				"more residual branches than the compiler "
				"follows in one (arch, nr) cell");
	fork = malloc(sizeof(*fork));
	if (!fork)
		return err_set(cc->err, ENOMEM, "out of memory");
	*fork = *st;
	fork->pc = target;
	rc = explore_run(cc, fork, &t, depth + 1);
	free(fork);
	if (rc != EXPLORE_DONE)
		return rc;
	st->pc++;
	rc = explore_run(cc, st, &f, depth + 1);
	if (rc != EXPLORE_DONE)
		return rc;
	/* t is where the eBPF condition holds (c.neg is applied there). */
	cc->pc = pc;
	*out = explore_branch(cc, &c, t, f, pc);
	if (!*out)
		return err_set(cc->err, ENOMEM, "out of memory");
	return EXPLORE_DONE;
}

/* Distinct values read above which a lookup by the arguments is one
 * expression rather than a path per value (several in a row would
 * multiply the paths). */
#define EXPLORE_TABLE_FORK_MAX 4

/* Whether the lookup on k, reading loaded[i] at k's value i, becomes a
 * CBPF_X_TABLE: a key of the arguments or instruction pointer only (one
 * of nr or arch is left to the partition, which splits the cells on it and
 * keeps the cache), below 2^32, with more than EXPLORE_TABLE_FORK_MAX
 * distinct values read. */
static bool explore_table_worth_it(const struct cbpf_key *k, const uint64_t *loaded)
{
	uint32_t i, j, distinct = 0;

	if (k->key->deps & (CBPF_DEP_NR | CBPF_DEP_ARCH))
		return false;
	for (i = 0; i < k->n; i++) {
		if (k->vals[i] >> 32)
			return false;
		for (j = 0; j < i && loaded[j] != loaded[i]; j++)
			;
		distinct += j == i;
	}
	return distinct > EXPLORE_TABLE_FORK_MAX;
}

/* The path on, with the value read a CBPF_X_TABLE of the pairs (k's
 * values, loaded), in the store's arena. */
static int explore_rodata_table(struct cbpf_cc *cc, struct explore_state *st,
				const struct bpf_insn *in, const struct cbpf_key *k,
				const uint64_t *loaded, struct cbpf_rnode **out, unsigned depth)
{
	struct cbpf_table *tb = arena_alloc(&cc->store.arena, sizeof(*tb));
	uint64_t *keys = arena_alloc(&cc->store.arena, k->n * sizeof(*keys));
	uint64_t *vals = arena_alloc(&cc->store.arena, k->n * sizeof(*vals));
	const struct cbpf_expr *e;
	struct explore_state *fork;
	uint32_t i;
	int rc;

	if (!tb || !keys || !vals)
		return err_set(cc->err, ENOMEM, "out of memory");
	tb->hi_zero = true;
	for (i = 0; i < k->n; i++) {
		keys[i] = k->vals[i];
		vals[i] = loaded[i];
		tb->hi_zero &= loaded[i] >> 32 == 0;
	}
	tb->n = k->n;
	tb->keys = keys;
	tb->vals = vals;
	e = cbpf_expr_table(&cc->store, tb, k->key);
	if (!e)
		return explore_null_expr(cc);
	fork = malloc(sizeof(*fork));
	if (!fork)
		return err_set(cc->err, ENOMEM, "out of memory");
	*fork = *st;
	fork->r[in->dst_reg] = val_scalar(e);
	fork->r[in->dst_reg].origin = st->pc;
	fork->pc = st->pc + 1;
	rc = explore_run(cc, fork, out, depth + 1);
	free(fork);
	return rc;
}

/*
 * The path on from the load in, once per distinct value of vals (vals[i]
 * what it reads where k's key is k->vals[i]); *out a search of the key
 * that picks each value's outcome.
 */
static int explore_fork_values(struct cbpf_cc *cc, struct explore_state *st,
			       const struct bpf_insn *in, const struct cbpf_key *k,
			       const struct cbpf_expr *const *vals, struct cbpf_rnode **out,
			       unsigned depth)
{
	struct cbpf_rnode **leaf = calloc(k->n, sizeof(*leaf));
	uint32_t i, j, ndistinct = 0;
	int rc = EXPLORE_DONE;

	if (!leaf)
		return err_set(cc->err, ENOMEM, "out of memory");
	for (j = 0; j < k->n; j++) {
		struct explore_state *fork;

		for (i = 0; i < j; i++)
			if (vals[i] == vals[j])
				break;
		if (i < j) {
			leaf[j] = leaf[i];
			continue;
		}
		if (ndistinct++ && ++cc->cell_branches > EXPLORE_CELL_BRANCHES) {
			rc = explore_giveup(cc, st->pc,
					    "more residual branches than the compiler "
					    "follows in one (arch, nr) cell");
			goto out;
		}
		fork = malloc(sizeof(*fork));
		if (!fork) {
			rc = err_set(cc->err, ENOMEM, "out of memory");
			goto out;
		}
		*fork = *st;
		fork->r[in->dst_reg] = val_scalar(vals[j]);
		fork->r[in->dst_reg].origin = st->pc;
		fork->pc = st->pc + 1;
		rc = explore_run(cc, fork, &leaf[j], depth + 1);
		free(fork);
		if (rc != EXPLORE_DONE)
			goto out;
	}
	*out = cbpf_key_dispatch(&cc->store, k, leaf);
	rc = *out ? EXPLORE_DONE : explore_null_expr(cc);
out:
	free(leaf);
	return rc;
}

/*
 * A load from .rodata at a variable offset (a table lookup): the offset
 * must depend on the data through a key with few values, each giving an
 * offset inside the table. The path goes on once per distinct value read,
 * and a search tree on the key picks among them; or, for a key of the
 * arguments with many values read, once, with the value a CBPF_X_TABLE.
 * Else the supervisor's.
 */
static int explore_rodata_fork(struct cbpf_cc *cc, struct explore_state *st,
			       const struct bpf_insn *in, struct cbpf_rnode **out, unsigned depth)
{
	const struct abs_val *p = &st->r[in->src_reg];
	const struct object_map *m = &cc->obj->maps[p->map];
	unsigned size = insn_size_bytes(in->code);
	const struct cbpf_expr *off, **vals = NULL;
	struct cbpf_key *keys = NULL, *k = NULL;
	uint64_t *loaded = NULL;
	uint32_t nk, i, j;
	int rc = EXPLORE_NOTIF;

	if (BPF_MODE(in->code) != BPF_MEM && BPF_MODE(in->code) != BPF_MEMSX)
		return explore_reject(cc, st->pc, "unknown load mode");
	if (in->dst_reg >= 10)
		return explore_reject(cc, st->pc, "write to r10");
	off = cbpf_expr_alu(&cc->store, BPF_ADD, false, false, p->e,
			    cbpf_expr_const(&cc->store, (uint64_t)(p->off + in->off)));
	keys = calloc(8, sizeof(*keys));
	loaded = calloc(CBPF_KEY_MAX_VALUES, sizeof(*loaded));
	vals = calloc(CBPF_KEY_MAX_VALUES, sizeof(*vals));
	if (!keys || !loaded || !vals) {
		rc = err_set(cc->err, ENOMEM, "out of memory");
		goto out;
	}
	if (!off) {
		rc = explore_null_expr(cc);
		goto out;
	}
	nk = cbpf_keys_find(&cc->store, off, NULL, CBPF_KEY_MAX_VALUES, keys);
	/* The first key whose every value gives an offset inside the table. */
	for (i = 0; i < nk && !k; i++) {
		for (j = 0; j < keys[i].n; j++) {
			const struct cbpf_expr *o = cbpf_key_subst(&cc->store, &keys[i], off,
								   keys[i].vals[j]);
			uint64_t v = 0;

			if (!o || o->kind != CBPF_X_CONST || o->imm > m->value_size ||
			    size > m->value_size - o->imm)
				break;
			if (m->init_data)
				memcpy(&v, m->init_data + o->imm, size);
			if (BPF_MODE(in->code) == BPF_MEMSX)
				v = cbpf_sign_extend(v, size * 8);
			loaded[j] = v;
		}
		if (j == keys[i].n)
			k = &keys[i];
	}
	cc->store.too_big = false;
	if (!k || cc->store.oom || cc->store.out_of_work) {
		rc = cc->store.oom || cc->store.out_of_work
			     ? explore_null_expr(cc)
			     : explore_punt(cc, st->pc,
					    "a .rodata table indexed by a "
					    "value with too many possible values");
		goto out;
	}
	/* A lookup by the arguments with many values read: one path on, the
	 * value a search of the key (explore_rodata_table). */
	if (explore_table_worth_it(k, loaded)) {
		rc = explore_rodata_table(cc, st, in, k, loaded, out, depth);
		goto out;
	}
	/* Each distinct value read: the rest of the path, explored once. */
	for (j = 0; j < k->n; j++) {
		vals[j] = cbpf_expr_const(&cc->store, loaded[j]);
		if (!vals[j]) {
			rc = explore_null_expr(cc);
			goto out;
		}
	}
	rc = explore_fork_values(cc, st, in, k, vals, out, depth);
out:
	free(vals);
	free(loaded);
	free(keys);
	return rc;
}

/*
 * A load from the stack at a variable offset (an array indexed by the
 * data): the offset must depend on the data through a key with few values,
 * each giving an offset whose bytes the path has written (the verifier
 * has made sure that every offset the program can form is in bounds; the
 * key's values may be more, and each is checked). Each entry read is an
 * expression, a constant or computed from seccomp_data: the path goes on
 * once per distinct one, and a search of the key picks among them. Else
 * the supervisor's.
 */
static int explore_stack_fork(struct cbpf_cc *cc, struct explore_state *st,
			      const struct bpf_insn *in, struct cbpf_rnode **out, unsigned depth)
{
	const struct abs_val *p = &st->r[in->src_reg];
	unsigned size = insn_size_bytes(in->code);
	const struct cbpf_expr *off, **vals = NULL;
	struct cbpf_key *keys = NULL, *k = NULL;
	uint32_t nk, i, j;
	int rc;

	if (BPF_MODE(in->code) != BPF_MEM && BPF_MODE(in->code) != BPF_MEMSX)
		return explore_reject(cc, st->pc, "unknown load mode");
	if (in->dst_reg >= 10)
		return explore_reject(cc, st->pc, "write to r10");
	off = cbpf_expr_alu(&cc->store, BPF_ADD, false, false, p->e,
			    cbpf_expr_const(&cc->store, (uint64_t)(p->off + in->off)));
	if (!off)
		return explore_null_expr(cc);
	keys = calloc(8, sizeof(*keys));
	vals = calloc(CBPF_KEY_MAX_VALUES, sizeof(*vals));
	if (!keys || !vals) {
		rc = err_set(cc->err, ENOMEM, "out of memory");
		goto out;
	}
	nk = cbpf_keys_find(&cc->store, off, NULL, CBPF_KEY_MAX_VALUES, keys);
	/* The first key whose every value gives an offset in the frame. */
	for (i = 0; i < nk && !k; i++) {
		for (j = 0; j < keys[i].n; j++) {
			const struct cbpf_expr *o =
				cbpf_key_subst(&cc->store, &keys[i], off, keys[i].vals[j]);

			if (!o || o->kind != CBPF_X_CONST ||
			    (int64_t)o->imm < -EXPLORE_STACK_SIZE || (int64_t)o->imm + size > 0)
				break;
		}
		if (j == keys[i].n)
			k = &keys[i];
	}
	cc->store.too_big = false;
	if (!k || cc->store.oom || cc->store.out_of_work) {
		rc = cc->store.oom || cc->store.out_of_work
			     ? explore_null_expr(cc)
			     : explore_punt(cc, st->pc,
					    "a stack array indexed by a value with too many "
					    "possible values");
		goto out;
	}
	for (j = 0; j < k->n; j++) {
		const struct cbpf_expr *o = cbpf_key_subst(&cc->store, k, off, k->vals[j]);
		struct abs_val v;

		if (!o) {
			rc = explore_null_expr(cc);
			goto out;
		}
		rc = explore_stack_load(cc, st, p->frame, (int64_t)o->imm, size, &v);
		if (rc != EXPLORE_CONT)
			goto out;
		if (v.kind != CV_SCALAR) {
			rc = explore_punt(cc, st->pc,
					  "a pointer read from a stack array at a variable offset");
			goto out;
		}
		v.e = cbpf_expr_trunc(&cc->store, v.e, size * 8);
		if (v.e && BPF_MODE(in->code) == BPF_MEMSX)
			v.e = cbpf_expr_unary(&cc->store, CBPF_X_SEXT, false, size * 8, v.e);
		if (!v.e) {
			rc = explore_null_expr(cc);
			goto out;
		}
		vals[j] = v.e;
	}
	rc = explore_fork_values(cc, st, in, k, vals, out, depth);
out:
	free(vals);
	free(keys);
	return rc;
}

static int explore_call(struct cbpf_cc *cc, struct explore_state *st, const struct bpf_insn *in)
{
	uint32_t target = st->pc + 1 + in->imm, i;

	if (in->src_reg != BPF_PSEUDO_CALL)
		return explore_punt_state(cc, st->pc, "call of a helper or kfunc");
	if (target >= cc->prog->insn_cnt)
		return explore_reject(cc, st->pc, "call out of the program");
	if (st->depth + 1 >= EXPLORE_MAX_FRAMES)
		return explore_reject(cc, st->pc, "calls nested too deeply");
	st->frames[st->depth].ret_pc = st->pc + 1;
	for (i = 0; i < 4; i++) {
		st->frames[st->depth].saved[i] = st->r[6 + i];
		st->r[6 + i].kind = CV_UNINIT;
	}
	st->r[0].kind = CV_UNINIT;
	st->depth++;
	st->r[10] = (struct abs_val){ .kind = CV_STACK, .frame = (uint8_t)st->depth };
	st->pc = target;
	return EXPLORE_CONT;
}

static int explore_exit(struct cbpf_cc *cc, struct explore_state *st, struct cbpf_rnode **out)
{
	struct cbpf_event ev = { .kind = CBPF_EV_EXIT };
	const struct cbpf_expr *e;
	uint32_t i;
	int rc;

	/* A subprogram's unset R0 goes back unset (check_exit): the
	 * verifier has made sure the caller never reads it. */
	if (st->r[0].kind == CV_UNINIT && st->depth == 0)
		return explore_reject(cc, st->pc, "R0 is not initialized at exit");
	if (st->depth > 0) {
		for (i = 0; i < st->nslots;)
			if (st->slots[i].frame == st->depth)
				st->slots[i] = st->slots[--st->nslots];
			else
				i++;
		st->depth--;
		for (i = 1; i <= 5; i++)
			st->r[i].kind = CV_UNINIT;
		for (i = 0; i < 4; i++)
			st->r[6 + i] = st->frames[st->depth].saved[i];
		st->r[10] = (struct abs_val){ .kind = CV_STACK, .frame = (uint8_t)st->depth };
		st->pc = st->frames[st->depth].ret_pc;
		return EXPLORE_CONT;
	}
	if (st->r[0].kind != CV_SCALAR)
		return explore_reject(cc, st->pc, "R0 is a pointer at exit");
	e = cbpf_expr_trunc(&cc->store, st->r[0].e, 32);
	if (!e)
		return explore_null_expr(cc);
	*out = cbpf_key_ret(&cc->store, e, st->pc);
	if (!*out)
		return err_set(cc->err, ENOMEM, "out of memory");
	ev.insn = st->r[0].origin;
	ev.branch_insn = st->last_branch;
	ev.arch_tested = st->arch_tested;
	ev.value_known = e->kind == CBPF_X_CONST;
	ev.value = (uint32_t)e->imm;
	rc = explore_record(cc, &ev);
	return rc ? rc : EXPLORE_DONE;
}

/* Where the value in's destination register will hold comes from (taken
 * before in runs): a register move keeps its source's origin, anything
 * else is made at st->pc. */
static uint32_t explore_origin(const struct explore_state *st, const struct bpf_insn *in)
{
	bool reg_move = BPF_CLASS(in->code) != BPF_LDX && BPF_OP(in->code) == BPF_MOV &&
			BPF_SRC(in->code) == BPF_X && !in->off;

	return reg_move && in->src_reg < 11 ? st->r[in->src_reg].origin : st->pc;
}

static void explore_set_origin(struct explore_state *st, const struct bpf_insn *in,
			       uint32_t origin)
{
	if (in->dst_reg < 10)
		st->r[in->dst_reg].origin = origin;
}

/* Explore from st until every path ends; *out is the residual tree. */
static int explore_run(struct cbpf_cc *cc, struct explore_state *st, struct cbpf_rnode **out,
		       unsigned depth)
{
	for (;;) {
		const struct bpf_insn *in;
		uint32_t origin;
		int rc;

		cc->pc = st->pc;
		if (++cc->cell_steps > EXPLORE_CELL_STEPS || ++cc->steps > EXPLORE_TOTAL_STEPS)
			return explore_giveup(cc, st->pc,
					"more instructions explored than the "
					"compiler's budget (a long loop?)");
		if (!cbpf_store_work(&cc->store, 1))
			return explore_out_of_work(cc);
		if (st->pc >= cc->prog->insn_cnt)
			return explore_reject(cc, st->pc, "execution falls off the program");
		in = &cc->prog->insns[st->pc];
		switch (BPF_CLASS(in->code)) {
		case BPF_ALU:
		case BPF_ALU64:
			origin = explore_origin(st, in);
			rc = explore_alu(cc, st, in);
			explore_set_origin(st, in, origin);
			st->pc++;
			break;
		case BPF_LDX:
			if (in->dst_reg >= 10)
				return explore_reject(cc, st->pc, "write to r10");
			if (in->src_reg < 11 &&
			    (st->r[in->src_reg].kind == CV_RODATA ||
			     st->r[in->src_reg].kind == CV_STACK) &&
			    st->r[in->src_reg].e) {
				if (depth >= EXPLORE_MAX_DEPTH)
					return explore_giveup(cc, st->pc, "residual branches nested too deeply");
				rc = st->r[in->src_reg].kind == CV_RODATA
					     ? explore_rodata_fork(cc, st, in, out, depth)
					     : explore_stack_fork(cc, st, in, out, depth);
				if (rc == EXPLORE_NOTIF) {
					*out = cc->notif;
					return EXPLORE_DONE;
				}
				return rc;
			}
			origin = explore_origin(st, in);
			rc = explore_ldx(cc, st, in);
			explore_set_origin(st, in, origin);
			st->pc++;
			break;
		case BPF_ST:
		case BPF_STX:
			rc = explore_store(cc, st, in);
			st->pc++;
			break;
		case BPF_LD:
			rc = explore_ld_imm64(cc, st, in);
			if (rc == EXPLORE_CONT && in->dst_reg < 10)
				st->r[in->dst_reg].origin = st->pc - 2;
			break;
		case BPF_JMP:
		case BPF_JMP32:
			switch (BPF_OP(in->code)) {
			case BPF_JA:
				st->pc +=
					1 + (BPF_CLASS(in->code) == BPF_JMP32 ? in->imm : in->off);
				rc = EXPLORE_CONT;
				break;
			case BPF_CALL:
				rc = explore_call(cc, st, in);
				break;
			case BPF_EXIT:
				rc = explore_exit(cc, st, out);
				break;
			default:
				rc = explore_cond_jump(cc, st, in, out, depth);
				break;
			}
			break;
		default:
			return explore_reject(cc, st->pc, "unknown instruction class");
		}
		if (rc == EXPLORE_CONT)
			continue;
		if (rc == EXPLORE_NOTIF) {
			*out = cc->notif;
			return EXPLORE_DONE;
		}
		return rc;
	}
}

/* ---- the cells ---- */

static int explore_add_leaf(struct cbpf_cc *cc, const struct nr_cell *cell, struct cbpf_rnode *out)
{
	if (cc->nleaves == cc->leaves_cap) {
		uint32_t cap = cc->leaves_cap ? cc->leaves_cap * 2 : 256;
		struct cell_leaf *n = realloc(cc->leaves, cap * sizeof(*n));

		if (!n)
			return err_set(cc->err, ENOMEM, "out of memory");
		cc->leaves = n;
		cc->leaves_cap = cap;
	}
	cc->leaves[cc->nleaves].cell = *cell;
	cc->leaves[cc->nleaves].out = out;
	cc->nleaves++;
	if (cc->obs) {
		struct cbpf_cell view = {
			.arch_fixed = cell->arch_fixed, .arch = cell->arch, .excl = cell->excl,
			.nexcl = cell->nexcl, .lo = cell->lo, .hi = cell->hi,
		};

		return cc->obs->cell(cc->obs->ctx, &view, out, out == cc->notif, cc->events,
				     cc->nevents);
	}
	return 0;
}

struct cell_work {
	struct nr_cell *v;
	uint32_t n, cap;
};

static int explore_push_cell(struct cbpf_cc *cc, struct cell_work *w, const struct nr_cell *cell)
{
	if (w->n == w->cap) {
		uint32_t cap = w->cap ? w->cap * 2 : 256;
		struct nr_cell *n = realloc(w->v, cap * sizeof(*n));

		if (!n)
			return err_set(cc->err, ENOMEM, "out of memory");
		w->v = n;
		w->cap = cap;
	}
	w->v[w->n++] = *cell;
	return 0;
}

/* Explore one cell; on a split push the pieces instead. */
static int explore_cell(struct cbpf_cc *cc, const struct nr_cell *cell, struct cell_work *w)
{
	struct cbpf_rnode *out = NULL;
	struct explore_state *st;
	int rc;
	uint32_t i;

	cc->cell = *cell;
	cc->cell_steps = 0;
	cc->cell_branches = 0;
	cc->nevents = 0;
	cc->store.too_big = false;
	cc->store.out_of_work = false;
	cc->store.work_limit = cc->store.work + EXPLORE_CELL_WORK;
	if (cc->store.work_limit > EXPLORE_TOTAL_WORK)
		cc->store.work_limit = EXPLORE_TOTAL_WORK;
	st = calloc(1, sizeof(*st));
	if (!st)
		return err_set(cc->err, ENOMEM, "out of memory");
	st->last_branch = UINT32_MAX;
	st->r[1] = (struct abs_val){ .kind = CV_CTX };
	st->r[10] = (struct abs_val){ .kind = CV_STACK };
	rc = explore_run(cc, st, &out, 0);
	free(st);
	/* A path finished as the budget ran out (key searches stop short
	 * then): the cell's outcome may be worse than it should, never
	 * wrong, but the budget decides alike everywhere: supervised. */
	if (rc == EXPLORE_DONE && cc->store.out_of_work)
		rc = explore_out_of_work(cc);
	cc->store.work_limit = 0;
	if (rc < 0)
		return rc;
	if (rc == EXPLORE_DONE)
		return explore_add_leaf(cc, cell, out);
	if (rc == EXPLORE_GIVEUP)
		return explore_add_leaf(cc, cell, cc->notif);
	/* EXPLORE_SPLIT: pieces pushed last-first so that they are explored in
	 * increasing nr order (only for readable output). */
	if (cc->split.arch) {
		struct nr_cell fixed = *cell, rest = *cell;
		uint32_t *excl = arena_alloc(&cc->store.arena, (cell->nexcl + 1) * sizeof(*excl));

		if (!excl)
			return err_set(cc->err, ENOMEM, "out of memory");
		if (cell->nexcl)
			memcpy(excl, cell->excl, cell->nexcl * sizeof(*excl));
		excl[cell->nexcl] = cc->split.arch_value;
		rest.excl = excl;
		rest.nexcl++;
		fixed.arch_fixed = true;
		fixed.arch = cc->split.arch_value;
		fixed.nexcl = 0;
		fixed.excl = NULL;
		rc = explore_push_cell(cc, w, &rest);
		return rc ? rc : explore_push_cell(cc, w, &fixed);
	}
	for (i = cc->split.n; i-- > 0;) {
		struct nr_cell piece = *cell;

		piece.lo = cc->split.start[i];
		piece.hi = i + 1 < cc->split.n ? cc->split.start[i + 1] - 1 : cell->hi;
		rc = explore_push_cell(cc, w, &piece);
		if (rc)
			return rc;
	}
	return 0;
}

static bool cell_has_arch(const struct nr_cell *c, bool other, uint32_t arch)
{
	uint32_t i;

	if (c->arch_fixed)
		return !other && c->arch == arch;
	for (i = 0; !other && i < c->nexcl; i++)
		if (c->excl[i] == arch)
			return false;
	return true;
}

static int cmp_range(const void *x, const void *y)
{
	const struct cbpf_range *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Gather one arch class's cells into sorted, merged ranges covering all nr. */
static int plan_build_class(struct cbpf_cc *cc, struct cbpf_arch_class *cl)
{
	struct cbpf_range *r;
	uint32_t i, n = 0, m = 0;

	r = arena_alloc(&cc->store.arena, (cc->nleaves + 1) * sizeof(*r));
	if (!r)
		return err_set(cc->err, ENOMEM, "out of memory");
	for (i = 0; i < cc->nleaves; i++) {
		const struct cell_leaf *l = &cc->leaves[i];

		if (!cell_has_arch(&l->cell, cl->other, cl->arch))
			continue;
		r[n].lo = l->cell.lo;
		r[n].hi = l->cell.hi;
		r[n].out = l->out;
		n++;
	}
	qsort(r, n, sizeof(*r), cmp_range);
	for (i = 0; i < n; i++) {
		uint32_t expect = m ? r[m - 1].hi + 1 : 0;

		if (r[i].lo != expect || (m && r[m - 1].hi == UINT32_MAX))
			return err_set(cc->err, EFAULT,
				       "internal error: cells of arch 0x%x do not cover nr %u",
				       cl->arch, expect);
		if (m && r[m - 1].out == r[i].out)
			r[m - 1].hi = r[i].hi;
		else
			r[m++] = r[i];
	}
	if (!m || r[m - 1].hi != UINT32_MAX)
		return err_set(cc->err, EFAULT, "internal error: cells of arch 0x%x incomplete",
			       cl->arch);
	cl->ranges = r;
	cl->nranges = m;
	return 0;
}

static int plan_build(struct cbpf_cc *cc, struct cbpf_plan *plan)
{
	uint32_t i, j, n = 0;
	int rc;

	plan->classes = arena_alloc(&cc->store.arena, (cc->nleaves + 1) * sizeof(*plan->classes));
	if (!plan->classes)
		return err_set(cc->err, ENOMEM, "out of memory");
	for (i = 0; i < cc->nleaves; i++) {
		const struct nr_cell *c = &cc->leaves[i].cell;

		if (!c->arch_fixed)
			continue;
		for (j = 0; j < n && plan->classes[j].arch != c->arch; j++)
			;
		if (j == n) {
			plan->classes[n].arch = c->arch;
			plan->classes[n].other = false;
			n++;
		}
	}
	/* The native arch is tested first: the syscalls of the machine's own
	 * programs, by far the most, then pay one arch compare, not one per
	 * arch the program meets before it. */
	for (j = 1; j < n; j++)
		if (plan->classes[j].arch == syscall_abi_native().audit) {
			struct cbpf_arch_class native = plan->classes[j];

			memmove(&plan->classes[1], &plan->classes[0], j * sizeof(*plan->classes));
			plan->classes[0] = native;
			break;
		}
	plan->classes[n].other = true;
	plan->nclasses = n + 1;
	for (i = 0; i < plan->nclasses; i++) {
		rc = plan_build_class(cc, &plan->classes[i]);
		if (rc)
			return rc;
	}
	plan->notif = cc->notif;
	return 0;
}

/* Explore prog cell by cell; then lay the plan out into *out, or (with an
 * observer) report the cells to it instead. */
static int explore_program(const struct object *obj, const struct object_prog *prog,
			   const struct cbpf_observer *obs, const struct cbpf_compile_opts *opts,
			   struct cbpf_prog *out, struct secbpf_err *err)
{
	struct cbpf_cc cc = { .obj = obj, .prog = prog, .err = err, .obs = obs };
	struct cbpf_expr field = { .kind = CBPF_X_FIELD, .width = 32 };
	struct cbpf_rnode notif = { .kind = CBPF_R_NOTIF };
	struct nr_cell all = { .lo = 0, .hi = UINT32_MAX };
	struct cell_work w = { 0 };
	struct cbpf_plan plan = { 0 };
	uint32_t explored = 0, i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!obj || !prog || !prog->insns || !prog->insn_cnt)
		return err_set(err, EINVAL, "cbpf_compile: no program");
	/* .rodata, and global data that no program of the object writes
	 * (nothing else does once it is loaded): their bytes are final. */
	cc.frozen = calloc(obj->map_cnt + 1, sizeof(*cc.frozen));
	if (!cc.frozen)
		return err_set(err, ENOMEM, "out of memory");
	for (i = 0; i < obj->map_cnt; i++)
		cc.frozen[i] =
			obj->maps[i].kind == OBJECT_MAP_RODATA || object_global_read_only(obj, i);
	cc.nr_field = cbpf_expr_intern(&cc.store, &field);
	field.imm = 4;
	cc.arch_field = cbpf_expr_intern(&cc.store, &field);
	cc.notif = cbpf_rnode_intern(&cc.store, &notif);
	if (!cc.nr_field || !cc.arch_field || !cc.notif) {
		rc = err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	rc = explore_push_cell(&cc, &w, &all);
	while (!rc && w.n) {
		struct nr_cell cell = w.v[--w.n];

		/* Past the budgets the rest of the domain is supervised. */
		if (++explored > EXPLORE_MAX_CELLS || cc.steps > EXPLORE_TOTAL_STEPS ||
		    cc.store.work >= EXPLORE_TOTAL_WORK) {
			cc.nevents = 0;
			rc = cbpf_punt_note(&cc.punts, CBPF_PUNT_NO_INSN,
					    cc.store.work >= EXPLORE_TOTAL_WORK
						    ? "the compiler's work budget for the program "
						      "ran out before these (arch, nr) cells"
						    : "more (arch, nr) cells or instructions than "
						      "the compiler explores");
			rc = rc ? err_set(err, ENOMEM, "out of memory")
				: explore_add_leaf(&cc, &cell, cc.notif);
		} else {
			rc = explore_cell(&cc, &cell, &w);
		}
	}
	if (!rc && !cc.obs)
		rc = plan_build(&cc, &plan);
	if (!rc && !cc.obs)
		rc = cbpf_layout_plan(&plan, opts, out, err);
	/* The exploration's reasons first, then the layout's. */
	for (i = 0; !rc && !cc.obs && i < out->npunts; i++)
		if (cbpf_punt_note(&cc.punts, out->punts[i].insn, out->punts[i].why))
			rc = err_set(err, ENOMEM, "out of memory");
	if (!rc && !cc.obs) {
		free(out->punts);
		out->needs_state = cc.punts.needs_state;
		out->punts = cc.punts.punts;
		out->npunts = cc.punts.npunts;
		out->work = cc.store.work;
		cc.punts.punts = NULL;
	}
out:
	free(cc.frozen);
	free(cc.punts.punts);
	if (rc < 0)
		cbpf_prog_free(out);
	free(w.v);
	free(cc.leaves);
	free(cc.events);
	cbpf_store_free(&cc.store);
	return rc;
}

int cbpf_compile(const struct object *obj, const struct object_prog *prog,
		 const struct cbpf_compile_opts *opts, struct cbpf_prog *out,
		 struct secbpf_err *err)
{
	int rc;

	if (!out)
		return err_set(err, EINVAL, "cbpf_compile: no output");
	rc = explore_program(obj, prog, NULL, opts, out, err);
	return rc < 0 ? rc : 0;
}

int cbpf_observe(const struct object *obj, const struct object_prog *prog,
		 const struct cbpf_observer *obs, struct secbpf_err *err)
{
	struct cbpf_prog unused;

	if (!obs || !obs->cell)
		return err_set(err, EINVAL, "cbpf_observe: no observer");
	return explore_program(obj, prog, obs, NULL, &unused, err);
}

static int punt_note(struct cbpf_prog *p, uint32_t insn, const char *why, bool needs_state)
{
	struct cbpf_punt *v;
	uint32_t i;

	p->needs_state |= needs_state;
	for (i = 0; i < p->npunts; i++)
		if (p->punts[i].insn == insn && !strcmp(p->punts[i].why, why))
			return 0;
	if (p->npunts >= CBPF_PUNT_MAX)
		return 0;
	v = realloc(p->punts, (p->npunts + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->punts = v;
	p->punts[p->npunts++] =
		(struct cbpf_punt){ .insn = insn, .why = why, .needs_state = needs_state };
	return 0;
}

int cbpf_punt_note(struct cbpf_prog *p, uint32_t insn, const char *why)
{
	return punt_note(p, insn, why, false);
}

int cbpf_punt_note_state(struct cbpf_prog *p, uint32_t insn, const char *why)
{
	return punt_note(p, insn, why, true);
}

void cbpf_prog_free(struct cbpf_prog *p)
{
	uint32_t i;

	if (!p)
		return;
	/* filters[0] is insns, freed below. */
	for (i = 1; p->filters && i < p->nfilters; i++)
		free(p->filters[i].filter);
	free(p->filters);
	p->filters = NULL;
	p->nfilters = 0;
	free(p->insns);
	p->insns = NULL;
	p->len = 0;
	free(p->punts);
	p->punts = NULL;
	p->npunts = 0;
	p->needs_state = false;
}

