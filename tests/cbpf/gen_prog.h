/* SPDX-License-Identifier: MIT */
/*
 * Random seccomp eBPF programs for differential tests of the cBPF compiler
 * (tests/test_cbpf.c and fuzz/fuzz_cbpf.c): nested ifs on context fields
 * passed through ALU operations (cpu v4's signed division, byte swaps and
 * sign extensions too) and, when the caller provides the map (gen_src.tables,
 * gen_object), lookups in a .rodata table, compared with interesting
 * constants. Driven by a byte stream so that libFuzzer can steer it.
 */
#ifndef SECBPF_TESTS_GEN_PROG_H
#define SECBPF_TESTS_GEN_PROG_H

#include <linux/bpf.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GEN_MAX_INSNS 2048
#define GEN_TABLE_BYTES 64	/* a table program's .rodata: 8 words */

#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80	/* cpu v4 sign-extending load; Debian 12's uapi lacks it */
#endif

struct gen_src {
	const uint8_t *data;
	size_t size, pos;
	uint64_t rng;		/* used once data runs out */
	bool tables;		/* programs may read a .rodata table (map 0) */
};

static inline uint64_t gen_bits(struct gen_src *s, unsigned nbytes)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < nbytes; i++) {
		uint8_t b;

		if (s->pos < s->size) {
			b = s->data[s->pos++];
		} else {
			s->rng ^= s->rng << 13;
			s->rng ^= s->rng >> 7;
			s->rng ^= s->rng << 17;
			b = (uint8_t)s->rng;
		}
		v |= (uint64_t)b << (8 * i);
	}
	return v;
}

static inline unsigned gen_pick(struct gen_src *s, unsigned n)
{
	return (unsigned)(gen_bits(s, 1) % n);
}

/* Constants near the edges that carries, signs and truncation meet. */
static inline uint64_t gen_const(struct gen_src *s)
{
	static const uint64_t edge[] = {
		0, 1, 2, 3, 5, 0x7f, 0xff, 0x100, 0xffff, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
		~0ull, ~1ull, 0xfffffffffffffffbull, 0x40000000, 0xc000003e, 0x40000003,
		999, 1ull << 40, 0xffffffff00000000ull,
	};

	switch (gen_pick(s, 4)) {
	case 0:
		return edge[gen_pick(s, sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return gen_bits(s, 1);
	case 2:
		return gen_bits(s, 8);
	}
	return edge[gen_pick(s, sizeof(edge) / sizeof(edge[0]))] + gen_pick(s, 3) - 1;
}

struct gen_prog {
	struct bpf_insn insns[GEN_MAX_INSNS];
	uint32_t n;
	uint64_t consts[256];	/* constants used, for test inputs */
	uint32_t nconsts;
	bool has_table;		/* r7 points to table, the .rodata map 0 */
	uint8_t table[GEN_TABLE_BYTES];
};

static inline void gen_emit(struct gen_prog *p, struct bpf_insn in)
{
	if (p->n < GEN_MAX_INSNS)
		p->insns[p->n++] = in;
}

static inline void gen_note(struct gen_prog *p, uint64_t c)
{
	if (p->nconsts < 256)
		p->consts[p->nconsts++] = c;
}

static inline void gen_ld64(struct gen_prog *p, unsigned reg, uint64_t v)
{
	gen_emit(p, (struct bpf_insn){ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = reg,
				       .imm = (int32_t)(uint32_t)v });
	gen_emit(p, (struct bpf_insn){ .imm = (int32_t)(uint32_t)(v >> 32) });
	gen_note(p, v);
}

/* reg = some value of the context (r6 holds the context pointer). */
static inline void gen_load(struct gen_src *s, struct gen_prog *p, unsigned reg)
{
	static const struct { int16_t off; uint8_t size; } f[] = {
		{ 0, BPF_W }, { 0, BPF_W }, { 4, BPF_W }, { 8, BPF_DW }, { 16, BPF_DW },
		{ 24, BPF_DW }, { 32, BPF_DW }, { 16, BPF_W }, { 20, BPF_W }, { 16, BPF_H },
		{ 18, BPF_B }, { 0, BPF_H }, { 56, BPF_DW }, { 12, BPF_W },
	};
	unsigned i = gen_pick(s, sizeof(f) / sizeof(f[0]));

	gen_emit(p, (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | f[i].size, .dst_reg = reg,
				       .src_reg = 6, .off = f[i].off });
}

/* reg = its low 8, 16 or 32 bits sign-extended: a movsx, or a store to the
 * stack and a sign-extending load of some of its bytes. */
static inline void gen_sext(struct gen_src *s, struct gen_prog *p, unsigned reg, uint8_t cls)
{
	static const uint8_t sizes[] = { BPF_B, BPF_H, BPF_W };
	unsigned i;

	if (gen_pick(s, 2)) {
		/* movsx: a 32-bit one from 8 or 16 bits only */
		i = gen_pick(s, cls == BPF_ALU ? 2 : 3);
		gen_emit(p, (struct bpf_insn){ .code = cls | BPF_MOV | BPF_X, .dst_reg = reg,
					       .src_reg = reg, .off = (int16_t)(8 << i) });
		return;
	}
	i = gen_pick(s, 3);
	gen_emit(p, (struct bpf_insn){ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = 10,
				       .src_reg = reg, .off = -8 });
	gen_emit(p, (struct bpf_insn){ .code = BPF_LDX | BPF_MEMSX | sizes[i],
				       .dst_reg = reg, .src_reg = 10,
				       .off = (int16_t)(-8 + (1 << i) * gen_pick(s, 8 >> i)) });
}

/* reg = an entry of the table (1, 2, 4 or 8 bytes): at reg's low bits
 * (a lookup by a context value, r5 = r7 + index), or at a constant
 * offset, combined into reg. */
static inline void gen_table_read(struct gen_src *s, struct gen_prog *p, unsigned reg)
{
	static const uint8_t sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
	unsigned i = gen_pick(s, 4);

	if (gen_pick(s, 2)) {
		gen_emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_AND | BPF_K, .dst_reg = reg,
					       .imm = (GEN_TABLE_BYTES >> i) - 1 });
		if (i)
			gen_emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_LSH | BPF_K,
						       .dst_reg = reg, .imm = (int32_t)i });
		gen_emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 5,
					       .src_reg = 7 });
		gen_emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_X, .dst_reg = 5,
					       .src_reg = reg });
		gen_emit(p, (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | sizes[i], .dst_reg = reg,
					       .src_reg = 5 });
		return;
	}
	gen_emit(p, (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | sizes[i], .dst_reg = 4, .src_reg = 7,
				       .off = (int16_t)((1 << i) * gen_pick(s, GEN_TABLE_BYTES >> i)) });
	gen_emit(p, (struct bpf_insn){ .code = BPF_ALU64 | (gen_pick(s, 2) ? BPF_XOR : BPF_ADD) | BPF_X,
				       .dst_reg = reg, .src_reg = 4 });
}

