// SPDX-License-Identifier: MIT
/*
 * Tests for lib/vm/interp.c: every instruction class with its edge cases, the
 * memory checks at the exact ends of every region, calls, helpers, limits,
 * and concurrent runs of one interp. Programs are raw struct bpf_insn arrays.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vm/interp.h"

#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80
#endif

/* Instruction builders, in the spirit of the kernel's filter.h macros. */
#define INSN(c, d, s, o, i)						\
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s),	\
			    .off = (o), .imm = (i) })
#define ALU64_K(op, d, i) INSN(BPF_ALU64 | BPF_##op | BPF_K, d, 0, 0, i)
#define ALU64_X(op, d, s) INSN(BPF_ALU64 | BPF_##op | BPF_X, d, s, 0, 0)
#define ALU32_K(op, d, i) INSN(BPF_ALU | BPF_##op | BPF_K, d, 0, 0, i)
#define ALU32_X(op, d, s) INSN(BPF_ALU | BPF_##op | BPF_X, d, s, 0, 0)
#define MOV64_K(d, i) ALU64_K(MOV, d, i)
#define MOV64_X(d, s) ALU64_X(MOV, d, s)
#define LDDW(d, v)							\
	INSN(BPF_LD | BPF_IMM | BPF_DW, d, 0, 0, (int32_t)(uint32_t)(uint64_t)(v)), \
	INSN(0, 0, 0, 0, (int32_t)(uint32_t)((uint64_t)(v) >> 32))
#define LDDW_PSEUDO(d, kind, i1, i2)					\
	INSN(BPF_LD | BPF_IMM | BPF_DW, d, kind, 0, i1), INSN(0, 0, 0, 0, i2)
#define JMP_K(op, d, i, o) INSN(BPF_JMP | BPF_##op | BPF_K, d, 0, o, i)
#define JMP_X(op, d, s, o) INSN(BPF_JMP | BPF_##op | BPF_X, d, s, o, 0)
#define JA(o) INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define JA32(i) INSN(BPF_JMP32 | BPF_JA, 0, 0, 0, i)
#define LDX(sz, d, s, o) INSN(BPF_LDX | BPF_MEM | BPF_##sz, d, s, o, 0)
#define LDXSX(sz, d, s, o) INSN(BPF_LDX | BPF_MEMSX | BPF_##sz, d, s, o, 0)
#define STX(sz, d, s, o) INSN(BPF_STX | BPF_MEM | BPF_##sz, d, s, o, 0)
#define ST(sz, d, o, i) INSN(BPF_ST | BPF_MEM | BPF_##sz, d, 0, o, i)
#define ATOMIC(sz, d, s, o, op) INSN(BPF_STX | BPF_ATOMIC | BPF_##sz, d, s, o, op)
#define CALL(id) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, id)
#define CALL_LOCAL(rel) INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, rel)
#define CALLX(r) INSN(BPF_JMP | BPF_CALL | BPF_X, r, 0, 0, 0)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Test helpers, looked up by id. */
enum {
	H_SUM = 1,
	H_ADD_REGION = 2,
	H_EXIT = 3,
	H_FAIL = 4,
	H_UNWIND = 5,
	H_CHECK = 6,
	H_LOOP = 7,
	H_FILL = 8,
};

struct test_user {
	uint8_t buf[16];	/* handed out by H_ADD_REGION */
	bool buf_writable;
};

static uint64_t h_sum(struct interp_call *call, const uint64_t a[5])
{
	return a[0] + a[1] + a[2] + a[3] + a[4];
}

static uint64_t h_add_region(struct interp_call *call, const uint64_t a[5])
{
	struct test_user *u = interp_call_user(call);

	if (interp_call_add_region(call, u->buf, sizeof(u->buf), u->buf_writable))
		return 0;
	return (uint64_t)(uintptr_t)u->buf;
}

static uint64_t h_exit(struct interp_call *call, const uint64_t a[5])
{
	interp_call_exit(call, a[0]);
	return 999;
}

static uint64_t h_fail(struct interp_call *call, const uint64_t a[5])
{
	interp_call_fail(call, EPERM, "denied by test helper (%d)", 7);
	return 0;
}

static uint64_t h_unwind(struct interp_call *call, const uint64_t a[5])
{
	if (a[0] == 0)
		interp_call_exit(call, 0);
	return a[0];
}

static uint64_t h_check(struct interp_call *call, const uint64_t a[5])
{
	return (uint64_t)(int64_t)interp_call_check(call, a[0], a[1], a[2] != 0);
}

/* Like bpf_loop: call a[1] a[0] times with (i, a[2]); sum what it returns. */
static uint64_t h_loop(struct interp_call *call, const uint64_t a[5])
{
	uint64_t sum = 0, r0, i;
	int rc;

	for (i = 0; i < a[0]; i++) {
		uint64_t args[5] = { i, a[2], 0, 0, 0 };

		rc = interp_call_subprog(call, a[1], args, &r0);
		if (rc)
			return (uint64_t)(int64_t)rc;
		sum += r0;
	}
	return sum;
}

/* Write a[2] to a[1] bytes at a[0], after checking like a real helper. */
static uint64_t h_fill(struct interp_call *call, const uint64_t a[5])
{
	if (interp_call_check(call, a[0], a[1], true))
		return (uint64_t)-EFAULT;
	memset((void *)(uintptr_t)a[0], (int)a[2], a[1]);
	return 0;
}

static interp_helper_fn test_lookup(void *user, int32_t id)
{
	switch (id) {
	case H_SUM: return h_sum;
	case H_ADD_REGION: return h_add_region;
	case H_EXIT: return h_exit;
	case H_FAIL: return h_fail;
	case H_UNWIND: return h_unwind;
	case H_CHECK: return h_check;
	case H_LOOP: return h_loop;
	case H_FILL: return h_fill;
	}
	return NULL;
}

static const struct interp_call_table test_calls = { .resolve = test_lookup };

/* Prepare and run once; interp_new() must succeed. */
static int run_cfg(struct interp_config *cfg, const uint64_t args[5],
		   const struct interp_region *regions, size_t nregions,
		   uint64_t *r0, struct secbpf_err *err)
{
	struct interp *in;
	int rc;

	in = interp_new(cfg, err);
	cr_assert(in, "interp_new failed: %s", err->msg);
	rc = interp_run(in, args, regions, nregions, r0, err);
	interp_free(in);
	return rc;
}

static int run_prog(const struct bpf_insn *p, size_t n, uint64_t *r0,
		    struct secbpf_err *err)
{
	struct test_user user = { .buf_writable = true };
	struct interp_config cfg = {
		.insns = p, .cnt = (uint32_t)n,
		.calls = &test_calls, .user = &user,
	};

	return run_cfg(&cfg, NULL, NULL, 0, r0, err);
}

/* Run a program that must succeed and return its r0. */
static uint64_t run_ok(const struct bpf_insn *p, size_t n)
{
	struct secbpf_err err = { "" };
	uint64_t r0 = 0xdeadbeef;
	int rc = run_prog(p, n, &r0, &err);

	cr_assert_eq(rc, 0, "run failed (%d): %s", rc, err.msg);
	return r0;
}

/* Run with r1 = mem, r2 = len and mem as the only region. */
static int run_mem(const struct bpf_insn *p, size_t n, void *mem, size_t len,
		   bool writable, uint64_t *r0, struct secbpf_err *err)
{
	struct test_user user = { .buf_writable = true };
	struct interp_config cfg = {
		.insns = p, .cnt = (uint32_t)n,
		.calls = &test_calls, .user = &user,
	};
	struct interp_region region = {
		.base = (uint64_t)(uintptr_t)mem, .size = len, .writable = writable,
	};
	uint64_t args[5] = { (uint64_t)(uintptr_t)mem, len, 0, 0, 0 };

	return run_cfg(&cfg, args, &region, 1, r0, err);
}

