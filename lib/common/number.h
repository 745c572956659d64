/* SPDX-License-Identifier: MIT */
/*
 * The one parser of integer literals in the library and tools: [sign]
 * decimal or [sign] 0x hex, as the assembler and --set VAR=VALUE write them,
 * into a sign and a 64-bit magnitude so each caller checks its own range.
 */
#ifndef SECBPF_NUMBER_H
#define SECBPF_NUMBER_H

#include <stdbool.h>
#include <stdint.h>

/* A parsed literal: -mag if neg, else mag. */
struct number {
	uint64_t mag; /* 0 .. 2^64 - 1 */
	bool neg;     /* written with a leading '-' (also for "-0") */
	bool hex;     /* written with a 0x or 0X prefix */
};

/* Flags for number_parse. */
#define NUMBER_ALLOW_PLUS 0x1u /* accept a leading '+' as well as '-' */

/*
 * Parse all of s: an optional '-' (and '+' with NUMBER_ALLOW_PLUS), then
 * decimal digits, or 0x/0X and hex digits of either case. A leading 0 is
 * decimal, not octal ("010" is ten). No white space, no trailing junk, at
 * most one sign. Returns 0 with *out filled, -EINVAL if s is not such a
 * literal (empty, a sign or a prefix alone, a bad digit), -ERANGE if the
 * magnitude exceeds 2^64 - 1. *out is left untouched on failure.
 */
int number_parse(const char *s, unsigned int flags, struct number *out);

/* The literal's value as a 64-bit two's complement bit pattern. */
uint64_t number_bits(const struct number *n);

/*
 * Whether n fits an integer of bits bits (1..64): for a signed one,
 * -2^(bits-1) .. 2^(bits-1) - 1; for an unsigned one, 0 .. 2^bits - 1
 * ("-0" fits either).
 */
bool number_fits(const struct number *n, unsigned int bits, bool is_signed);

#endif
