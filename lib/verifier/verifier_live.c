// SPDX-License-Identifier: MIT
/*
 * What the exploration from a prune point can depend on, found once before
 * exploring: for every instruction, the registers and own stack slots that
 * are read later (live) and those whose value may decide whether a later
 * instruction is accepted or which way it goes (needed). A scalar that is
 * live but not needed may differ between two states at a prune point
 * without changing what is safe: the kernel's precision tracking, done here
 * as a conservative dataflow over the function's instructions.
 */
#include <errno.h>
#include <stdlib.h>

#include "vm/insn.h"
#include "verifier/verifier_internal.h"

#define REGS_ALL ((1u << MAX_BPF_REG) - 1)
#define REGS_ARGS (0x3eu)	  /* r1..r5 */
#define REGS_CALLER_SAVED (0x3fu) /* r0..r5 */
#define SLOTS_ALL (~0ULL)

static uint16_t reg_bit(unsigned r)
{
	return (uint16_t)(1u << r);
}

static bool insn_is_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL);
}

static bool insn_is_atomic(const struct bpf_insn *in)
{
	return BPF_CLASS(in->code) == BPF_STX && BPF_MODE(in->code) == BPF_ATOMIC;
}

/* The own-frame slots that bytes fp+off .. fp+off+size-1 touch; an access
 * outside the stack is refused during exploration, so it touches none. */
static uint64_t fp_slots(int32_t off, unsigned size)
{
	int64_t lo = off, hi = (int64_t)off + size - 1;
	uint32_t first, last, spi;
	uint64_t m = 0;

	if (lo < -VERIFIER_STACK_SIZE || hi >= 0)
		return 0;
	first = (uint32_t)((-hi - 1) / 8);
	last = (uint32_t)((-lo - 1) / 8);
	for (spi = first; spi <= last && spi < 64; spi++)
		m |= 1ULL << spi;
	return m;
}

/* A store of 8 bytes at fp+off that replaces one whole slot, or 0. */
static uint64_t fp_slot_overwritten(int32_t off, unsigned size)
{
	if (size != 8 || off % 8 || off < -VERIFIER_STACK_SIZE || off >= 0)
		return 0;
	return 1ULL << ((uint32_t)(-off) / 8 - 1);
}

/* ---- forward: which registers may hold a pointer ---- */

struct ptr_bits {
	uint16_t ptr;	/* may be any pointer */
	uint16_t stack; /* may point into a stack (own or a caller's) */
};

/* What in leaves in the pointer bits of the registers. */
static struct ptr_bits ptr_transfer(const struct bpf_insn *in, struct ptr_bits b)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	uint16_t d = reg_bit(in->dst_reg), s = reg_bit(in->src_reg);

	switch (cls) {
	case BPF_ALU64:
		if (op == BPF_MOV && BPF_SRC(in->code) == BPF_X && !in->off) {
			b.ptr = (b.ptr & ~d) | ((b.ptr & s) ? d : 0);
			b.stack = (b.stack & ~d) | ((b.stack & s) ? d : 0);
		} else if ((op == BPF_ADD || op == BPF_SUB) && BPF_SRC(in->code) == BPF_X) {
			b.ptr |= (b.ptr & s) ? d : 0;
			b.stack |= (b.stack & s) ? d : 0;
		} else if (op != BPF_ADD && op != BPF_SUB) {
			b.ptr &= ~d;
			b.stack &= ~d;
		}
		break;
	case BPF_ALU:
		b.ptr &= ~d;
		b.stack &= ~d;
		break;
	case BPF_LD:
		b.stack &= ~d;
		if (in->src_reg)
			b.ptr |= d; /* map, map value or function */
		else
			b.ptr &= ~d;
		break;
	case BPF_LDX:
		/* Only a stack holds spilled pointers (maps, the context and
		 * ringbuf records refuse them). */
		if (verifier_access_size(in->code) == 8 && (b.stack & s)) {
			b.ptr |= d;
			b.stack |= d;
		} else {
			b.ptr &= ~d;
			b.stack &= ~d;
		}
		break;
	case BPF_JMP:
		if (insn_is_call(in)) {
			b.ptr &= ~REGS_CALLER_SAVED;
			b.stack &= ~REGS_CALLER_SAVED;
			b.ptr |= reg_bit(BPF_REG_0);
			/* a function may return a pointer it was given */
			if (in->src_reg == BPF_PSEUDO_CALL)
				b.stack |= reg_bit(BPF_REG_0);
		}
		break;
	default:
		break;
	}
	return b;
}

