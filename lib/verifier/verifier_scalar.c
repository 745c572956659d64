// SPDX-License-Identifier: MIT
/*
 * Scalar tracking for the verifier: the bounds of a register (signed and
 * unsigned, 64- and 32-bit, plus known bits) through ALU operations and
 * conditional jumps. Every function over-approximates: the bounds it returns
 * contain every value the register can hold at run time.
 */
#include <stdint.h>

#include "verifier/verifier_internal.h"
#include "vm/alu.h"

/*
 * A view of a register at one width (32 or 64 bits). For width 32 the
 * unsigned bounds are in [0, U32_MAX], the signed ones in [S32_MIN, S32_MAX]
 * and the tnum has only its low 32 bits set.
 */
struct range {
	struct tnum t;
	int64_t smin, smax;
	uint64_t umin, umax;
};

static uint64_t umax_of(unsigned w)
{
	return w == 64 ? UINT64_MAX : UINT32_MAX;
}

static int64_t smin_of(unsigned w)
{
	return w == 64 ? INT64_MIN : INT32_MIN;
}

static int64_t smax_of(unsigned w)
{
	return w == 64 ? INT64_MAX : INT32_MAX;
}

static struct tnum tnum_width(struct tnum t, unsigned w)
{
	return w == 64 ? t : tnum_cast(t, 4);
}

static int64_t sext(uint64_t v, unsigned w)
{
	return w == 64 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
}

static struct range range_full(unsigned w)
{
	return (struct range){ .t = tnum_width(tnum_unknown(), w),
			       .smin = smin_of(w),
			       .smax = smax_of(w),
			       .umin = 0,
			       .umax = umax_of(w) };
}

static struct range range_const(uint64_t v, unsigned w)
{
	v &= umax_of(w);
	return (struct range){
		.t = tnum_const(v), .smin = sext(v, w), .smax = sext(v, w), .umin = v, .umax = v
	};
}

static struct range reg_view(const struct reg_state *r, unsigned w)
{
	if (w == 64)
		return (struct range){ .t = r->var_off,
				       .smin = r->smin,
				       .smax = r->smax,
				       .umin = r->umin,
				       .umax = r->umax };
	return (struct range){ .t = tnum_cast(r->var_off, 4),
			       .smin = r->s32_min,
			       .smax = r->s32_max,
			       .umin = r->u32_min,
			       .umax = r->u32_max };
}

static bool range_is_const(const struct range *r)
{
	return tnum_is_const(r->t);
}

/* Store a view back; the other width is left for reg_bounds_sync(). */
static void reg_set_view(struct reg_state *r, const struct range *v, unsigned w)
{
	if (w == 64) {
		r->var_off = v->t;
		r->smin = v->smin;
		r->smax = v->smax;
		r->umin = v->umin;
		r->umax = v->umax;
		return;
	}
	r->var_off.value = (r->var_off.value & ~0xffffffffULL) | (v->t.value & 0xffffffffULL);
	r->var_off.mask = (r->var_off.mask & ~0xffffffffULL) | (v->t.mask & 0xffffffffULL);
	r->s32_min = (int32_t)v->smin;
	r->s32_max = (int32_t)v->smax;
	r->u32_min = (uint32_t)v->umin;
	r->u32_max = (uint32_t)v->umax;
}

void reg_mark_unknown(struct reg_state *r)
{
	*r = (struct reg_state){ .type = REG_SCALAR };
	r->var_off = tnum_unknown();
	r->smin = INT64_MIN;
	r->smax = INT64_MAX;
	r->umin = 0;
	r->umax = UINT64_MAX;
	r->s32_min = INT32_MIN;
	r->s32_max = INT32_MAX;
	r->u32_min = 0;
	r->u32_max = UINT32_MAX;
}

void reg_mark_const(struct reg_state *r, uint64_t v)
{
	*r = (struct reg_state){ .type = REG_SCALAR };
	reg_set_var_const(r, v);
}

