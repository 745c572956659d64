// SPDX-License-Identifier: MIT
/*
 * The eBPF-to-cBPF compiler, back end: lays a plan (per-arch nr ranges and
 * their outcomes, from cbpf.c) out as a seccomp filter: the listener guard,
 * an arch dispatch, a balanced search tree on nr per arch, then the residual
 * trees, with JA trampolines for far jumps and within CBPF_MAX_INSNS.
 *
 * Residual trees are lowered to tests of 32-bit words first (a 64-bit
 * compare with a constant tests its high word once per path, not once per
 * compare), and their code tracks what A, X and M[] hold on each path so
 * that a word already there is not loaded again.
 *
 * The arch and nr dispatch uses only what seccomp_is_const_allow() emulates
 * (LD W ABS of nr/arch, JEQ/JGE K, JA, RET K), so the kernel's action cache
 * proves every syscall the filter always allows.
 */
#include <errno.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf.h"

#define EM_NO_LABEL UINT32_MAX
#define EM_OFF_NR 0
#define EM_OFF_ARCH 4

/* An instruction before layout: jumps name labels, not offsets. */
struct em_insn {
	uint16_t code;
	uint32_t k;
	uint32_t lt, lf;	/* labels: JA uses lt; conditionals both */
};

struct em {
	struct em_insn *v;
	uint32_t n, cap;
	uint32_t *lab;		/* label -> index of the instruction it names */
	uint32_t nlab, labcap;
	bool oom;
};

static uint32_t em_label(struct em *m)
{
	if (m->nlab == m->labcap) {
		uint32_t cap = m->labcap ? m->labcap * 2 : 256;
		uint32_t *n = realloc(m->lab, cap * sizeof(*n));

		if (!n) {
			m->oom = true;
			return 0;
		}
		m->lab = n;
		m->labcap = cap;
	}
	m->lab[m->nlab] = EM_NO_LABEL;
	return m->nlab++;
}

static void em_place(struct em *m, uint32_t label)
{
	if (!m->oom)
		m->lab[label] = m->n;
}

static void em_raw(struct em *m, uint16_t code, uint32_t k, uint32_t lt, uint32_t lf)
{
	if (m->n == m->cap) {
		uint32_t cap = m->cap ? m->cap * 2 : 1024;
		struct em_insn *n = realloc(m->v, cap * sizeof(*n));

		if (!n) {
			m->oom = true;
			return;
		}
		m->v = n;
		m->cap = cap;
	}
	m->v[m->n++] = (struct em_insn){ code, k, lt, lf };
}

static void em(struct em *m, uint16_t code, uint32_t k)
{
	em_raw(m, code, k, EM_NO_LABEL, EM_NO_LABEL);
}

static void em_ja(struct em *m, uint32_t label)
{
	em_raw(m, BPF_JMP | BPF_JA, 0, label, EM_NO_LABEL);
}

static void em_jmp(struct em *m, uint16_t code, uint32_t k, uint32_t lt, uint32_t lf)
{
	if (lt == lf)
		em_ja(m, lt);
	else
		em_raw(m, code, k, lt, lf);
}

/* ---- expressions: A = low or high 32 bits, M[sp..15] free for temporaries ---- */

static int em_lo(struct em *m, const struct cbpf_expr *e, unsigned sp);
static int em_hi(struct em *m, const struct cbpf_expr *e, unsigned sp);

static int em_st(struct em *m, unsigned slot)
{
	if (slot >= BPF_MEMWORDS)
		return -ENOSPC;
	em(m, BPF_ST, slot);
	return 0;
}

/* A = (int32_t)A >> k for 1 <= k <= 31; cBPF has no arithmetic shift, so
 * OR the logical shift with the sign fill. */
static int em_asr(struct em *m, unsigned k, unsigned sp)
{
	if (k == 0)
		return 0;
	if (em_st(m, sp) || sp + 1 >= BPF_MEMWORDS)
		return -ENOSPC;
	em(m, BPF_ALU | BPF_RSH | BPF_K, 31);
	em(m, BPF_ALU | BPF_NEG, 0);
	em(m, BPF_ALU | BPF_LSH | BPF_K, 32 - k);
	em(m, BPF_ST, sp + 1);
	em(m, BPF_LD | BPF_MEM, sp);
	em(m, BPF_ALU | BPF_RSH | BPF_K, k);
	em(m, BPF_LDX | BPF_MEM, sp + 1);
	em(m, BPF_ALU | BPF_OR | BPF_X, 0);
	return 0;
}

typedef int (*em_half_fn)(struct em *m, const struct cbpf_expr *e, unsigned sp);

/* A = half(a) op half(b), op a cBPF ALU op without carries. */
static int em_bin(struct em *m, unsigned op, em_half_fn half, const struct cbpf_expr *a,
		  const struct cbpf_expr *b, unsigned sp)
{
	int rc;

	if (b->kind == CBPF_X_CONST) {
		rc = half(m, a, sp);
		if (rc)
			return rc;
		em(m, BPF_ALU | op | BPF_K, half == em_lo ? (uint32_t)b->imm :
							   (uint32_t)(b->imm >> 32));
		return 0;
	}
	rc = half(m, b, sp);
	if (!rc)
		rc = em_st(m, sp);
	if (!rc)
		rc = half(m, a, sp + 1);
	if (rc)
		return rc;
	em(m, BPF_LDX | BPF_MEM, sp);
	em(m, BPF_ALU | op | BPF_X, 0);
	return 0;
}

/* A = lo(a) >> k | hi(a) << (32 - k), the low word of a 64-bit right shift. */
static int em_lo_rsh64(struct em *m, const struct cbpf_expr *a, unsigned k, unsigned sp)
{
	int rc;

	if (k >= 32) {
		rc = em_hi(m, a, sp);
		if (!rc && k > 32)
			em(m, BPF_ALU | BPF_RSH | BPF_K, k - 32);
		return rc;
	}
	rc = em_hi(m, a, sp);
	if (!rc)
		em(m, BPF_ALU | BPF_LSH | BPF_K, 32 - k);
	if (!rc)
		rc = em_st(m, sp);
	if (!rc)
		rc = em_lo(m, a, sp + 1);
	if (rc)
		return rc;
	em(m, BPF_ALU | BPF_RSH | BPF_K, k);
	em(m, BPF_LDX | BPF_MEM, sp);
	em(m, BPF_ALU | BPF_OR | BPF_X, 0);
	return 0;
}

/* 32-bit (or 64-bit with both halves known zero above) unsigned division
 * and modulo. eBPF defines x / 0 = 0 and x % 0 = x; cBPF would end the
 * filter (KILL), so a variable divisor is tested first. */
static int em_divmod(struct em *m, const struct cbpf_expr *e, unsigned sp)
{
	bool mod = e->op == BPF_MOD;
	uint32_t zero, done, nonzero;
	int rc;

	if (e->b->kind == CBPF_X_CONST) {
		uint32_t k = (uint32_t)e->b->imm;

		if (!e->is32 && e->b->imm >> 32)
			return -ENOTSUP;
		if (k == 0)
			return -ENOTSUP;	/* folded by the front end */
		rc = em_lo(m, e->a, sp);
		if (rc)
			return rc;
		if (!mod) {
			em(m, BPF_ALU | BPF_DIV | BPF_K, k);
			return 0;
		}
		if (em_st(m, sp))
			return -ENOSPC;
		em(m, BPF_ALU | BPF_DIV | BPF_K, k);
		em(m, BPF_ALU | BPF_MUL | BPF_K, k);
		em(m, BPF_MISC | BPF_TAX, 0);
		em(m, BPF_LD | BPF_MEM, sp);
		em(m, BPF_ALU | BPF_SUB | BPF_X, 0);
		return 0;
	}
	if (!e->is32 && !e->b->hi_zero)
		return -ENOTSUP;
	rc = em_lo(m, e->b, sp);
	if (!rc)
		rc = em_st(m, sp);
	if (!rc)
		rc = em_lo(m, e->a, sp + 1);
	if (!rc)
		rc = em_st(m, sp + 1);
	if (rc)
		return rc;
	zero = em_label(m);
	done = em_label(m);
	nonzero = em_label(m);
	em(m, BPF_LD | BPF_MEM, sp);
	em_jmp(m, BPF_JMP | BPF_JEQ | BPF_K, 0, zero, nonzero);
	em_place(m, nonzero);
	em(m, BPF_LDX | BPF_MEM, sp);
	em(m, BPF_LD | BPF_MEM, sp + 1);
	em(m, BPF_ALU | BPF_DIV | BPF_X, 0);
	if (mod) {
		em(m, BPF_ALU | BPF_MUL | BPF_X, 0);
		em(m, BPF_MISC | BPF_TAX, 0);
		em(m, BPF_LD | BPF_MEM, sp + 1);
		em(m, BPF_ALU | BPF_SUB | BPF_X, 0);
	}
	em_ja(m, done);
	em_place(m, zero);
	if (mod)
		em(m, BPF_LD | BPF_MEM, sp + 1);
	else
		em(m, BPF_LD | BPF_IMM, 0);
	em_place(m, done);
	return 0;
}

/* A = carry (ADD: lo(a) + lo(b) overflows) or borrow (SUB: lo(a) < lo(b)),
 * then M[sp] = it. */
