// SPDX-License-Identifier: MIT
/*
 * Tests of lib/vm/alu.h, the one eBPF ALU evaluator: the edges where C and
 * the ISA differ (INT_MIN / -1, division and modulo by zero, shifts by the
 * width or more), 32-bit zero extension, sign extension and byte swaps.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "vm/alu.h"

#define ALU64_X(op) (BPF_ALU64 | (op) | BPF_X)
#define ALU32_X(op) (BPF_ALU | (op) | BPF_X)

static uint64_t eval(uint8_t code, int16_t off, int32_t imm, uint64_t dst, uint64_t src)
{
	uint64_t v = 0xdeadbeefdeadbeefull;

	cr_assert(bpf_alu_eval(code, off, imm, dst, src, &v), "code 0x%02x off %d imm %d refused",
		  code, off, imm);
	return v;
}

#define EXPECT(code, off, imm, dst, src, want)                                                  \
	cr_expect_eq(eval(code, off, imm, dst, src), (uint64_t)(want),                           \
		     "code 0x%02x off %d: 0x%llx op 0x%llx = 0x%llx, want 0x%llx", code, off,     \
		     (unsigned long long)(dst), (unsigned long long)(src),                       \
		     (unsigned long long)eval(code, off, imm, dst, src),                         \
		     (unsigned long long)(want))

Test(alu, signed_division_overflow)
{
	/* INT_MIN / -1 overflows in C; the ISA gives INT_MIN, remainder 0. */
	EXPECT(ALU64_X(BPF_DIV), 1, 0, INT64_MIN, -1, INT64_MIN);
	EXPECT(ALU64_X(BPF_MOD), 1, 0, INT64_MIN, -1, 0);
	EXPECT(ALU32_X(BPF_DIV), 1, 0, 0x80000000u, 0xffffffffu, 0x80000000u);
	EXPECT(ALU32_X(BPF_MOD), 1, 0, 0x80000000u, 0xffffffffu, 0);
	/* the 32-bit forms ignore the upper halves of both operands */
	EXPECT(ALU32_X(BPF_DIV), 1, 0, 0x1234567880000000ull, 0xabcdef00ffffffffull, 0x80000000u);
	/* truncation toward zero; the remainder has the dividend's sign */
	EXPECT(ALU64_X(BPF_DIV), 1, 0, -7, 2, -3);
	EXPECT(ALU64_X(BPF_MOD), 1, 0, -7, 2, -1);
	EXPECT(ALU64_X(BPF_MOD), 1, 0, 7, -2, 1);
	EXPECT(ALU32_X(BPF_DIV), 1, 0, (uint32_t)-7, 2, (uint32_t)-3);
	EXPECT(ALU32_X(BPF_MOD), 1, 0, (uint32_t)-7, 2, (uint32_t)-1);
	/* unsigned division of the same bits */
	EXPECT(ALU64_X(BPF_DIV), 0, 0, INT64_MIN, -1, 0);
	EXPECT(ALU64_X(BPF_MOD), 0, 0, INT64_MIN, -1, INT64_MIN);
}

Test(alu, division_by_zero)
{
	/* x / 0 = 0 and x % 0 = x, signed or not, at both widths */
	EXPECT(ALU64_X(BPF_DIV), 0, 0, 42, 0, 0);
	EXPECT(ALU64_X(BPF_DIV), 1, 0, -42, 0, 0);
	EXPECT(ALU64_X(BPF_MOD), 0, 0, 42, 0, 42);
	EXPECT(ALU64_X(BPF_MOD), 1, 0, -42, 0, -42);
	EXPECT(ALU32_X(BPF_DIV), 0, 0, 42, 0, 0);
	EXPECT(ALU32_X(BPF_DIV), 1, 0, 42, 0, 0);
	/* the 32-bit remainder is dst's low half, zero extended */
	EXPECT(ALU32_X(BPF_MOD), 0, 0, 0xffffffff00000042ull, 0, 0x42);
	EXPECT(ALU32_X(BPF_MOD), 1, 0, 0xfffffffffffffffeull, 0, 0xfffffffeu);
	/* a divisor whose low half is zero is zero for the 32-bit forms */
	EXPECT(ALU32_X(BPF_DIV), 0, 0, 42, 0x100000000ull, 0);
	EXPECT(ALU32_X(BPF_MOD), 0, 0, 42, 0x100000000ull, 42);
}