/* r0 = a OP b, for a 64-bit or 32-bit binary ALU op with a register source. */
static uint64_t alu_x(uint8_t cls, uint8_t op, int16_t off, uint64_t a, uint64_t b)
{
	struct bpf_insn p[] = {
		LDDW(0, a),
		LDDW(1, b),
		INSN(cls | op | BPF_X, 0, 1, off, 0),
		EXIT(),
	};

	return run_ok(p, N(p));
}

static uint64_t alu_k(uint8_t cls, uint8_t op, int16_t off, uint64_t a, int32_t imm)
{
	struct bpf_insn p[] = {
		LDDW(0, a),
		INSN(cls | op | BPF_K, 0, 0, off, imm),
		EXIT(),
	};

	return run_ok(p, N(p));
}

#define A64(op, a, b) alu_x(BPF_ALU64, BPF_##op, 0, a, b)
#define A32(op, a, b) alu_x(BPF_ALU, BPF_##op, 0, a, b)
#define A64K(op, a, i) alu_k(BPF_ALU64, BPF_##op, 0, a, i)
#define A32K(op, a, i) alu_k(BPF_ALU, BPF_##op, 0, a, i)
#define S64(op, a, b) alu_x(BPF_ALU64, BPF_##op, 1, a, b)
#define S32(op, a, b) alu_x(BPF_ALU, BPF_##op, 1, a, b)
#define S64K(op, a, i) alu_k(BPF_ALU64, BPF_##op, 1, a, i)
#define S32K(op, a, i) alu_k(BPF_ALU, BPF_##op, 1, a, i)

#define EQ(x, y) cr_expect_eq((uint64_t)(x), (uint64_t)(y), "%s: got 0x%llx want 0x%llx", \
			      #x, (unsigned long long)(x), (unsigned long long)(y))

Test(interp, alu64_basic)
{
	EQ(A64(ADD, 1, 2), 3);
	EQ(A64(ADD, UINT64_MAX, 2), 1);
	EQ(A64(SUB, 1, 2), UINT64_MAX);
	EQ(A64(MUL, 0x100000000ULL, 0x100000000ULL), 0);
	EQ(A64(MUL, UINT64_MAX, UINT64_MAX), 1);
	EQ(A64(OR, 0xf0, 0x0f), 0xff);
	EQ(A64(AND, 0xff00ff, 0xf0f0f0), 0xf000f0);
	EQ(A64(XOR, 0xff, 0x0f), 0xf0);
	EQ(A64(MOV, 5, 0x123456789ULL), 0x123456789ULL);
	EQ(A64K(MOV, 5, -1), UINT64_MAX);	/* imm sign-extends */
	EQ(A64K(ADD, 5, -6), UINT64_MAX);
	EQ(A64K(OR, 0, (int32_t)0x80000000), 0xffffffff80000000ULL);
	EQ(alu_k(BPF_ALU64, BPF_NEG, 0, 5, 0), (uint64_t)-5);
	EQ(alu_k(BPF_ALU64, BPF_NEG, 0, 0x8000000000000000ULL, 0), 0x8000000000000000ULL);
}

Test(interp, alu32_zero_extends)
{
	EQ(A32K(MOV, 0xffffffff00000000ULL, -1), 0xffffffffULL);
	EQ(A32(MOV, 0x1234, 0xaaaaaaaa55555555ULL), 0x55555555ULL);
	EQ(A32(ADD, 0xffffffffULL, 1), 0);
	EQ(A32(ADD, 0x1234567800000001ULL, 1), 2);
	EQ(A32(SUB, 0, 1), 0xffffffffULL);
	EQ(A32(MUL, 0x10000, 0x10000), 0);
	EQ(A32K(MUL, 3, -1), 0xfffffffdULL);
	EQ(A32(OR, 0xffffffff00000000ULL, 1), 1);
	EQ(A32(AND, UINT64_MAX, UINT64_MAX), 0xffffffffULL);
	EQ(A32(XOR, 0xff00000000ULL, 0), 0);
	EQ(alu_k(BPF_ALU, BPF_NEG, 0, 1, 0), 0xffffffffULL);
	EQ(alu_k(BPF_ALU, BPF_NEG, 0, 0x500000000ULL, 0), 0);
}

Test(interp, div_mod_by_zero)
{
	/* RFC 9669: dst / 0 = 0 and dst % 0 = dst (32-bit forms truncate). */
	EQ(A64(DIV, 1234, 0), 0);
	EQ(A64(MOD, 1234, 0), 1234);
	EQ(A32(DIV, 0x100001234ULL, 0), 0);
	EQ(A32(MOD, 0x100001234ULL, 0), 0x1234);
	EQ(A32(DIV, 7, 0x100000000ULL), 0);	/* only the low half of src */
	EQ(A32(MOD, 0xffff00000007ULL, 0x100000000ULL), 7);
	EQ(S64(DIV, (uint64_t)-1234, 0), 0);
	EQ(S64(MOD, (uint64_t)-1234, 0), (uint64_t)-1234);
	EQ(S32(DIV, 5, 0), 0);
	EQ(S32(MOD, 0xabcdffffffffULL, 0), 0xffffffffULL);
}

Test(interp, div_mod_unsigned)
{
	EQ(A64(DIV, 100, 7), 14);
	EQ(A64(MOD, 100, 7), 2);
	EQ(A64(DIV, UINT64_MAX, 2), UINT64_MAX / 2);
	/* ALU64 K: imm sign-extends, then divides unsigned. */
	EQ(A64K(DIV, 10, -1), 0);
	EQ(A64K(MOD, 10, -1), 10);
	EQ(A64K(DIV, UINT64_MAX, -1), 1);
	/* ALU32 K: imm is taken as an unsigned 32-bit value. */
	EQ(A32K(DIV, 0xfffffffeULL, -1), 0);
	EQ(A32K(DIV, 0xffffffffULL, -1), 1);
	EQ(A32(DIV, 0x100000064ULL, 10), 10);
}

Test(interp, div_mod_signed)
{
	EQ(S64(DIV, (uint64_t)-7, 2), (uint64_t)-3);
	EQ(S64(MOD, (uint64_t)-7, 2), (uint64_t)-1);
	EQ(S64(MOD, 7, (uint64_t)-2), 1);
	EQ(S64(DIV, (uint64_t)INT64_MIN, (uint64_t)-1), (uint64_t)INT64_MIN);
	EQ(S64(MOD, (uint64_t)INT64_MIN, (uint64_t)-1), 0);
	EQ(S64K(DIV, (uint64_t)INT64_MIN, -1), (uint64_t)INT64_MIN);
	EQ(S64K(MOD, (uint64_t)INT64_MIN, -1), 0);
	EQ(S64K(DIV, 100, -3), (uint64_t)-33);
	EQ(S32(DIV, 0x80000000ULL, 0xffffffffULL), 0x80000000ULL);
	EQ(S32(MOD, 0x80000000ULL, 0xffffffffULL), 0);
	EQ(S32K(DIV, 0x80000000ULL, -1), 0x80000000ULL);
	EQ(S32K(DIV, 0xfffffff9ULL, 2), 0xfffffffdULL);	/* -7 / 2 = -3 */
	EQ(S32K(MOD, 0xfffffff9ULL, 2), 0xffffffffULL);	/* -7 % 2 = -1 */
	EQ(S32(DIV, 0x123456780000000aULL, 0xfffffffeULL), 0xfffffffbULL);
}