static int em_carry(struct em *m, const struct cbpf_expr *e, unsigned sp)
{
	uint32_t yes = em_label(m), no = em_label(m), st = em_label(m);
	int rc;

	if (e->op == BPF_ADD) {
		/* sum = lo(a) + lo(b) wraps iff sum < lo(a) */
		rc = em_lo(m, e->a, sp);
		if (!rc)
			rc = em_st(m, sp);
		if (!rc)
			rc = em_lo(m, e->b, sp + 1);
		if (rc)
			return rc;
		em(m, BPF_LDX | BPF_MEM, sp);
		em(m, BPF_ALU | BPF_ADD | BPF_X, 0);
	} else {
		rc = em_lo(m, e->b, sp);
		if (!rc)
			rc = em_st(m, sp);
		if (!rc)
			rc = em_lo(m, e->a, sp + 1);
		if (rc)
			return rc;
		em(m, BPF_LDX | BPF_MEM, sp);
	}
	/* ADD: A = sum, X = lo(a): no carry iff A >= X.
	 * SUB: A = lo(a), X = lo(b): no borrow iff A >= X. */
	em_jmp(m, BPF_JMP | BPF_JGE | BPF_X, 0, no, yes);
	em_place(m, yes);
	em(m, BPF_LD | BPF_IMM, 1);
	em_ja(m, st);
	em_place(m, no);
	em(m, BPF_LD | BPF_IMM, 0);
	em_place(m, st);
	return em_st(m, sp);
}

static int em_lo(struct em *m, const struct cbpf_expr *e, unsigned sp)
{
	unsigned k;
	int rc;

	switch (e->kind) {
	case CBPF_X_CONST:
		em(m, BPF_LD | BPF_IMM, (uint32_t)e->imm);
		return 0;
	case CBPF_X_FIELD:
		em(m, BPF_LD | BPF_W | BPF_ABS, (uint32_t)e->imm & ~3u);
		if (e->width < 32) {
			if (e->imm & 3)
				em(m, BPF_ALU | BPF_RSH | BPF_K, (uint32_t)(e->imm & 3) * 8);
			em(m, BPF_ALU | BPF_AND | BPF_K, (uint32_t)((1ull << e->width) - 1));
		}
		return 0;
	case CBPF_X_TRUNC:
		rc = em_lo(m, e->a, sp);
		if (!rc && e->width < 32)
			em(m, BPF_ALU | BPF_AND | BPF_K, (uint32_t)((1ull << e->width) - 1));
		return rc;
	case CBPF_X_SEXT:
		rc = em_lo(m, e->a, sp);
		if (rc || e->width >= 32)
			return rc;
		em(m, BPF_ALU | BPF_LSH | BPF_K, 32 - e->width);
		return em_asr(m, 32 - e->width, sp);
	case CBPF_X_NEG:
		rc = em_lo(m, e->a, sp);
		if (!rc)
			em(m, BPF_ALU | BPF_NEG, 0);
		return rc;
	case CBPF_X_BSWAP:
		return -ENOTSUP;
	case CBPF_X_ALU:
		break;
	default:
		return -ENOTSUP;
	}
	switch (e->op) {
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		/* The low word of these depends only on the low words. */
		return em_bin(m, e->op, em_lo, e->a, e->b, sp);
	case BPF_DIV:
	case BPF_MOD:
		if (e->sgn || (!e->is32 && !e->a->hi_zero))
			return -ENOTSUP;
		return em_divmod(m, e, sp);
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		break;
	default:
		return -ENOTSUP;
	}
	if (e->b->kind != CBPF_X_CONST) {
		/* Variable counts: 32-bit logical shifts only, the count masked
		 * as eBPF does, so cBPF never sees a count >= 32. */
		if (!e->is32 || e->op == BPF_ARSH)
			return -ENOTSUP;
		rc = em_lo(m, e->b, sp);
		if (rc)
			return rc;
		em(m, BPF_ALU | BPF_AND | BPF_K, 31);
		rc = em_st(m, sp);
		if (!rc)
			rc = em_lo(m, e->a, sp + 1);
		if (rc)
			return rc;
		em(m, BPF_LDX | BPF_MEM, sp);
		em(m, BPF_ALU | e->op | BPF_X, 0);
		return 0;
	}
	k = (unsigned)e->b->imm;	/* masked by the front end */
	if (e->is32) {
		rc = em_lo(m, e->a, sp);
		if (rc)
			return rc;
		if (e->op == BPF_ARSH)
			return em_asr(m, k, sp);
		em(m, BPF_ALU | e->op | BPF_K, k);
		return 0;
	}
	if (e->op == BPF_LSH) {
		if (k >= 32) {
			em(m, BPF_LD | BPF_IMM, 0);
			return 0;
		}
		rc = em_lo(m, e->a, sp);
		if (!rc)
			em(m, BPF_ALU | BPF_LSH | BPF_K, k);
		return rc;
	}
	if (e->op == BPF_ARSH && k > 32) {
		rc = em_hi(m, e->a, sp);
		return rc ? rc : em_asr(m, k - 32, sp);
	}
	return em_lo_rsh64(m, e->a, k, sp);
}

static int em_hi(struct em *m, const struct cbpf_expr *e, unsigned sp)
{
	unsigned k;
	int rc;

	if (e->hi_zero) {
		em(m, BPF_LD | BPF_IMM, 0);
		return 0;
	}
	switch (e->kind) {
	case CBPF_X_CONST:
		em(m, BPF_LD | BPF_IMM, (uint32_t)(e->imm >> 32));
		return 0;
	case CBPF_X_FIELD:
		em(m, BPF_LD | BPF_W | BPF_ABS, (uint32_t)e->imm + 4);
		return 0;
	case CBPF_X_TRUNC:
		rc = em_hi(m, e->a, sp);
		if (!rc)
			em(m, BPF_ALU | BPF_AND | BPF_K,
			   (uint32_t)((1ull << (e->width - 32)) - 1));
		return rc;
	case CBPF_X_SEXT:
		/* The sign of the sign-extended low word, everywhere. */
		rc = em_lo(m, e, sp);
		return rc ? rc : em_asr(m, 31, sp);
	case CBPF_X_NEG: {
		uint32_t zero = em_label(m), nz = em_label(m), st = em_label(m);

		/* hi(-a) = -hi(a) - (lo(a) != 0) */
		rc = em_lo(m, e->a, sp);
		if (rc)
			return rc;
		em_jmp(m, BPF_JMP | BPF_JEQ | BPF_K, 0, zero, nz);
		em_place(m, nz);
		em(m, BPF_LD | BPF_IMM, 1);
		em_ja(m, st);
		em_place(m, zero);
		em(m, BPF_LD | BPF_IMM, 0);
		em_place(m, st);
		rc = em_st(m, sp);
		if (!rc)
			rc = em_hi(m, e->a, sp + 1);
		if (rc)
			return rc;
		em(m, BPF_ALU | BPF_NEG, 0);
		em(m, BPF_LDX | BPF_MEM, sp);
		em(m, BPF_ALU | BPF_SUB | BPF_X, 0);
		return 0;
	}
	case CBPF_X_ALU:
		break;
	default:
		return -ENOTSUP;
	}
	switch (e->op) {
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		return em_bin(m, e->op, em_hi, e->a, e->b, sp);
	case BPF_ADD:
	case BPF_SUB:
		/* hi = hi(a) +- hi(b) +- carry */
		rc = em_carry(m, e, sp);
		if (!rc)
			rc = em_bin(m, e->op, em_hi, e->a, e->b, sp + 1);
		if (rc)
			return rc;
		em(m, BPF_LDX | BPF_MEM, sp);
		em(m, BPF_ALU | e->op | BPF_X, 0);
		return 0;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		if (e->b->kind != CBPF_X_CONST)
			return -ENOTSUP;
		break;
	default:
		return -ENOTSUP;	/* 64-bit mul, div, mod */
	}
	k = (unsigned)e->b->imm;
	if (e->op == BPF_LSH) {
		if (k >= 32) {
			rc = em_lo(m, e->a, sp);
			if (!rc && k > 32)
				em(m, BPF_ALU | BPF_LSH | BPF_K, k - 32);
			return rc;
		}
		/* hi(a) << k | lo(a) >> (32 - k) */
		rc = em_lo(m, e->a, sp);
		if (!rc)
			em(m, BPF_ALU | BPF_RSH | BPF_K, 32 - k);
		if (!rc)
			rc = em_st(m, sp);
		if (!rc)
			rc = em_hi(m, e->a, sp + 1);
		if (rc)
			return rc;
		em(m, BPF_ALU | BPF_LSH | BPF_K, k);
		em(m, BPF_LDX | BPF_MEM, sp);
		em(m, BPF_ALU | BPF_OR | BPF_X, 0);
		return 0;
	}
	rc = em_hi(m, e->a, sp);
	if (rc)
		return rc;
	if (e->op == BPF_RSH) {
		em(m, BPF_ALU | BPF_RSH | BPF_K, k);	/* k < 32: else hi_zero */
		return 0;
	}
	return em_asr(m, k >= 32 ? 31 : k, sp);
}

/* ---- conditions ---- */

static uint16_t em_jop(unsigned op)
{
	switch (op) {
	case CBPF_C_EQ: return BPF_JMP | BPF_JEQ;
	case CBPF_C_GT: return BPF_JMP | BPF_JGT;
	case CBPF_C_GE: return BPF_JMP | BPF_JGE;
	}
	return BPF_JMP | BPF_JSET;
}

/* One 32-bit comparison of half(a) with half(b), sign bits flipped when
 * flip, jumping to lt or lf. */
static int em_cmp32(struct em *m, unsigned op, bool flip, em_half_fn half,
		    const struct cbpf_expr *a, const struct cbpf_expr *b, uint32_t lt,
		    uint32_t lf)
{
	uint32_t fl = flip ? 0x80000000u : 0;
	int rc;

	if (b->kind == CBPF_X_CONST) {
		uint32_t k = half == em_lo ? (uint32_t)b->imm : (uint32_t)(b->imm >> 32);

		rc = half(m, a, 0);
		if (rc)
			return rc;
		if (fl)
			em(m, BPF_ALU | BPF_XOR | BPF_K, fl);
		em_jmp(m, em_jop(op) | BPF_K, k ^ fl, lt, lf);
		return 0;
	}
	rc = half(m, b, 0);
	if (rc)
		return rc;
	if (fl)
		em(m, BPF_ALU | BPF_XOR | BPF_K, fl);
	rc = em_st(m, 0);
	if (!rc)
		rc = half(m, a, 1);
	if (rc)
		return rc;
	if (fl)
		em(m, BPF_ALU | BPF_XOR | BPF_K, fl);
	em(m, BPF_LDX | BPF_MEM, 0);
	em_jmp(m, em_jop(op) | BPF_X, 0, lt, lf);
	return 0;
}

