// SPDX-License-Identifier: MIT
/*
 * The eBPF instruction layer (see insn.h): one decoder that knows every
 * RFC 9669 opcode and which fields it uses, and on top of it the checks of
 * one instruction, the structural validator and the kernel-style
 * disassembler. The assembler (asm.c) takes its mnemonics from here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/insn.h"

/* Sign-extending loads (RFC 9669); older uapi headers lack the define. */
#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80
#endif

#define REG_FP 10
#define NR_REGS 11
#define REG_BIT(r) ((uint16_t)(1u << (r)))
#define ARG_REGS 0x003e /* r1..r5 */

/* ------------------------------------------------------------------ */
/* Helper names                                                         */
/* ------------------------------------------------------------------ */

/*
 * Indexed by helper id. Designated initializers keep the ids right whether
 * the uapi mapper separates its entries with commas (<= 6.1) or appends one
 * to each (>= 6.2).
 */
#define INSN_HELPER_NAME(x) [BPF_FUNC_##x] = "bpf_" #x
static const char *const helper_names[] = { __BPF_FUNC_MAPPER(INSN_HELPER_NAME) };
#undef INSN_HELPER_NAME

#define NR_HELPERS ((int32_t)(sizeof(helper_names) / sizeof(helper_names[0])))

const char *insn_helper_name(int32_t id)
{
	if (id < 0 || id >= NR_HELPERS)
		return NULL;
	return helper_names[id];
}