Test(interp, shifts_mask_the_count)
{
	EQ(A64(LSH, 1, 63), 0x8000000000000000ULL);
	EQ(A64(LSH, 1, 64), 1);
	EQ(A64(LSH, 1, 65), 2);
	EQ(A64K(LSH, 3, 32), 0x300000000ULL);
	EQ(A64(RSH, 0x8000000000000000ULL, 63), 1);
	EQ(A64(RSH, 0x8000000000000000ULL, 64), 0x8000000000000000ULL);
	EQ(A32(LSH, 1, 31), 0x80000000ULL);
	EQ(A32(LSH, 1, 32), 1);
	EQ(A32K(LSH, 0xffffffff, 4), 0xfffffff0ULL);
	EQ(A32(RSH, 0xff80000000ULL, 31), 1);
	EQ(A32(RSH, 0x80000000ULL, 32), 0x80000000ULL);
	EQ(A64(ARSH, 0x8000000000000000ULL, 63), UINT64_MAX);
	EQ(A64(ARSH, (uint64_t)-16, 2), (uint64_t)-4);
	EQ(A64(ARSH, (uint64_t)-16, 64), (uint64_t)-16);
	EQ(A64K(ARSH, 0x4000000000000000ULL, 62), 1);
	EQ(A32(ARSH, 0x80000000ULL, 4), 0xf8000000ULL);
	EQ(A32(ARSH, 0xffffffff80000000ULL, 31), 0xffffffffULL);
	EQ(A32K(ARSH, 0x1fffffff0ULL, 4), 0xffffffffULL);
	EQ(A32(ARSH, 0x80000000ULL, 32), 0x80000000ULL);
	EQ(A32K(ARSH, 0x70000000ULL, 4), 0x07000000ULL);
}

Test(interp, movsx)
{
	EQ(alu_x(BPF_ALU64, BPF_MOV, 8, 0, 0x180), 0xffffffffffffff80ULL);
	EQ(alu_x(BPF_ALU64, BPF_MOV, 8, 0, 0x7f), 0x7f);
	EQ(alu_x(BPF_ALU64, BPF_MOV, 16, 0, 0x18000), 0xffffffffffff8000ULL);
	EQ(alu_x(BPF_ALU64, BPF_MOV, 32, 0, 0x180000000ULL), 0xffffffff80000000ULL);
	EQ(alu_x(BPF_ALU64, BPF_MOV, 32, 0, 0x17fffffffULL), 0x7fffffffULL);
	EQ(alu_x(BPF_ALU, BPF_MOV, 8, 0, 0xff), 0xffffffffULL);
	EQ(alu_x(BPF_ALU, BPF_MOV, 16, 0, 0xffff8000ULL), 0xffff8000ULL);
	EQ(alu_x(BPF_ALU, BPF_MOV, 16, 0, 0x7fff), 0x7fff);
}

Test(interp, byte_swaps)
{
	uint64_t v = 0x0123456789abcdefULL;

	EQ(alu_k(BPF_ALU, BPF_END | BPF_TO_LE, 0, v, 16), 0xcdef);
	EQ(alu_k(BPF_ALU, BPF_END | BPF_TO_LE, 0, v, 32), 0x89abcdef);
	EQ(alu_k(BPF_ALU, BPF_END | BPF_TO_LE, 0, v, 64), v);
	EQ(alu_k(BPF_ALU, BPF_END | BPF_TO_BE, 0, v, 16), 0xefcd);
	EQ(alu_k(BPF_ALU, BPF_END | BPF_TO_BE, 0, v, 32), 0xefcdab89);
	EQ(alu_k(BPF_ALU, BPF_END | BPF_TO_BE, 0, v, 64), 0xefcdab8967452301ULL);
	/* ALU64 END: unconditional swap (bswap16/32/64), upper bits cleared. */
	EQ(alu_k(BPF_ALU64, BPF_END, 0, v, 16), 0xefcd);
	EQ(alu_k(BPF_ALU64, BPF_END, 0, v, 32), 0xefcdab89);
	EQ(alu_k(BPF_ALU64, BPF_END, 0, v, 64), 0xefcdab8967452301ULL);
}

/* Returns 1 if the conditional jump is taken. */
static int cond(uint8_t cls, uint8_t op, uint64_t a, uint64_t b, bool imm)
{
	struct bpf_insn p[] = {
		LDDW(1, a),
		LDDW(2, b),
		imm ? INSN(cls | op | BPF_K, 1, 0, 2, (int32_t)b)
		    : INSN(cls | op | BPF_X, 1, 2, 2, 0),
		MOV64_K(0, 0),
		EXIT(),
		MOV64_K(0, 1),
		EXIT(),
	};

	return (int)run_ok(p, N(p));
}

struct cond_case {
	uint8_t op;
	uint64_t a, b;
	int taken64, taken32;
};

Test(interp, conditional_jumps)
{
	static const struct cond_case cases[] = {
		{ BPF_JEQ, 5, 5, 1, 1 },
		{ BPF_JEQ, 0x100000005ULL, 5, 0, 1 },	/* upper halves differ */
		{ BPF_JNE, 0x100000005ULL, 5, 1, 0 },
		{ BPF_JGT, 0x100000000ULL, 1, 1, 0 },
		{ BPF_JGT, 2, 1, 1, 1 },
		{ BPF_JGE, 1, 1, 1, 1 },
		{ BPF_JGE, 0x100000000ULL, 0xffffffffULL, 1, 0 },
		{ BPF_JLT, 1, 0x100000000ULL, 1, 0 },
		{ BPF_JLT, 1, 2, 1, 1 },
		{ BPF_JLE, 2, 2, 1, 1 },
		{ BPF_JLE, 0xffffffffULL, 0x100000000ULL, 1, 0 },
		{ BPF_JSGT, 0xffffffffULL, 0, 1, 0 },	/* -1 in 32 bits */
		{ BPF_JSGT, 0, UINT64_MAX, 1, 1 },
		{ BPF_JSGT, UINT64_MAX, 0, 0, 0 },
		{ BPF_JSGE, UINT64_MAX, UINT64_MAX, 1, 1 },
		{ BPF_JSGE, 0x80000000ULL, 0, 1, 0 },
		{ BPF_JSLT, 0x80000000ULL, 0, 0, 1 },
		{ BPF_JSLT, 0x8000000000000000ULL, 0, 1, 0 },
		{ BPF_JSLE, 0x8000000000000000ULL, 0x7fffffffffffffffULL, 1, 0 },
		{ BPF_JSLE, 1, 0xffffffff00000001ULL, 0, 1 },
		{ BPF_JSET, 0x100000000ULL, 0x100000000ULL, 1, 0 },
		{ BPF_JSET, 0x3, 0x2, 1, 1 },
		{ BPF_JSET, 0x4, 0x3, 0, 0 },
	};
	size_t i;

	for (i = 0; i < N(cases); i++) {
		const struct cond_case *c = &cases[i];

		cr_expect_eq(cond(BPF_JMP, c->op, c->a, c->b, false), c->taken64,
			     "case %zu: jmp op 0x%x reg", i, c->op);
		cr_expect_eq(cond(BPF_JMP32, c->op, c->a, c->b, false), c->taken32,
			     "case %zu: jmp32 op 0x%x reg", i, c->op);
	}
}

Test(interp, conditional_jumps_imm)
{
	/* JMP K compares with the sign-extended imm, JMP32 K with its 32 bits. */
	cr_expect_eq(cond(BPF_JMP, BPF_JEQ, UINT64_MAX, 0xffffffffULL, true), 1);
	cr_expect_eq(cond(BPF_JMP32, BPF_JEQ, 0xffffffffULL, 0xffffffffULL, true), 1);
	cr_expect_eq(cond(BPF_JMP, BPF_JEQ, 0xffffffffULL, 0xffffffffULL, true), 0);
	cr_expect_eq(cond(BPF_JMP, BPF_JGT, 0xffffffffULL, 0xffffffffULL, true), 0);
	cr_expect_eq(cond(BPF_JMP, BPF_JSLT, 0, 0xffffffffULL, true), 0);
	cr_expect_eq(cond(BPF_JMP, BPF_JSGT, 0, 0xffffffffULL, true), 1);
	cr_expect_eq(cond(BPF_JMP32, BPF_JSGT, 0x1fffffffeULL, 0xffffffffULL, true), 0);
	cr_expect_eq(cond(BPF_JMP32, BPF_JSET, 0x100000000ULL, 0x1, true), 0);
	cr_expect_eq(cond(BPF_JMP, BPF_JSET, 0x8000000000000000ULL, 0x80000000, true), 1);
	cr_expect_eq(cond(BPF_JMP, BPF_JNE, 3, 3, true), 0);
	cr_expect_eq(cond(BPF_JMP, BPF_JLE, 3, 4, true), 1);
	cr_expect_eq(cond(BPF_JMP, BPF_JGE, 3, 4, true), 0);
	cr_expect_eq(cond(BPF_JMP, BPF_JLT, 3, 4, true), 1);
	cr_expect_eq(cond(BPF_JMP, BPF_JSGE, 3, 4, true), 0);
	cr_expect_eq(cond(BPF_JMP, BPF_JSLE, (uint64_t)-5, 0xfffffffbULL, true), 1);
}

