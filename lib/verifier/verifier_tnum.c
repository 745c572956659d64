// SPDX-License-Identifier: MIT
/*
 * Tristate numbers for the verifier: each bit of a register is known 0,
 * known 1 or unknown. The arithmetic here over-approximates: the result's
 * unknown bits cover every value the operation can produce.
 */
#include "verifier/verifier_internal.h"

struct tnum tnum_const(uint64_t v)
{
	return (struct tnum){ .value = v, .mask = 0 };
}

struct tnum tnum_unknown(void)
{
	return (struct tnum){ .value = 0, .mask = ~0ULL };
}

/* The smallest tnum holding every value of [min, max]: the bits above the
 * highest bit where min and max differ are shared, the rest unknown. */
struct tnum tnum_range(uint64_t min, uint64_t max)
{
	uint64_t differ = min ^ max;
	uint64_t low;
	int bits;

	if (!differ)
		return tnum_const(min);
	bits = 64 - __builtin_clzll(differ);
	if (bits >= 64)
		return tnum_unknown();
	low = (1ULL << bits) - 1;
	return (struct tnum){ .value = min & ~low, .mask = low };
}

/* Addition: the carries out of unknown bits are unknown; computing the sums
 * of the minimal and maximal operands shows which bits a carry can flip. */
struct tnum tnum_add(struct tnum a, struct tnum b)
{
	uint64_t mask_sum = a.mask + b.mask;
	uint64_t value_sum = a.value + b.value;
	uint64_t max_sum = mask_sum + value_sum;
	uint64_t flipped = max_sum ^ value_sum;
	uint64_t unknown = flipped | a.mask | b.mask;

	return (struct tnum){ .value = value_sum & ~unknown, .mask = unknown };
}

/* Subtraction, by the same reasoning with borrows. */
struct tnum tnum_sub(struct tnum a, struct tnum b)
{
	uint64_t diff = a.value - b.value;
	uint64_t highest = diff + a.mask;
	uint64_t lowest = diff - b.mask;
	uint64_t unknown = (highest ^ lowest) | a.mask | b.mask;

	return (struct tnum){ .value = diff & ~unknown, .mask = unknown };
}

struct tnum tnum_and(struct tnum a, struct tnum b)
{
	uint64_t may_a = a.value | a.mask;
	uint64_t may_b = b.value | b.mask;
	uint64_t ones = a.value & b.value;

	return (struct tnum){ .value = ones, .mask = may_a & may_b & ~ones };
}

struct tnum tnum_or(struct tnum a, struct tnum b)
{
	uint64_t ones = a.value | b.value;
	uint64_t unknown = a.mask | b.mask;

	return (struct tnum){ .value = ones, .mask = unknown & ~ones };
}

struct tnum tnum_xor(struct tnum a, struct tnum b)
{
	uint64_t unknown = a.mask | b.mask;

	return (struct tnum){ .value = (a.value ^ b.value) & ~unknown, .mask = unknown };
}

/* Long multiplication: for each bit of a, add b shifted; an unknown bit of
 * a adds either 0 or b, which tnum_union of the two covers. */
struct tnum tnum_mul(struct tnum a, struct tnum b)
{
	struct tnum acc = tnum_const(0);
	int i;

	if (tnum_is_const(a) && tnum_is_const(b))
		return tnum_const(a.value * b.value);
	for (i = 0; i < 64 && (a.value | a.mask); i++) {
		if (a.value & 1)
			acc = tnum_add(acc, b);
		else if (a.mask & 1)
			acc = tnum_union(acc, tnum_add(acc, b));
		a.value >>= 1;
		a.mask >>= 1;
		b.value <<= 1;
		b.mask <<= 1;
	}
	return acc;
}

struct tnum tnum_lshift(struct tnum a, unsigned shift)
{
	if (shift >= 64)
		return tnum_const(0);
	return (struct tnum){ .value = a.value << shift, .mask = a.mask << shift };
}

struct tnum tnum_rshift(struct tnum a, unsigned shift)
{
	if (shift >= 64)
		return tnum_const(0);
	return (struct tnum){ .value = a.value >> shift, .mask = a.mask >> shift };
}

/* Arithmetic shift within a width of 32 or 64 bits: the sign bit (known or
 * not) is copied into the vacated bits, then the result is cut to width. */
struct tnum tnum_arshift(struct tnum a, unsigned shift, unsigned width)
{
	struct tnum r;

	if (width == 32) {
		r.value = (uint64_t)(uint32_t)((int32_t)(uint32_t)a.value >> shift);
		r.mask = (uint64_t)(uint32_t)((int32_t)(uint32_t)a.mask >> shift);
	} else {
		r.value = (uint64_t)((int64_t)a.value >> shift);
		r.mask = (uint64_t)((int64_t)a.mask >> shift);
	}
	return r;
}

/* Values that both a and b allow (a and b are assumed to overlap). */
struct tnum tnum_intersect(struct tnum a, struct tnum b)
{
	uint64_t ones = a.value | b.value;
	uint64_t unknown = a.mask & b.mask;

	return (struct tnum){ .value = ones & ~unknown, .mask = unknown };
}

/* Values that a or b allow: any bit where they disagree becomes unknown. */
struct tnum tnum_union(struct tnum a, struct tnum b)
{
	uint64_t unknown = a.mask | b.mask | (a.value ^ b.value);

	return (struct tnum){ .value = a.value & ~unknown, .mask = unknown };
}

struct tnum tnum_cast(struct tnum a, unsigned bytes)
{
	uint64_t keep = bytes >= 8 ? ~0ULL : (1ULL << (bytes * 8)) - 1;

	return (struct tnum){ .value = a.value & keep, .mask = a.mask & keep };
}

bool tnum_is_const(struct tnum a)
{
	return a.mask == 0;
}

bool tnum_in(struct tnum a, struct tnum b)
{
	if (b.mask & ~a.mask)
		return false;
	return a.value == (b.value & ~a.mask);
}