int32_t insn_helper_id(const char *name)
{
	int32_t id;

	if (!name)
		return -1;
	if (strncmp(name, "bpf_", 4) == 0)
		name += 4;
	for (id = 0; id < NR_HELPERS; id++) {
		if (helper_names[id] && strcmp(helper_names[id] + 4, name) == 0)
			return id;
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* Decoding                                                             */
/* ------------------------------------------------------------------ */

/* Fields an instruction gives a meaning to; all others must be zero. */
enum insn_field {
	F_DST = 1 << 0,
	F_SRC = 1 << 1,
	F_OFF = 1 << 2,
	F_IMM = 1 << 3,
};

/* What the decoder learns about one instruction. */
struct insn_shape {
	char name[24];	  /* assembler mnemonic, for messages */
	unsigned fields;  /* enum insn_field: fields with a meaning */
	uint16_t reads;	  /* registers read (bit per register) */
	uint16_t writes;  /* registers written */
	bool regimm;	  /* has a register (BPF_X) and an immediate form */
	bool call;	  /* clobbers r1..r5 and sets r0 */
	bool jump;	  /* has a pc-relative target */
	bool cond;	  /* the jump may also fall through */
	bool stop;	  /* no fall-through (exit, ja) */
	int64_t jump_off; /* target = pc + jump_off + 1 */
};

static const char *const alu_names[16] = {
	[BPF_ADD >> 4] = "add",	  [BPF_SUB >> 4] = "sub", [BPF_MUL >> 4] = "mul",
	[BPF_DIV >> 4] = "div",	  [BPF_OR >> 4] = "or",	  [BPF_AND >> 4] = "and",
	[BPF_LSH >> 4] = "lsh",	  [BPF_RSH >> 4] = "rsh", [BPF_NEG >> 4] = "neg",
	[BPF_MOD >> 4] = "mod",	  [BPF_XOR >> 4] = "xor", [BPF_MOV >> 4] = "mov",
	[BPF_ARSH >> 4] = "arsh",
};

static const char *const jmp_names[16] = {
	[BPF_JEQ >> 4] = "jeq",	  [BPF_JGT >> 4] = "jgt",   [BPF_JGE >> 4] = "jge",
	[BPF_JSET >> 4] = "jset", [BPF_JNE >> 4] = "jne",   [BPF_JSGT >> 4] = "jsgt",
	[BPF_JSGE >> 4] = "jsge", [BPF_JLT >> 4] = "jlt",   [BPF_JLE >> 4] = "jle",
	[BPF_JSLT >> 4] = "jslt", [BPF_JSLE >> 4] = "jsle",
};

static const char *const size_suffix[4] = {
	[BPF_W >> 3] = "w",
	[BPF_H >> 3] = "h",
	[BPF_B >> 3] = "b",
	[BPF_DW >> 3] = "dw",
};

const char *insn_alu_op_name(unsigned op)
{
	return op < 256 && !(op & 15) ? alu_names[op >> 4] : NULL;
}

const char *insn_jmp_op_name(unsigned op)
{
	return op < 256 && !(op & 15) ? jmp_names[op >> 4] : NULL;
}

/* Sets why (if given) and returns -EINVAL: the decoder's only failure. */
static int bad(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int decode_alu(const struct bpf_insn *in, struct insn_shape *s, char *why, size_t len)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	bool reg = BPF_SRC(in->code) == BPF_X;
	unsigned op = BPF_OP(in->code);
	const char *sfx = is64 ? "" : "32";
	uint16_t dst = REG_BIT(in->dst_reg & 15);
	uint16_t src = REG_BIT(in->src_reg & 15);

	s->writes = dst;
	s->fields = F_DST | (reg ? F_SRC : F_IMM);
	s->reads = dst | (reg ? src : 0);
	s->regimm = op != BPF_NEG && op != BPF_END;

	switch (op) {
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
	case BPF_OR:
	case BPF_AND:
	case BPF_LSH:
	case BPF_RSH:
	case BPF_XOR:
	case BPF_ARSH:
		snprintf(s->name, sizeof(s->name), "%s%s", alu_names[op >> 4], sfx);
		return 0;
	case BPF_DIV:
	case BPF_MOD:
		snprintf(s->name, sizeof(s->name), "%s%s%s", in->off == 1 ? "s" : "",
			 alu_names[op >> 4], sfx);
		s->fields |= F_OFF;
		if (in->off != 0 && in->off != 1)
			return bad(why, len,
				   "%s with invalid offset field %d (must be 0, or 1 for "
				   "signed division)",
				   s->name, in->off);
		return 0;
	case BPF_NEG:
		snprintf(s->name, sizeof(s->name), "neg%s", sfx);
		if (reg)
			return bad(why, len,
				   "%s with a register source (opcode 0x%02x) is not "
				   "defined",
				   s->name, in->code);
		s->fields = F_DST;
		return 0;
	case BPF_MOV:
		s->reads = reg ? src : 0;
		if (!reg || in->off == 0) {
			snprintf(s->name, sizeof(s->name), "mov%s", sfx);
			return 0;
		}
		s->fields |= F_OFF;
		if (in->off == 8 || in->off == 16 || (is64 && in->off == 32)) {
			snprintf(s->name, sizeof(s->name), "movsx%d%s", in->off,
				 is64 ? "64" : "32");
			return 0;
		}
		snprintf(s->name, sizeof(s->name), "mov%s", sfx);
		return bad(why, len,
			   "%s with invalid offset field %d (must be 0, or %s for "
			   "sign extension)",
			   s->name, in->off, is64 ? "8, 16, 32" : "8, 16");
	case BPF_END:
		if (is64 && reg)
			return bad(why, len,
				   "unknown opcode 0x%02x (ALU64 byte swap must use "
				   "BPF_TO_LE)",
				   in->code);
		snprintf(s->name, sizeof(s->name), "%s%d",
			 is64  ? "bswap"
			 : reg ? "be"
			       : "le",
			 in->imm);
		s->fields = F_DST | F_IMM;
		if (in->imm != 16 && in->imm != 32 && in->imm != 64)
			return bad(why, len,
				   "%s with invalid width %d in imm (must be 16, 32 or 64)",
				   is64	 ? "bswap"
				   : reg ? "be"
					 : "le",
				   in->imm);
		return 0;
	default:
		return bad(why, len, "unknown ALU%s opcode 0x%02x", is64 ? "64" : "", in->code);
	}
}

static int decode_jmp(const struct bpf_insn *in, struct insn_shape *s, char *why, size_t len)
{
	bool is32 = BPF_CLASS(in->code) == BPF_JMP32;
	bool reg = BPF_SRC(in->code) == BPF_X;
	unsigned op = BPF_OP(in->code);

	switch (op) {
	case BPF_JA:
		if (reg)
			return bad(why, len, "unknown opcode 0x%02x (ja has no register form)",
				   in->code);
		s->jump = s->stop = true;
		if (is32) {
			strcpy(s->name, "ja32");
			s->fields = F_IMM;
			s->jump_off = in->imm;
		} else {
			strcpy(s->name, "ja");
			s->fields = F_OFF;
			s->jump_off = in->off;
		}
		return 0;
	case BPF_CALL:
		if (is32)
			return bad(why, len,
				   "unknown opcode 0x%02x (call is a BPF_JMP instruction)",
				   in->code);
		s->call = true;
		if (reg) {
			strcpy(s->name, "callx");
			s->fields = F_DST;
			s->reads = REG_BIT(in->dst_reg & 15);
			return 0;
		}
		s->fields = F_SRC | F_IMM;
		if (in->src_reg == 0) {
			strcpy(s->name, "call");
			return 0;
		}
		if (in->src_reg == BPF_PSEUDO_CALL) {
			strcpy(s->name, "call local");
			s->jump = true;
			s->jump_off = in->imm;
			return 0;
		}
		strcpy(s->name, "call");
		if (in->src_reg == BPF_PSEUDO_KFUNC_CALL)
			return bad(why, len,
				   "call of a kernel function (src_reg 2): kernel function "
				   "calls (kfuncs) do not exist in user space");
		return bad(why, len, "call with invalid src_reg %d (0 = helper, 1 = local call)",
			   in->src_reg);
	case BPF_EXIT:
		if (is32 || reg)
			return bad(why, len, "unknown opcode 0x%02x (exit is 0x95)", in->code);
		strcpy(s->name, "exit");
		s->stop = true;
		s->reads = REG_BIT(0);
		return 0;
	default:
		if (!jmp_names[op >> 4])
			return bad(why, len, "unknown JMP%s opcode 0x%02x", is32 ? "32" : "",
				   in->code);
		snprintf(s->name, sizeof(s->name), "%s%s", jmp_names[op >> 4], is32 ? "32" : "");
		s->fields = F_DST | F_OFF | (reg ? F_SRC : F_IMM);
		s->reads = REG_BIT(in->dst_reg & 15) | (reg ? REG_BIT(in->src_reg & 15) : 0);
		s->jump = s->cond = s->regimm = true;
		s->jump_off = in->off;
		return 0;
	}
}

static int decode_atomic(const struct bpf_insn *in, struct insn_shape *s, char *why, size_t len)
{
	unsigned size = BPF_SIZE(in->code);
	const char *sfx = size == BPF_DW ? "" : "32";
	uint16_t dst = REG_BIT(in->dst_reg & 15);
	uint16_t src = REG_BIT(in->src_reg & 15);

	if (size != BPF_W && size != BPF_DW)
		return bad(why, len,
			   "atomic operation of %s size (opcode 0x%02x): only 32 and "
			   "64-bit atomics exist",
			   size == BPF_B ? "byte" : "half-word", in->code);
	s->fields = F_DST | F_SRC | F_OFF | F_IMM;
	s->reads = dst | src;
	switch (in->imm) {
	case BPF_ADD:
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		snprintf(s->name, sizeof(s->name), "lock %s%s", alu_names[in->imm >> 4], sfx);
		return 0;
	case BPF_ADD | BPF_FETCH:
	case BPF_AND | BPF_FETCH:
	case BPF_OR | BPF_FETCH:
	case BPF_XOR | BPF_FETCH:
		snprintf(s->name, sizeof(s->name), "lock fetch %s%s",
			 alu_names[(in->imm & ~BPF_FETCH) >> 4], sfx);
		s->writes = src;
		return 0;
	case BPF_XCHG:
		snprintf(s->name, sizeof(s->name), "lock xchg%s", sfx);
		s->writes = src;
		return 0;
	case BPF_CMPXCHG:
		snprintf(s->name, sizeof(s->name), "lock cmpxchg%s", sfx);
		s->reads |= REG_BIT(0);
		s->writes = REG_BIT(0);
		return 0;
	default:
		return bad(why, len,
			   "atomic operation with invalid imm 0x%x (must be add, and, "
			   "or, xor (0x00, 0x50, 0x40, 0xa0), optionally | fetch (0x01), xchg "
			   "(0xe1) or cmpxchg (0xf1))",
			   (unsigned)in->imm);
	}
}

static int decode_mem(const struct bpf_insn *in, struct insn_shape *s, char *why, size_t len)
{
	unsigned cls = BPF_CLASS(in->code);
	unsigned mode = BPF_MODE(in->code);
	const char *sz = size_suffix[BPF_SIZE(in->code) >> 3];
	uint16_t dst = REG_BIT(in->dst_reg & 15);
	uint16_t src = REG_BIT(in->src_reg & 15);

	switch (cls) {
	case BPF_LD:
		if (in->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			strcpy(s->name, "lddw");
			s->fields = F_DST | F_IMM | F_SRC;
			s->writes = dst;
			return 0;
		}
		if (mode == BPF_ABS || mode == BPF_IND)
			return bad(why, len,
				   "legacy packet load BPF_%s (opcode 0x%02x): packet loads "
				   "(ld_abs/ld_ind) have no meaning for seccomp; read the "
				   "context through r1",
				   mode == BPF_ABS ? "ABS" : "IND", in->code);
		return bad(why, len, "unknown LD opcode 0x%02x (only lddw, 0x18, exists)",
			   in->code);
	case BPF_LDX:
		if (mode == BPF_MEM) {
			snprintf(s->name, sizeof(s->name), "ldx%s", sz);
		} else if (mode == BPF_MEMSX && BPF_SIZE(in->code) != BPF_DW) {
			snprintf(s->name, sizeof(s->name), "ldxs%s", sz);
		} else {
			return bad(why, len, "unknown LDX opcode 0x%02x", in->code);
		}
		s->fields = F_DST | F_SRC | F_OFF;
		s->reads = src;
		s->writes = dst;
		return 0;
	case BPF_ST:
		if (mode != BPF_MEM)
			return bad(why, len, "unknown ST opcode 0x%02x", in->code);
		snprintf(s->name, sizeof(s->name), "st%s", sz);
		s->fields = F_DST | F_OFF | F_IMM;
		s->reads = dst;
		return 0;
	default: /* BPF_STX */
		if (mode == BPF_ATOMIC)
			return decode_atomic(in, s, why, len);
		if (mode != BPF_MEM)
			return bad(why, len, "unknown STX opcode 0x%02x", in->code);
		snprintf(s->name, sizeof(s->name), "stx%s", sz);
		s->fields = F_DST | F_SRC | F_OFF;
		s->reads = dst | src;
		return 0;
	}
}

/*
 * Decode one instruction into s. Fails only on an opcode that does not exist
 * or a field whose value selects no defined operation; unused fields that are
 * not zero are left for the validator to report.
 */
static int insn_decode(const struct bpf_insn *in, struct insn_shape *s, char *why, size_t len)
{
	memset(s, 0, sizeof(*s));
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		return decode_alu(in, s, why, len);
	case BPF_JMP:
	case BPF_JMP32:
		return decode_jmp(in, s, why, len);
	default:
		return decode_mem(in, s, why, len);
	}
}

/* ------------------------------------------------------------------ */
/* Validation                                                           */
/* ------------------------------------------------------------------ */

enum slot_flag {
	SLOT_SECOND = 1 << 0, /* second half of an ld_imm64 */
	SLOT_FUNC = 1 << 1,   /* first instruction of a function */
	SLOT_SEEN = 1 << 2,   /* reached by the dataflow */
	SLOT_QUEUED = 1 << 3,
};

/* Per-slot state of the validator. */
struct slot_meta {
	uint32_t func; /* index of the function the slot belongs to */
	uint16_t init; /* registers written on every path to here */
	uint8_t flags;
};

/* Fills fault (if given) and returns -errnum. */
static int fault_set(struct insn_fault *fault, size_t slot, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fault_set(struct insn_fault *fault, size_t slot, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (fault) {
		fault->slot = slot;
		va_start(ap, fmt);
		vsnprintf(fault->why, sizeof(fault->why), fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

/* Checks that an unused field is zero, naming the field and the form. */
static int check_unused(const struct bpf_insn *in, size_t i, const struct insn_shape *s,
			struct insn_fault *fault)
{
	const char *form = "";

	if (s->regimm)
		form = BPF_SRC(in->code) == BPF_X ? " (register form)" : " (immediate form)";
	if (!(s->fields & F_DST) && in->dst_reg)
		return fault_set(fault, i, EINVAL, "%s%s with non-zero dst_reg field %d (must be 0)",
				 s->name, form, in->dst_reg);
	if (!(s->fields & F_SRC) && in->src_reg)
		return fault_set(fault, i, EINVAL, "%s%s with non-zero src_reg field %d (must be 0)",
				 s->name, form, in->src_reg);
	if (!(s->fields & F_OFF) && in->off)
		return fault_set(fault, i, EINVAL, "%s%s with non-zero offset field %d (must be 0)",
				 s->name, form, in->off);
	if (!(s->fields & F_IMM) && in->imm)
		return fault_set(fault, i, EINVAL, "%s%s with non-zero imm field %d (must be 0)",
				 s->name, form, in->imm);
	return 0;
}

/* Registers r0..r10 exist; r10 (the frame pointer) is read-only. */
static int check_regs(const struct bpf_insn *in, size_t i, const struct insn_shape *s,
		      struct insn_fault *fault)
{
	bool lddw = insn_is_ld_imm64(in);

	if ((s->fields & F_DST) && in->dst_reg > REG_FP)
		return fault_set(fault, i, EINVAL,
				 "%s uses register r%d in dst_reg (registers are r0..r10)", s->name,
				 in->dst_reg);
	if ((s->fields & F_SRC) && !lddw && !s->call && in->src_reg > REG_FP)
		return fault_set(fault, i, EINVAL,
				 "%s uses register r%d in src_reg (registers are r0..r10)", s->name,
				 in->src_reg);
	if (s->writes & REG_BIT(REG_FP))
		return fault_set(fault, i, EACCES,
				 "%s writes r10: r10 is the read-only frame pointer; use another "
				 "register",
				 s->name);
	return 0;
}

/* Checks the pseudo source register of an ld_imm64 and its second slot. */
static int check_ld_imm64(const struct bpf_insn *insns, size_t cnt, size_t i, unsigned flags,
			  struct insn_fault *fault)
{
	const struct bpf_insn *in = &insns[i];
	const struct bpf_insn *hi;

	if (i + 1 >= cnt)
		return fault_set(fault, i, EINVAL,
				 "lddw is the last slot: ld_imm64 is missing its second slot "
				 "(the upper 32 bits)");
	hi = &insns[i + 1];
	if (hi->code || hi->dst_reg || hi->src_reg || hi->off)
		return fault_set(fault, i + 1, EINVAL,
				 "second slot of lddw must have code, registers and offset 0 "
				 "(found code 0x%02x dst %d src %d off %d)",
				 hi->code, hi->dst_reg, hi->src_reg, hi->off);
	switch (in->src_reg) {
	case 0:
		return 0;
	case BPF_PSEUDO_MAP_FD:
	case BPF_PSEUDO_MAP_VALUE:
	case BPF_PSEUDO_FUNC:
		if (!(flags & INSN_ALLOW_PSEUDO))
			return fault_set(fault, i, EINVAL,
					 "lddw with pseudo src_reg %d (map or function reference) "
					 "in a program without relocations",
					 in->src_reg);
		if (in->src_reg != BPF_PSEUDO_MAP_VALUE && hi->imm)
			return fault_set(fault, i, EINVAL,
					 "lddw %s reference with non-zero upper imm %d (must be 0)",
					 in->src_reg == BPF_PSEUDO_FUNC ? "function" : "map",
					 hi->imm);
		return 0;
	default:
		return fault_set(fault, i, EINVAL,
				 "lddw with unsupported pseudo src_reg %d (1 = map, 2 = map "
				 "value, 4 = function)",
				 in->src_reg);
	}
}

int insn_check(const struct bpf_insn *insns, size_t cnt, size_t i, unsigned flags,
	       struct insn_fault *fault)
{
	const struct bpf_insn *in;
	struct insn_shape s;
	int ret;

	if (!insns || i >= cnt)
		return fault_set(fault, i, EINVAL, "no instruction at slot %zu", i);
	in = &insns[i];
	if (insn_decode(in, &s, fault ? fault->why : NULL, fault ? sizeof(fault->why) : 0)) {
		if (fault)
			fault->slot = i;
		return -EINVAL;
	}
	ret = check_unused(in, i, &s, fault);
	if (!ret)
		ret = check_regs(in, i, &s, fault);
	if (!ret && insn_is_ld_imm64(in))
		ret = check_ld_imm64(insns, cnt, i, flags, fault);
	return ret;
}

/* Checks a pc-relative target: inside the program, not inside an lddw. */
static int check_target(size_t cnt, size_t i, const char *name, int64_t off,
			const struct slot_meta *meta, struct secbpf_err *err)
{
	int64_t t = (int64_t)i + off + 1;

	if (t < 0 || t >= (int64_t)cnt)
		return err_set(err, EINVAL,
			       "insn %zu: %s target pc%+" PRId64 " = %" PRId64
			       " is outside the program (0..%zu)",
			       i, name, off, t, cnt - 1);
	if (meta[t].flags & SLOT_SECOND)
		return err_set(err, EINVAL,
			       "insn %zu: %s target %" PRId64 " is the second "
			       "slot of an lddw",
			       i, name, t);
	return 0;
}

/*
 * Must-initialized dataflow: a register counts as set at an instruction only
 * if every path from its function's entry writes it. Masks only shrink, so
 * the worklist terminates after at most NR_REGS + 1 visits per slot.
 */
static int check_uninit(const struct bpf_insn *insns, size_t cnt, int entry_args,
			struct slot_meta *meta, struct secbpf_err *err)
{
	size_t *work, top = 0, i;
	char text[96];

	work = malloc(cnt * sizeof(*work));
	if (!work)
		return err_set(err, ENOMEM, "out of memory checking %zu instructions", cnt);
	for (i = 0; i < cnt; i++) {
		if (!(meta[i].flags & SLOT_FUNC))
			continue;
		meta[i].init = REG_BIT(REG_FP) |
			       (i == 0 ? (uint16_t)(((1u << entry_args) - 1) << 1) : ARG_REGS);
		meta[i].flags |= SLOT_SEEN | SLOT_QUEUED;
		work[top++] = i;
	}
	while (top) {
		struct insn_shape s;
		uint16_t out;
		size_t succ[2];
		int nsucc = 0, k;

		i = work[--top];
		meta[i].flags &= ~SLOT_QUEUED;
		insn_decode(&insns[i], &s, NULL, 0);
		out = meta[i].init | s.writes;
		if (s.call)
			out = (out & ~ARG_REGS) | REG_BIT(0);
		if (!s.stop)
			succ[nsucc++] = i + (insn_is_ld_imm64(&insns[i]) ? 2 : 1);
		if (s.jump && !s.call)
			succ[nsucc++] = (size_t)((int64_t)i + s.jump_off + 1);
		for (k = 0; k < nsucc; k++) {
			struct slot_meta *m = &meta[succ[k]];
			uint16_t next = (m->flags & SLOT_SEEN) ? (m->init & out) : out;

			if ((m->flags & SLOT_SEEN) && next == m->init)
				continue;
			m->init = next;
			m->flags |= SLOT_SEEN;
			if (!(m->flags & SLOT_QUEUED)) {
				m->flags |= SLOT_QUEUED;
				work[top++] = succ[k];
			}
		}
	}
	free(work);

	for (i = 0; i < cnt; i++) {
		struct insn_shape s;
		uint16_t missing;
		int r;

		if (!(meta[i].flags & SLOT_SEEN) || (meta[i].flags & SLOT_SECOND))
			continue;
		insn_decode(&insns[i], &s, NULL, 0);
		missing = s.reads & ~meta[i].init;
		if (!missing)
			continue;
		for (r = 0; !(missing & REG_BIT(r)); r++)
			;
		insn_disasm(insns, cnt, i, text, sizeof(text));
		return err_set(err, EINVAL,
			       "insn %zu (%s): reads r%d, which is not initialized "
			       "on every path to it%s",
			       i, text, r,
			       meta[i].func == 0 && r >= 1 && r <= 5
				       ? " (if it is an argument of the program, raise entry_args)"
				       : "");
	}
	return 0;
}

/* The last slot of each function must not fall through into the next. */
static int check_func_ends(const struct bpf_insn *insns, size_t cnt, struct slot_meta *meta,
			   struct secbpf_err *err)
{
	struct insn_shape s;
	size_t i, last;

	for (i = 0; i < cnt; i++) {
		if (i + 1 < cnt && !(meta[i + 1].flags & SLOT_FUNC))
			continue;
		last = (meta[i].flags & SLOT_SECOND) ? i - 1 : i;
		insn_decode(&insns[last], &s, NULL, 0);
		if (!s.stop)
			return err_set(err, EINVAL,
				       "insn %zu: %s is the last instruction of %s; "
				       "it must be exit or ja so execution cannot run off the end",
				       last, s.name, i + 1 < cnt ? "a function" : "the program");
	}
	return 0;
}

/* Pass 1: check every slot's fields, mark lddw halves and functions. */
static int validate_slots(const struct bpf_insn *insns, size_t cnt, unsigned flags,
			  struct slot_meta *meta, struct secbpf_err *err)
{
	struct insn_fault fault;
	size_t i;
	int ret;

	meta[0].flags |= SLOT_FUNC;
	for (i = 0; i < cnt; i++) {
		ret = insn_check(insns, cnt, i, flags, &fault);
		if (ret)
			return err_set(err, -ret, "insn %zu: %s", fault.slot, fault.why);
		if (insn_is_ld_imm64(&insns[i]))
			meta[++i].flags |= SLOT_SECOND;
	}
	return 0;
}

/* Pass 2: targets of jumps and calls; function entries from local calls. */
static int validate_targets(const struct bpf_insn *insns, size_t cnt, struct slot_meta *meta,
			    struct secbpf_err *err)
{
	struct insn_shape s;
	size_t i;
	int ret;

	for (i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &insns[i];

		if (meta[i].flags & SLOT_SECOND)
			continue;
		insn_decode(in, &s, NULL, 0);
		if (insn_is_ld_imm64(in) && in->src_reg == BPF_PSEUDO_FUNC) {
			ret = check_target(cnt, i, "function reference", in->imm, meta, err);
			if (ret)
				return ret;
			meta[(int64_t)i + in->imm + 1].flags |= SLOT_FUNC;
			continue;
		}
		if (!s.jump)
			continue;
		ret = check_target(cnt, i, s.name, s.jump_off, meta, err);
		if (ret)
			return ret;
		if (s.call)
			meta[(int64_t)i + s.jump_off + 1].flags |= SLOT_FUNC;
	}

	/* Number the functions, then keep every jump inside its own. */
	for (i = 0; i < cnt; i++)
		meta[i].func = (i ? meta[i - 1].func : 0) + (i && (meta[i].flags & SLOT_FUNC));
	for (i = 0; i < cnt; i++) {
		int64_t t;

		if (meta[i].flags & SLOT_SECOND)
			continue;
		insn_decode(&insns[i], &s, NULL, 0);
		if (!s.jump || s.call)
			continue;
		t = (int64_t)i + s.jump_off + 1;
		if (meta[t].func != meta[i].func)
			return err_set(err, EINVAL,
				       "insn %zu: %s to %" PRId64 " leaves its function "
				       "(use call local to enter another function)",
				       i, s.name, t);
	}
	return check_func_ends(insns, cnt, meta, err);
}

int insn_validate(const struct bpf_insn *insns, size_t cnt, unsigned flags, int entry_args,
		  struct secbpf_err *err)
{
	struct slot_meta *meta;
	int ret;

	if (!insns || cnt == 0)
		return err_set(err, EINVAL,
			       "empty program: at least an exit instruction is "
			       "needed");
	if (cnt > INSN_MAX_CNT)
		return err_set(err, E2BIG,
			       "program has %zu instructions, more than the limit "
			       "of %d",
			       cnt, INSN_MAX_CNT);
	if (entry_args < 0 || entry_args > 5)
		return err_set(err, EINVAL,
			       "entry_args %d out of range (0..5 argument "
			       "registers)",
			       entry_args);
	if (flags & ~(unsigned)(INSN_ALLOW_PSEUDO | INSN_CHECK_UNINIT))
		return err_set(err, EINVAL, "unknown validation flags 0x%x", flags);

	meta = calloc(cnt, sizeof(*meta));
	if (!meta)
		return err_set(err, ENOMEM, "out of memory validating %zu instructions", cnt);
	ret = validate_slots(insns, cnt, flags, meta, err);
	if (!ret)
		ret = validate_targets(insns, cnt, meta, err);
	if (!ret && (flags & INSN_CHECK_UNINIT))
		ret = check_uninit(insns, cnt, entry_args, meta, err);
	free(meta);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Disassembly                                                          */
/* ------------------------------------------------------------------ */

static const char *const alu_ops[16] = {
	[BPF_ADD >> 4] = "+=",	[BPF_SUB >> 4] = "-=",	[BPF_MUL >> 4] = "*=",
	[BPF_DIV >> 4] = "/=",	[BPF_OR >> 4] = "|=",	[BPF_AND >> 4] = "&=",
	[BPF_LSH >> 4] = "<<=", [BPF_RSH >> 4] = ">>=", [BPF_MOD >> 4] = "%=",
	[BPF_XOR >> 4] = "^=",	[BPF_MOV >> 4] = "=",	[BPF_ARSH >> 4] = "s>>=",
};

static const char *const jmp_ops[16] = {
	[BPF_JEQ >> 4] = "==",	 [BPF_JGT >> 4] = ">",	  [BPF_JGE >> 4] = ">=",
	[BPF_JSET >> 4] = "&",	 [BPF_JNE >> 4] = "!=",	  [BPF_JSGT >> 4] = "s>",
	[BPF_JSGE >> 4] = "s>=", [BPF_JLT >> 4] = "<",	  [BPF_JLE >> 4] = "<=",
	[BPF_JSLT >> 4] = "s<",	 [BPF_JSLE >> 4] = "s<=",
};

static const char *const mem_types[4] = {
	[BPF_W >> 3] = "u32",
	[BPF_H >> 3] = "u16",
	[BPF_B >> 3] = "u8",
	[BPF_DW >> 3] = "u64",
};

static const char *const memsx_types[4] = {
	[BPF_W >> 3] = "s32",
	[BPF_H >> 3] = "s16",
	[BPF_B >> 3] = "s8",
};

static void disasm_alu(const struct bpf_insn *in, char *buf, size_t len)
{
	char w = BPF_CLASS(in->code) == BPF_ALU64 ? 'r' : 'w';
	unsigned op = BPF_OP(in->code);
	const char *sym = alu_ops[op >> 4];

	if (op == BPF_END) {
		if (BPF_CLASS(in->code) == BPF_ALU64)
			snprintf(buf, len, "r%d = bswap%d r%d", in->dst_reg, in->imm, in->dst_reg);
		else
			snprintf(buf, len, "r%d = %s%d r%d", in->dst_reg,
				 BPF_SRC(in->code) == BPF_TO_BE ? "be" : "le", in->imm,
				 in->dst_reg);
	} else if (op == BPF_NEG) {
		snprintf(buf, len, "%c%d = -%c%d", w, in->dst_reg, w, in->dst_reg);
	} else if (BPF_SRC(in->code) == BPF_X && op == BPF_MOV && in->off) {
		snprintf(buf, len, "%c%d = (s%d)%c%d", w, in->dst_reg, in->off, w, in->src_reg);
	} else {
		if ((op == BPF_DIV || op == BPF_MOD) && in->off == 1)
			sym = op == BPF_DIV ? "s/=" : "s%=";
		if (BPF_SRC(in->code) == BPF_X)
			snprintf(buf, len, "%c%d %s %c%d", w, in->dst_reg, sym, w, in->src_reg);
		else
			snprintf(buf, len, "%c%d %s %d", w, in->dst_reg, sym, in->imm);
	}
}

static void disasm_jmp(const struct bpf_insn *in, char *buf, size_t len)
{
	char w = BPF_CLASS(in->code) == BPF_JMP ? 'r' : 'w';
	unsigned op = BPF_OP(in->code);
	const char *name;

	switch (op) {
	case BPF_JA:
		if (BPF_CLASS(in->code) == BPF_JMP32)
			snprintf(buf, len, "gotol pc%+d", in->imm);
		else
			snprintf(buf, len, "goto pc%+d", in->off);
		return;
	case BPF_EXIT:
		snprintf(buf, len, "exit");
		return;
	case BPF_CALL:
		if (BPF_SRC(in->code) == BPF_X) {
			snprintf(buf, len, "callx r%d", in->dst_reg);
		} else if (in->src_reg == BPF_PSEUDO_CALL) {
			snprintf(buf, len, "call pc%+d", in->imm);
		} else {
			name = insn_helper_name(in->imm);
			snprintf(buf, len, "call %s#%d", name ? name : "unknown", in->imm);
		}
		return;
	default:
		if (BPF_SRC(in->code) == BPF_X)
			snprintf(buf, len, "if %c%d %s %c%d goto pc%+d", w, in->dst_reg,
				 jmp_ops[op >> 4], w, in->src_reg, in->off);
		else
			snprintf(buf, len, "if %c%d %s 0x%x goto pc%+d", w, in->dst_reg,
				 jmp_ops[op >> 4], (uint32_t)in->imm, in->off);
	}
}

static void disasm_ld_imm64(const struct bpf_insn *in, char *buf, size_t len)
{
	uint64_t v = insn_ld_imm64_value(in);

	switch (in->src_reg) {
	case BPF_PSEUDO_MAP_FD:
		snprintf(buf, len, "r%d = map[id:%u]", in->dst_reg, (uint32_t)in[0].imm);
		break;
	case BPF_PSEUDO_MAP_VALUE:
		snprintf(buf, len, "r%d = map[id:%u][0]+%u", in->dst_reg, (uint32_t)in[0].imm,
			 (uint32_t)in[1].imm);
		break;
	case BPF_PSEUDO_MAP_IDX:
		snprintf(buf, len, "r%d = map[idx:%u]", in->dst_reg, (uint32_t)in[0].imm);
		break;
	case BPF_PSEUDO_MAP_IDX_VALUE:
		snprintf(buf, len, "r%d = map[idx:%u]+%u", in->dst_reg, (uint32_t)in[0].imm,
			 (uint32_t)in[1].imm);
		break;
	case BPF_PSEUDO_FUNC:
		snprintf(buf, len, "r%d = subprog[%+d]", in->dst_reg, in[0].imm);
		break;
	default:
		snprintf(buf, len, "r%d = 0x%" PRIx64, in->dst_reg, v);
	}
}

static void disasm_mem(const struct bpf_insn *in, char *buf, size_t len)
{
	const char *type = mem_types[BPF_SIZE(in->code) >> 3];
	bool dw = BPF_SIZE(in->code) == BPF_DW;
	int op = in->imm & ~BPF_FETCH;

	switch (BPF_CLASS(in->code)) {
	case BPF_LD:
		if (BPF_MODE(in->code) == BPF_ABS)
			snprintf(buf, len, "r0 = *(%s *)skb[%d]", type, in->imm);
		else
			snprintf(buf, len, "r0 = *(%s *)skb[r%d + %d]", type, in->src_reg, in->imm);
		return;
	case BPF_LDX:
		if (BPF_MODE(in->code) == BPF_MEMSX)
			type = memsx_types[BPF_SIZE(in->code) >> 3];
		snprintf(buf, len, "r%d = *(%s *)(r%d %+d)", in->dst_reg, type, in->src_reg,
			 in->off);
		return;
	case BPF_ST:
		snprintf(buf, len, "*(%s *)(r%d %+d) = %d", type, in->dst_reg, in->off, in->imm);
		return;
	}
	if (BPF_MODE(in->code) == BPF_MEM) {
		snprintf(buf, len, "*(%s *)(r%d %+d) = r%d", type, in->dst_reg, in->off,
			 in->src_reg);
	} else if (in->imm == BPF_CMPXCHG) {
		snprintf(buf, len, "r0 = atomic%s_cmpxchg((%s *)(r%d %+d), r0, r%d)",
			 dw ? "64" : "", type, in->dst_reg, in->off, in->src_reg);
	} else if (in->imm == BPF_XCHG) {
		snprintf(buf, len, "r%d = atomic%s_xchg((%s *)(r%d %+d), r%d)", in->src_reg,
			 dw ? "64" : "", type, in->dst_reg, in->off, in->src_reg);
	} else if (in->imm & BPF_FETCH) {
		snprintf(buf, len, "r%d = atomic%s_fetch_%s((%s *)(r%d %+d), r%d)", in->src_reg,
			 dw ? "64" : "", alu_names[op >> 4], type, in->dst_reg, in->off,
			 in->src_reg);
	} else {
		snprintf(buf, len, "lock *(%s *)(r%d %+d) %s r%d", type, in->dst_reg, in->off,
			 alu_ops[op >> 4], in->src_reg);
	}
}

int insn_disasm(const struct bpf_insn *insns, size_t cnt, size_t idx, char *buf, size_t len)
{
	const struct bpf_insn *in;
	struct insn_shape s;
	bool legacy;
	char tmp[8];

	/* Never write through a NULL or empty buffer; still report the size. */
	if (!buf || !len) {
		buf = tmp;
		len = sizeof(tmp);
	}
	if (!insns || idx >= cnt) {
		snprintf(buf, len, "invalid insn index %zu", idx);
		return -EINVAL;
	}
	in = &insns[idx];
	legacy = BPF_CLASS(in->code) == BPF_LD &&
		 (BPF_MODE(in->code) == BPF_ABS || BPF_MODE(in->code) == BPF_IND) &&
		 BPF_SIZE(in->code) != BPF_DW;
	if (!legacy && insn_decode(in, &s, NULL, 0)) {
		snprintf(buf, len, "invalid insn 0x%02x", in->code);
		return -EINVAL;
	}
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		disasm_alu(in, buf, len);
		return 1;
	case BPF_JMP:
	case BPF_JMP32:
		disasm_jmp(in, buf, len);
		return 1;
	}
	if (insn_is_ld_imm64(in)) {
		if (idx + 1 >= cnt) {
			snprintf(buf, len, "invalid insn 0x%02x (lddw without its second slot)",
				 in->code);
			return -EINVAL;
		}
		disasm_ld_imm64(in, buf, len);
		return 2;
	}
	disasm_mem(in, buf, len);
	return 1;
}
