// SPDX-License-Identifier: MIT
/*
 * Integer literals (see number.h). Written by hand rather than on strtoull,
 * which skips white space, accepts a sign after the prefix ("0x-1") and
 * reads a leading 0 as octal with base 0.
 */
#include <errno.h>
#include <stddef.h>

#include "common/number.h"

/* The value of digit c in base (10 or 16), or -1. */
static int digit_value(char c, unsigned int base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int number_parse(const char *s, unsigned int flags, struct number *out)
{
	struct number n = { 0 };
	unsigned int base = 10;

	if (!s || !out)
		return -EINVAL;
	if (*s == '-') {
		n.neg = true;
		s++;
	} else if (*s == '+' && (flags & NUMBER_ALLOW_PLUS)) {
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		n.hex = true;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		int d = digit_value(*s, base);

		if (d < 0)
			return -EINVAL;
		if (n.mag > (UINT64_MAX - (unsigned int)d) / base)
			return -ERANGE;
		n.mag = n.mag * base + (unsigned int)d;
	}
	*out = n;
	return 0;
}

uint64_t number_bits(const struct number *n)
{
	return n->neg ? (uint64_t)0 - n->mag : n->mag;
}

bool number_fits(const struct number *n, unsigned int bits, bool is_signed)
{
	uint64_t max_pos, max_neg = 0;

	if (bits == 0 || bits > 64)
		return false;
	max_pos = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
	if (is_signed) {
		max_pos >>= 1;
		max_neg = max_pos + 1;
	}
	return n->neg ? n->mag <= max_neg : n->mag <= max_pos;
}
