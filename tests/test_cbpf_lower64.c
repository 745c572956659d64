// SPDX-License-Identifier: MIT
/*
 * The cBPF lowerings of 64-bit multiplication, of division and modulo by
 * a constant, of shifts by a variable amount, of signed division and
 * modulo (lib/cbpf/expr.c rewrites them as unsigned ones) and of byte
 * swaps and sign extensions (lib/cbpf/lower.c), checked value by value:
 * each result is returned 12 bits at a time by small eBPF programs, or
 * compared, run by the interpreter and, compiled, by cbpf_sim on edge
 * values, values next to multiples of the divisor, counts of every
 * masking class and random ones; millions of cases.
 */
#include <criterion/criterion.h>
#include <linux/audit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbpf/cbpf.h"
#include "cbpf/cbpf_internal.h" /* cbpf_alu_eval: a decision's operand */
#include "object/object.h"
#include "vm/insn.h"
#include "vm/runtime.h"
#include "cbpf/diff.h"
#include "common.h"

#define SLICES 6	   /* 12-bit slices of the result, from bits 0..52 */
#define RANDOM_INPUTS 2000 /* per program, besides the edges */
#define CROSS_INPUTS 200   /* a * b: this many of each */
#define SHIFT_VALUES 72	   /* values shifted: the edges, then random */
#define SHIFT_COUNTS 112   /* counts: 0..63, the masking classes, random */

static const uint64_t edges[] = {
	/* clang-format off */
	0, 1, 2, 3, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
	0x100000001ull, 0x7fffffffffffffffull, 0x8000000000000000ull, 0x8000000000000001ull,
	0xfffffffffffffffeull, ~0ull, 0xffffffff00000000ull, 0x00000000ffff0000ull,
	/* a digit estimate two too large, corrected twice (k 0x8000ffff, 0x800fffff) */
	0x64be8049a372db8full, 0x7bf4f18a0ad1c4eaull,
	/* signs of the low word under a high word, for the 32-bit signed forms */
	0xffffffff80000000ull, 0x7fffffff80000000ull, 0xfffffffffffffff9ull, 0x12345678fffffffeull,
	0x0123456789abcdefull, 0xff80ff807f7f8000ull,
	/* clang-format on */
};

/* Divisors (and factors) of every class: below 2^16, below 2^32, from 2^63,
 * powers of two, 0 and 1, and 2^32 <= k < 2^63 (divided as by a variable). */
static const uint64_t constants[] = {
	/* clang-format off */
	0, 1, 2, 3, 7, 10, 255, 0xfffb, 0xffff, 0x10000, 0x10001, 1000003, 0x7fca36c1,
	0x80000001, 0x8000ffff, 0x800fffff, 0xfffffffb, 0xffffffff, 0x100000000ull,
	0x100000001ull, 1ull << 40, 0x7fffffffffffffffull, 0x8000000000000000ull,
	0x8000000000000001ull, 0xffffffff80000000ull, 0xfffffffffffffffeull, ~0ull,
	0x9e3779b97f4a7c15ull,
	/* clang-format on */
};

struct lower_prog {
	struct bpf_insn insns[16];
	uint32_t n;
};

static void emit(struct lower_prog *p, struct bpf_insn in)
{
	p->insns[p->n++] = in;
}

/*
 * return ERRNO | (r2 >> shift) & 0xfff after the instructions ops: r2 is
 * args[0], also stored at r10 - 8 for a load, r3 (when an op reads it)
 * args[1] (k_is_arg) or the constant k.
 */
static void build_insns(struct lower_prog *p, const struct bpf_insn *ops, unsigned nops,
			bool k_is_arg, uint64_t k, unsigned shift)
{
	bool reads_r3 = false;
	unsigned i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < nops; i++)
		reads_r3 |= ops[i].src_reg == 3;
	emit(p,
	     (struct bpf_insn){
		     .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 2, .src_reg = 1, .off = 16 });
	if (BPF_CLASS(ops[0].code) == BPF_LDX) /* loads from the stack: args[0] at r10 - 8 */
		emit(p, (struct bpf_insn){ .code = BPF_STX | BPF_MEM | BPF_DW,
					   .dst_reg = 10,
					   .src_reg = 2,
					   .off = -8 });
	if (reads_r3 && k_is_arg) {
		emit(p, (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW,
					   .dst_reg = 3,
					   .src_reg = 1,
					   .off = 24 });
	} else if (reads_r3) {
		emit(p, (struct bpf_insn){ .code = BPF_LD | BPF_IMM | BPF_DW,
					   .dst_reg = 3,
					   .imm = (int32_t)(uint32_t)k });
		emit(p, (struct bpf_insn){ .imm = (int32_t)(uint32_t)(k >> 32) });
	}
	for (i = 0; i < nops; i++)
		emit(p, ops[i]);
	if (shift)
		emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_RSH | BPF_K,
					   .dst_reg = 2,
					   .imm = (int32_t)shift });
	emit(p,
	     (struct bpf_insn){ .code = BPF_ALU64 | BPF_AND | BPF_K, .dst_reg = 2, .imm = 0xfff });
	emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_OR | BPF_K,
				   .dst_reg = 2,
				   .imm = (int32_t)SECCOMP_RET_ERRNO });
	emit(p,
	     (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 0, .src_reg = 2 });
	emit(p, (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT });
}