/* The successors of insn i inside its function; a call continues after it. */
static unsigned insn_successors(const struct verifier_env *env, uint32_t i, uint32_t succ[2])
{
	const struct bpf_insn *in = &env->insns[i];
	uint8_t cls = BPF_CLASS(in->code);
	unsigned n = 0;

	if (vinsn_is_exit(in))
		return 0;
	if (vinsn_is_ja(in)) {
		succ[n++] = (uint32_t)vinsn_jump_target(in, i);
		return n;
	}
	succ[n++] = i + (insn_is_ld_imm64(in) ? 2 : 1);
	if ((cls == BPF_JMP || cls == BPF_JMP32) && vinsn_is_cond_jump(BPF_OP(in->code)))
		succ[n++] = (uint32_t)vinsn_jump_target(in, i);
	return n;
}

static bool insn_is_slot(const struct verifier_env *env, uint32_t i)
{
	return !(env->aux[i].flags & AUX_LD_IMM64_HI);
}

static void compute_ptr_bits(const struct verifier_env *env, struct ptr_bits *in_bits)
{
	bool changed = true;
	uint32_t i;

	for (i = 0; i < env->cnt; i++) {
		in_bits[i].ptr = 0;
		in_bits[i].stack = 0;
		if (!(env->aux[i].flags & AUX_SUBPROG_START))
			continue;
		in_bits[i].ptr = reg_bit(BPF_REG_10) | reg_bit(BPF_REG_1);
		in_bits[i].stack = reg_bit(BPF_REG_10);
		if (i) {
			/* arguments may point anywhere, a caller's stack too */
			in_bits[i].ptr |= REGS_ARGS;
			in_bits[i].stack |= REGS_ARGS;
		}
	}
	while (changed) {
		changed = false;
		for (i = 0; i < env->cnt; i++) {
			uint32_t succ[2];
			unsigned n, k;
			struct ptr_bits out;

			if (!insn_is_slot(env, i))
				continue;
			out = ptr_transfer(&env->insns[i], in_bits[i]);
			n = insn_successors(env, i, succ);
			for (k = 0; k < n; k++) {
				struct ptr_bits *t = &in_bits[succ[k]];
				struct ptr_bits u = { t->ptr | out.ptr, t->stack | out.stack };

				if (u.ptr != t->ptr || u.stack != t->stack) {
					*t = u;
					changed = true;
				}
			}
		}
	}
}

/* ---- backward: what is read, and what decides ---- */

struct live_bits {
	uint16_t live, need;
	uint64_t slots_live, slots_need;
};

/* The sets before insn i, from the sets after it (out). */
static struct live_bits live_transfer(const struct verifier_env *env, uint32_t i,
				      struct live_bits out, struct ptr_bits ptr, bool main_returns)
{
	const struct bpf_insn *in = &env->insns[i];
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	uint16_t d = reg_bit(in->dst_reg), s = reg_bit(in->src_reg);
	bool is_x = BPF_SRC(in->code) == BPF_X;
	struct live_bits b = out;
	unsigned size = verifier_access_size(in->code);
	uint64_t slots, killed;
	bool dst_need = out.need & d;

	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		if (op == BPF_MOV) {
			b.live &= ~d;
			b.need &= ~d;
			if (is_x) {
				b.live |= s;
				if (dst_need)
					b.need |= s;
			}
			break;
		}
		b.live |= d;
		/* neg and byte swaps have no source (BPF_X marks "to big
		 * endian" for the latter) */
		if (!is_x || op == BPF_NEG || op == BPF_END)
			break;
		b.live |= s;
		if (dst_need)
			b.need |= s;
		/* pointer arithmetic: the scalar's bounds decide acceptance */
		if (cls == BPF_ALU64 && (op == BPF_ADD || op == BPF_SUB) && ((ptr.ptr & (d | s))))
			b.need |= d | s;
		break;
	case BPF_LD:
		b.live &= ~d;
		b.need &= ~d;
		break;
	case BPF_LDX:
		b.live &= ~d;
		b.need &= ~d;
		b.live |= s;
		b.need |= s;
		if (in->src_reg == BPF_REG_10)
			slots = fp_slots(in->off, size);
		else
			slots = (ptr.stack & s) ? SLOTS_ALL : 0;
		b.slots_live |= slots;
		if (dst_need)
			b.slots_need |= slots;
		break;
	case BPF_ST:
	case BPF_STX:
		b.live |= d;
		b.need |= d;
		if (insn_is_atomic(in)) {
			/* reads and writes memory and a register: keep all */
			b.live |= s | reg_bit(BPF_REG_0);
			b.need |= s | reg_bit(BPF_REG_0);
			if (ptr.stack & d) {
				b.slots_live = SLOTS_ALL;
				b.slots_need = SLOTS_ALL;
			}
			break;
		}
		if (in->dst_reg == BPF_REG_10) {
			slots = fp_slots(in->off, size);
			killed = fp_slot_overwritten(in->off, size);
		} else {
			slots = (ptr.stack & d) ? SLOTS_ALL : 0;
			killed = 0;
		}
		if (cls == BPF_STX) {
			b.live |= s;
			/* a value stored where a needed slot (or a caller's
			 * stack, which is not ours to judge) may be */
			if ((slots & out.slots_need) || (in->dst_reg != BPF_REG_10 && slots))
				b.need |= s;
		}
		/* A store that replaces a whole slot ends what was in it; one
		 * that does not looks at it (a spilled pointer may not be
		 * partly overwritten), so the slot's kind matters. */
		b.slots_live &= ~killed;
		b.slots_need &= ~killed;
		b.slots_live |= slots & ~killed;
		break;
	case BPF_JMP:
	case BPF_JMP32:
		if (vinsn_is_exit(in)) {
			bool is_main = env->aux[i].subprog == 0 && !main_returns;

			/* The program's return value is any number for
			 * seccomp; a function's goes back to its caller. */
			b.live = reg_bit(BPF_REG_0);
			b.need = is_main ? 0 : reg_bit(BPF_REG_0);
			b.slots_live = 0;
			b.slots_need = 0;
			break;
		}
		if (insn_is_call(in)) {
			/* Arguments are read and may decide (sizes, map
			 * keys, callbacks); through pointers in them any of
			 * our slots may be read. */
			b.live = (b.live & ~REGS_CALLER_SAVED) | REGS_ARGS;
			b.need = (b.need & ~REGS_CALLER_SAVED) | REGS_ARGS;
			b.slots_live = SLOTS_ALL;
			b.slots_need = SLOTS_ALL;
			break;
		}
		if (vinsn_is_ja(in))
			break;
		b.live |= d;
		b.need |= d;
		if (is_x) {
			b.live |= s;
			b.need |= s;
		}
		break;
	default:
		/* unknown classes are refused when explored: keep all */
		b.live = b.need = REGS_ALL;
		b.slots_live = b.slots_need = SLOTS_ALL;
		break;
	}
	return b;
}