/* The variable part only (pointers keep type and fixed offset). */
void reg_set_var_const(struct reg_state *r, uint64_t v)
{
	r->var_off = tnum_const(v);
	r->smin = r->smax = (int64_t)v;
	r->umin = r->umax = v;
	r->s32_min = r->s32_max = (int32_t)(uint32_t)v;
	r->u32_min = r->u32_max = (uint32_t)v;
}

void reg_mark_not_init(struct reg_state *r)
{
	*r = (struct reg_state){ .type = REG_NOT_INIT };
}

/* An unknown value of the given byte size, zero-extended (a load). */
void reg_mark_unknown_size(struct reg_state *r, unsigned bytes)
{
	reg_mark_unknown(r);
	if (bytes >= 8)
		return;
	r->var_off = tnum_cast(r->var_off, bytes);
	r->umax = (1ULL << (bytes * 8)) - 1;
	r->smin = 0;
	r->smax = (int64_t)r->umax;
	reg_bounds_sync(r);
}

/* An unknown value sign-extended from the given byte size (ldsx, movsx). */
void reg_mark_unknown_sext(struct reg_state *r, unsigned bytes)
{
	reg_mark_unknown(r);
	if (bytes >= 8)
		return;
	r->smin = -(1LL << (bytes * 8 - 1));
	r->smax = (1LL << (bytes * 8 - 1)) - 1;
	reg_bounds_sync(r);
}