/* args[0] op B, B being args[1] (k_is_arg) or the constant k; cls is
 * BPF_ALU64 or BPF_ALU. */
static void build(struct lower_prog *p, uint8_t cls, uint8_t op, bool k_is_arg, uint64_t k,
		  unsigned shift)
{
	struct bpf_insn in = { .code = cls | op | BPF_X, .dst_reg = 2, .src_reg = 3 };

	build_insns(p, &in, 1, k_is_arg, k, shift);
}

/* The same with signed division or modulo (off 1) for op, or (clang_mod)
 * the signed modulo as clang writes it: a - a s/ B * B. */
static void build_signed(struct lower_prog *p, uint8_t cls, uint8_t op, bool clang_mod,
			 bool k_is_arg, uint64_t k, unsigned shift)
{
	struct bpf_insn in = { .code = cls | op | BPF_X, .dst_reg = 2, .src_reg = 3, .off = 1 };
	const struct bpf_insn as_clang[] = {
		{ .code = cls | BPF_MOV | BPF_X, .dst_reg = 4, .src_reg = 2 },
		{ .code = cls | BPF_DIV | BPF_X, .dst_reg = 4, .src_reg = 3, .off = 1 },
		{ .code = cls | BPF_MUL | BPF_X, .dst_reg = 4, .src_reg = 3 },
		{ .code = cls | BPF_SUB | BPF_X, .dst_reg = 2, .src_reg = 4 },
	};

	if (clang_mod)
		build_insns(p, as_clang, 4, k_is_arg, k, shift);
	else
		build_insns(p, &in, 1, k_is_arg, k, shift);
}

struct lower_stats {
	uint64_t cases, programs, punted;
};

/* A lower_prog compiled, checked and loaded in the interpreter; obj
 * points into it, so it stays where lower_open() filled it. */
struct lower_run {
	struct object_prog prog;
	struct object obj;
	struct cbpf_prog cp;
	struct runtime *rt;
	struct diff_result res;
};

/* Compile p and check it; the compiler may leave cases to the supervisor
 * only when punt_ok. */
static void lower_open(struct lower_run *r, struct lower_prog *p, const char *what, bool punt_ok,
		       struct lower_stats *st)
{
	struct secbpf_err err = { { 0 } };

	memset(r, 0, sizeof(*r));
	r->prog = (struct object_prog){ .name = "lower", .section = "seccomp" };
	r->obj = (struct object){ .path = "lower", .progs = &r->prog, .prog_cnt = 1 };
	r->prog.insns = p->insns;
	r->prog.insn_cnt = p->n;
	r->prog.main_cnt = p->n;
	cr_assert_eq(cbpf_compile(&r->obj, &r->prog, NULL, &r->cp, &err), 0, "%s: %s", what,
		     err.msg);
	cr_assert_eq(cbpf_check(r->cp.insns, r->cp.len, &err), 0, "%s: %s", what, err.msg);
	cr_assert(punt_ok || !r->cp.needs_supervisor, "%s: needs the supervisor (%s)", what,
		  r->cp.npunts ? r->cp.punts[0].why : "?");
	st->punted += r->cp.needs_supervisor;
	st->programs++;
	r->rt = runtime_new(&r->obj, &r->prog, &err);
	cr_assert(r->rt != NULL, "%s: %s", what, err.msg);
}

static void lower_close(struct lower_run *r, struct lower_stats *st)
{
	st->cases += r->res.runs;
	runtime_free(r->rt);
	cbpf_prog_free(&r->cp);
}

/* Compile p, check it, and compare it with the interpreter on every
 * input pair (a[i], b[i]). */
static void check(struct lower_prog *p, const char *what, bool punt_ok, const uint64_t *a,
		  const uint64_t *b, size_t n, struct lower_stats *st)
{
	struct lower_run r;
	size_t i;

	lower_open(&r, p, what, punt_ok, st);
	for (i = 0; i < n; i++) {
		struct seccomp_data sd = { .arch = AUDIT_ARCH_X86_64, .args = { a[i], b[i] } };

		cr_assert(diff_one(r.rt, &r.cp, &sd, &r.res), "%s: %s", what, r.res.msg);
	}
	lower_close(&r, st);
}