Test(interp, ja_and_ja32_and_loops)
{
	struct bpf_insn ja[] = {
		MOV64_K(0, 1),
		JA(1),
		MOV64_K(0, 2),
		EXIT(),
	};
	struct bpf_insn ja32[] = {
		MOV64_K(0, 1),
		JA32(2),
		MOV64_K(0, 2),
		MOV64_K(0, 3),
		ALU64_K(ADD, 0, 10),
		EXIT(),
	};
	/* Sum 1..10 with a backward conditional jump. */
	struct bpf_insn loop[] = {
		MOV64_K(0, 0),
		MOV64_K(1, 10),
		ALU64_X(ADD, 0, 1),
		ALU64_K(SUB, 1, 1),
		JMP_K(JNE, 1, 0, -3),
		EXIT(),
	};
	/* ja32 backwards: count down r1 by jumping back over a forward exit. */
	struct bpf_insn back32[] = {
		MOV64_K(0, 0),
		MOV64_K(1, 3),
		JA32(2),
		ALU64_K(ADD, 0, 1),
		ALU64_K(SUB, 1, 1),
		JMP_K(JEQ, 1, 0, 1),
		JA32(-4),
		EXIT(),
	};

	EQ(run_ok(ja, N(ja)), 1);
	EQ(run_ok(ja32, N(ja32)), 11);
	EQ(run_ok(loop, N(loop)), 55);
	EQ(run_ok(back32, N(back32)), 3);
}

Test(interp, ld_imm64)
{
	struct bpf_insn p[] = {
		LDDW(0, 0x8123456789abcdefULL),
		LDDW(1, 0xffffffffULL),
		ALU64_X(XOR, 0, 1),
		EXIT(),
	};

	EQ(run_ok(p, N(p)), 0x8123456776543210ULL);
}

Test(interp, loads_and_stores_on_the_stack)
{
	struct bpf_insn p[] = {
		LDDW(1, 0x1122334455667788ULL),
		STX(DW, 10, 1, -8),
		LDX(B, 2, 10, -8),		/* 0x88 */
		LDX(H, 3, 10, -7),		/* 0x6677 (unaligned) */
		LDX(W, 4, 10, -4),		/* 0x11223344 */
		ST(B, 10, -16, 0x1ff),		/* truncates to 0xff */
		ST(H, 10, -14, -2),		/* 0xfffe */
		ST(W, 10, -12, 0x12345678),
		LDX(DW, 5, 10, -16),		/* 0x12345678fffeXXff */
		ST(DW, 10, -24, -1),		/* sign-extends */
		LDX(DW, 6, 10, -24),
		STX(B, 10, 1, -32),
		STX(H, 10, 1, -30),
		STX(W, 10, 1, -28),
		LDX(DW, 7, 10, -32),
		/* r0 = r2 ^ r3 ^ r4, checked through a chain of compares */
		MOV64_K(0, 0),
		JMP_K(JNE, 2, 0x88, 12),
		JMP_K(JNE, 3, 0x6677, 11),
		LDDW(8, 0x11223344),
		JMP_X(JNE, 4, 8, 8),
		LDDW(8, 0x12345678fffe00ffULL),
		JMP_X(JNE, 5, 8, 5),
		JMP_K(JNE, 6, -1, 4),
		LDDW(8, 0x5566778877880088ULL),
		JMP_X(JNE, 7, 8, 1),
		MOV64_K(0, 1),
		EXIT(),
	};

	EQ(run_ok(p, N(p)), 1);
}

Test(interp, sign_extending_loads)
{
	struct bpf_insn p[] = {
		LDDW(1, 0x80818283f4f5f6f7ULL),
		STX(DW, 10, 1, -8),
		LDXSX(B, 2, 10, -8),	/* 0xf7 -> -9 */
		LDXSX(H, 3, 10, -8),	/* 0xf6f7 */
		LDXSX(W, 4, 10, -8),	/* 0xf4f5f6f7 */
		LDXSX(W, 5, 10, -4),	/* 0x80818283 */
		ST(B, 10, -9, 0x7f),
		LDXSX(B, 6, 10, -9),	/* positive stays */
		MOV64_K(0, 0),
		JMP_K(JNE, 2, -9, 8),
		JMP_K(JNE, 3, (int32_t)0xfffff6f7, 7),
		JMP_K(JNE, 4, (int32_t)0xf4f5f6f7, 6),
		LDDW(7, 0xffffffff80818283ULL),
		JMP_X(JNE, 5, 7, 3),
		JMP_K(JNE, 6, 0x7f, 2),
		MOV64_K(0, 1),
		EXIT(),
		EXIT(),
	};

	EQ(run_ok(p, N(p)), 1);
}

/* Run one atomic op on a 16-byte writable region; returns r0 and leaves the
 * region and r1 (the src register after the op) for inspection. */
static void atomic_case(uint8_t size, int32_t op, uint64_t mem_in, uint64_t src,
			uint64_t r0_in, uint64_t *mem_out, uint64_t *src_out,
			uint64_t *r0_out)
{
	uint64_t mem[2] = { mem_in, 0 };
	struct bpf_insn p[] = {
		MOV64_X(6, 1),
		LDDW(1, src),
		LDDW(0, r0_in),
		INSN(BPF_STX | BPF_ATOMIC | size, 6, 1, 0, op),
		STX(DW, 6, 1, 8),	/* src after the op */
		EXIT(),
	};
	struct secbpf_err err = { "" };
	int rc;

	rc = run_mem(p, N(p), mem, sizeof(mem), true, r0_out, &err);
	cr_assert_eq(rc, 0, "atomic 0x%x failed: %s", op, err.msg);
	*mem_out = mem[0];
	*src_out = mem[1];
}