static uint64_t u_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}
static uint64_t u_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}
static int64_t s_max(int64_t a, int64_t b)
{
	return a > b ? a : b;
}
static int64_t s_min(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Tighten bounds from known bits, for one width. */
static void range_from_tnum(struct range *v, unsigned w)
{
	uint64_t sign = w == 64 ? 1ULL << 63 : 1ULL << 31;
	uint64_t lo = v->t.value | (v->t.mask & sign);
	uint64_t hi = v->t.value | (v->t.mask & ~sign & umax_of(w));

	v->umin = u_max(v->umin, v->t.value);
	v->umax = u_min(v->umax, v->t.value | v->t.mask);
	v->smin = s_max(v->smin, sext(lo, w));
	v->smax = s_min(v->smax, sext(hi, w));
}

/* Signed and unsigned bounds describe the same set: when one of them does not
 * cross the sign boundary, the two can be intersected. */
static void range_cross_sign(struct range *v, unsigned w)
{
	int64_t lo, hi;

	if (v->smin >= 0 || v->smax < 0) {
		uint64_t ulo = u_max((uint64_t)v->smin & umax_of(w), v->umin);
		uint64_t uhi = u_min((uint64_t)v->smax & umax_of(w), v->umax);

		v->umin = ulo;
		v->umax = uhi;
		v->smin = sext(ulo, w);
		v->smax = sext(uhi, w);
		return;
	}
	if (sext(v->umin, w) <= sext(v->umax, w)) {
		lo = s_max(v->smin, sext(v->umin, w));
		hi = s_min(v->smax, sext(v->umax, w));
		v->smin = lo;
		v->smax = hi;
		v->umin = (uint64_t)lo & umax_of(w);
		v->umax = (uint64_t)hi & umax_of(w);
	}
}

static bool range_empty(const struct range *v)
{
	return v->umin > v->umax || v->smin > v->smax;
}

bool reg_bounds_sync(struct reg_state *r)
{
	struct range v64, v32;
	int round;

	for (round = 0; round < 3; round++) {
		v64 = reg_view(r, 64);
		v32 = reg_view(r, 32);

		range_from_tnum(&v64, 64);
		range_from_tnum(&v32, 32);
		range_cross_sign(&v64, 64);
		range_cross_sign(&v32, 32);
		if (range_empty(&v64) || range_empty(&v32))
			return false;

		/* 64 -> 32: values sharing their upper half order their
		 * lower halves the same way. */
		if ((v64.umin >> 32) == (v64.umax >> 32)) {
			v32.umin = u_max(v32.umin, (uint32_t)v64.umin);
			v32.umax = u_min(v32.umax, (uint32_t)v64.umax);
		}
		if (((uint64_t)v64.smin >> 32) == ((uint64_t)v64.smax >> 32)) {
			v32.umin = u_max(v32.umin, (uint32_t)v64.smin);
			v32.umax = u_min(v32.umax, (uint32_t)v64.smax);
		}
		if (v64.smin >= INT32_MIN && v64.smax <= INT32_MAX) {
			v32.smin = s_max(v32.smin, v64.smin);
			v32.smax = s_min(v32.smax, v64.smax);
		}
		range_cross_sign(&v32, 32);
		if (range_empty(&v32))
			return false;

		/* 32 -> 64: with the upper half known, the lower half's
		 * bounds bound the whole value. */
		if ((v64.umin >> 32) == (v64.umax >> 32)) {
			uint64_t hi = v64.umin & ~0xffffffffULL;

			v64.umin = u_max(v64.umin, hi | v32.umin);
			v64.umax = u_min(v64.umax, hi | v32.umax);
		}
		if (v64.smin >= INT32_MIN && v64.smax <= INT32_MAX) {
			v64.smin = s_max(v64.smin, v32.smin);
			v64.smax = s_min(v64.smax, v32.smax);
		}
		range_cross_sign(&v64, 64);
		if (range_empty(&v64))
			return false;

		/* Known bits from the bounds; conflicting known bits mean the
		 * register cannot hold any value (a dead branch). */
		{
			struct tnum b64 = tnum_range(v64.umin, v64.umax);
			struct tnum b32 = tnum_range(v32.umin, v32.umax);
			struct tnum t32;

			if ((b64.value ^ v64.t.value) & ~b64.mask & ~v64.t.mask)
				return false;
			v64.t = tnum_intersect(v64.t, b64);
			t32 = tnum_cast(v64.t, 4);
			if ((b32.value ^ t32.value) & ~b32.mask & ~t32.mask)
				return false;
			t32 = tnum_intersect(t32, b32);
			v64.t.value = (v64.t.value & ~0xffffffffULL) | t32.value;
			v64.t.mask = (v64.t.mask & ~0xffffffffULL) | t32.mask;
			v32.t = t32;
		}
		reg_set_view(r, &v64, 64);
		reg_set_view(r, &v32, 32);
	}
	return true;
}

/* Is v known to fit in shift amounts below w? Returns the constant or -1. */
static int64_t const_shift(const struct range *b, unsigned w)
{
	if (!range_is_const(b) || b->umin >= w)
		return -1;
	return (int64_t)b->umin;
}

/* The two-operand ALU operations range_alu() follows (not mov, neg or
 * the byte swaps, which the verifier handles on their own). */
static bool alu_op_is_binary(uint8_t op)
{
	switch (op) {
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
	case BPF_DIV:
	case BPF_MOD:
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		return true;
	default:
		return false;
	}
}

/*
 * The bounds of dst OP src at width w, one function per operation, as the
 * kernel's scalar_min_max_add/sub/... Each starts from the full range and
 * narrows only what it can prove; constants were folded before.
 */
/* Two non-negative operands and a result that stays below the signed
 * maximum: the signed bounds are the unsigned ones. */
static void range_signed_if_nonneg(struct range *r, const struct range *a, const struct range *b,
				   unsigned w)
{
	if (a->smin >= 0 && b->smin >= 0 && r->umax <= (uint64_t)smax_of(w)) {
		r->smin = (int64_t)r->umin;
		r->smax = (int64_t)r->umax;
	}
}

static struct range scalar_range_add(const struct range *a, const struct range *b, unsigned w)
{
	struct range r = range_full(w);
	uint64_t lo = a->umin + b->umin, hi = a->umax + b->umax;

	r.t = tnum_width(tnum_add(a->t, b->t), w);
	if (!(w == 64 ? (hi < a->umax || lo < a->umin) : hi > umax_of(w))) {
		r.umin = lo;
		r.umax = hi;
	}
	if (w == 64) {
		int64_t slo, shi;

		if (!__builtin_add_overflow(a->smin, b->smin, &slo) &&
		    !__builtin_add_overflow(a->smax, b->smax, &shi)) {
			r.smin = slo;
			r.smax = shi;
		}
	} else if (a->smin + b->smin >= INT32_MIN && a->smax + b->smax <= INT32_MAX) {
		r.smin = a->smin + b->smin;
		r.smax = a->smax + b->smax;
	}
	return r;
}

static struct range scalar_range_sub(const struct range *a, const struct range *b, unsigned w)
{
	struct range r = range_full(w);

	r.t = tnum_width(tnum_sub(a->t, b->t), w);
	if (a->umin >= b->umax) {
		r.umin = a->umin - b->umax;
		r.umax = a->umax - b->umin;
	}
	if (w == 64) {
		int64_t slo, shi;

		if (!__builtin_sub_overflow(a->smin, b->smax, &slo) &&
		    !__builtin_sub_overflow(a->smax, b->smin, &shi)) {
			r.smin = slo;
			r.smax = shi;
		}
	} else if (a->smin - b->smax >= INT32_MIN && a->smax - b->smin <= INT32_MAX) {
		r.smin = a->smin - b->smax;
		r.smax = a->smax - b->smin;
	}
	return r;
}

static struct range scalar_range_mul(const struct range *a, const struct range *b, unsigned w)
{
	struct range r = range_full(w);
	uint64_t hi;

	r.t = tnum_width(tnum_mul(a->t, b->t), w);
	if (!__builtin_mul_overflow(a->umax, b->umax, &hi) && hi <= umax_of(w)) {
		r.umin = a->umin * b->umin;
		r.umax = hi;
		range_signed_if_nonneg(&r, a, b, w);
	}
	return r;
}

static struct range scalar_range_and(const struct range *a, const struct range *b, unsigned w)
{
	struct range r = range_full(w);

	r.t = tnum_and(a->t, b->t);
	r.umin = r.t.value;
	r.umax = u_min(a->umax, b->umax);
	if (a->smin >= 0 && b->smin >= 0) {
		r.smin = (int64_t)r.umin;
		r.smax = (int64_t)r.umax;
	}
	return r;
}

static struct range scalar_range_or(const struct range *a, const struct range *b, unsigned w)
{
	struct range r = range_full(w);

	r.t = tnum_or(a->t, b->t);
	r.umin = u_max(a->umin, b->umin);
	r.umax = r.t.value | r.t.mask;
	range_signed_if_nonneg(&r, a, b, w);
	return r;
}

static struct range scalar_range_xor(const struct range *a, const struct range *b, unsigned w)
{
	struct range r = range_full(w);

	r.t = tnum_xor(a->t, b->t);
	r.umin = r.t.value;
	r.umax = r.t.value | r.t.mask;
	range_signed_if_nonneg(&r, a, b, w);
	return r;
}

static struct range scalar_range_lsh(const struct range *a, const struct range *b, unsigned w)
{
	struct range r = range_full(w);
	int64_t k = const_shift(b, w);

	if (k < 0)
		return r;
	r.t = tnum_width(tnum_lshift(a->t, (unsigned)k), w);
	if (a->umax <= (umax_of(w) >> k)) {
		r.umin = a->umin << k;
		r.umax = a->umax << k;
	}
	return r;
}

static struct range scalar_range_rsh(const struct range *a, const struct range *b, unsigned w)
{
	struct range r = range_full(w);
	int64_t k = const_shift(b, w);

	if (k < 0) {
		/* Shifting right never makes a number larger. */
		r.umax = a->umax;
		r.t = tnum_range(0, a->umax);
		return r;
	}
	r.t = tnum_rshift(a->t, (unsigned)k);
	r.umin = a->umin >> k;
	r.umax = a->umax >> k;
	return r;
}

static struct range scalar_range_arsh(const struct range *a, const struct range *b, unsigned w)
{
	struct range r = range_full(w);
	int64_t k = const_shift(b, w);

	if (k < 0)
		return r;
	r.t = tnum_width(tnum_arshift(a->t, (unsigned)k, w), w);
	r.smin = a->smin >> k;
	r.smax = a->smax >> k;
	return r;
}

/* Unsigned division: x / y <= x, and x / 0 is 0 in BPF. */
static struct range scalar_range_div(const struct range *a, const struct range *b, unsigned w)
{
	struct range r = range_full(w);

	r.umax = a->umax;
	if (b->umin > 0)
		r.umin = a->umin / b->umax;
	if (range_is_const(b) && b->umin > 0)
		r.umax = a->umax / b->umin;
	r.t = tnum_range(r.umin, r.umax);
	return r;
}

/* Unsigned modulo: x % y <= x, and x % 0 is x in BPF. */
static struct range scalar_range_mod(const struct range *a, const struct range *b, unsigned w)
{
	struct range r = range_full(w);

	r.umax = a->umax;
	if (b->umin > 0)
		r.umax = u_min(a->umax, b->umax - 1);
	r.t = tnum_range(0, r.umax);
	return r;
}

/*
 * dst = dst OP src at width w, for the operations whose result does not
 * depend on the register's type. Two constants fold to the instruction's
 * exact result (vm/alu.h); signed division and modulo stay unknown, and so
 * do bounds no scalar_range_* function can follow.
 */
static struct range range_alu(uint8_t op, const struct range *a, const struct range *b, unsigned w,
			      bool is_signed)
{
	uint64_t v;

	if (!alu_op_is_binary(op) || (is_signed && (op == BPF_DIV || op == BPF_MOD)))
		return range_full(w);
	if (range_is_const(a) && range_is_const(b) && !is_signed &&
	    bpf_alu_eval((uint8_t)((w == 64 ? BPF_ALU64 : BPF_ALU) | op | BPF_X), 0, 0, a->umin,
			 b->umin, &v))
		return range_const(v, w);
	switch (op) {
	case BPF_ADD:
		return scalar_range_add(a, b, w);
	case BPF_SUB:
		return scalar_range_sub(a, b, w);
	case BPF_MUL:
		return scalar_range_mul(a, b, w);
	case BPF_AND:
		return scalar_range_and(a, b, w);
	case BPF_OR:
		return scalar_range_or(a, b, w);
	case BPF_XOR:
		return scalar_range_xor(a, b, w);
	case BPF_LSH:
		return scalar_range_lsh(a, b, w);
	case BPF_RSH:
		return scalar_range_rsh(a, b, w);
	case BPF_ARSH:
		return scalar_range_arsh(a, b, w);
	case BPF_DIV:
		return scalar_range_div(a, b, w);
	default:
		return scalar_range_mod(a, b, w);
	}
}

/* Operations whose low 32 bits depend only on the operands' low 32 bits. */
static bool op_keeps_subreg(uint8_t op)
{
	switch (op) {
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		return true;
	default:
		return false;
	}
}

void scalar_alu(struct reg_state *dst, const struct reg_state *src, uint8_t op, bool is64,
		bool is_signed)
{
	struct range a, b, r64, r32;

	if (is64) {
		a = reg_view(dst, 64);
		b = reg_view(src, 64);
		r64 = range_alu(op, &a, &b, 64, is_signed);
		if (op_keeps_subreg(op)) {
			a = reg_view(dst, 32);
			b = reg_view(src, 32);
			r32 = range_alu(op, &a, &b, 32, is_signed);
		} else {
			r32 = range_full(32);
		}
		reg_mark_unknown(dst);
		reg_set_view(dst, &r64, 64);
		reg_set_view(dst, &r32, 32);
	} else {
		a = reg_view(dst, 32);
		b = reg_view(src, 32);
		r32 = range_alu(op, &a, &b, 32, is_signed);
		reg_mark_unknown(dst);
		dst->var_off = tnum_cast(r32.t, 4);
		dst->umin = 0;
		dst->umax = UINT32_MAX;
		dst->smin = 0;
		dst->smax = UINT32_MAX;
		reg_set_view(dst, &r32, 32);
	}
	if (!reg_bounds_sync(dst))
		reg_mark_unknown(dst); /* cannot happen on sound input; stay safe */
}

void scalar_zext32(struct reg_state *r)
{
	struct range v = reg_view(r, 32);

	reg_mark_unknown(r);
	r->var_off = tnum_cast(v.t, 4);
	r->umin = 0;
	r->umax = UINT32_MAX;
	r->smin = 0;
	r->smax = UINT32_MAX;
	reg_set_view(r, &v, 32);
	if (!reg_bounds_sync(r))
		reg_mark_unknown(r);
}

void scalar_end(struct reg_state *r, unsigned bits, bool swap)
{
	uint64_t keep = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
	uint64_t v;

	/* ALU64 BPF_END swaps; BPF_ALU | BPF_TO_LE truncates */
	if (tnum_is_const(r->var_off) &&
	    bpf_alu_eval(swap ? BPF_ALU64 | BPF_END | BPF_TO_LE : BPF_ALU | BPF_END | BPF_TO_LE, 0,
			 (int32_t)bits, r->var_off.value, 0, &v)) {
		reg_mark_const(r, v);
		return;
	}
	if (!swap) {
		/* to little endian on a little-endian host: truncation */
		struct reg_state mask;

		reg_mark_const(&mask, keep);
		scalar_alu(r, &mask, BPF_AND, true, false);
		return;
	}
	reg_mark_unknown_size(r, bits / 8);
}

void scalar_movsx(struct reg_state *r, unsigned bits, bool is64)
{
	uint64_t v;

	if (tnum_is_const(r->var_off) &&
	    bpf_alu_eval((is64 ? BPF_ALU64 : BPF_ALU) | BPF_MOV | BPF_X, (int16_t)bits, 0, 0,
			 r->var_off.value, &v)) {
		reg_mark_const(r, v);
		return;
	}
	/* A value below 2^(bits-1) is unchanged by sign extension. */
	if (r->umax < (1ULL << (bits - 1))) {
		if (!is64)
			scalar_zext32(r);
		return;
	}
	reg_mark_unknown_sext(r, bits / 8);
	if (!is64)
		scalar_zext32(r);
}

/* ---- conditional jumps ---- */

static int range_branch_taken(const struct range *a, const struct range *b, uint8_t op, unsigned w)
{
	switch (op) {
	case BPF_JEQ:
		if (range_is_const(a) && range_is_const(b))
			return a->umin == b->umin;
		if (a->umin > b->umax || a->umax < b->umin || a->smin > b->smax ||
		    a->smax < b->smin)
			return 0;
		if ((a->t.value ^ b->t.value) & ~a->t.mask & ~b->t.mask)
			return 0;
		return -1;
	case BPF_JNE: {
		int r = range_branch_taken(a, b, BPF_JEQ, w);

		return r < 0 ? r : !r;
	}
	case BPF_JGT:
		if (a->umin > b->umax)
			return 1;
		if (a->umax <= b->umin)
			return 0;
		return -1;
	case BPF_JGE:
		if (a->umin >= b->umax)
			return 1;
		if (a->umax < b->umin)
			return 0;
		return -1;
	case BPF_JLT:
		return range_branch_taken(b, a, BPF_JGT, w);
	case BPF_JLE:
		return range_branch_taken(b, a, BPF_JGE, w);
	case BPF_JSGT:
		if (a->smin > b->smax)
			return 1;
		if (a->smax <= b->smin)
			return 0;
		return -1;
	case BPF_JSGE:
		if (a->smin >= b->smax)
			return 1;
		if (a->smax < b->smin)
			return 0;
		return -1;
	case BPF_JSLT:
		return range_branch_taken(b, a, BPF_JSGT, w);
	case BPF_JSLE:
		return range_branch_taken(b, a, BPF_JSGE, w);
	case BPF_JSET:
		if (a->t.value & b->t.value)
			return 1;
		if (!((a->t.value | a->t.mask) & (b->t.value | b->t.mask)))
			return 0;
		return -1;
	default:
		return -1;
	}
}

int scalar_branch_taken(const struct reg_state *a, const struct reg_state *b, uint8_t op, bool is64)
{
	unsigned w = is64 ? 64 : 32;
	struct range va = reg_view(a, w), vb = reg_view(b, w);

	return range_branch_taken(&va, &vb, op, w);
}

/* The condition that holds on the fall-through edge of op. */
static uint8_t negate_op(uint8_t op)
{
	switch (op) {
	case BPF_JEQ:
		return BPF_JNE;
	case BPF_JNE:
		return BPF_JEQ;
	case BPF_JGT:
		return BPF_JLE;
	case BPF_JLE:
		return BPF_JGT;
	case BPF_JGE:
		return BPF_JLT;
	case BPF_JLT:
		return BPF_JGE;
	case BPF_JSGT:
		return BPF_JSLE;
	case BPF_JSLE:
		return BPF_JSGT;
	case BPF_JSGE:
		return BPF_JSLT;
	case BPF_JSLT:
		return BPF_JSGE;
	default:
		return 0; /* JSET: handled by its caller */
	}
}

/* Narrow a and b so that "a OP b" holds; returns false if it cannot. */
static bool range_assume(struct range *a, struct range *b, uint8_t op, unsigned w)
{
	switch (op) {
	case BPF_JEQ:
		if ((a->t.value ^ b->t.value) & ~a->t.mask & ~b->t.mask)
			return false;
		a->t = b->t = tnum_intersect(a->t, b->t);
		a->umin = b->umin = u_max(a->umin, b->umin);
		a->umax = b->umax = u_min(a->umax, b->umax);
		a->smin = b->smin = s_max(a->smin, b->smin);
		a->smax = b->smax = s_min(a->smax, b->smax);
		break;
	case BPF_JNE:
		/* Only an end of a range equal to a constant can be cut off. */
		if (range_is_const(b)) {
			if (a->umin == b->umin && a->umin < umax_of(w))
				a->umin++;
			else if (a->umax == b->umin && a->umax > 0)
				a->umax--;
			if (a->smin == b->smin && a->smin < smax_of(w))
				a->smin++;
			else if (a->smax == b->smin && a->smax > smin_of(w))
				a->smax--;
		} else if (range_is_const(a)) {
			return range_assume(b, a, BPF_JNE, w);
		}
		break;
	case BPF_JGT:
		if (b->umin == umax_of(w) || a->umax == 0)
			return false;
		a->umin = u_max(a->umin, b->umin + 1);
		b->umax = u_min(b->umax, a->umax - 1);
		break;
	case BPF_JGE:
		a->umin = u_max(a->umin, b->umin);
		b->umax = u_min(b->umax, a->umax);
		break;
	case BPF_JLT:
		return range_assume(b, a, BPF_JGT, w);
	case BPF_JLE:
		return range_assume(b, a, BPF_JGE, w);
	case BPF_JSGT:
		if (b->smin == smax_of(w) || a->smax == smin_of(w))
			return false;
		a->smin = s_max(a->smin, b->smin + 1);
		b->smax = s_min(b->smax, a->smax - 1);
		break;
	case BPF_JSGE:
		a->smin = s_max(a->smin, b->smin);
		b->smax = s_min(b->smax, a->smax);
		break;
	case BPF_JSLT:
		return range_assume(b, a, BPF_JSGT, w);
	case BPF_JSLE:
		return range_assume(b, a, BPF_JSGE, w);
	default:
		break;
	}
	return !range_empty(a) && !range_empty(b);
}

bool scalar_branch_refine(struct reg_state *a, struct reg_state *b, uint8_t op, bool is64,
			  bool taken)
{
	unsigned w = is64 ? 64 : 32;
	struct range va = reg_view(a, w), vb = reg_view(b, w);

	if (op == BPF_JSET) {
		if (!range_is_const(&vb))
			return true;
		if (taken) {
			/* A single tested bit must be set. */
			if (vb.umin && !(vb.umin & (vb.umin - 1))) {
				va.t.value |= vb.umin;
				va.t.mask &= ~vb.umin;
			}
		} else {
			va.t.value &= ~vb.umin;
			va.t.mask &= ~vb.umin;
		}
	} else if (!range_assume(&va, &vb, taken ? op : negate_op(op), w)) {
		return false;
	}
	reg_set_view(a, &va, w);
	reg_set_view(b, &vb, w);
	return reg_bounds_sync(a) && reg_bounds_sync(b);
}