/*
 * Fill env->aux[i].live_regs/need_regs/live_slots/need_slots with what may
 * be read, or decide, from insn i on (before it runs), in its own frame.
 * Over-approximates: every path of the function is assumed possible.
 */
int verifier_liveness(struct verifier_env *env)
{
	struct ptr_bits *ptr = calloc(env->cnt, sizeof(*ptr));
	struct live_bits *in = calloc(env->cnt, sizeof(*in));
	bool main_returns = false, changed = true;
	uint32_t i;

	if (!ptr || !in) {
		free(ptr);
		free(in);
		return -ENOMEM;
	}
	/* insn 0 called as a function: its exits return to a caller */
	for (i = 0; i < env->cnt; i++) {
		const struct bpf_insn *in_i = &env->insns[i];

		if (!insn_is_slot(env, i))
			continue;
		if (((insn_is_call(in_i) && in_i->src_reg == BPF_PSEUDO_CALL) ||
		     (insn_is_ld_imm64(in_i) && in_i->src_reg == BPF_PSEUDO_FUNC)) &&
		    (int64_t)i + in_i->imm + 1 == 0)
			main_returns = true;
	}
	compute_ptr_bits(env, ptr);
	while (changed) {
		changed = false;
		for (i = env->cnt; i-- > 0;) {
			struct live_bits out = { 0, 0, 0, 0 }, b;
			uint32_t succ[2];
			unsigned n, k;

			if (!insn_is_slot(env, i))
				continue;
			n = insn_successors(env, i, succ);
			for (k = 0; k < n; k++) {
				out.live |= in[succ[k]].live;
				out.need |= in[succ[k]].need;
				out.slots_live |= in[succ[k]].slots_live;
				out.slots_need |= in[succ[k]].slots_need;
			}
			b = live_transfer(env, i, out, ptr[i], main_returns);
			/* Only grow: the fixpoint is the least one above. */
			b.live |= in[i].live;
			b.need |= in[i].need;
			b.slots_live |= in[i].slots_live;
			b.slots_need |= in[i].slots_need;
			/* what decides is read */
			b.live |= b.need;
			b.slots_live |= b.slots_need;
			if (b.live != in[i].live || b.need != in[i].need ||
			    b.slots_live != in[i].slots_live || b.slots_need != in[i].slots_need) {
				in[i] = b;
				changed = true;
			}
		}
	}
	for (i = 0; i < env->cnt; i++) {
		env->aux[i].live_regs = in[i].live;
		env->aux[i].need_regs = in[i].need;
		env->aux[i].live_slots = in[i].slots_live;
		env->aux[i].need_slots = in[i].slots_need;
	}
	free(ptr);
	free(in);
	return 0;
}