Test(interp, atomics)
{
	const uint64_t m = 0xf0f0f0f0f0f0f0f0ULL;
	uint64_t mem, src, r0;

	/* Non-fetch: memory changes, src stays. */
	atomic_case(BPF_DW, BPF_ADD, 1, 2, 0, &mem, &src, &r0);
	EQ(mem, 3); EQ(src, 2);
	atomic_case(BPF_DW, BPF_OR, m, 0x0f, 0, &mem, &src, &r0);
	EQ(mem, m | 0x0f); EQ(src, 0x0f);
	atomic_case(BPF_DW, BPF_AND, m, 0xff, 0, &mem, &src, &r0);
	EQ(mem, 0xf0); EQ(src, 0xff);
	atomic_case(BPF_DW, BPF_XOR, m, UINT64_MAX, 0, &mem, &src, &r0);
	EQ(mem, ~m); EQ(src, UINT64_MAX);
	/* 32-bit: only the low word changes; carries do not spill. */
	atomic_case(BPF_W, BPF_ADD, 0x11111111ffffffffULL, 1, 0, &mem, &src, &r0);
	EQ(mem, 0x1111111100000000ULL); EQ(src, 1);
	atomic_case(BPF_W, BPF_OR, 0, 0x100000001ULL, 0, &mem, &src, &r0);
	EQ(mem, 1);
	atomic_case(BPF_W, BPF_AND, UINT64_MAX, 0, 0, &mem, &src, &r0);
	EQ(mem, 0xffffffff00000000ULL);
	atomic_case(BPF_W, BPF_XOR, 0x5, 0x3, 0, &mem, &src, &r0);
	EQ(mem, 0x6);

	/* Fetch: src gets the old value (zero-extended for W). */
	atomic_case(BPF_DW, BPF_ADD | BPF_FETCH, 10, 5, 0, &mem, &src, &r0);
	EQ(mem, 15); EQ(src, 10);
	atomic_case(BPF_DW, BPF_OR | BPF_FETCH, 0x10, 0x01, 0, &mem, &src, &r0);
	EQ(mem, 0x11); EQ(src, 0x10);
	atomic_case(BPF_DW, BPF_AND | BPF_FETCH, 0x13, 0x06, 0, &mem, &src, &r0);
	EQ(mem, 0x02); EQ(src, 0x13);
	atomic_case(BPF_DW, BPF_XOR | BPF_FETCH, 0x13, 0x06, 0, &mem, &src, &r0);
	EQ(mem, 0x15); EQ(src, 0x13);
	atomic_case(BPF_W, BPF_ADD | BPF_FETCH, 0xaaaaaaaa80000000ULL,
		    0xffffffff80000000ULL, 0, &mem, &src, &r0);
	EQ(mem, 0xaaaaaaaa00000000ULL); EQ(src, 0x80000000ULL);
	atomic_case(BPF_W, BPF_OR | BPF_FETCH, 0xffffffff00000001ULL, 2, 0,
		    &mem, &src, &r0);
	EQ(mem, 0xffffffff00000003ULL); EQ(src, 1);
	atomic_case(BPF_W, BPF_AND | BPF_FETCH, 0xfffffffff0000001ULL, 3, 0,
		    &mem, &src, &r0);
	EQ(mem, 0xffffffff00000001ULL); EQ(src, 0xf0000001ULL);
	atomic_case(BPF_W, BPF_XOR | BPF_FETCH, 0x0000000700000005ULL, 1, 0,
		    &mem, &src, &r0);
	EQ(mem, 0x0000000700000004ULL); EQ(src, 5);

	/* xchg */
	atomic_case(BPF_DW, BPF_XCHG, 111, 222, 0, &mem, &src, &r0);
	EQ(mem, 222); EQ(src, 111);
	atomic_case(BPF_W, BPF_XCHG, 0x9999999912345678ULL, 0xabcdef0187654321ULL,
		    0, &mem, &src, &r0);
	EQ(mem, 0x9999999987654321ULL); EQ(src, 0x12345678ULL);

	/* cmpxchg: r0 gets the old value; memory changes only on a match. */
	atomic_case(BPF_DW, BPF_CMPXCHG, 7, 9, 7, &mem, &src, &r0);
	EQ(mem, 9); EQ(r0, 7); EQ(src, 9);
	atomic_case(BPF_DW, BPF_CMPXCHG, 7, 9, 8, &mem, &src, &r0);
	EQ(mem, 7); EQ(r0, 7); EQ(src, 9);
	/* 32-bit compares only the low half of r0, r0 gets a zero-extended
	 * old value. */
	atomic_case(BPF_W, BPF_CMPXCHG, 0x55555555ffffffffULL, 3,
		    0x12345678ffffffffULL, &mem, &src, &r0);
	EQ(mem, 0x5555555500000003ULL); EQ(r0, 0xffffffffULL);
	atomic_case(BPF_W, BPF_CMPXCHG, 0x55555555fffffffeULL, 3,
		    0xffffffffULL, &mem, &src, &r0);
	EQ(mem, 0x55555555fffffffeULL); EQ(r0, 0xfffffffeULL);
}

Test(interp, atomics_on_the_stack_and_misaligned)
{
	struct bpf_insn ok[] = {
		ST(DW, 10, -8, 40),
		MOV64_K(1, 2),
		ATOMIC(DW, 10, 1, -8, BPF_ADD | BPF_FETCH),
		LDX(DW, 0, 10, -8),
		ALU64_X(ADD, 0, 1),		/* 42 + 40 */
		EXIT(),
	};
	struct bpf_insn bad[] = {
		MOV64_K(1, 2),
		ATOMIC(W, 10, 1, -6, BPF_ADD),
		EXIT(),
	};
	struct secbpf_err err = { "" };
	uint64_t r0;

	EQ(run_ok(ok, N(ok)), 82);
	cr_expect_eq(run_prog(bad, N(bad), &r0, &err), -EFAULT);
	cr_expect(strstr(err.msg, "insn 1: misaligned atomic"), "%s", err.msg);
}

/* Expect a single access at base_reg + off of size to succeed or fault. */
static void access_case(uint8_t sz_code, unsigned int size, bool store,
			uint8_t base, int16_t off, void *mem, size_t len,
			bool expect_ok)
{
	struct bpf_insn p[] = {
		MOV64_K(3, 0),
		store ? INSN(BPF_STX | BPF_MEM | sz_code, base, 3, off, 0)
		      : INSN(BPF_LDX | BPF_MEM | sz_code, 0, base, off, 0),
		MOV64_K(0, 0),
		EXIT(),
	};
	struct secbpf_err err = { "" };
	char want[64];
	uint64_t r0;
	int rc;

	rc = run_mem(p, N(p), mem, len, true, &r0, &err);
	if (expect_ok) {
		cr_expect_eq(rc, 0, "%s of %u at r%u%+d: %s", store ? "store" : "load",
			     size, base, off, err.msg);
		return;
	}
	cr_expect_eq(rc, -EFAULT, "%s of %u at r%u%+d should fault",
		     store ? "store" : "load", size, base, off);
	snprintf(want, sizeof(want), "insn 1: invalid %s of %u bytes at 0x",
		 store ? "write" : "read", size);
	cr_expect(strstr(err.msg, want), "got \"%s\"", err.msg);
	cr_expect(strstr(err.msg, "(not in the stack, the context or a map value)"),
		  "got \"%s\"", err.msg);
}

Test(interp, bounds_at_every_edge)
{
	static const struct { uint8_t code; unsigned int size; } sizes[] = {
		{ BPF_B, 1 }, { BPF_H, 2 }, { BPF_W, 4 }, { BPF_DW, 8 },
	};
	uint8_t mem[40];
	const int len = 37;	/* odd, so no end is aligned by accident */
	size_t i;
	int st, sz;

	for (i = 0; i < N(sizes); i++) {
		sz = (int)sizes[i].size;
		for (st = 0; st < 2; st++) {
			/* stack: [r10 - 512, r10) */
			access_case(sizes[i].code, sz, st, 10, -512, mem, len, true);
			access_case(sizes[i].code, sz, st, 10, -513, mem, len, false);
			access_case(sizes[i].code, sz, st, 10, -sz, mem, len, true);
			access_case(sizes[i].code, sz, st, 10, -sz + 1, mem, len, false);
			access_case(sizes[i].code, sz, st, 10, 0, mem, len, false);
			/* region: [r1, r1 + len) */
			access_case(sizes[i].code, sz, st, 1, 0, mem, len, true);
			access_case(sizes[i].code, sz, st, 1, -1, mem, len, false);
			access_case(sizes[i].code, sz, st, 1, len - sz, mem, len, true);
			access_case(sizes[i].code, sz, st, 1, len - sz + 1, mem, len, false);
			access_case(sizes[i].code, sz, st, 1, len, mem, len, false);
		}
	}
}

Test(interp, wild_pointers_fault)
{
	struct bpf_insn null_load[] = {
		MOV64_K(1, 0),
		LDX(DW, 0, 1, 0),
		EXIT(),
	};
	struct bpf_insn wrap[] = {
		LDDW(1, UINT64_MAX),
		LDX(B, 0, 1, 0),
		EXIT(),
	};
	struct bpf_insn wrap_size[] = {
		LDDW(1, UINT64_MAX - 3),
		LDX(DW, 0, 1, 0),
		EXIT(),
	};
	struct secbpf_err err = { "" };
	uint64_t r0;

	cr_expect_eq(run_prog(null_load, N(null_load), &r0, &err), -EFAULT);
	cr_expect(strstr(err.msg, "insn 1: invalid read of 8 bytes at 0x0 "), "%s", err.msg);
	cr_expect_eq(run_prog(wrap, N(wrap), &r0, &err), -EFAULT);
	cr_expect_eq(run_prog(wrap_size, N(wrap_size), &r0, &err), -EFAULT);
}