/* Dividends for k: the edges, q * k + {-1, 0, 1} for random q, random. */
static size_t dividends(uint64_t k, uint64_t *v, uint64_t *r)
{
	size_t n = 0, i;

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		v[n++] = edges[i];
	for (i = 0; i < RANDOM_INPUTS; i++) {
		uint64_t x = diff_rand(r);

		switch (i % 4) {
		case 0:
			v[n++] = x;
			break;
		case 1:
			v[n++] = (uint32_t)x;
			break;
		default:
			v[n++] = (k ? (x >> (diff_rand(r) % 64)) * k : x) + i % 3 - 1;
			break;
		}
	}
	return n;
}

Test(cbpf_lower64, by_a_constant)
{
	static const uint8_t ops[] = { BPF_MUL, BPF_DIV, BPF_MOD };
	static uint64_t a[RANDOM_INPUTS + 64], b[RANDOM_INPUTS + 64];
	struct lower_stats st = { 0 };
	uint64_t r = 0x2545f4914f6cdd1dull;
	size_t ci, oi, n;
	unsigned cls, s;

	for (ci = 0; ci < sizeof(constants) / sizeof(constants[0]); ci++)
		for (oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++)
			for (cls = 0; cls < 2; cls++)
				for (s = 0; s < SLICES; s++) {
					uint8_t c = cls ? BPF_ALU : BPF_ALU64;
					uint64_t k = constants[ci];
					struct lower_prog p;
					char what[128];

					if (cls && s > 2)
						continue; /* a 32-bit result has 3 slices */
					n = dividends(k, a, &r);
					memset(b, 0, n * sizeof(b[0]));
					build(&p, c, ops[oi], false, k, s == 5 ? 52 : s * 12);
					snprintf(what, sizeof(what), "%s %s 0x%llx, bits %u",
						 cls ? "w" : "r",
						 ops[oi] == BPF_MUL   ? "*"
						 : ops[oi] == BPF_DIV ? "/"
								      : "%",
						 (unsigned long long)k, s == 5 ? 52 : s * 12);
					check(&p, what, false, a, b, n,
					      &st);
				}
	printf("cbpf_lower64: by a constant: %llu programs, %llu cases, 0 mismatches\n",
	       (unsigned long long)st.programs, (unsigned long long)st.cases);
	fflush(stdout);
	cr_assert_geq(st.cases, 1000000); /* with the 360,000 of a * b */
}

/* Divisors of signed division: both signs of each class, 0, 1 and -1,
 * INT_MIN of either width, and 32-bit negatives under a high word. */
static const uint64_t signed_constants[] = {
	/* clang-format off */
	0, 1, ~0ull, 2, ~1ull, 3, -3ull, 7, -7ull, 10, -10ull, 0xffff, -0xffffull, 0x10001,
	0x7fffffff, 0x80000000, 0xfffffff9, 0xffffffff, -0x7fca36c1ull, 0x100000001ull,
	-(1ull << 40), 0x7fffffffffffffffull, 0x8000000000000000ull, 0x8000000000000001ull,
	0xffffffff80000000ull,
	/* clang-format on */
};

static const char *signed_op_name(uint8_t op)
{
	return op == BPF_DIV ? "s/" : "s%";
}

Test(cbpf_lower64, signed_by_a_constant)
{
	static const uint8_t ops[] = { BPF_DIV, BPF_MOD };
	static uint64_t a[RANDOM_INPUTS + 64], b[RANDOM_INPUTS + 64];
	struct lower_stats st = { 0 };
	uint64_t r = 0x3c6ef372fe94f82bull;
	size_t ci, oi, n;
	unsigned cls, s;

	for (ci = 0; ci < sizeof(signed_constants) / sizeof(signed_constants[0]); ci++)
		for (oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++)
			for (cls = 0; cls < 2; cls++)
				for (s = 0; s < (cls ? 3u : SLICES); s++) {
					uint8_t c = cls ? BPF_ALU : BPF_ALU64;
					uint64_t k = signed_constants[ci];
					unsigned shift = s == 5 ? 52 : s * 12;
					struct lower_prog p;
					char what[128];

					n = dividends(k, a, &r);
					memset(b, 0, n * sizeof(b[0]));
					build_signed(&p, c, ops[oi], false, false, k, shift);
					snprintf(what, sizeof(what), "%s %s 0x%llx, bits %u",
						 cls ? "w" : "r", signed_op_name(ops[oi]),
						 (unsigned long long)k, shift);
					check(&p, what, false, a, b, n, &st);
				}
	printf("cbpf_lower64: signed, by a constant: %llu programs, %llu cases, 0 mismatches\n",
	       (unsigned long long)st.programs, (unsigned long long)st.cases);
	fflush(stdout);
	cr_assert_geq(st.cases, 500000);
}