/* if (a op b) goto lt else lf, for 64-bit or 32-bit (is32) operands. */
static int em_cond(struct em *m, const struct cbpf_rnode *n, uint32_t lt, uint32_t lf)
{
	const struct cbpf_expr *a = n->a, *b = n->b;
	bool sgn = n->sgn && n->op != CBPF_C_EQ && n->op != CBPF_C_SET;
	uint32_t lo_label;
	int rc;

	if (n->is32 || n->op == CBPF_C_SET) {
		if (n->is32)
			return em_cmp32(m, n->op, sgn, em_lo, a, b, lt, lf);
	}
	if (a->hi_zero && b->hi_zero)	/* both in [0, 2^32): signedness moot */
		return em_cmp32(m, n->op, false, em_lo, a, b, lt, lf);
	if (b->kind == CBPF_X_CONST && (uint32_t)(b->imm >> 32) == 0 && n->op == CBPF_C_SET)
		return em_cmp32(m, n->op, false, em_lo, a, b, lt, lf);
	lo_label = em_label(m);
	switch (n->op) {
	case CBPF_C_EQ:
		rc = em_cmp32(m, CBPF_C_EQ, false, em_hi, a, b, lo_label, lf);
		break;
	case CBPF_C_SET:
		rc = em_cmp32(m, CBPF_C_SET, false, em_hi, a, b, lt, lo_label);
		break;
	default: {
		/* hi(a) > hi(b): true; hi(a) == hi(b): decide on the low
		 * words, unsigned; else false. */
		uint32_t eq = em_label(m);

		rc = em_cmp32(m, CBPF_C_GT, sgn, em_hi, a, b, lt, eq);
		if (rc)
			return rc;
		em_place(m, eq);
		/* A and X (or K) still hold the flipped high words. */
		if (b->kind == CBPF_X_CONST)
			em_jmp(m, BPF_JMP | BPF_JEQ | BPF_K,
			       (uint32_t)(b->imm >> 32) ^ (sgn ? 0x80000000u : 0), lo_label, lf);
		else
			em_jmp(m, BPF_JMP | BPF_JEQ | BPF_X, 0, lo_label, lf);
		break;
	}
	}
	if (rc)
		return rc;
	em_place(m, lo_label);
	return em_cmp32(m, n->op, false, em_lo, a, b, lt, lf);
}

/* ---- residuals as tests of 32-bit words: types ---- */

/*
 * A residual condition on 64-bit values is lowered to tests of 32-bit
 * words (the high or low half of an expression) against a constant (K)
 * or another word (X). Lowering carries down each path what the tests
 * above it proved about the words (a set of intervals): a test that this
 * decides is not emitted, and a test whose two ways end the same is
 * dropped. A chain of 64-bit compares with constants thus tests the high
 * word once and then only the low word. Word tests are hash-consed; a
 * residual lowered twice under the same knowledge is lowered once.
 */
#define EW_IV_MAX 4		/* intervals known per word (over-approximated) */
#define EW_KN_MAX 4		/* words known on one path */
#define EW_SIGN 0x80000000u

struct ew_iv {
	uint32_t lo, hi;
};

/* The values a word may still hold: sorted disjoint intervals. */
struct ew_set {
	uint32_t n;
	struct ew_iv iv[EW_IV_MAX];
};

struct ew_known {
	const struct cbpf_expr *e;
	bool hi;
	struct ew_set s;
};

/* What a path has proven: words sorted by (e, hi), so that equal
 * knowledge has one representation. */
struct ew_kctx {
	uint32_t n;
	struct ew_known k[EW_KN_MAX];
};

/* What a register or M[] slot holds: the word (e, hi) xor flip. */
struct ew_val {
	const struct cbpf_expr *e;
	uint32_t flip;
	bool hi, valid;
};

struct ew_state {
	struct ew_val a, x, mem[BPF_MEMWORDS];
};

enum ew_kind {
	EW_RET,			/* RET K */
	EW_RET_A,		/* RET A, A = lo(a) */
	EW_TEST,		/* if ((word(a, hi) ^ flip) op ((K or word(b, bhi)) ^ flip)) */
};

struct ew_node {
	struct ew_node *hnext;
	uint32_t hash;
	uint8_t kind, op;
	bool hi, bx, bhi;
	uint32_t flip, k;
	const struct cbpf_expr *a, *b;
	struct ew_node *t, *f;
	/* layout */
	uint32_t label, mark, umark;
	uint32_t npred;		/* jumps to it, the dispatch's counting as one */
	bool ulost, has_in;
	struct ew_state in;	/* meet of what the predecessors leave */
};

struct ew_memo {
	struct ew_memo *next;
	const struct cbpf_rnode *n;
	uint32_t hash;
	struct ew_kctx kc;
	struct ew_node *res;
};

struct ew_chunk {
	struct ew_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct ew {
	struct ew_chunk *arena;
	struct ew_node **ntab;
	struct ew_memo **mtab;
	uint32_t nsize, ncount, msize, mcount;
	uint32_t lowered, budget;
	uint32_t mark, umark;
	bool knowledge;		/* use what paths proved (off: over budget) */
	bool over, oom;
	struct ew_node **order;	/* word tests, parents first */
	uint32_t norder, ordcap;
};

/* ---- residual trees ---- */

struct em_ctx {
	struct em m;
	struct cbpf_plan *plan;
	struct cbpf_rnode **order;	/* residual nodes, parents first */
	uint32_t norder, ordcap;
	uint32_t mark;			/* generation for rnode em_mark */
	struct ew ew;			/* the residuals as word tests */
};

/* Whether n's own test (or return value) compiles; tried in a scratch
 * buffer so that unsupported nodes become NOTIF before layout. */
static bool em_node_supported(struct cbpf_rnode *n)
{
	struct em m = { 0 };
	int rc = 0;

	if (n->kind == CBPF_R_BRANCH) {
		uint32_t lt = em_label(&m), lf = em_label(&m);

		rc = em_cond(&m, n, lt, lf);
	} else if (n->kind == CBPF_R_RET && n->ret->kind != CBPF_X_CONST) {
		rc = em_lo(&m, n->ret, 0);
	}
	n->em_size = m.n + 1;
	rc = rc || m.oom || m.n > 2048 ? -ENOTSUP : 0;
	free(m.v);
	free(m.lab);
	return rc == 0;
}

static int em_order_push(struct em_ctx *c, struct cbpf_rnode *n)
{
	if (c->norder == c->ordcap) {
		uint32_t cap = c->ordcap ? c->ordcap * 2 : 256;
		struct cbpf_rnode **v = realloc(c->order, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->order = v;
		c->ordcap = cap;
	}
	c->order[c->norder++] = n;
	return 0;
}

/* Postorder DFS (explicit stack, trees can be deep); the reverse is a
 * topological order, so every jump goes forward as cBPF requires. Also
 * computes em_notif. */
static int em_visit(struct em_ctx *c, struct cbpf_rnode *root)
{
	struct cbpf_rnode **stack;
	uint8_t *state;
	uint32_t sp = 0, cap = 256;
	int rc = 0;

	if (root->em_mark == c->mark)
		return 0;
	stack = malloc(cap * sizeof(*stack));
	state = malloc(cap);
	if (!stack || !state) {
		rc = -ENOMEM;
		goto out;
	}
	root->em_mark = c->mark;
	root->em_unsupported = !em_node_supported(root);
	stack[sp] = root;
	state[sp++] = 0;
	while (sp) {
		struct cbpf_rnode *n = stack[sp - 1];
		struct cbpf_rnode *child = NULL;

		if (n->kind == CBPF_R_BRANCH && !n->em_unsupported && state[sp - 1] < 2)
			child = state[sp - 1]++ == 0 ? n->t : n->f;
		if (!child) {
			n->em_notif = n->kind == CBPF_R_NOTIF || n->em_unsupported ||
				      (n->kind == CBPF_R_BRANCH &&
				       (n->t->em_notif || n->f->em_notif));
			rc = em_order_push(c, n);
			if (rc)
				goto out;
			sp--;
			continue;
		}
		if (child->em_mark == c->mark)
			continue;
		child->em_mark = c->mark;
		child->em_unsupported = !em_node_supported(child);
		if (sp == cap) {
			struct cbpf_rnode **ns = realloc(stack, cap * 2 * sizeof(*ns));
			uint8_t *nst;

			if (ns)
				stack = ns;
			nst = ns ? realloc(state, cap * 2) : NULL;
			if (!nst) {
				rc = -ENOMEM;
				goto out;
			}
			state = nst;
			cap *= 2;
		}
		stack[sp] = child;
		state[sp++] = 0;
	}
out:
	free(stack);
	free(state);
	return rc;
}

static bool em_is_const(const struct cbpf_rnode *n)
{
	return n->kind == CBPF_R_NOTIF || (n->kind == CBPF_R_RET && n->ret->kind == CBPF_X_CONST);
}

static uint32_t em_const_value(const struct cbpf_rnode *n)
{
	if (n->kind == CBPF_R_NOTIF || n->em_unsupported)
		return SECCOMP_RET_USER_NOTIF;
	return (uint32_t)n->ret->imm;
}

/* ---- residuals as tests of 32-bit words: lowering ---- */

static void *ew_alloc(struct ew *w, size_t size)
{
	struct ew_chunk *ch = w->arena;

	size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!ch || ch->used + size > ch->cap) {
		size_t cap = size > 65536 ? size : 65536;

		ch = malloc(sizeof(*ch) + cap);
		if (!ch) {
			w->oom = true;
			return NULL;
		}
		ch->next = w->arena;
		ch->used = 0;
		ch->cap = cap;
		w->arena = ch;
	}
	ch->used += size;
	return (char *)ch->data + ch->used - size;
}

static void ew_free(struct ew *w)
{
	while (w->arena) {
		struct ew_chunk *n = w->arena->next;

		free(w->arena);
		w->arena = n;
	}
	free(w->ntab);
	free(w->mtab);
	free(w->order);
	memset(w, 0, sizeof(*w));
}

static uint32_t ew_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return (uint32_t)(h ^ h >> 32);
}