Test(interp, read_only_context)
{
	uint32_t ctx[4] = { 1, 2, 3, 4 };
	struct bpf_insn rd[] = {
		LDX(W, 0, 1, 12),
		EXIT(),
	};
	struct bpf_insn wr[] = {
		ST(W, 1, 4, 9),
		MOV64_K(0, 0),
		EXIT(),
	};
	struct bpf_insn at[] = {
		MOV64_K(2, 1),
		ATOMIC(W, 1, 2, 0, BPF_ADD),
		MOV64_K(0, 0),
		EXIT(),
	};
	struct secbpf_err err = { "" };
	uint64_t r0 = 0;

	cr_assert_eq(run_mem(rd, N(rd), ctx, sizeof(ctx), false, &r0, &err), 0, "%s", err.msg);
	EQ(r0, 4);
	cr_expect_eq(run_mem(wr, N(wr), ctx, sizeof(ctx), false, &r0, &err), -EFAULT);
	cr_expect(strstr(err.msg, "insn 0: invalid write of 4 bytes at 0x"), "%s", err.msg);
	cr_expect(strstr(err.msg, "read-only"), "%s", err.msg);
	cr_expect_eq(run_mem(at, N(at), ctx, sizeof(ctx), false, &r0, &err), -EFAULT);
	cr_expect(strstr(err.msg, "read-only"), "%s", err.msg);
	EQ(ctx[0], 1);
	EQ(ctx[1], 2);
}

Test(interp, subprogram_calls_share_stacks)
{
	struct bpf_insn p[] = {
		ST(DW, 10, -8, 1000),
		MOV64_K(6, 7),
		MOV64_X(1, 10),
		ALU64_K(ADD, 1, -8),
		CALL_LOCAL(5),			/* -> 10 */
		ALU64_X(ADD, 0, 6),		/* r6 survived the call */
		LDX(DW, 2, 10, -8),		/* r10 restored; callee wrote 2000 */
		ALU64_X(ADD, 0, 2),
		EXIT(),
		EXIT(),
		/* 10: the callee */
		LDX(DW, 0, 1, 0),		/* caller's stack through r1 */
		ST(DW, 10, -8, 5),		/* own fresh frame */
		LDX(DW, 3, 10, -8),
		ALU64_X(ADD, 0, 3),
		ST(DW, 1, 0, 2000),
		MOV64_K(6, 99),
		EXIT(),
	};

	EQ(run_ok(p, N(p)), 1005 + 7 + 2000);
}

Test(interp, callee_frame_is_fresh_and_bounded)
{
	struct bpf_insn p[] = {
		ST(DW, 10, -512, 77),		/* bottom of the caller's frame */
		CALL_LOCAL(1),
		EXIT(),
		/* 3: the callee: its frame is zeroed, its bottom is r10 - 512,
		 * and r10 - 513 is not memory (nothing below the deepest frame). */
		LDX(DW, 0, 10, -8),
		LDX(DW, 1, 10, 0),		/* caller's r10 - 512 */
		ALU64_X(ADD, 0, 1),
		LDX(DW, 1, 10, -512),
		ALU64_X(ADD, 0, 1),
		LDX(B, 1, 10, -513),
		EXIT(),
	};
	struct secbpf_err err = { "" };
	uint64_t r0;

	cr_expect_eq(run_prog(p, N(p), &r0, &err), -EFAULT);
	cr_expect(strstr(err.msg, "insn 8: invalid read of 1 bytes"), "%s", err.msg);
	p[8] = MOV64_K(1, 0);
	EQ(run_ok(p, N(p)), 77);
}

/* p[2i] = call the next function, p[2i + 1] = exit; the last returns 42. */
static int nested_calls(unsigned int depth, uint64_t *r0, struct secbpf_err *err)
{
	struct bpf_insn p[2 * 16 + 2];
	unsigned int i;

	for (i = 0; i < depth; i++) {
		p[2 * i] = CALL_LOCAL(1);
		p[2 * i + 1] = EXIT();
	}
	p[2 * depth] = MOV64_K(0, 42);
	p[2 * depth + 1] = EXIT();
	return run_prog(p, 2 * depth + 2, r0, err);
}

Test(interp, frame_limit)
{
	struct bpf_insn recurse[] = {
		CALL_LOCAL(1),
		EXIT(),
		CALL_LOCAL(-1),
		EXIT(),
	};
	struct secbpf_err err = { "" };
	uint64_t r0 = 0;

	cr_expect_eq(nested_calls(INTERP_MAX_FRAMES - 1, &r0, &err), 0, "%s", err.msg);
	EQ(r0, 42);
	cr_expect_eq(nested_calls(INTERP_MAX_FRAMES, &r0, &err), -E2BIG);
	cr_expect(strstr(err.msg, "nested frames"), "%s", err.msg);
	cr_expect_eq(run_prog(recurse, N(recurse), &r0, &err), -E2BIG);
	cr_expect(strstr(err.msg, "insn 2: more than 8 nested frames"), "%s", err.msg);
}

Test(interp, insn_limit)
{
	struct bpf_insn forever[] = {
		MOV64_K(0, 0),
		JA(-1),
	};
	struct bpf_insn loop[] = {
		MOV64_K(1, 10),			/* 1 */
		ALU64_K(SUB, 1, 1),		/* 10 x 2 */
		JMP_K(JNE, 1, 0, -2),
		LDDW(0, 5),			/* 2 slots */
		EXIT(),				/* 1 */
	};
	struct interp_config cfg = { .insns = loop, .cnt = N(loop) };
	struct secbpf_err err = { "" };
	uint64_t r0 = 0;

	cr_expect_eq(run_prog(forever, N(forever), &r0, &err), -E2BIG);
	cr_expect(strstr(err.msg, "more than 16777216 instructions executed"), "%s",
		  err.msg);

	/* The count is exact: 24 slots run. */
	cfg.insn_limit = 24;
	cr_expect_eq(run_cfg(&cfg, NULL, NULL, 0, &r0, &err), 0, "%s", err.msg);
	EQ(r0, 5);
	cfg.insn_limit = 23;
	cr_expect_eq(run_cfg(&cfg, NULL, NULL, 0, &r0, &err), -E2BIG);
	cfg.insn_limit = 15;
	cr_expect_eq(run_cfg(&cfg, NULL, NULL, 0, &r0, &err), -E2BIG);
	cr_expect(strstr(err.msg, "insn 2: more than 15 instructions"), "%s", err.msg);
}

Test(interp, helper_args_and_return)
{
	struct bpf_insn p[] = {
		MOV64_K(1, 1),
		MOV64_K(2, 2),
		MOV64_K(3, 3),
		MOV64_K(4, 4),
		MOV64_K(5, 5),
		MOV64_K(6, 100),
		CALL(H_SUM),
		ALU64_X(ADD, 0, 6),
		EXIT(),
	};

	EQ(run_ok(p, N(p)), 115);
}