Test(cbpf_lower64, signed_by_an_argument)
{
	static uint64_t a[CROSS_INPUTS * CROSS_INPUTS], b[CROSS_INPUTS * CROSS_INPUTS];
	uint64_t vals[CROSS_INPUTS], r = 0xbb67ae8584caa73bull;
	struct lower_stats st = { 0 };
	size_t i, j, n = 0;
	unsigned cls, s, op;

	/* the edges, then random values, small ones and small negative ones */
	for (i = 0; i < CROSS_INPUTS; i++) {
		uint64_t x = diff_rand(&r), small = diff_rand(&r) >> (diff_rand(&r) % 64);

		if (i < sizeof(edges) / sizeof(edges[0]))
			vals[i] = edges[i];
		else
			vals[i] = i % 3 == 0 ? x : i % 3 == 1 ? small : 0 - small;
	}
	for (i = 0; i < CROSS_INPUTS; i++)
		for (j = 0; j < CROSS_INPUTS; j++) {
			a[n] = vals[i];
			b[n++] = vals[j];
		}
	/* s/, s% and clang's a - a s/ b * b */
	for (op = 0; op < 3; op++)
		for (cls = 0; cls < 2; cls++)
			for (s = 0; s < (cls ? 3u : SLICES); s++) {
				uint8_t c = cls ? BPF_ALU : BPF_ALU64;
				unsigned shift = s == 5 ? 52 : s * 12;
				struct lower_prog p;
				char what[64];

				build_signed(&p, c, op ? BPF_MOD : BPF_DIV, op == 2, true, 0,
					     shift);
				snprintf(what, sizeof(what), "%s %s args[1], bits %u",
					 cls ? "w" : "r",
					 op == 2 ? "- s/ * (clang's s%)"
						 : signed_op_name(op ? BPF_MOD : BPF_DIV),
					 shift);
				check(&p, what, false, a, b, n, &st);
			}
	printf("cbpf_lower64: signed a / b and a %% b: %llu programs, %llu cases, 0 mismatches\n",
	       (unsigned long long)st.programs, (unsigned long long)st.cases);
	fflush(stdout);
	cr_assert_geq(st.cases, 500000);
}

/* Byte swaps (BPF_END both ways, cpu v4's BPF_ALU64 bswap), movsx and
 * sign-extending loads of args[0] from the stack (the context takes none):
 * none may punt. */
Test(cbpf_lower64, byte_swaps_and_sign_extensions)
{
	static const struct {
		struct bpf_insn in;
		const char *what;
	} ops[] = {
		/* clang-format off */
		{ { .code = BPF_ALU | BPF_END | BPF_TO_BE, .dst_reg = 2, .imm = 16 }, "be16" },
		{ { .code = BPF_ALU | BPF_END | BPF_TO_BE, .dst_reg = 2, .imm = 32 }, "be32" },
		{ { .code = BPF_ALU | BPF_END | BPF_TO_BE, .dst_reg = 2, .imm = 64 }, "be64" },
		{ { .code = BPF_ALU | BPF_END | BPF_TO_LE, .dst_reg = 2, .imm = 16 }, "le16" },
		{ { .code = BPF_ALU | BPF_END | BPF_TO_LE, .dst_reg = 2, .imm = 32 }, "le32" },
		{ { .code = BPF_ALU | BPF_END | BPF_TO_LE, .dst_reg = 2, .imm = 64 }, "le64" },
		{ { .code = BPF_ALU64 | BPF_END, .dst_reg = 2, .imm = 16 }, "bswap16" },
		{ { .code = BPF_ALU64 | BPF_END, .dst_reg = 2, .imm = 32 }, "bswap32" },
		{ { .code = BPF_ALU64 | BPF_END, .dst_reg = 2, .imm = 64 }, "bswap64" },
		{ { .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 2, .src_reg = 2, .off = 8 },
		  "r = (s8)r" },
		{ { .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 2, .src_reg = 2, .off = 16 },
		  "r = (s16)r" },
		{ { .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 2, .src_reg = 2, .off = 32 },
		  "r = (s32)r" },
		{ { .code = BPF_ALU | BPF_MOV | BPF_X, .dst_reg = 2, .src_reg = 2, .off = 8 },
		  "w = (s8)w" },
		{ { .code = BPF_ALU | BPF_MOV | BPF_X, .dst_reg = 2, .src_reg = 2, .off = 16 },
		  "w = (s16)w" },
		{ { .code = BPF_LDX | BPF_MEMSX | BPF_B, .dst_reg = 2, .src_reg = 10, .off = -8 },
		  "r = *(s8 *)(r10 - 8)" },
		{ { .code = BPF_LDX | BPF_MEMSX | BPF_B, .dst_reg = 2, .src_reg = 10, .off = -7 },
		  "r = *(s8 *)(r10 - 7)" },
		{ { .code = BPF_LDX | BPF_MEMSX | BPF_H, .dst_reg = 2, .src_reg = 10, .off = -8 },
		  "r = *(s16 *)(r10 - 8)" },
		{ { .code = BPF_LDX | BPF_MEMSX | BPF_H, .dst_reg = 2, .src_reg = 10, .off = -6 },
		  "r = *(s16 *)(r10 - 6)" },
		{ { .code = BPF_LDX | BPF_MEMSX | BPF_W, .dst_reg = 2, .src_reg = 10, .off = -8 },
		  "r = *(s32 *)(r10 - 8)" },
		{ { .code = BPF_LDX | BPF_MEMSX | BPF_W, .dst_reg = 2, .src_reg = 10, .off = -4 },
		  "r = *(s32 *)(r10 - 4)" },
		/* clang-format on */
	};
	static uint64_t a[RANDOM_INPUTS + 64], b[RANDOM_INPUTS + 64];
	struct lower_stats st = { 0 };
	uint64_t r = 0xa54ff53a5f1d36f1ull;
	size_t oi, n;
	unsigned s;

	for (oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++)
		for (s = 0; s < SLICES; s++) {
			unsigned shift = s == 5 ? 52 : s * 12;
			struct lower_prog p;
			char what[96];

			n = dividends(0, a, &r);
			memset(b, 0, n * sizeof(b[0]));
			build_insns(&p, &ops[oi].in, 1, false, 0, shift);
			snprintf(what, sizeof(what), "%s, bits %u", ops[oi].what, shift);
			check(&p, what, false, a, b, n, &st);
		}
	printf("cbpf_lower64: byte swaps and sign extensions: %llu programs, %llu cases, "
	       "0 mismatches\n",
	       (unsigned long long)st.programs, (unsigned long long)st.cases);
	fflush(stdout);
	cr_assert_geq(st.cases, 200000);
}