/* Double a chained hash table when it is as full as it is big. */
static bool ew_grow(struct ew *w, void ***tab, uint32_t *size, uint32_t count, bool memo)
{
	uint32_t ns, i;
	void **nt;

	if (*tab && count < *size)
		return true;
	ns = *size ? *size * 2 : 1024;
	nt = calloc(ns, sizeof(*nt));
	if (!nt) {
		w->oom = true;
		return false;
	}
	for (i = 0; i < *size; i++) {
		void *x = (*tab)[i];

		while (x) {
			void *next;
			uint32_t h;

			if (memo) {
				struct ew_memo *e = x;

				next = e->next;
				h = e->hash;
				e->next = nt[h & (ns - 1)];
			} else {
				struct ew_node *e = x;

				next = e->hnext;
				h = e->hash;
				e->hnext = nt[h & (ns - 1)];
			}
			nt[h & (ns - 1)] = x;
			x = next;
		}
	}
	free(*tab);
	*tab = nt;
	*size = ns;
	return true;
}

static struct ew_node *ew_node(struct ew *w, const struct ew_node *t)
{
	uint64_t h0 = t->kind | (uint64_t)t->op << 8 | (uint64_t)t->hi << 16 |
		      (uint64_t)t->bx << 17 | (uint64_t)t->bhi << 18 | (uint64_t)t->flip << 32;
	uint32_t h = ew_mix(ew_mix(ew_mix(ew_mix(ew_mix(h0, t->k), (uintptr_t)t->a),
					  (uintptr_t)t->b), (uintptr_t)t->t), (uintptr_t)t->f);
	struct ew_node *x;

	for (x = w->ntab ? w->ntab[h & (w->nsize - 1)] : NULL; x; x = x->hnext)
		if (x->hash == h && x->kind == t->kind && x->op == t->op && x->hi == t->hi &&
		    x->bx == t->bx && x->bhi == t->bhi && x->flip == t->flip && x->k == t->k &&
		    x->a == t->a && x->b == t->b && x->t == t->t && x->f == t->f)
			return x;
	if (!ew_grow(w, (void ***)&w->ntab, &w->nsize, w->ncount, false))
		return NULL;
	x = ew_alloc(w, sizeof(*x));
	if (!x)
		return NULL;
	memset(x, 0, sizeof(*x));
	x->kind = t->kind;
	x->op = t->op;
	x->hi = t->hi;
	x->bx = t->bx;
	x->bhi = t->bhi;
	x->flip = t->flip;
	x->k = t->k;
	x->a = t->a;
	x->b = t->b;
	x->t = t->t;
	x->f = t->f;
	x->hash = h;
	x->hnext = w->ntab[h & (w->nsize - 1)];
	w->ntab[h & (w->nsize - 1)] = x;
	w->ncount++;
	return x;
}

static struct ew_node *ew_ret(struct ew *w, uint32_t k)
{
	struct ew_node t = { .kind = EW_RET, .k = k };

	return ew_node(w, &t);
}

/* ---- interval sets ---- */

static void ew_set_one(struct ew_set *s, uint32_t lo, uint32_t hi)
{
	s->n = 1;
	s->iv[0].lo = lo;
	s->iv[0].hi = hi;
}

/* r = x & y, over-approximated to EW_IV_MAX intervals by closing the
 * smallest gaps (a superset of the values stays sound). y has at most
 * three intervals. */
static void ew_set_and(const struct ew_set *x, const struct ew_set *y, struct ew_set *r)
{
	struct ew_iv v[2 * EW_IV_MAX + 4];
	uint32_t n = 0, i = 0, j = 0;

	while (i < x->n && j < y->n) {
		uint32_t lo = x->iv[i].lo > y->iv[j].lo ? x->iv[i].lo : y->iv[j].lo;
		uint32_t hi = x->iv[i].hi < y->iv[j].hi ? x->iv[i].hi : y->iv[j].hi;

		if (lo <= hi) {
			v[n].lo = lo;
			v[n++].hi = hi;
		}
		if (x->iv[i].hi < y->iv[j].hi)
			i++;
		else
			j++;
	}
	while (n > EW_IV_MAX) {
		uint32_t best = 0, k;

		for (k = 1; k + 1 < n; k++)
			if (v[k + 1].lo - v[k].hi < v[best + 1].lo - v[best].hi)
				best = k;
		v[best].hi = v[best + 1].hi;
		memmove(&v[best + 1], &v[best + 2], (n - best - 2) * sizeof(v[0]));
		n--;
	}
	r->n = n;
	memcpy(r->iv, v, n * sizeof(v[0]));
}

/* r = the complement of x (x has at most two intervals). */
static void ew_set_not(const struct ew_set *x, struct ew_set *r)
{
	uint32_t next = 0, i;		/* the first value not yet covered */
	bool done = false;

	r->n = 0;
	for (i = 0; i < x->n && !done; i++) {
		if (x->iv[i].lo > next) {
			r->iv[r->n].lo = next;
			r->iv[r->n++].hi = x->iv[i].lo - 1;
		}
		if (x->iv[i].hi == UINT32_MAX)
			done = true;
		else
			next = x->iv[i].hi + 1;
	}
	if (!done) {
		r->iv[r->n].lo = next;
		r->iv[r->n++].hi = UINT32_MAX;
	}
}

/* The words v for which (v ^ flip) op k holds (op EQ, GT or GE; flip is
 * 0 or the sign bit, and 0 for EQ; k is in the flipped order). */
static void ew_test_set(unsigned op, uint32_t flip, uint32_t k, struct ew_set *r)
{
	uint32_t lo;

	if (op == CBPF_C_EQ) {
		ew_set_one(r, k, k);
		return;
	}
	if (op == CBPF_C_GT) {
		if (k == UINT32_MAX) {
			r->n = 0;
			return;
		}
		lo = k + 1;
	} else {
		lo = k;
	}
	/* [lo, max] in the flipped order, back in unsigned order */
	if (!flip || lo >= EW_SIGN) {
		ew_set_one(r, lo ^ flip, UINT32_MAX ^ flip);
		return;
	}
	r->n = 2;
	r->iv[0].lo = 0;
	r->iv[0].hi = EW_SIGN - 1;
	r->iv[1].lo = lo | EW_SIGN;
	r->iv[1].hi = UINT32_MAX;
}

/* v & k != 0 for every v in s: 1; for none: 0; else -1. */
static int ew_set_decide_and(const struct ew_set *s, uint32_t k)
{
	if (!s->n)
		return -1;
	if (s->n == 1 && s->iv[0].lo == s->iv[0].hi)
		return (s->iv[0].lo & k) != 0;
	/* every v < the lowest bit of k has no bit of k */
	if (!k || s->iv[s->n - 1].hi < (k & (0u - k)))
		return 0;
	return -1;
}

/* ---- knowledge ---- */

static uint64_t ew_word_bit(const struct cbpf_expr *e, bool hi)
{
	uint64_t h = ((uint64_t)(uintptr_t)e ^ hi) * 0x9e3779b97f4a7c15ull;

	return 1ull << (h >> 58);
}

static int ew_word_cmp(const struct cbpf_expr *e1, bool h1, const struct cbpf_expr *e2, bool h2)
{
	if (e1 != e2)
		return (uintptr_t)e1 < (uintptr_t)e2 ? -1 : 1;
	return (int)h1 - (int)h2;
}

/* The values word (e, hi) may hold on this path. */
static void ew_known_get(const struct ew *w, const struct ew_kctx *kc, const struct cbpf_expr *e,
			 bool hi, struct ew_set *s)
{
	uint32_t i;

	if (e->kind == CBPF_X_CONST) {
		uint32_t v = hi ? (uint32_t)(e->imm >> 32) : (uint32_t)e->imm;

		ew_set_one(s, v, v);
		return;
	}
	if (hi && e->hi_zero) {
		ew_set_one(s, 0, 0);
		return;
	}
	ew_set_one(s, 0, UINT32_MAX);
	if (!hi && e->kind == CBPF_X_FIELD && e->width < 32)
		s->iv[0].hi = (uint32_t)((1ull << e->width) - 1);
	if (!w->knowledge)
		return;
	for (i = 0; i < kc->n; i++)
		if (kc->k[i].e == e && kc->k[i].hi == hi) {
			ew_set_and(&kc->k[i].s, s, s);
			return;
		}
}

static void ew_known_set(struct ew_kctx *kc, const struct cbpf_expr *e, bool hi,
			 const struct ew_set *s)
{
	uint32_t i;

	if (e->kind == CBPF_X_CONST || (hi && e->hi_zero))
		return;
	for (i = 0; i < kc->n; i++) {
		int c = ew_word_cmp(kc->k[i].e, kc->k[i].hi, e, hi);

		if (c == 0) {
			kc->k[i].s = *s;
			return;
		}
		if (c > 0)
			break;
	}
	if (kc->n == EW_KN_MAX)
		return;		/* forgetting is sound */
	memmove(&kc->k[i + 1], &kc->k[i], (kc->n - i) * sizeof(kc->k[0]));
	kc->k[i].e = e;
	kc->k[i].hi = hi;
	kc->k[i].s = *s;
	kc->n++;
}