Test(interp, helper_added_region)
{
	struct test_user user = { .buf_writable = true };
	struct bpf_insn p[] = {
		CALL(H_ADD_REGION),
		ST(DW, 0, 8, 0x1234),		/* the last 8 bytes */
		LDX(DW, 1, 0, 8),
		MOV64_X(0, 1),
		EXIT(),
	};
	struct bpf_insn past[] = {
		CALL(H_ADD_REGION),
		LDX(B, 1, 0, 16),
		EXIT(),
	};
	struct interp_config cfg = {
		.insns = p, .cnt = N(p), .calls = &test_calls, .user = &user,
	};
	struct bpf_insn gone[] = {
		LDDW(1, (uint64_t)(uintptr_t)user.buf),
		LDX(B, 0, 1, 0),
		EXIT(),
	};
	struct secbpf_err err = { "" };
	uint64_t r0 = 0;

	cr_expect_eq(run_cfg(&cfg, NULL, NULL, 0, &r0, &err), 0, "%s", err.msg);
	EQ(r0, 0x1234);
	EQ(user.buf[8], 0x34);

	cfg.insns = past;
	cfg.cnt = N(past);
	cr_expect_eq(run_cfg(&cfg, NULL, NULL, 0, &r0, &err), -EFAULT);
	cr_expect(strstr(err.msg, "insn 1: invalid read of 1 bytes"), "%s", err.msg);

	user.buf_writable = false;
	cfg.insns = p;
	cfg.cnt = N(p);
	cr_expect_eq(run_cfg(&cfg, NULL, NULL, 0, &r0, &err), -EFAULT);
	cr_expect(strstr(err.msg, "read-only"), "%s", err.msg);

	/* A region exists only after the helper added it, in that run. */
	cfg.insns = gone;
	cfg.cnt = N(gone);
	cr_expect_eq(run_cfg(&cfg, NULL, NULL, 0, &r0, &err), -EFAULT);
}

Test(interp, helper_exit_and_fail)
{
	struct bpf_insn ex[] = {
		MOV64_K(1, 42),
		CALL(H_EXIT),
		MOV64_K(0, 7),		/* never runs */
		EXIT(),
	};
	struct bpf_insn fail[] = {
		MOV64_K(0, 0),
		MOV64_K(0, 0),
		CALL(H_FAIL),
		EXIT(),
	};
	struct bpf_insn unwind[] = {
		MOV64_K(1, 3),
		CALL(H_UNWIND),
		MOV64_X(6, 0),
		MOV64_K(1, 0),
		CALL(H_UNWIND),		/* stops with r0 = 0 */
		MOV64_K(0, 9),
		EXIT(),
	};
	struct secbpf_err err = { "" };
	uint64_t r0 = 1;

	EQ(run_ok(ex, N(ex)), 42);
	cr_expect_eq(run_prog(fail, N(fail), &r0, &err), -EPERM);
	cr_expect_str_eq(err.msg, "insn 2: denied by test helper (7)");
	EQ(run_ok(unwind, N(unwind)), 0);
}

Test(interp, helper_checks_pointers)
{
	struct bpf_insn p[] = {
		MOV64_X(1, 10),
		ALU64_K(ADD, 1, -16),
		MOV64_K(2, 16),
		MOV64_K(3, 0xab),
		CALL(H_FILL),			/* fills r10-16 .. r10 */
		MOV64_X(6, 0),
		MOV64_X(1, 10),
		ALU64_K(ADD, 1, -16),
		MOV64_K(2, 17),			/* one byte past the frame */
		MOV64_K(3, 1),
		CALL(H_CHECK),
		ALU64_X(ADD, 0, 6),
		LDX(DW, 1, 10, -8),
		ALU64_X(XOR, 0, 1),
		EXIT(),
	};

	/* -EFAULT ^ 0xabab... */
	EQ(run_ok(p, N(p)), (uint64_t)-EFAULT ^ 0xababababababababULL);
}

Test(interp, unknown_helpers_fail_to_prepare)
{
	struct bpf_insn p[] = {
		CALL(1000),
		EXIT(),
	};
	struct bpf_insn named[] = {
		MOV64_K(0, 0),
		CALL(BPF_FUNC_map_lookup_elem),
		EXIT(),
	};
	struct interp_config cfg = {
		.insns = p, .cnt = N(p), .calls = &test_calls,
	};
	struct secbpf_err err = { "" };

	cr_expect_null(interp_new(&cfg, &err));
	cr_expect(strstr(err.msg, "insn 0:") && strstr(err.msg, "1000"), "%s", err.msg);

	cfg.calls = NULL;
	cr_expect_null(interp_new(&cfg, &err));
	cr_expect(strstr(err.msg, "insn 0:"), "%s", err.msg);

	cfg.insns = named;
	cfg.cnt = N(named);
	cr_expect_null(interp_new(&cfg, &err));
	cr_expect(strstr(err.msg, "insn 1:") && strstr(err.msg, "map_lookup_elem"),
		  "%s", err.msg);
}

Test(interp, callx_helper_and_function)
{
	/* As bpf_conformance's callx.data: call %r2 with r2 = 5. */
	struct bpf_insn helper[] = {
		MOV64_K(1, -1),
		MOV64_K(2, H_UNWIND),
		CALLX(2),
		ALU64_K(ADD, 0, 3),
		EXIT(),
	};
	struct bpf_insn func[] = {
		LDDW_PSEUDO(3, BPF_PSEUDO_FUNC, 5, 0),	/* -> slot 6 */
		MOV64_K(1, 20),
		CALLX(3),
		ALU64_K(ADD, 0, 1),
		EXIT(),
		/* 6 */
		MOV64_X(0, 1),
		ALU64_K(MUL, 0, 2),
		EXIT(),
	};
	struct bpf_insn bad[] = {
		MOV64_K(2, 9999),
		CALLX(2),
		EXIT(),
	};
	struct secbpf_err err = { "" };
	uint64_t r0;

	EQ(run_ok(helper, N(helper)), 2);
	EQ(run_ok(func, N(func)), 41);
	cr_expect_eq(run_prog(bad, N(bad), &r0, &err), -EINVAL);
	cr_expect(strstr(err.msg, "insn 1: callx to an invalid target"), "%s", err.msg);
}

Test(interp, callbacks_through_helpers)
{
	/* h_loop(5, cb, 10): cb(i, 10) = i * 10 + r6 (0 in a fresh frame);
	 * the callback also writes through a pointer into main's stack. */
	struct bpf_insn p[] = {
		ST(DW, 10, -8, 0),
		MOV64_K(1, 5),
		LDDW_PSEUDO(2, BPF_PSEUDO_FUNC, 7, 0),	/* -> slot 10 */
		MOV64_X(3, 10),
		ALU64_K(ADD, 3, -8),
		CALL(H_LOOP),
		LDX(DW, 1, 10, -8),
		ALU64_X(ADD, 0, 1),
		EXIT(),
		/* 10: cb(i, ptr): *ptr += 1000; return i * 10 */
		MOV64_K(3, 1000),
		ATOMIC(DW, 2, 3, 0, BPF_ADD),
		MOV64_X(0, 1),
		ALU64_K(MUL, 0, 10),
		EXIT(),
	};
	struct bpf_insn bad[] = {
		MOV64_K(1, 1),
		MOV64_K(2, 10),			/* not a function value */
		CALL(H_LOOP),
		EXIT(),
	};
	struct bpf_insn stop[] = {
		MOV64_K(1, 3),
		LDDW_PSEUDO(2, BPF_PSEUDO_FUNC, 4, 0),	/* -> slot 6 */
		CALL(H_LOOP),
		MOV64_K(0, 1),
		EXIT(),
		/* 6: stop the whole program on the first callback */
		MOV64_K(1, 77),
		CALL(H_EXIT),
		EXIT(),
	};
	struct secbpf_err err = { "" };
	uint64_t r0;

	EQ(run_ok(p, N(p)), 100 + 5000);
	cr_expect_eq(run_prog(bad, N(bad), &r0, &err), -EINVAL);
	cr_expect(strstr(err.msg, "insn 2: callback 0xa is not a function"), "%s", err.msg);
	EQ(run_ok(stop, N(stop)), 77);
}