Test(cbpf_lower64, product_of_two_arguments)
{
	static uint64_t a[CROSS_INPUTS * CROSS_INPUTS], b[CROSS_INPUTS * CROSS_INPUTS];
	uint64_t vals[CROSS_INPUTS], r = 0x9e3779b97f4a7c15ull;
	struct lower_stats st = { 0 };
	size_t i, j, n = 0;
	unsigned cls, s;

	for (i = 0; i < CROSS_INPUTS; i++)
		vals[i] = i < sizeof(edges) / sizeof(edges[0]) ? edges[i]
			  : i % 2			       ? diff_rand(&r)
				  : diff_rand(&r) >> (diff_rand(&r) % 64);
	for (i = 0; i < CROSS_INPUTS; i++)
		for (j = 0; j < CROSS_INPUTS; j++) {
			a[n] = vals[i];
			b[n++] = vals[j];
		}
	for (cls = 0; cls < 2; cls++)
		for (s = 0; s < (cls ? 3u : SLICES); s++) {
			struct lower_prog p;
			char what[64];

			build(&p, cls ? BPF_ALU : BPF_ALU64, BPF_MUL, true, 0,
			      s == 5 ? 52 : s * 12);
			snprintf(what, sizeof(what), "%s * args[1], bits %u", cls ? "w" : "r",
				 s == 5 ? 52 : s * 12);
			check(&p, what, false, a, b, n, &st);
		}
	printf("cbpf_lower64: a * b: %llu programs, %llu cases, 0 mismatches\n",
	       (unsigned long long)st.programs, (unsigned long long)st.cases);
	fflush(stdout);
	cr_assert_geq(st.cases, 300000);
}

/* Divisors of args[1] for a / b: every constant above, and random ones of
 * each range (below 2^16, below 2^32, with a high word of any size). */
#define VAR_DIVISORS 96
#define VAR_DIVIDENDS 250

Test(cbpf_lower64, quotient_of_two_arguments)
{
	static const uint8_t ops[] = { BPF_DIV, BPF_MOD };
	static uint64_t a[VAR_DIVISORS * VAR_DIVIDENDS], b[VAR_DIVISORS * VAR_DIVIDENDS];
	static uint64_t v[RANDOM_INPUTS + 64];
	uint64_t divisors[VAR_DIVISORS], r = 0x853c49e6748fea9bull;
	struct lower_stats st = { 0 };
	size_t i, j, n = 0, nk = sizeof(constants) / sizeof(constants[0]);
	unsigned cls, s, oi;

	for (i = 0; i < VAR_DIVISORS; i++) {
		uint64_t x = diff_rand(&r);

		divisors[i] = i < nk		? constants[i]
			      : i % 3 == 0	? x & 0xffff
			      : i % 3 == 1	? (uint32_t)x
						: x >> (diff_rand(&r) % 32);
	}
	for (i = 0; i < VAR_DIVISORS; i++) {
		size_t nv = dividends(divisors[i], v, &r);

		/* the edges, then a sample of the rest */
		for (j = 0; j < VAR_DIVIDENDS; j++) {
			a[n] = j < sizeof(edges) / sizeof(edges[0]) ? v[j]
								    : v[diff_rand(&r) % nv];
			b[n++] = divisors[i];
		}
	}
	for (oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++)
		for (cls = 0; cls < 2; cls++)
			for (s = 0; s < (cls ? 3u : SLICES); s++) {
				struct lower_prog p;
				char what[64];

				build(&p, cls ? BPF_ALU : BPF_ALU64, ops[oi], true, 0,
				      s == 5 ? 52 : s * 12);
				snprintf(what, sizeof(what), "%s %s args[1], bits %u",
					 cls ? "w" : "r", ops[oi] == BPF_DIV ? "/" : "%",
					 s == 5 ? 52 : s * 12);
				check(&p, what, false, a, b, n, &st);
			}
	printf("cbpf_lower64: a / b and a %% b: %llu programs, %llu cases, 0 mismatches\n",
	       (unsigned long long)st.programs, (unsigned long long)st.cases);
	fflush(stdout);
	cr_assert_geq(st.cases, 400000);
}