static uint32_t ew_kctx_hash(const struct cbpf_rnode *n, const struct ew_kctx *kc)
{
	uint32_t h = ew_mix((uintptr_t)n, kc->n), i, j;

	for (i = 0; i < kc->n; i++) {
		h = ew_mix(h, (uintptr_t)kc->k[i].e << 1 | kc->k[i].hi);
		for (j = 0; j < kc->k[i].s.n; j++)
			h = ew_mix(h, (uint64_t)kc->k[i].s.iv[j].lo << 32 | kc->k[i].s.iv[j].hi);
	}
	return h;
}

static bool ew_kctx_same(const struct ew_kctx *x, const struct ew_kctx *y)
{
	uint32_t i;

	if (x->n != y->n)
		return false;
	for (i = 0; i < x->n; i++)
		if (x->k[i].e != y->k[i].e || x->k[i].hi != y->k[i].hi ||
		    x->k[i].s.n != y->k[i].s.n ||
		    memcmp(x->k[i].s.iv, y->k[i].s.iv, x->k[i].s.n * sizeof(struct ew_iv)))
			return false;
	return true;
}

/* ---- lowering ---- */

#define EW_T (-1)
#define EW_F (-2)

/* One word test of a lowered condition; t and f are steps or EW_T/EW_F. */
struct ew_step {
	uint8_t op;
	bool hi;
	uint32_t flip;
	int t, f;
};

/* The word tests of n's condition, as em_cond() emits them. */
static void ew_program(const struct cbpf_rnode *n, struct ew_step *s)
{
	const struct cbpf_expr *a = n->a, *b = n->b;
	bool sgn = n->sgn && n->op != CBPF_C_EQ && n->op != CBPF_C_SET;

	if (n->is32 || (a->hi_zero && b->hi_zero) ||
	    (n->op == CBPF_C_SET && b->kind == CBPF_X_CONST && !(b->imm >> 32))) {
		s[0] = (struct ew_step){ n->op, false, n->is32 && sgn ? EW_SIGN : 0, EW_T, EW_F };
		return;
	}
	switch (n->op) {
	case CBPF_C_EQ:
		s[0] = (struct ew_step){ CBPF_C_EQ, true, 0, 1, EW_F };
		s[1] = (struct ew_step){ CBPF_C_EQ, false, 0, EW_T, EW_F };
		break;
	case CBPF_C_SET:
		s[0] = (struct ew_step){ CBPF_C_SET, true, 0, EW_T, 1 };
		s[1] = (struct ew_step){ CBPF_C_SET, false, 0, EW_T, EW_F };
		break;
	default:
		/* hi(a) > hi(b) (signed if sgn): true; equal: the low words decide,
		 * unsigned; else false. */
		s[0] = (struct ew_step){ CBPF_C_GT, true, sgn ? EW_SIGN : 0, EW_T, 1 };
		s[1] = (struct ew_step){ CBPF_C_EQ, true, 0, 2, EW_F };
		s[2] = (struct ew_step){ n->op, false, 0, EW_T, EW_F };
		break;
	}
}

static struct ew_node *ew_lower(struct em_ctx *c, struct cbpf_rnode *n, const struct ew_kctx *kc);

static struct ew_node *ew_steps(struct em_ctx *c, struct cbpf_rnode *n, const struct ew_step *st,
				int i, const struct ew_kctx *kc)
{
	const struct ew_step *s;
	struct ew_node t = { .kind = EW_TEST };
	struct ew_kctx kt, kf;

	if (i == EW_T)
		return ew_lower(c, n->t, kc);
	if (i == EW_F)
		return ew_lower(c, n->f, kc);
	s = &st[i];
	t.op = s->op;
	t.hi = s->hi;
	t.flip = s->flip;
	t.a = n->a;
	if (n->b->kind == CBPF_X_CONST) {
		struct ew_set known, yes, no, tmp, cmp;
		int d = -1;

		t.k = s->hi ? (uint32_t)(n->b->imm >> 32) : (uint32_t)n->b->imm;
		ew_known_get(&c->ew, kc, n->a, s->hi, &known);
		kt = *kc;
		kf = *kc;
		if (s->op == CBPF_C_SET) {
			d = ew_set_decide_and(&known, t.k);
		} else {
			ew_test_set(s->op, s->flip, t.k ^ s->flip, &tmp);
			ew_set_and(&known, &tmp, &yes);
			ew_set_not(&tmp, &cmp);
			ew_set_and(&known, &cmp, &no);
			if (!no.n)
				d = 1;
			else if (!yes.n)
				d = 0;
			ew_known_set(&kt, n->a, s->hi, &yes);
			ew_known_set(&kf, n->a, s->hi, &no);
		}
		if (d >= 0)
			return ew_steps(c, n, st, d ? s->t : s->f, kc);
	} else {
		t.bx = true;
		t.b = n->b;
		t.bhi = s->hi;
		kt = *kc;
		kf = *kc;
	}
	t.t = ew_steps(c, n, st, s->t, &kt);
	t.f = t.t ? ew_steps(c, n, st, s->f, &kf) : NULL;
	if (!t.t || !t.f)
		return NULL;
	if (t.t == t.f)		/* both ways end the same: no test */
		return t.t;
	return ew_node(&c->ew, &t);
}

/* n lowered under what kc proves, memoized on (n, the part of kc about
 * words tested under n). NULL when out of memory or over budget. */
static struct ew_node *ew_lower(struct em_ctx *c, struct cbpf_rnode *n, const struct ew_kctx *kc)
{
	struct ew *w = &c->ew;
	struct ew_step st[3];
	struct ew_memo *e;
	struct ew_kctx k = { 0 };
	struct ew_node *r;
	uint32_t h, i;

	if (n->em_unsupported || n->kind == CBPF_R_NOTIF)
		return ew_ret(w, SECCOMP_RET_USER_NOTIF);
	if (n->kind == CBPF_R_RET) {
		struct ew_node t = { .kind = EW_RET_A, .a = n->ret };

		if (n->ret->kind == CBPF_X_CONST)
			return ew_ret(w, (uint32_t)n->ret->imm);
		return ew_node(w, &t);
	}
	for (i = 0; i < kc->n; i++)
		if (n->em_words & ew_word_bit(kc->k[i].e, kc->k[i].hi))
			k.k[k.n++] = kc->k[i];
	h = ew_kctx_hash(n, &k);
	for (e = w->mtab ? w->mtab[h & (w->msize - 1)] : NULL; e; e = e->next)
		if (e->hash == h && e->n == n && ew_kctx_same(&e->kc, &k))
			return e->res;
	if (++w->lowered > w->budget) {
		w->over = true;
		return NULL;
	}
	ew_program(n, st);
	r = ew_steps(c, n, st, 0, &k);
	if (!r || !ew_grow(w, (void ***)&w->mtab, &w->msize, w->mcount, true))
		return NULL;
	e = ew_alloc(w, sizeof(*e));
	if (!e)
		return NULL;
	e->n = n;
	e->hash = h;
	e->kc = k;
	e->res = r;
	e->next = w->mtab[h & (w->msize - 1)];
	w->mtab[h & (w->msize - 1)] = e;
	w->mcount++;
	return r;
}

/* ---- residuals as tests of 32-bit words: emission ---- */

static bool ew_holds(const struct ew_val *v, const struct cbpf_expr *e, bool hi)
{
	return v->valid && v->e == e && v->hi == hi;
}

static void ew_meet(struct ew_val *into, const struct ew_val *v)
{
	if (!into->valid || !v->valid || into->e != v->e || into->hi != v->hi ||
	    into->flip != v->flip)
		memset(into, 0, sizeof(*into));
}

/* What a jump to w brings: every predecessor must agree. */
static void ew_flow(struct ew_node *w, const struct ew_state *s)
{
	unsigned i;

	if (!w->has_in) {
		w->has_in = true;
		w->in = *s;
		return;
	}
	ew_meet(&w->in.a, &s->a);
	ew_meet(&w->in.x, &s->x);
	for (i = 0; i < BPF_MEMWORDS; i++)
		ew_meet(&w->in.mem[i], &s->mem[i]);
}

/* Forget what the instructions from `from` on overwrote. */
static void ew_forget(const struct em *m, struct ew_state *s, uint32_t from)
{
	uint32_t i;

	s->a.valid = false;
	for (i = from; i < m->n; i++) {
		uint16_t code = m->v[i].code;

		if (BPF_CLASS(code) == BPF_ST || BPF_CLASS(code) == BPF_STX)
			s->mem[m->v[i].k % BPF_MEMWORDS].valid = false;
		if (BPF_CLASS(code) == BPF_LDX || code == (BPF_MISC | BPF_TAX))
			s->x.valid = false;
	}
}

/*
 * Whether a node under at reads word (e, hi) when A may no longer hold it
 * (after a test of another word, or at a join); true when the search gets
 * long. kept: A still holds the word when at jumps.
 */
static bool ew_needed_below(struct ew *w, struct ew_node *at, const struct cbpf_expr *e, bool hi,
			    bool kept)
{
	struct { struct ew_node *n; bool lost; } stack[256];
	uint32_t sp = 0, visits = 0;

	w->umark++;
	stack[sp].n = at->t;
	stack[sp++].lost = !kept;
	stack[sp].n = at->f;
	stack[sp++].lost = !kept;
	while (sp) {
		struct ew_node *n = stack[--sp].n;
		bool lost = stack[sp].lost || n->npred > 1, reads;

		/* visited with lost covers visited without */
		if (n->umark == w->umark && (n->ulost || !lost))
			continue;
		n->umark = w->umark;
		n->ulost = lost;
		if (++visits > 1024)
			return true;
		reads = (n->kind == EW_RET_A && n->a == e && !hi) ||
			(n->kind == EW_TEST && ((n->a == e && n->hi == hi) ||
						(n->bx && n->b == e && n->bhi == hi)));
		if (reads && lost)
			return true;
		if (n->kind != EW_TEST)
			continue;
		if (sp + 2 > sizeof(stack) / sizeof(stack[0]))
			return true;
		lost = lost || n->bx || n->a != e || n->hi != hi;
		stack[sp].n = n->t;
		stack[sp++].lost = lost;
		stack[sp].n = n->f;
		stack[sp++].lost = lost;
	}
	return false;
}