/* reg = reg op something, a few times. */
static inline void gen_alu(struct gen_src *s, struct gen_prog *p, unsigned reg)
{
	/* off 1: signed division and modulo; BPF_MOV with off 8: a sign
	 * extension (gen_sext) */
	static const struct {
		uint8_t op;
		int16_t off;
	} ops[] = {
		{ BPF_ADD, 0 }, { BPF_SUB, 0 }, { BPF_AND, 0 }, { BPF_OR, 0 }, { BPF_XOR, 0 },
		{ BPF_LSH, 0 }, { BPF_RSH, 0 }, { BPF_ARSH, 0 }, { BPF_MUL, 0 }, { BPF_DIV, 0 },
		{ BPF_MOD, 0 }, { BPF_NEG, 0 }, { BPF_MOV, 0 }, { BPF_DIV, 1 }, { BPF_MOD, 1 },
		{ BPF_END, 0 }, { BPF_MOV, 8 }, { BPF_LD, 0 },
	};
	unsigned n = gen_pick(s, 4), i;

	for (i = 0; i < n; i++) {
		unsigned which = gen_pick(s, sizeof(ops) / sizeof(ops[0]));
		uint8_t op = ops[which].op;
		int16_t off = ops[which].off;
		uint8_t cls = gen_pick(s, 2) ? BPF_ALU64 : BPF_ALU;
		int32_t imm = (int32_t)gen_const(s);

		if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH)
			imm = (int32_t)gen_pick(s, cls == BPF_ALU64 ? 64 : 32);
		if (op == BPF_LD) {
			/* a table lookup; a 32-bit move without a table */
			if (p->has_table)
				gen_table_read(s, p, reg);
			else
				gen_emit(p, (struct bpf_insn){ .code = BPF_ALU | BPF_MOV | BPF_X,
							       .dst_reg = reg, .src_reg = reg });
		} else if (op == BPF_NEG) {
			gen_emit(p, (struct bpf_insn){ .code = cls | BPF_NEG, .dst_reg = reg });
		} else if (op == BPF_END) {
			/* BPF_ALU: to little or big endian; BPF_ALU64: bswap */
			uint8_t src = cls == BPF_ALU && gen_pick(s, 2) ? BPF_TO_BE : BPF_TO_LE;

			gen_emit(p, (struct bpf_insn){ .code = cls | BPF_END | src, .dst_reg = reg,
						       .imm = 16 << gen_pick(s, 3) });
		} else if (op == BPF_MOV && off) {
			gen_sext(s, p, reg, cls);
		} else if (op == BPF_MOV) {
			/* 32-bit move: truncation (w2 = w2) */
			gen_emit(p, (struct bpf_insn){ .code = BPF_ALU | BPF_MOV | BPF_X,
						       .dst_reg = reg, .src_reg = reg });
		} else if (gen_pick(s, 4) == 0) {
			gen_load(s, p, 4);
			gen_emit(p, (struct bpf_insn){ .code = cls | op | BPF_X, .dst_reg = reg,
						       .src_reg = 4, .off = off });
		} else {
			gen_emit(p, (struct bpf_insn){ .code = cls | op | BPF_K, .dst_reg = reg,
						       .off = off, .imm = imm });
			gen_note(p, (uint64_t)(int64_t)imm);
		}
	}
}