Test(interp, pseudo_map_loads)
{
	uint8_t rodata[16] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint64_t data[2] = { 0, 0 };
	struct interp_map_ref maps[] = {
		{ .handle = 0xabc, .value = rodata, .value_size = sizeof(rodata) },
		{ .handle = 0xdef, .value = data, .value_size = sizeof(data),
		  .writable = true },
	};
	struct bpf_insn p[] = {
		LDDW_PSEUDO(1, BPF_PSEUDO_MAP_FD, 1, 0),
		LDDW_PSEUDO(2, BPF_PSEUDO_MAP_VALUE, 0, 4),
		LDX(W, 3, 2, 0),			/* 0x08070605 */
		LDDW_PSEUDO(4, BPF_PSEUDO_MAP_VALUE, 1, 8),
		LDX(DW, 0, 4, 0),
		ALU64_K(ADD, 0, 1),
		STX(DW, 4, 0, 0),			/* data[1]++ across runs */
		ALU64_X(ADD, 0, 3),
		ALU64_X(ADD, 0, 1),
		EXIT(),
	};
	struct bpf_insn ro_write[] = {
		LDDW_PSEUDO(2, BPF_PSEUDO_MAP_VALUE, 0, 0),
		ST(B, 2, 15, 1),
		EXIT(),
	};
	struct bpf_insn past_end[] = {
		LDDW_PSEUDO(2, BPF_PSEUDO_MAP_VALUE, 1, 8),
		LDX(DW, 0, 2, 1),
		EXIT(),
	};
	struct bpf_insn bad_map[] = {
		LDDW_PSEUDO(2, BPF_PSEUDO_MAP_VALUE, 2, 0),
		EXIT(),
	};
	struct bpf_insn bad_off[] = {
		LDDW_PSEUDO(2, BPF_PSEUDO_MAP_VALUE, 1, 16),
		EXIT(),
	};
	struct interp_config cfg = {
		.insns = p, .cnt = N(p), .maps = maps, .nmaps = N(maps),
	};
	struct secbpf_err err = { "" };
	struct interp *in;
	uint64_t r0 = 0;

	in = interp_new(&cfg, &err);
	cr_assert(in, "%s", err.msg);
	cr_assert_eq(interp_run(in, NULL, NULL, 0, &r0, &err), 0, "%s", err.msg);
	EQ(r0, 1 + 0x08070605 + 0xdef);
	cr_assert_eq(interp_run(in, NULL, NULL, 0, &r0, &err), 0, "%s", err.msg);
	EQ(r0, 2 + 0x08070605 + 0xdef);
	EQ(data[1], 2);
	interp_free(in);

	cfg.insns = ro_write;
	cfg.cnt = N(ro_write);
	cr_expect_eq(run_cfg(&cfg, NULL, NULL, 0, &r0, &err), -EFAULT);
	cr_expect(strstr(err.msg, "insn 2: invalid write of 1 bytes") &&
		  strstr(err.msg, "read-only"), "%s", err.msg);
	EQ(rodata[15], 0);

	cfg.insns = past_end;
	cfg.cnt = N(past_end);
	cr_expect_eq(run_cfg(&cfg, NULL, NULL, 0, &r0, &err), -EFAULT);

	cfg.insns = bad_map;
	cfg.cnt = N(bad_map);
	cr_expect_null(interp_new(&cfg, &err));
	cr_expect(strstr(err.msg, "insn 0:"), "%s", err.msg);
	cfg.insns = bad_off;
	cfg.cnt = N(bad_off);
	cr_expect_null(interp_new(&cfg, &err));
	cr_expect(strstr(err.msg, "insn 0:"), "%s", err.msg);
}

Test(interp, args_and_initial_registers)
{
	struct bpf_insn p[] = {
		MOV64_X(0, 1),
		ALU64_X(ADD, 0, 2),
		ALU64_X(ADD, 0, 3),
		ALU64_X(ADD, 0, 4),
		ALU64_X(ADD, 0, 5),
		ALU64_X(ADD, 0, 6),		/* r6..r9 start at 0 */
		ALU64_X(ADD, 0, 9),
		EXIT(),
	};
	struct interp_config cfg = { .insns = p, .cnt = N(p) };
	uint64_t args[5] = { 1, 20, 300, 4000, 50000 };
	struct secbpf_err err = { "" };
	uint64_t r0 = 0;

	cr_expect_eq(run_cfg(&cfg, args, NULL, 0, &r0, &err), 0);
	EQ(r0, 54321);
	cr_expect_eq(run_cfg(&cfg, NULL, NULL, 0, &r0, &err), 0);
	EQ(r0, 0);
}

struct thread_arg {
	const struct interp *in;
	struct interp_region *region;
	int runs;
	int failures;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	struct secbpf_err err;
	uint64_t args[5] = { a->region->base, 0, 0, 0, 0 };
	uint64_t r0;
	int i;

	for (i = 0; i < a->runs; i++) {
		if (interp_run(a->in, args, a->region, 1, &r0, &err) || r0 != 1)
			a->failures++;
	}
	return NULL;
}

Test(interp, concurrent_runs_are_exact)
{
	struct {
		uint64_t counter;
		uint32_t c32;
		uint32_t pad;
	} shared = { 0, 0, 0 };
	struct bpf_insn p[] = {
		MOV64_K(2, 1),
		ATOMIC(DW, 1, 2, 0, BPF_ADD),
		MOV64_K(3, 1),
		ATOMIC(W, 1, 3, 8, BPF_ADD | BPF_FETCH),
		ST(DW, 10, -8, 1),		/* each run has its own stack */
		LDX(DW, 0, 10, -8),
		EXIT(),
	};
	struct interp_config cfg = { .insns = p, .cnt = N(p) };
	struct interp_region region = {
		.base = (uint64_t)(uintptr_t)&shared, .size = sizeof(shared),
		.writable = true,
	};
	struct thread_arg args[4];
	pthread_t th[4];
	struct secbpf_err err;
	struct interp *in;
	int i;

	in = interp_new(&cfg, &err);
	cr_assert(in, "%s", err.msg);
	for (i = 0; i < 4; i++) {
		args[i] = (struct thread_arg){ .in = in, .region = &region,
					       .runs = 100000 };
		cr_assert_eq(pthread_create(&th[i], NULL, thread_main, &args[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		cr_expect_eq(args[i].failures, 0);
	}
	interp_free(in);
	EQ(shared.counter, 400000);
	EQ(shared.c32, 400000);
}

Test(interp, stack_is_fresh_in_every_run)
{
	/* Reads its slot, then dirties it: a reused stack would show 5. Small
	 * (r10 only as a base) and full-size (r10 escapes) frames both. */
	struct bpf_insn small[] = {
		LDX(DW, 0, 10, -8),
		ST(DW, 10, -8, 5),
		EXIT(),
	};
	struct bpf_insn full[] = {
		LDX(DW, 0, 10, -8),
		LDX(DW, 1, 10, -512),
		ALU64_X(ADD, 0, 1),
		ST(DW, 10, -8, 5),
		ST(DW, 10, -512, 5),
		MOV64_X(1, 10),
		EXIT(),
	};
	struct interp_config cfg = { .insns = small, .cnt = N(small) };
	struct secbpf_err err = { "" };
	struct interp *in;
	uint64_t r0 = 1;
	int i, k;

	for (k = 0; k < 2; k++) {
		in = interp_new(&cfg, &err);
		cr_assert(in, "%s", err.msg);
		for (i = 0; i < 3; i++) {
			cr_expect_eq(interp_run(in, NULL, NULL, 0, &r0, &err), 0, "%s", err.msg);
			EQ(r0, 0);
		}
		interp_free(in);
		cfg.insns = full;
		cfg.cnt = N(full);
	}
}

Test(interp, small_frames_with_calls)
{
	/* Every frame has 16 bytes here; frames stay separate. */
	struct bpf_insn p[] = {
		ST(DW, 10, -16, 100),
		CALL_LOCAL(3),
		LDX(DW, 1, 10, -16),		/* the callee did not clobber it */
		ALU64_X(ADD, 0, 1),
		EXIT(),
		/* 5 */
		LDX(DW, 0, 10, -16),		/* 0: a fresh frame */
		ST(DW, 10, -16, 7),
		LDX(DW, 2, 10, -16),
		ALU64_X(ADD, 0, 2),
		EXIT(),
	};
	struct bpf_insn below[] = {
		ST(DW, 10, -16, 1),
		LDX(B, 0, 10, -17),		/* the frame grows to cover it */
		EXIT(),
	};

	EQ(run_ok(p, N(p)), 107);
	EQ(run_ok(below, N(below)), 0);
}