/* Keep A (just computed at a cost) in a free M[] slot when a test below
 * at reads it again. Slots count down from 15; the expression code takes
 * its temporaries from 0 up. A slot is free when nothing below reads
 * what it holds. */
static void ew_keep(struct em_ctx *c, struct ew_node *at, bool kept, struct ew_state *s)
{
	int slot = -1, i;

	if (!at || !ew_needed_below(&c->ew, at, s->a.e, s->a.hi, kept))
		return;
	for (i = BPF_MEMWORDS - 1; i > 0 && slot < 0; i--)
		if (!s->mem[i].valid)
			slot = i;
	for (i = BPF_MEMWORDS - 1; i > 0 && slot < 0; i--)
		if (!ew_needed_below(&c->ew, at, s->mem[i].e, s->mem[i].hi, false))
			slot = i;
	if (slot < 0)
		return;
	em(&c->m, BPF_ST, (uint32_t)slot);
	s->mem[slot] = s->a;
}

/* A = word (e, hi) ^ flip, reusing what A, X or M[] hold. Temporaries
 * from M[sp] up. at: the test this is for (NULL: a return value); kept:
 * A still holds the word when at jumps. */
static int ew_load(struct em_ctx *c, struct ew_node *at, bool kept, struct ew_state *s,
		   const struct cbpf_expr *e, bool hi, uint32_t flip, unsigned sp)
{
	struct em *m = &c->m;
	uint32_t from = m->n;
	int i, rc;

	if (ew_holds(&s->a, e, hi))
		goto flip;
	if (ew_holds(&s->x, e, hi)) {
		em(m, BPF_MISC | BPF_TXA, 0);
		s->a = s->x;
		goto flip;
	}
	for (i = BPF_MEMWORDS - 1; i >= 0; i--)
		if (ew_holds(&s->mem[i], e, hi)) {
			em(m, BPF_LD | BPF_MEM, (uint32_t)i);
			s->a = s->mem[i];
			goto flip;
		}
	rc = hi ? em_hi(m, e, sp) : em_lo(m, e, sp);
	if (rc)
		return rc;
	ew_forget(m, s, from);
	s->a = (struct ew_val){ .e = e, .hi = hi, .valid = true };
	if (m->n - from >= 3)
		ew_keep(c, at, kept, s);
flip:
	if (s->a.flip != flip) {
		em(m, BPF_ALU | BPF_XOR | BPF_K, s->a.flip ^ flip);
		s->a.flip = flip;
	}
	return 0;
}

/* Loading word (e, hi) leaves X alone (X about to be overwritten). */
static bool ew_keeps_x(const struct ew_state *s, const struct cbpf_expr *e, bool hi)
{
	unsigned i;

	if (ew_holds(&s->a, e, hi) || e->kind == CBPF_X_CONST ||
	    e->kind == CBPF_X_FIELD || (hi && e->hi_zero))
		return true;
	for (i = 0; i < BPF_MEMWORDS; i++)
		if (ew_holds(&s->mem[i], e, hi))
			return true;
	return false;
}

static int ew_emit_test(struct em_ctx *c, struct ew_node *w, struct ew_state *s)
{
	struct em *m = &c->m;
	uint16_t jop = em_jop(w->op);
	uint32_t k = w->k;
	int rc = 0;

	if (!w->bx) {
		/* Equality and bit tests do not care for a flip of bits
		 * they can undo (in K). */
		if (w->op == CBPF_C_EQ && ew_holds(&s->a, w->a, w->hi))
			k ^= s->a.flip;
		else if (w->op == CBPF_C_SET && ew_holds(&s->a, w->a, w->hi) &&
			 !(s->a.flip & k))
			;
		else if (!(rc = ew_load(c, w, true, s, w->a, w->hi, w->flip, 0)))
			k ^= w->flip;
		if (!rc)
			em_jmp(m, jop | BPF_K, k, w->t->label, w->f->label);
		return rc;
	}
	if (ew_holds(&s->a, w->a, w->hi) && ew_holds(&s->x, w->b, w->bhi) &&
	    s->a.flip == s->x.flip && (w->op == CBPF_C_EQ || s->a.flip == w->flip)) {
		em_jmp(m, jop | BPF_X, 0, w->t->label, w->f->label);
		return 0;
	}
	rc = ew_load(c, w, false, s, w->b, w->bhi, w->flip, 0);
	if (rc)
		return rc;
	if (ew_keeps_x(s, w->a, w->hi)) {
		em(m, BPF_MISC | BPF_TAX, 0);
		s->x = s->a;
		rc = ew_load(c, w, true, s, w->a, w->hi, w->flip, 0);
	} else {
		struct ew_val b = s->a;

		rc = em_st(m, 0);
		s->mem[0] = s->a;
		if (!rc)
			rc = ew_load(c, w, true, s, w->a, w->hi, w->flip, 1);
		if (!rc) {
			em(m, BPF_LDX | BPF_MEM, 0);
			s->x = b;
		}
	}
	if (!rc)
		em_jmp(m, jop | BPF_X, 0, w->t->label, w->f->label);
	return rc;
}

/* Word tests reachable from root, parents first after the reversal
 * (postorder with an explicit stack: trees can be deep). */
static int ew_visit(struct ew *w, struct ew_node *root)
{
	struct ew_node **stack;
	uint8_t *state;
	uint32_t sp = 0, cap = 256;
	int rc = 0;

	if (root->mark == w->mark)
		return 0;
	stack = malloc(cap * sizeof(*stack));
	state = malloc(cap);
	if (!stack || !state) {
		rc = -ENOMEM;
		goto out;
	}
	root->mark = w->mark;
	stack[sp] = root;
	state[sp++] = 0;
	while (sp) {
		struct ew_node *n = stack[sp - 1], *child = NULL;

		if (n->kind == EW_TEST && state[sp - 1] < 2) {
			child = state[sp - 1]++ == 0 ? n->t : n->f;
			child->npred++;
		}
		if (!child) {
			if (w->norder == w->ordcap) {
				uint32_t ncap = w->ordcap ? w->ordcap * 2 : 256;
				struct ew_node **v = realloc(w->order, ncap * sizeof(*v));

				if (!v) {
					rc = -ENOMEM;
					goto out;
				}
				w->order = v;
				w->ordcap = ncap;
			}
			w->order[w->norder++] = n;
			sp--;
			continue;
		}
		if (child->mark == w->mark)
			continue;
		child->mark = w->mark;
		if (sp == cap) {
			struct ew_node **ns = realloc(stack, cap * 2 * sizeof(*ns));
			uint8_t *nst;

			if (ns)
				stack = ns;
			nst = ns ? realloc(state, cap * 2) : NULL;
			if (!nst) {
				rc = -ENOMEM;
				goto out;
			}
			state = nst;
			cap *= 2;
		}
		stack[sp] = child;
		state[sp++] = 0;
	}
out:
	free(stack);
	free(state);
	return rc;
}

/* The Bloom sets of words tested under each residual node (c->order is
 * children first). */
static void ew_words(struct em_ctx *c)
{
	uint32_t i;

	for (i = 0; i < c->norder; i++) {
		struct cbpf_rnode *n = c->order[i];

		n->em_words = 0;
		if (n->kind != CBPF_R_BRANCH || n->em_unsupported)
			continue;
		n->em_words = n->t->em_words | n->f->em_words;
		if (n->b->kind == CBPF_X_CONST)
			n->em_words |= ew_word_bit(n->a, true) | ew_word_bit(n->a, false);
	}
}

/* Lower every residual outcome of the plan; with knowledge first, and
 * without it when that grows past the budget. Labels the outcomes. */
static int ew_lower_plan(struct em_ctx *c)
{
	struct cbpf_plan *plan = c->plan;
	struct ew_kctx none = { 0 };
	uint32_t i, j, pass;

	ew_words(c);
	for (pass = 0; pass < 2; pass++) {
		bool over = false;

		ew_free(&c->ew);
		c->ew.knowledge = pass == 0;
		c->ew.budget = pass == 0 ? 2 * c->norder + 4096 : UINT32_MAX;
		c->ew.mark = 1;
		for (i = 0; i < plan->nclasses && !over; i++)
			for (j = 0; j < plan->classes[i].nranges && !over; j++) {
				struct cbpf_rnode *n = plan->classes[i].ranges[j].out;
				struct ew_node *r;

				if (em_is_const(n))
					continue;
				r = ew_lower(c, n, &none);
				if (!r && !c->ew.over)
					return -ENOMEM;
				over = !r;
				if (r)	/* the dispatch jumps there knowing nothing */
					r->npred += 2;
				if (r && ew_visit(&c->ew, r))
					return -ENOMEM;
			}
		if (!over)
			break;
	}
	for (i = 0; i < c->ew.norder; i++)
		c->ew.order[i]->label = em_label(&c->m);
	for (i = 0; i < plan->nclasses; i++)
		for (j = 0; j < plan->classes[i].nranges; j++) {
			struct cbpf_rnode *n = plan->classes[i].ranges[j].out;

			if (!em_is_const(n))
				n->em_label = ew_lower(c, n, &none)->label;
		}
	return c->ew.oom ? -ENOMEM : 0;
}