static inline uint32_t gen_action(struct gen_src *s)
{
	static const uint32_t a[] = {
		SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | 1, SECCOMP_RET_ERRNO | 13,
		SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD, SECCOMP_RET_TRAP | 3,
		SECCOMP_RET_LOG, SECCOMP_RET_TRACE | 7,
	};

	return a[gen_pick(s, sizeof(a) / sizeof(a[0]))];
}

/* A subtree: if (cond) then-tree else else-tree, or a return. */
static inline void gen_tree(struct gen_src *s, struct gen_prog *p, unsigned depth)
{
	static const uint8_t jops[] = {
		BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE, BPF_JSGT, BPF_JSGE,
		BPF_JSLT, BPF_JSLE, BPF_JSET,
	};
	uint32_t jmp;

	if (depth == 0 || p->n > GEN_MAX_INSNS - 64 || gen_pick(s, 5) == 0) {
		if (gen_pick(s, 6) == 0) {
			/* return computed from the context */
			gen_load(s, p, 0);
			gen_alu(s, p, 0);
			gen_emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_AND | BPF_K,
						       .dst_reg = 0, .imm = 0xfff });
			gen_emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_OR | BPF_K,
						       .dst_reg = 0, .imm = SECCOMP_RET_ERRNO });
		} else {
			gen_emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
						       .dst_reg = 0, .imm = (int32_t)gen_action(s) });
		}
		gen_emit(p, (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT });
		return;
	}
	gen_load(s, p, 2);
	gen_alu(s, p, 2);
	{
		uint8_t cls = gen_pick(s, 3) == 0 ? BPF_JMP32 : BPF_JMP;
		uint8_t op = jops[gen_pick(s, sizeof(jops) / sizeof(jops[0]))];
		uint64_t k = gen_const(s);

		switch (gen_pick(s, 3)) {
		case 0:
			gen_ld64(p, 3, k);
			jmp = p->n;
			gen_emit(p, (struct bpf_insn){ .code = cls | op | BPF_X, .dst_reg = 2,
						       .src_reg = 3 });
			break;
		case 1:
			gen_load(s, p, 3);
			gen_alu(s, p, 3);
			jmp = p->n;
			gen_emit(p, (struct bpf_insn){ .code = cls | op | BPF_X, .dst_reg = 2,
						       .src_reg = 3 });
			break;
		default:
			gen_note(p, (uint64_t)(int64_t)(int32_t)k);
			jmp = p->n;
			gen_emit(p, (struct bpf_insn){ .code = cls | op | BPF_K, .dst_reg = 2,
						       .imm = (int32_t)k });
			break;
		}
	}
	gen_tree(s, p, depth - 1);
	if (jmp < GEN_MAX_INSNS)
		p->insns[jmp].off = (int16_t)(p->n - jmp - 1);
	gen_tree(s, p, depth - 1);
}

/* A whole program: r6 = ctx, then a tree. Returns false if it overflowed. */
static inline bool gen_program(struct gen_src *s, struct gen_prog *p)
{
	memset(p, 0, sizeof(*p));
	gen_emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 6,
				       .src_reg = 1 });
	if (s->tables && gen_pick(s, 2)) {
		unsigned i;

		/* r7 = &table: ld_imm64 of map 0's value at offset 0 */
		p->has_table = true;
		for (i = 0; i < GEN_TABLE_BYTES / 8; i++) {
			uint64_t v = gen_const(s);

			memcpy(p->table + 8 * i, &v, 8);
			gen_note(p, v);
		}
		gen_emit(p, (struct bpf_insn){ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 7,
					       .src_reg = BPF_PSEUDO_MAP_VALUE });
		gen_emit(p, (struct bpf_insn){ 0 });
	}
	gen_tree(s, p, 1 + gen_pick(s, 6));
	return p->n < GEN_MAX_INSNS;
}

#ifdef SECBPF_OBJECT_H
/* The object of a generated program: its table as .rodata (map 0), frozen
 * and read-only to programs as the object loader makes it. */
static inline void gen_object(struct gen_prog *g, struct object *obj, struct object_map *map)
{
	*map = (struct object_map){ .name = (char *)".rodata",
				    .kind = OBJECT_MAP_RODATA,
				    .type = BPF_MAP_TYPE_ARRAY,
				    .key_size = 4,
				    .value_size = GEN_TABLE_BYTES,
				    .max_entries = 1,
				    .map_flags = BPF_F_RDONLY_PROG,
				    .init_data = g->table };
	obj->maps = g->has_table ? map : NULL;
	obj->map_cnt = g->has_table;
}
#endif

#endif