Test(alu, shifts_are_masked_to_the_width)
{
	EXPECT(ALU64_X(BPF_LSH), 0, 0, 1, 64, 1);
	EXPECT(ALU64_X(BPF_LSH), 0, 0, 1, 65, 2);
	EXPECT(ALU64_X(BPF_RSH), 0, 0, 0x8000000000000000ull, 127, 1);
	EXPECT(ALU64_X(BPF_ARSH), 0, 0, 0x8000000000000000ull, 63, UINT64_MAX);
	EXPECT(ALU64_X(BPF_ARSH), 0, 0, 0x8000000000000000ull, 64, 0x8000000000000000ull);
	EXPECT(ALU32_X(BPF_LSH), 0, 0, 1, 32, 1);
	EXPECT(ALU32_X(BPF_LSH), 0, 0, 1, 33, 2);
	EXPECT(ALU32_X(BPF_RSH), 0, 0, 0x80000000u, 63, 1);
	/* 32-bit arsh works on the low half's sign, and zero-extends */
	EXPECT(ALU32_X(BPF_ARSH), 0, 0, 0x80000000u, 31, 0xffffffffu);
	EXPECT(ALU32_X(BPF_ARSH), 0, 0, 0x80000000u, 32, 0x80000000u);
	EXPECT(ALU32_X(BPF_ARSH), 0, 0, 0x0000000180000000ull, 4, 0xf8000000u);
	/* a negative shift amount is a large one: only its low bits count */
	EXPECT(ALU64_X(BPF_LSH), 0, 0, 1, (uint64_t)-1, 0x8000000000000000ull);
}

Test(alu, thirty_two_bit_results_are_zero_extended)
{
	EXPECT(ALU32_X(BPF_ADD), 0, 0, 0xffffffff, 1, 0);
	EXPECT(ALU32_X(BPF_SUB), 0, 0, 0, 1, 0xffffffffu);
	EXPECT(ALU32_X(BPF_MUL), 0, 0, 0x10000, 0x10000, 0);
	EXPECT(ALU32_X(BPF_OR), 0, 0, 0xffffffff00000000ull, 1, 1);
	EXPECT(ALU32_X(BPF_AND), 0, 0, UINT64_MAX, UINT64_MAX, 0xffffffffu);
	EXPECT(ALU32_X(BPF_XOR), 0, 0, 0xaaaaaaaa55555555ull, 0, 0x55555555u);
	EXPECT(ALU32_X(BPF_MOV), 0, 0, 0, UINT64_MAX, 0xffffffffu);
	EXPECT(BPF_ALU | BPF_NEG, 0, 0, 1, 0, 0xffffffffu);
	EXPECT(BPF_ALU | BPF_NEG, 0, 0, 0xffffffff00000000ull, 0, 0);
	/* a BPF_K immediate arrives sign-extended; its low half is used */
	EXPECT(BPF_ALU | BPF_ADD | BPF_K, 0, 0, 1, (uint64_t)(int64_t)-1, 0);
	EXPECT(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 1, (uint64_t)(int64_t)-1, 0);
	EXPECT(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, (uint64_t)(int64_t)-2, (uint64_t)-2);
	EXPECT(BPF_ALU64 | BPF_NEG, 0, 0, 1, 0, UINT64_MAX);
	EXPECT(BPF_ALU64 | BPF_NEG, 0, 0, INT64_MIN, 0, INT64_MIN);
}

