// SPDX-License-Identifier: MIT
/*
 * The cBPF lowerings of 64-bit multiplication and of division and modulo
 * by a constant (lib/cbpf/lower.c), checked value by value: each result is
 * returned 12 bits at a time by small eBPF programs, run by the
 * interpreter and, compiled, by cbpf_sim on edge values, values next to
 * multiples of the divisor and random ones; over a million cases.
 */
#include <criterion/criterion.h>
#include <linux/audit.h>
#include <stdio.h>
#include <string.h>

#include "cbpf/cbpf.h"
#include "object/object.h"
#include "vm/runtime.h"
#include "cbpf/diff.h"

#define SLICES 6	   /* 12-bit slices of the result, from bits 0..52 */
#define RANDOM_INPUTS 2000 /* per program, besides the edges */
#define CROSS_INPUTS 200   /* a * b: this many of each */

static const uint64_t edges[] = {
	/* clang-format off */
	0, 1, 2, 3, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
	0x100000001ull, 0x7fffffffffffffffull, 0x8000000000000000ull, 0x8000000000000001ull,
	0xfffffffffffffffeull, ~0ull, 0xffffffff00000000ull, 0x00000000ffff0000ull,
	/* a digit estimate two too large, corrected twice (k 0x8000ffff, 0x800fffff) */
	0x64be8049a372db8full, 0x7bf4f18a0ad1c4eaull,
	/* clang-format on */
};

/* Divisors (and factors) of every class: below 2^16, below 2^32, from 2^63,
 * powers of two, 0 and 1, and 2^32 <= k < 2^63, which may still punt. */
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
 * return ERRNO | ((args[0] op B) >> shift) & 0xfff, B being args[1]
 * (k_is_arg) or the constant k; cls is BPF_ALU64 or BPF_ALU.
 */
static void build(struct lower_prog *p, uint8_t cls, uint8_t op, bool k_is_arg, uint64_t k,
		  unsigned shift)
{
	memset(p, 0, sizeof(*p));
	emit(p,
	     (struct bpf_insn){
		     .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 2, .src_reg = 1, .off = 16 });
	if (k_is_arg) {
		emit(p, (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW,
					   .dst_reg = 3,
					   .src_reg = 1,
					   .off = 24 });
	} else {
		emit(p, (struct bpf_insn){ .code = BPF_LD | BPF_IMM | BPF_DW,
					   .dst_reg = 3,
					   .imm = (int32_t)(uint32_t)k });
		emit(p, (struct bpf_insn){ .imm = (int32_t)(uint32_t)(k >> 32) });
	}
	emit(p, (struct bpf_insn){ .code = cls | op | BPF_X, .dst_reg = 2, .src_reg = 3 });
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

/* Whether the compiler may leave this operation to the supervisor. */
static bool may_punt(uint8_t cls, uint8_t op, bool k_is_arg, uint64_t k)
{
	if (cls == BPF_ALU || op == BPF_MUL)
		return false;
	if (k_is_arg)
		return true;
	return k >> 32 && k >> 63 == 0 && (k & (k - 1));
}

struct lower_stats {
	uint64_t cases, programs, punted;
};

/* Compile p, check it, and compare it with the interpreter on every
 * input pair (a[i], b[i]). */
static void check(struct lower_prog *p, const char *what, bool punt_ok, const uint64_t *a,
		  const uint64_t *b, size_t n, struct lower_stats *st)
{
	struct object_prog prog = { .name = "lower", .section = "seccomp" };
	struct object obj = { .path = "lower", .progs = &prog, .prog_cnt = 1 };
	struct secbpf_err err = { { 0 } };
	struct diff_result res = { 0 };
	struct cbpf_prog cp;
	struct runtime *rt;
	size_t i;

	prog.insns = p->insns;
	prog.insn_cnt = p->n;
	prog.main_cnt = p->n;
	cr_assert_eq(cbpf_compile(&obj, &prog, NULL, &cp, &err), 0, "%s: %s", what, err.msg);
	cr_assert_eq(cbpf_check(cp.insns, cp.len, &err), 0, "%s: %s", what, err.msg);
	cr_assert(punt_ok || !cp.needs_supervisor, "%s: needs the supervisor (%s)", what,
		  cp.npunts ? cp.punts[0].why : "?");
	st->punted += cp.needs_supervisor;
	st->programs++;
	rt = runtime_new(&obj, &prog, &err);
	cr_assert(rt != NULL, "%s: %s", what, err.msg);
	for (i = 0; i < n; i++) {
		struct seccomp_data sd = { .arch = AUDIT_ARCH_X86_64, .args = { a[i], b[i] } };

		cr_assert(diff_one(rt, &cp, &sd, &res), "%s: %s", what, res.msg);
	}
	st->cases += res.runs;
	runtime_free(rt);
	cbpf_prog_free(&cp);
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
					check(&p, what, may_punt(c, ops[oi], false, k), a, b, n,
					      &st);
				}
	printf("cbpf_lower64: by a constant: %llu programs (%llu punt: 2^32 <= k < 2^63), "
	       "%llu cases, 0 mismatches\n",
	       (unsigned long long)st.programs, (unsigned long long)st.punted,
	       (unsigned long long)st.cases);
	fflush(stdout);
	cr_assert_geq(st.cases, 1000000); /* with the 360,000 of a * b */
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