/* ---- shifts by a variable amount ---- */

/* The shapes of a shift: args[0] by args[1] whole, by its low byte (a
 * narrow field), by args[1] & 31 and by args[1] | 32 (bit 5 known from the
 * shape), by nr; then a computed value (args[0] ^ 0x5a) and a constant
 * (SHIFTED_CONST) by args[1], whose words lower differently. */
enum shift_form {
	SHIFT_BY_ARG,
	SHIFT_BY_BYTE,
	SHIFT_BY_LOW5,
	SHIFT_BY_BIT5,
	SHIFT_BY_NR,
	SHIFT_EXPR,
	SHIFT_CONST,
	SHIFT_FORMS
};

static const char *const shift_form_name[SHIFT_FORMS] = {
	"args[0] by args[1]",	   "args[0] by (u8)args[1]", "args[0] by args[1] & 31",
	"args[0] by args[1] | 32", "args[0] by nr",	     "args[0] ^ 0x5a by args[1]",
	"a constant by args[1]",
};

#define SHIFTED_CONST 0x8123456789abcdefull
#define SHIFTED_XOR 0x5a

/* Counts of every class of eBPF's masking: below 32, 32..63, 64 and more,
 * bit 5 and the bits above 63 in every combination, the high word set. */
static const uint64_t counts[] = {
	/* clang-format off */
	0, 1, 2, 15, 30, 31, 32, 33, 34, 47, 62, 63, 64, 65, 95, 96, 97, 127, 128, 160, 255,
	0xffffffe0, 0xffffffff, 0x100000000ull, 0x100000001ull, 0x100000021ull,
	0x8000000000000020ull, 0xffffffffffffffc0ull, ~0ull,
	/* clang-format on */
};

/*
 * reg 2 = the value and reg 3 = the count of form src; then return ERRNO |
 * ((r2 op r3) >> shift) & 0xfff (ret), or the three-way decision of
 * (r2 op r3) against args[2] (!ret): a compare of 64 or 32 bits, signed
 * for ARSH.
 */
static void build_shift(struct lower_prog *p, uint8_t cls, uint8_t op, enum shift_form src,
			bool ret, unsigned shift)
{
	uint8_t jmp = cls == BPF_ALU ? BPF_JMP32 : BPF_JMP;

	memset(p, 0, sizeof(*p));
	if (src == SHIFT_CONST) {
		emit(p, (struct bpf_insn){ .code = BPF_LD | BPF_IMM | BPF_DW,
					   .dst_reg = 2,
					   .imm = (int32_t)(uint32_t)SHIFTED_CONST });
		emit(p, (struct bpf_insn){ .imm = (int32_t)(uint32_t)(SHIFTED_CONST >> 32) });
	} else {
		emit(p, (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW,
					   .dst_reg = 2,
					   .src_reg = 1,
					   .off = 16 });
	}
	if (src == SHIFT_EXPR)
		emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_XOR | BPF_K,
					   .dst_reg = 2,
					   .imm = SHIFTED_XOR });
	emit(p, (struct bpf_insn){ .code = BPF_LDX | BPF_MEM |
					   (src == SHIFT_BY_BYTE ? BPF_B
					    : src == SHIFT_BY_NR ? BPF_W
								 : BPF_DW),
				   .dst_reg = 3,
				   .src_reg = 1,
				   .off = src == SHIFT_BY_NR ? 0 : 24 });
	if (src == SHIFT_BY_LOW5 || src == SHIFT_BY_BIT5)
		emit(p,
		     (struct bpf_insn){ .code = BPF_ALU64 |
						(src == SHIFT_BY_LOW5 ? BPF_AND : BPF_OR) | BPF_K,
					.dst_reg = 3,
					.imm = src == SHIFT_BY_LOW5 ? 31 : 32 });
	emit(p, (struct bpf_insn){ .code = cls | op | BPF_X, .dst_reg = 2, .src_reg = 3 });
	if (ret) {
		if (shift)
			emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_RSH | BPF_K,
						   .dst_reg = 2,
						   .imm = (int32_t)shift });
		emit(p, (struct bpf_insn){
				.code = BPF_ALU64 | BPF_AND | BPF_K, .dst_reg = 2, .imm = 0xfff });
		emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_OR | BPF_K,
					   .dst_reg = 2,
					   .imm = (int32_t)SECCOMP_RET_ERRNO });
		emit(p, (struct bpf_insn){
				.code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 0, .src_reg = 2 });
		emit(p, (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT });
		return;
	}
	/* if (r2 == args[2]) return ERRNO | 1; if (r2 > args[2]) return ERRNO | 2 */
	emit(p,
	     (struct bpf_insn){
		     .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 4, .src_reg = 1, .off = 32 });
	emit(p, (struct bpf_insn){
			.code = jmp | BPF_JEQ | BPF_X, .dst_reg = 2, .src_reg = 4, .off = 3 });
	emit(p, (struct bpf_insn){ .code = jmp | (op == BPF_ARSH ? BPF_JSGT : BPF_JGT) | BPF_X,
				   .dst_reg = 2,
				   .src_reg = 4,
				   .off = 4 });
	emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
				   .dst_reg = 0,
				   .imm = (int32_t)SECCOMP_RET_ALLOW });
	emit(p, (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT });
	emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
				   .dst_reg = 0,
				   .imm = (int32_t)(SECCOMP_RET_ERRNO | 1) });
	emit(p, (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT });
	emit(p, (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
				   .dst_reg = 0,
				   .imm = (int32_t)(SECCOMP_RET_ERRNO | 2) });
	emit(p, (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT });
}