/* The residual code: word tests, parents first, each knowing what A, X
 * and M[] hold when every jump to it agrees. */
static int ew_emit(struct em_ctx *c)
{
	struct cbpf_plan *plan = c->plan;
	struct ew_state unknown = { 0 };
	struct em *m = &c->m;
	struct ew_kctx none = { 0 };
	unsigned ret_mask = 0;		/* slots valid before the last RET */
	uint32_t i, j;

	/* The dispatch jumps to the outcomes knowing nothing. */
	for (i = 0; i < plan->nclasses; i++)
		for (j = 0; j < plan->classes[i].nranges; j++)
			if (!em_is_const(plan->classes[i].ranges[j].out))
				ew_flow(ew_lower(c, plan->classes[i].ranges[j].out, &none), &unknown);
	for (i = c->ew.norder; i-- > 0;) {
		struct ew_node *w = c->ew.order[i];
		struct ew_state s = w->in;
		unsigned k;

		/* The kernel's check (and cbpf_check) lets the slots known
		 * before a RET flow into the instruction after it, as if it fell
		 * through: a slot counts as written only if it was there too. */
		for (k = 0; k < BPF_MEMWORDS; k++)
			if (!(ret_mask & 1u << k))
				s.mem[k].valid = false;
		ret_mask = 0xffff;
		em_place(m, w->label);
		switch (w->kind) {
		case EW_RET:
			for (k = 0, ret_mask = 0; k < BPF_MEMWORDS; k++)
				ret_mask |= (unsigned)s.mem[k].valid << k;
			em(m, BPF_RET | BPF_K, w->k);
			break;
		case EW_RET_A:
			for (k = 0, ret_mask = 0; k < BPF_MEMWORDS; k++)
				ret_mask |= (unsigned)s.mem[k].valid << k;
			if (ew_load(c, NULL, false, &s, w->a, false, 0, 0))
				return -EFAULT;		/* em_node_supported() said yes */
			em(m, BPF_RET | BPF_A, 0);
			break;
		default:
			if (ew_emit_test(c, w, &s))
				return -EFAULT;
			ew_flow(w->t, &s);
			ew_flow(w->f, &s);
			break;
		}
	}
	return 0;
}

/* ---- dispatch ---- */

/* The label a jump to ranges[a..b] takes: a non-constant single outcome is
 * its residual's label, anything else code emitted at a new label. */
static uint32_t em_tree_label(struct em_ctx *c, const struct cbpf_arch_class *cl, uint32_t a,
			      uint32_t b)
{
	if (a == b && !em_is_const(cl->ranges[a].out))
		return cl->ranges[a].out->em_label;
	return em_label(&c->m);
}

/* A balanced tree of JGE K on nr over ranges[a..b] (A holds nr), placed at
 * label. Leaves with a constant outcome are RET K in place. */
static void em_tree(struct em_ctx *c, const struct cbpf_arch_class *cl, uint32_t a, uint32_t b,
		    uint32_t label)
{
	struct em *m = &c->m;
	uint32_t mid, left, right;

	if (a == b) {
		if (!em_is_const(cl->ranges[a].out))
			return;
		em_place(m, label);
		em(m, BPF_RET | BPF_K, em_const_value(cl->ranges[a].out));
		return;
	}
	mid = a + (b - a + 1) / 2;
	left = em_tree_label(c, cl, a, mid - 1);
	right = em_tree_label(c, cl, mid, b);
	em_place(m, label);
	em_jmp(m, BPF_JMP | BPF_JGE | BPF_K, cl->ranges[mid].lo, right, left);
	em_tree(c, cl, a, mid - 1, left);
	em_tree(c, cl, mid, b, right);
}

static void em_class(struct em_ctx *c, const struct cbpf_arch_class *cl, uint32_t label)
{
	struct em *m = &c->m;
	uint32_t inner;

	if (cl->nranges == 1 && !em_is_const(cl->ranges[0].out)) {
		em_place(m, label);
		em_ja(m, cl->ranges[0].out->em_label);
		return;
	}
	em_place(m, label);
	if (cl->nranges > 1)
		em(m, BPF_LD | BPF_W | BPF_ABS, EM_OFF_NR);
	inner = em_label(m);
	em_place(m, inner);
	em_tree(c, cl, 0, cl->nranges - 1, inner);
}

/*
 * The listener guard (docs/design.md §1, fail closed): a filtered process must not
 * install its own NEW_LISTENER filter and answer CONTINUE to itself once
 * the supervisor is gone. Deny seccomp(SECCOMP_SET_MODE_FILTER, flags with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER) with EPERM on every arch libseccomp
 * knows. op and flags are `unsigned int` in the kernel: only the low words
 * count. prctl(PR_SET_SECCOMP) cannot ask for a listener. The guard uses
 * only cache-emulated instructions until it reads args, so other syscalls
 * stay provable by the kernel's action cache.
 */
size_t cbpf_guard_targets(struct cbpf_guard_target *out, size_t max)
{
	static const char *const arches[] = {
		"x86_64", "x86", "x32", "aarch64", "arm", "riscv64", "ppc64le", "ppc64",
		"ppc", "s390x", "s390", "mips", "mipsel", "mips64", "mipsel64", "mips64n32",
		"mipsel64n32", "parisc", "parisc64", "loongarch64",
	};
	size_t i, j, n = 0;

	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		uint32_t tok = seccomp_arch_resolve_name(arches[i]), arch;
		int nr;

		if (!tok)
			continue;
		nr = seccomp_syscall_resolve_name_arch(tok, "seccomp");
		if (nr < 0)
			continue;
		/* x32 shares AUDIT_ARCH_X86_64; its numbers carry bit 30. */
		arch = tok == SCMP_ARCH_X32 ? SCMP_ARCH_X86_64 : tok;
		for (j = 0; j < n; j++)
			if (out[j].arch == arch && out[j].nr == (uint32_t)nr)
				break;
		if (j < n || n == max)
			continue;
		out[n].arch = arch;
		out[n].nr = (uint32_t)nr;
		n++;
	}
	return n;
}

static void em_guard(struct em_ctx *c, uint32_t main_label)
{
	struct cbpf_guard_target t[64];
	struct { uint32_t arch, nr[2]; unsigned n; } seen[32];
	struct em *m = &c->m;
	uint32_t check = em_label(m), deny = em_label(m), i, j, k, n = 0;
	uint32_t labels[32];
	size_t nt = cbpf_guard_targets(t, 64);

	/* Grouped by arch: one arch test, then its numbers. */
	for (k = 0; k < nt; k++) {
		for (j = 0; j < n && seen[j].arch != t[k].arch; j++)
			;
		if (j == n) {
			if (n == 32)
				break;
			seen[n].arch = t[k].arch;
			seen[n].n = 0;
			n++;
		}
		if (seen[j].n < 2)
			seen[j].nr[seen[j].n++] = t[k].nr;
	}
	em(m, BPF_LD | BPF_W | BPF_ABS, EM_OFF_ARCH);
	for (i = 0; i < n; i++) {
		uint32_t next = em_label(m);

		labels[i] = em_label(m);
		em_jmp(m, BPF_JMP | BPF_JEQ | BPF_K, seen[i].arch, labels[i], next);
		em_place(m, next);
	}
	em_ja(m, main_label);
	for (i = 0; i < n; i++) {
		em_place(m, labels[i]);
		em(m, BPF_LD | BPF_W | BPF_ABS, EM_OFF_NR);
		for (j = 0; j < seen[i].n; j++) {
			uint32_t next = em_label(m);

			em_jmp(m, BPF_JMP | BPF_JEQ | BPF_K, seen[i].nr[j], check, next);
			em_place(m, next);
		}
		em_ja(m, main_label);
	}
	em_place(m, check);
	em(m, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
	{
		uint32_t flags = em_label(m);

		em_jmp(m, BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_SET_MODE_FILTER, flags, main_label);
		em_place(m, flags);
	}
	em(m, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]));
	em_jmp(m, BPF_JMP | BPF_JSET | BPF_K, SECCOMP_FILTER_FLAG_NEW_LISTENER, deny, main_label);
	em_place(m, deny);
	em(m, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
}

/* Everything, in order: guard, arch dispatch, nr trees, residuals. */
static int em_program(struct em_ctx *c, bool guard)
{
	struct cbpf_plan *plan = c->plan;
	struct em *m = &c->m;
	uint32_t i, j, *class_label, main_label;
	int rc;

	c->mark++;
	c->norder = 0;
	for (i = 0; i < plan->nclasses; i++)
		for (j = 0; j < plan->classes[i].nranges; j++) {
			struct cbpf_rnode *n = plan->classes[i].ranges[j].out;

			/* Constant outcomes are RET K in the tree itself. */
			if (em_is_const(n))
				continue;
			rc = em_visit(c, n);
			if (rc)
				return rc;
		}
	rc = ew_lower_plan(c);
	if (rc)
		return rc;
	class_label = calloc(plan->nclasses, sizeof(*class_label));
	if (!class_label)
		return -ENOMEM;
	main_label = em_label(m);
	if (guard)
		em_guard(c, main_label);
	em_place(m, main_label);
	/* The "other" class is last in plan and falls through the chain. */
	if (plan->nclasses > 1)
		em(m, BPF_LD | BPF_W | BPF_ABS, EM_OFF_ARCH);
	for (i = 0; i < plan->nclasses; i++)
		class_label[i] = em_label(m);
	for (i = 0; i + 1 < plan->nclasses; i++) {
		uint32_t next = em_label(m);

		em_jmp(m, BPF_JMP | BPF_JEQ | BPF_K, plan->classes[i].arch, class_label[i], next);
		em_place(m, next);
	}
	em_class(c, &plan->classes[plan->nclasses - 1], class_label[plan->nclasses - 1]);
	for (i = 0; i + 1 < plan->nclasses; i++)
		em_class(c, &plan->classes[i], class_label[i]);
	free(class_label);
	/* Residuals, parents before children; constant leaves are shared. */
	rc = ew_emit(c);
	if (rc)
		return rc;
	return m->oom ? -ENOMEM : 0;
}