Test(alu, sign_extension)
{
	EXPECT(ALU64_X(BPF_MOV), 8, 0, 0, 0x80, 0xffffffffffffff80ull);
	EXPECT(ALU64_X(BPF_MOV), 8, 0, 0, 0x17f, 0x7f);
	EXPECT(ALU64_X(BPF_MOV), 16, 0, 0, 0x8000, 0xffffffffffff8000ull);
	EXPECT(ALU64_X(BPF_MOV), 32, 0, 0, 0x80000000u, 0xffffffff80000000ull);
	EXPECT(ALU64_X(BPF_MOV), 32, 0, 0, 0xffffffff7fffffffull, 0x7fffffff);
	/* into a 32-bit register: sign-extended to 32 bits, then zero-extended */
	EXPECT(ALU32_X(BPF_MOV), 8, 0, 0, 0x80, 0xffffff80u);
	EXPECT(ALU32_X(BPF_MOV), 16, 0, 0, 0xffff8000ull << 16 | 0x8000, 0xffff8000u);
	EXPECT(ALU32_X(BPF_MOV), 16, 0, 0, 0x7fff, 0x7fff);
}

Test(alu, byte_swaps)
{
	const uint64_t x = 0x1122334455667788ull;

	EXPECT(BPF_ALU | BPF_END | BPF_TO_LE, 0, 16, x, 0, 0x7788);
	EXPECT(BPF_ALU | BPF_END | BPF_TO_LE, 0, 32, x, 0, 0x55667788);
	EXPECT(BPF_ALU | BPF_END | BPF_TO_LE, 0, 64, x, 0, x);
	EXPECT(BPF_ALU | BPF_END | BPF_TO_BE, 0, 16, x, 0, 0x8877);
	EXPECT(BPF_ALU | BPF_END | BPF_TO_BE, 0, 32, x, 0, 0x88776655);
	/* 64-bit width: no 32-bit truncation, even in the BPF_ALU class */
	EXPECT(BPF_ALU | BPF_END | BPF_TO_BE, 0, 64, x, 0, 0x8877665544332211ull);
	/* ALU64 END swaps whatever the host order */
	EXPECT(BPF_ALU64 | BPF_END | BPF_TO_LE, 0, 16, x, 0, 0x8877);
	EXPECT(BPF_ALU64 | BPF_END | BPF_TO_LE, 0, 32, x, 0, 0x88776655);
	EXPECT(BPF_ALU64 | BPF_END | BPF_TO_LE, 0, 64, x, 0, 0x8877665544332211ull);
}

Test(alu, fields_naming_no_operation_are_refused)
{
	uint64_t v = 7;

	cr_expect_not(bpf_alu_eval(ALU64_X(BPF_DIV), 2, 0, 1, 1, &v));
	cr_expect_not(bpf_alu_eval(ALU32_X(BPF_MOD), -1, 0, 1, 1, &v));
	cr_expect_not(bpf_alu_eval(ALU32_X(BPF_MOV), 32, 0, 1, 1, &v));
	cr_expect_not(bpf_alu_eval(ALU64_X(BPF_MOV), 4, 0, 1, 1, &v));
	cr_expect_not(bpf_alu_eval(BPF_ALU | BPF_END | BPF_TO_LE, 0, 8, 1, 0, &v));
	cr_expect_not(bpf_alu_eval(BPF_ALU64 | BPF_END | BPF_TO_BE, 0, 16, 1, 0, &v));
	cr_expect_not(bpf_alu_eval(BPF_ALU64 | 0xe0, 0, 0, 1, 1, &v));
	cr_expect_not(bpf_alu_eval(BPF_ALU | 0xf0 | BPF_X, 0, 0, 1, 1, &v));
	cr_expect_not(bpf_alu_eval(BPF_JMP | BPF_ADD, 0, 0, 1, 1, &v));
	cr_expect_eq(v, 7, "a refused operation wrote its result");
}