/* The count a program of form src computes from (args[1] = c, nr = c). */
static uint64_t count_of(enum shift_form src, uint64_t c)
{
	switch (src) {
	case SHIFT_BY_BYTE:
		return c & 0xff;
	case SHIFT_BY_LOW5:
		return c & 31;
	case SHIFT_BY_BIT5:
		return c | 32;
	case SHIFT_BY_NR:
		return (uint32_t)c;
	default:
		return c;
	}
}

/* The value it shifts (args[0] = a). */
static uint64_t value_of(enum shift_form src, uint64_t a)
{
	return src == SHIFT_CONST ? SHIFTED_CONST : src == SHIFT_EXPR ? a ^ SHIFTED_XOR : a;
}

/* Every (value, count) pair of vals x cnts through p; for a decision,
 * args[2] is the result, one below or one above. */
static void check_shift(struct lower_prog *p, const char *what, uint8_t cls, uint8_t op,
			enum shift_form src, const uint64_t *vals, size_t nvals,
			const uint64_t *cnts, size_t ncnts, struct lower_stats *st)
{
	struct lower_run r;
	size_t i, j;

	lower_open(&r, p, what, false, st);
	for (i = 0; i < nvals; i++)
		for (j = 0; j < ncnts; j++) {
			uint64_t res =
				cbpf_alu_eval(op, cls == BPF_ALU, false, value_of(src, vals[i]),
					      count_of(src, cnts[j]));
			struct seccomp_data sd = {
				.nr = src == SHIFT_BY_NR ? (int)(uint32_t)cnts[j] : 0,
				.arch = AUDIT_ARCH_X86_64,
				.args = { vals[i], cnts[j], res + (i + j) % 3 - 1 },
			};

			cr_assert(diff_one(r.rt, &r.cp, &sd, &r.res), "%s: %s", what, r.res.msg);
		}
	lower_close(&r, st);
}

Test(cbpf_lower64, shifts_by_a_variable)
{
	static const uint8_t ops[] = { BPF_LSH, BPF_RSH, BPF_ARSH };
	static const char *const op_name[] = { "<<", ">>", "s>>" };
	uint64_t vals[SHIFT_VALUES], cnts[SHIFT_COUNTS], r = 0x853c49e6748fea9bull;
	size_t nvals = 0, ncnts = 0, i;
	struct lower_stats st = { 0 };
	unsigned oi, cls, src, s;

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		vals[nvals++] = edges[i];
	while (nvals < SHIFT_VALUES) {
		uint64_t x = diff_rand(&r);

		/* random words, 32-bit ones, small negatives, one bit set */
		vals[nvals] = nvals % 4 == 0   ? x
			      : nvals % 4 == 1 ? (uint32_t)x
			      : nvals % 4 == 2 ? 0 - (x >> (x % 64))
					       : 1ull << (x % 64);
		nvals++;
	}
	for (i = 0; i < 64; i++)
		cnts[ncnts++] = i;
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		cnts[ncnts++] = counts[i];
	while (ncnts < SHIFT_COUNTS)
		cnts[ncnts++] = diff_rand(&r) >> (diff_rand(&r) % 64);
	for (cls = 0; cls < 2; cls++)
		for (oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++)
			for (src = 0; src < SHIFT_FORMS; src++)
				/* the 12-bit slices of the result, then a decision */
				for (s = 0; s <= (cls ? 3u : SLICES); s++) {
					uint8_t c = cls ? BPF_ALU : BPF_ALU64;
					bool ret = s < (cls ? 3u : SLICES);
					unsigned bits = s == 5 ? 52 : s * 12;
					struct lower_prog p;
					char what[128];

					build_shift(&p, c, ops[oi], src, ret, bits);
					if (ret)
						snprintf(what, sizeof(what), "%s %s (%s), bits %u",
							 cls ? "w" : "r", op_name[oi],
							 shift_form_name[src], bits);
					else
						snprintf(what, sizeof(what),
							 "%s %s (%s) compared with args[2]",
							 cls ? "w" : "r", op_name[oi],
							 shift_form_name[src]);
					/* a constant: one value is enough */
					check_shift(&p, what, c, ops[oi], src, vals,
						    src == SHIFT_CONST ? 1 : nvals, cnts, ncnts,
						    &st);
				}
	printf("cbpf_lower64: shifts by a variable: %llu programs, %llu cases, 0 mismatches, "
	       "no shift by X of 32 or more\n",
	       (unsigned long long)st.programs, (unsigned long long)st.cases);
	fflush(stdout);
	cr_assert_geq(st.cases, 1000000);
}