/*
 * Resolve labels into offsets. A conditional jump reaches 255 instructions
 * at most: a far target gets a JA trampoline right after the jump. Adding
 * trampolines only moves targets further, so iterate to a fixpoint.
 */
static int em_layout(struct em *m, struct sock_filter **outp, uint32_t *lenp)
{
	uint8_t *tr = calloc(m->n ? m->n : 1, 1);	/* bit 0: jt, bit 1: jf */
	uint32_t *pos = malloc((m->n + 1) * sizeof(*pos));
	struct sock_filter *out = NULL;
	uint32_t i, len = 0;
	bool changed = true;
	int rc = 0;

	if (!tr || !pos) {
		rc = -ENOMEM;
		goto done;
	}
	while (changed) {
		changed = false;
		len = 0;
		for (i = 0; i < m->n; i++) {
			pos[i] = len;
			len += 1 + !!(tr[i] & 1) + !!(tr[i] & 2);
		}
		pos[m->n] = len;
		for (i = 0; i < m->n; i++) {
			const struct em_insn *in = &m->v[i];
			uint32_t t;

			if (BPF_CLASS(in->code) != BPF_JMP || BPF_OP(in->code) == BPF_JA)
				continue;
			t = m->lab[in->lt];
			if (!(tr[i] & 1) && pos[t] - pos[i] - 1 > 255) {
				tr[i] |= 1;
				changed = true;
			}
			t = m->lab[in->lf];
			if (!(tr[i] & 2) && pos[t] - pos[i] - 1 > 255) {
				tr[i] |= 2;
				changed = true;
			}
		}
	}
	out = calloc(len ? len : 1, sizeof(*out));
	if (!out) {
		rc = -ENOMEM;
		goto done;
	}
	for (i = 0; i < m->n; i++) {
		const struct em_insn *in = &m->v[i];
		struct sock_filter *f = &out[pos[i]];
		uint32_t p = pos[i], slot = p + 1;

		f->code = in->code;
		f->k = in->k;
		if (BPF_CLASS(in->code) != BPF_JMP)
			continue;
		if (BPF_OP(in->code) == BPF_JA) {
			f->k = pos[m->lab[in->lt]] - p - 1;
			continue;
		}
		if (tr[i] & 1) {
			f->jt = (uint8_t)(slot - p - 1);
			out[slot] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
								 pos[m->lab[in->lt]] - slot - 1);
			slot++;
		} else {
			f->jt = (uint8_t)(pos[m->lab[in->lt]] - p - 1);
		}
		if (tr[i] & 2) {
			f->jf = (uint8_t)(slot - p - 1);
			out[slot] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
								 pos[m->lab[in->lf]] - slot - 1);
		} else {
			f->jf = (uint8_t)(pos[m->lab[in->lf]] - p - 1);
		}
	}
	*outp = out;
	*lenp = len;
	out = NULL;
done:
	free(out);
	free(tr);
	free(pos);
	return rc;
}

/* Every label used must be placed after its user (forward jumps only). */
static bool em_labels_forward(const struct em *m)
{
	uint32_t i;

	for (i = 0; i < m->n; i++) {
		const struct em_insn *in = &m->v[i];

		if (BPF_CLASS(in->code) != BPF_JMP)
			continue;
		if (in->lt >= m->nlab || m->lab[in->lt] == EM_NO_LABEL || m->lab[in->lt] <= i)
			return false;
		if (BPF_OP(in->code) == BPF_JA)
			continue;
		if (in->lf >= m->nlab || m->lab[in->lf] == EM_NO_LABEL || m->lab[in->lf] <= i)
			return false;
	}
	return true;
}

/* Size of the residual DAG under n (each node once). */
static uint64_t em_dag_size(struct em_ctx *c, struct cbpf_rnode *n)
{
	uint64_t s;

	if (n->em_mark == c->mark || em_is_const(n))
		return 0;
	n->em_mark = c->mark;
	s = n->em_size;
	if (n->kind == CBPF_R_BRANCH && !n->em_unsupported)
		s += em_dag_size(c, n->t) + em_dag_size(c, n->f);
	return s;
}

static void em_merge_ranges(struct cbpf_arch_class *cl)
{
	uint32_t i, m = 0;

	for (i = 0; i < cl->nranges; i++) {
		if (m && cl->ranges[m - 1].out == cl->ranges[i].out)
			cl->ranges[m - 1].hi = cl->ranges[i].hi;
		else
			cl->ranges[m++] = cl->ranges[i];
	}
	cl->nranges = m;
}

static void em_replace_out(struct cbpf_plan *plan, struct cbpf_rnode *old,
			   struct cbpf_rnode *new, int only_class)
{
	uint32_t i, j;

	for (i = 0; i < plan->nclasses; i++) {
		if (only_class >= 0 && (uint32_t)only_class != i)
			continue;
		for (j = 0; j < plan->classes[i].nranges; j++)
			if (plan->classes[i].ranges[j].out == old)
				plan->classes[i].ranges[j].out = new;
		em_merge_ranges(&plan->classes[i]);
	}
}

/*
 * Make the next attempt smaller: first the residual with the largest code
 * goes to the supervisor; with no residual left, the class with the most
 * ranges sends every non-ALLOW constant to the supervisor (ALLOW stays
 * in-kernel and cache-provable); then whole classes. Returns false when
 * nothing is left to shrink.
 */
static bool em_shrink(struct em_ctx *c, uint64_t excess)
{
	struct cbpf_plan *plan = c->plan;
	uint64_t removed = 0;
	uint32_t i, j, most = 0;
	int cls = -1;

	/* Largest residual first, as many as the excess needs (each one
	 * costs a full layout otherwise). */
	while (removed < excess) {
		struct cbpf_rnode *best = NULL;
		uint64_t best_size = 0;

		for (i = 0; i < plan->nclasses; i++)
			for (j = 0; j < plan->classes[i].nranges; j++) {
				struct cbpf_rnode *n = plan->classes[i].ranges[j].out;
				uint64_t s;

				if (em_is_const(n))
					continue;
				c->mark++;
				s = em_dag_size(c, n);
				if (!best || s > best_size) {
					best = n;
					best_size = s;
				}
			}
		if (!best)
			break;
		em_replace_out(plan, best, plan->notif, -1);
		removed += best_size ? best_size : 1;
	}
	if (removed)
		return true;
	for (i = 0; i < plan->nclasses; i++)
		if (plan->classes[i].nranges > most) {
			most = plan->classes[i].nranges;
			cls = (int)i;
		}
	if (cls < 0 || most <= 1)
		return false;
	{
		struct cbpf_arch_class *cl = &plan->classes[cls];
		bool changed = false;

		for (j = 0; j < cl->nranges; j++) {
			struct cbpf_rnode *n = cl->ranges[j].out;

			if (n != plan->notif && em_const_value(n) != SECCOMP_RET_ALLOW) {
				cl->ranges[j].out = plan->notif;
				changed = true;
			}
		}
		if (!changed) {
			cl->ranges[0].out = plan->notif;
			cl->ranges[0].hi = UINT32_MAX;
			cl->nranges = 1;
		}
		em_merge_ranges(cl);
	}
	return true;
}

int cbpf_emit_plan(struct cbpf_plan *plan, const struct cbpf_compile_opts *opts,
		   struct cbpf_prog *out, struct secbpf_err *err)
{
	struct em_ctx c = { .plan = plan };
	struct sock_filter *insns = NULL;
	bool guard = false;
	uint32_t len = 0, i, j;
	int rc;

	if (opts && opts->sz >= offsetof(struct cbpf_compile_opts, listener_guard) +
				 sizeof(opts->listener_guard))
		guard = opts->listener_guard;
	for (;;) {
		free(c.m.v);
		free(c.m.lab);
		memset(&c.m, 0, sizeof(c.m));
		rc = em_program(&c, guard);
		if (rc == -EFAULT || (!rc && !em_labels_forward(&c.m))) {
			rc = err_set(err, EFAULT, "internal error: cbpf code generation");
			goto out;
		}
		if (rc) {
			rc = err_set(err, -rc, "out of memory");
			goto out;
		}
		free(insns);
		insns = NULL;
		rc = em_layout(&c.m, &insns, &len);
		if (rc) {
			rc = err_set(err, -rc, "out of memory");
			goto out;
		}
		if (len <= CBPF_MAX_INSNS)
			break;
		if (!em_shrink(&c, len - CBPF_MAX_INSNS)) {
			rc = err_set(err, E2BIG, "the filter does not fit in %d instructions",
				     CBPF_MAX_INSNS);
			goto out;
		}
	}
	rc = cbpf_check(insns, len, err);
	if (rc) {
		err_prefix(err, "internal error: compiled filter rejected");
		rc = -EFAULT;
		goto out;
	}
	out->insns = insns;
	out->len = len;
	insns = NULL;
	out->cells = 0;
	out->notif_cells = 0;
	for (i = 0; i < plan->nclasses; i++)
		for (j = 0; j < plan->classes[i].nranges; j++) {
			const struct cbpf_rnode *n = plan->classes[i].ranges[j].out;

			out->cells++;
			if (em_is_const(n) ? n->kind == CBPF_R_NOTIF : n->em_notif)
				out->notif_cells++;
		}
	out->needs_supervisor = out->notif_cells > 0;
	rc = 0;
out:
	free(insns);
	free(c.m.v);
	free(c.m.lab);
	free(c.order);
	ew_free(&c.ew);
	return rc;
}
