// SPDX-License-Identifier: MIT
/*
 * Tests of lib/common/number.c, the one integer-literal parser: every form
 * it accepts and refuses, the edges of the 64-bit range, and the range check
 * callers use for 1..64-bit signed and unsigned integers.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "common/number.h"

struct parse_case {
	const char *s;
	unsigned int flags;
	int ret;
	bool neg;
	bool hex;
	uint64_t mag;
};

static void check_cases(const struct parse_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct number out = { .mag = 12345, .neg = true, .hex = true };
		int ret = number_parse(c[i].s, c[i].flags, &out);

		cr_assert_eq(ret, c[i].ret, "'%s' (flags %u): %d, expected %d", c[i].s, c[i].flags,
			     ret, c[i].ret);
		if (ret) {
			/* Failure leaves the output alone. */
			cr_assert(out.mag == 12345 && out.neg && out.hex, "'%s' wrote *out",
				  c[i].s);
			continue;
		}
		cr_assert_eq(out.mag, c[i].mag, "'%s': mag %llu", c[i].s,
			     (unsigned long long)out.mag);
		cr_assert_eq(out.neg, c[i].neg, "'%s': neg", c[i].s);
		cr_assert_eq(out.hex, c[i].hex, "'%s': hex", c[i].s);
	}
}

Test(number, accepted)
{
	static const struct parse_case cases[] = {
		{ "0", 0, 0, false, false, 0 },
		{ "7", 0, 0, false, false, 7 },
		{ "-0", 0, 0, true, false, 0 },
		{ "-42", 0, 0, true, false, 42 },
		{ "010", 0, 0, false, false, 10 }, /* decimal, not octal */
		{ "0000000000000000000000000000001", 0, 0, false, false, 1 },
		{ "0x0", 0, 0, false, true, 0 },
		{ "0X1f", 0, 0, false, true, 0x1f },
		{ "0xAbCdEf", 0, 0, false, true, 0xabcdef },
		{ "-0x80", 0, 0, true, true, 0x80 },
		{ "+5", NUMBER_ALLOW_PLUS, 0, false, false, 5 },
		{ "+0x10", NUMBER_ALLOW_PLUS, 0, false, true, 16 },
		{ "-5", NUMBER_ALLOW_PLUS, 0, true, false, 5 },
		{ "18446744073709551615", 0, 0, false, false, UINT64_MAX },
		{ "-18446744073709551615", 0, 0, true, false, UINT64_MAX },
		{ "0xffffffffffffffff", 0, 0, false, true, UINT64_MAX },
		{ "0x00000000000000000000ffffffffffffffff", 0, 0, false, true, UINT64_MAX },
		{ "9223372036854775808", 0, 0, false, false, 0x8000000000000000ull },
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

Test(number, refused)
{
	static const struct parse_case cases[] = {
		{ "", 0, -EINVAL, false, false, 0 },
		{ "-", 0, -EINVAL, false, false, 0 },
		{ "+", NUMBER_ALLOW_PLUS, -EINVAL, false, false, 0 },
		{ "+5", 0, -EINVAL, false, false, 0 }, /* '+' only when asked for */
		{ "0x", 0, -EINVAL, false, false, 0 },
		{ "-0x", 0, -EINVAL, false, false, 0 },
		{ "--1", 0, -EINVAL, false, false, 0 },
		{ "-+1", NUMBER_ALLOW_PLUS, -EINVAL, false, false, 0 },
		{ "+-1", NUMBER_ALLOW_PLUS, -EINVAL, false, false, 0 },
		{ "0x-1", 0, -EINVAL, false, false, 0 },
		{ "0x+1", 0, -EINVAL, false, false, 0 },
		{ "0x0x1", 0, -EINVAL, false, false, 0 },
		{ " 1", 0, -EINVAL, false, false, 0 },
		{ "1 ", 0, -EINVAL, false, false, 0 },
		{ "1\n", 0, -EINVAL, false, false, 0 },
		{ "12abc", 0, -EINVAL, false, false, 0 },
		{ "ff", 0, -EINVAL, false, false, 0 },
		{ "0xfg", 0, -EINVAL, false, false, 0 },
		{ "1.5", 0, -EINVAL, false, false, 0 },
		{ "1e3", 0, -EINVAL, false, false, 0 },
		{ "1_000", 0, -EINVAL, false, false, 0 },
		{ "0b101", 0, -EINVAL, false, false, 0 },
		{ "true", 0, -EINVAL, false, false, 0 },
		{ "18446744073709551616", 0, -ERANGE, false, false, 0 },
		{ "-18446744073709551616", 0, -ERANGE, false, false, 0 },
		{ "99999999999999999999999999", 0, -ERANGE, false, false, 0 },
		{ "0x10000000000000000", 0, -ERANGE, false, false, 0 },
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
	cr_assert_eq(number_parse(NULL, 0, &(struct number){ 0 }), -EINVAL);
	cr_assert_eq(number_parse("1", 0, NULL), -EINVAL);
}

Test(number, bits)
{
	struct number n;

	cr_assert_eq(number_parse("-1", 0, &n), 0);
	cr_assert_eq(number_bits(&n), UINT64_MAX);
	cr_assert_eq(number_parse("-0", 0, &n), 0);
	cr_assert_eq(number_bits(&n), 0);
	cr_assert_eq(number_parse("-9223372036854775808", 0, &n), 0);
	cr_assert_eq(number_bits(&n), 0x8000000000000000ull);
	cr_assert_eq(number_parse("0x7f", 0, &n), 0);
	cr_assert_eq(number_bits(&n), 0x7f);
}

static bool fits(const char *s, unsigned int bits, bool is_signed)
{
	struct number n;

	cr_assert_eq(number_parse(s, 0, &n), 0, "'%s'", s);
	return number_fits(&n, bits, is_signed);
}

Test(number, fits)
{
	cr_assert(fits("255", 8, false));
	cr_assert(!fits("256", 8, false));
	cr_assert(!fits("-1", 8, false));
	cr_assert(fits("-0", 8, false));
	cr_assert(fits("127", 8, true));
	cr_assert(!fits("128", 8, true));
	cr_assert(fits("-128", 8, true));
	cr_assert(!fits("-129", 8, true));
	cr_assert(fits("1", 1, false));
	cr_assert(!fits("2", 1, false));
	cr_assert(fits("-1", 1, true));
	cr_assert(!fits("1", 1, true));
	cr_assert(fits("4294967295", 32, false));
	cr_assert(!fits("4294967296", 32, false));
	cr_assert(fits("-2147483648", 32, true));
	cr_assert(!fits("2147483648", 32, true));
	cr_assert(fits("18446744073709551615", 64, false));
	cr_assert(!fits("18446744073709551615", 64, true));
	cr_assert(fits("9223372036854775807", 64, true));
	cr_assert(fits("-9223372036854775808", 64, true));
	cr_assert(!fits("-9223372036854775809", 64, true));
	cr_assert(!fits("-1", 64, false));
	cr_assert(!fits("0", 0, false));
	cr_assert(!fits("0", 65, true));
}