/* tests/cbpf/shifts.bpf.c as the build made it, or built here. */
static struct object *shifts_object(void)
{
	const char *b = getenv("SECBPF_BUILD_DIR"), *src = getenv("SECBPF_SOURCE_DIR");
	char dir[1024], path[2048], source[2048];
	struct secbpf_err err = { { 0 } };
	struct object *obj;

	snprintf(path, sizeof(path), "%s/tests/cbpf_shifts.bpf.o", b ? b : ".");
	obj = object_open_file(path, &err);
	if (obj)
		return obj;
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-shifts");
	snprintf(source, sizeof(source), "%s/tests/cbpf/shifts.bpf.c", src ? src : ".");
	snprintf(path, sizeof(path), "%s/shifts.bpf.o", dir);
	test_compile_bpf(source, path);
	obj = object_open_file(path, &err);
	test_remove_tree(dir);
	cr_assert(obj, "%s", err.msg);
	return obj;
}

/*
 * The C program of shifts (tests/cbpf/shifts.bpf.c; test_cbpf_kernel runs
 * it in the kernel): one filter, nothing left to the supervisor, and the
 * interpreter's answers on every nr it tests with counts of every class.
 */
Test(cbpf_lower64, shifts_program, .timeout = 120)
{
	static const int nrs[] = { 0,  1,  2,  3,  4,  5,   6,	 7,   8,   9,	10,  11, 12,
				   13, 14, 15, 16, 99, 100, 131, 163, 164, 227, 399, 400 };
	struct object *obj = shifts_object();
	struct secbpf_err err = { { 0 } };
	struct diff_result res = { 0 };
	uint64_t r = 0x5851f42d4c957f2dull, direct;
	struct cbpf_prog cp;
	struct runtime *rt;
	size_t n, i, j;

	cr_assert_eq(obj->prog_cnt, 1);
	cr_assert_eq(cbpf_compile(obj, &obj->progs[0], NULL, &cp, &err), 0, "%s", err.msg);
	cr_assert_eq(cbpf_check(cp.insns, cp.len, &err), 0, "%s", err.msg);
	cr_assert(!cp.needs_supervisor, "shifts: needs the supervisor (%s)",
		  cp.npunts ? cp.punts[0].why : "?");
	rt = runtime_new(obj, &obj->progs[0], &err);
	cr_assert(rt, "%s", err.msg);
	for (n = 0; n < sizeof(nrs) / sizeof(nrs[0]); n++)
		for (i = 0; i < sizeof(edges) / sizeof(edges[0]) + 16; i++)
			for (j = 0; j < sizeof(counts) / sizeof(counts[0]) + 16; j++) {
				uint64_t a = i < sizeof(edges) / sizeof(edges[0]) ? edges[i]
										  : diff_rand(&r);
				uint64_t c = j < sizeof(counts) / sizeof(counts[0])
						     ? counts[j]
						     : diff_rand(&r) % 128;
				struct seccomp_data sd = { .nr = nrs[n],
							   .arch = AUDIT_ARCH_X86_64,
							   .args = { a, c, diff_rand(&r) } };

				if (j % 3 == 0)
					sd.args[2] = c; /* a narrow count in args[2] */
				else if (j % 3 == 1)
					sd.args[2] = a >> (c % 64);
				cr_assert(diff_one(rt, &cp, &sd, &res), "shifts: %s", res.msg);
			}
	direct = res.runs;
	cr_assert(diff_check(rt, obj->progs[0].insns, obj->progs[0].insn_cnt, &cp, NULL, 0, 4, 461,
			     0x5eed, &res),
		  "shifts: %s", res.msg);
	printf("cbpf_lower64: shifts.bpf.c: %u insns, %llu cases, 0 mismatches\n", cp.len,
	       (unsigned long long)(direct + res.runs));
	fflush(stdout);
	runtime_free(rt);
	cbpf_prog_free(&cp);
	object_free(obj);
}
