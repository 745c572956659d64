/* SPDX-License-Identifier: MIT */
/*
 * eBPF ALU semantics, written once: what an ALU or ALU64 instruction
 * computes from its operands (RFC 9669 section 4.1). The interpreter, the
 * verifier's constant folding and the cBPF compiler's expression evaluator
 * all call bpf_alu_eval(), so the three cannot disagree on an edge case.
 *
 * It is static inline on purpose: the interpreter has one handler per
 * operation and calls it with a constant opcode, so the switch folds away
 * and each handler is the single machine instruction it was before.
 */
#ifndef SECBPF_ALU_H
#define SECBPF_ALU_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>

#define BPF_ALU_INLINE static inline __attribute__((always_inline))

/* Signed division of the ISA: x / 0 = 0, and INT_MIN / -1 = INT_MIN (C
 * would trap). Both widths work on the value sign-extended to 64 bits. */
BPF_ALU_INLINE int64_t bpf_alu_sdiv(int64_t x, int64_t y)
{
	if (y == 0)
		return 0;
	if (y == -1)
		return (int64_t)(0 - (uint64_t)x);
	return x / y;
}

/* Signed modulo of the ISA: x % 0 = x, and x % -1 = 0 (C would trap on
 * INT_MIN % -1); the result has the sign of x, as in C. */
BPF_ALU_INLINE int64_t bpf_alu_smod(int64_t x, int64_t y)
{
	if (y == 0)
		return x;
	if (y == -1)
		return 0;
	return x % y;
}

/* BPF_END: to little endian (a truncation on our little-endian hosts) or a
 * byte swap, of the low `width` bits. false for a width that is not 16,
 * 32 or 64. The result is not truncated to 32 bits, even for BPF_ALU. */
BPF_ALU_INLINE bool bpf_alu_end(uint64_t x, int32_t width, bool swap, uint64_t *out)
{
	switch (width) {
	case 16:
		*out = swap ? __builtin_bswap16((uint16_t)x) : (uint16_t)x;
		return true;
	case 32:
		*out = swap ? __builtin_bswap32((uint32_t)x) : (uint32_t)x;
		return true;
	case 64:
		*out = swap ? __builtin_bswap64(x) : x;
		return true;
	}
	return false;
}

/* movsx: the low `bits` bits of x, sign-extended; false for other widths. */
BPF_ALU_INLINE bool bpf_alu_sext(uint64_t x, int16_t bits, uint64_t *out)
{
	switch (bits) {
	case 8:
		*out = (uint64_t)(int64_t)(int8_t)x;
		return true;
	case 16:
		*out = (uint64_t)(int64_t)(int16_t)x;
		return true;
	case 32:
		*out = (uint64_t)(int64_t)(int32_t)x;
		return true;
	}
	return false;
}

/* The 64-bit operations (BPF_ALU64); see bpf_alu_eval(). */
BPF_ALU_INLINE bool bpf_alu_eval64(uint8_t op, int16_t off, uint64_t d, uint64_t s, uint64_t *out)
{
	switch (op) {
	case BPF_ADD: *out = d + s; return true;
	case BPF_SUB: *out = d - s; return true;
	case BPF_MUL: *out = d * s; return true;
	case BPF_OR: *out = d | s; return true;
	case BPF_AND: *out = d & s; return true;
	case BPF_XOR: *out = d ^ s; return true;
	case BPF_LSH: *out = d << (s & 63); return true;
	case BPF_RSH: *out = d >> (s & 63); return true;
	/* gcc and clang define >> of a negative value as arithmetic */
	case BPF_ARSH: *out = (uint64_t)((int64_t)d >> (s & 63)); return true;
	case BPF_NEG: *out = 0 - d; return true;
	case BPF_DIV:
		if (off == 0)
			*out = s ? d / s : 0;
		else if (off == 1)
			*out = (uint64_t)bpf_alu_sdiv((int64_t)d, (int64_t)s);
		else
			return false;
		return true;
	case BPF_MOD:
		if (off == 0)
			*out = s ? d % s : d;
		else if (off == 1)
			*out = (uint64_t)bpf_alu_smod((int64_t)d, (int64_t)s);
		else
			return false;
		return true;
	case BPF_MOV:
		if (off == 0) {
			*out = s;
			return true;
		}
		return bpf_alu_sext(s, off, out);
	}
	return false;
}

/* The 32-bit operations (BPF_ALU) on the low halves, zero-extended. */
BPF_ALU_INLINE bool bpf_alu_eval32(uint8_t op, int16_t off, uint32_t d, uint32_t s, uint64_t *out)
{
	uint64_t v;

	switch (op) {
	case BPF_ADD: *out = (uint32_t)(d + s); return true;
	case BPF_SUB: *out = (uint32_t)(d - s); return true;
	case BPF_MUL: *out = (uint32_t)(d * s); return true;
	case BPF_OR: *out = d | s; return true;
	case BPF_AND: *out = d & s; return true;
	case BPF_XOR: *out = d ^ s; return true;
	case BPF_LSH: *out = (uint32_t)(d << (s & 31)); return true;
	case BPF_RSH: *out = d >> (s & 31); return true;
	case BPF_ARSH: *out = (uint32_t)((int32_t)d >> (s & 31)); return true;
	case BPF_NEG: *out = (uint32_t)(0u - d); return true;
	case BPF_DIV:
		if (off == 0)
			*out = s ? d / s : 0;
		else if (off == 1)
			*out = (uint32_t)bpf_alu_sdiv((int32_t)d, (int32_t)s);
		else
			return false;
		return true;
	case BPF_MOD:
		if (off == 0)
			*out = s ? d % s : d;
		else if (off == 1)
			*out = (uint32_t)bpf_alu_smod((int32_t)d, (int32_t)s);
		else
			return false;
		return true;
	case BPF_MOV:
		if (off == 0) {
			*out = s;
			return true;
		}
		/* movsx into a 32-bit register: from 8 or 16 bits only */
		if (off == 32 || !bpf_alu_sext(s, off, &v))
			return false;
		*out = (uint32_t)v;
		return true;
	}
	return false;
}

/*
 * dst OP src for an instruction of opcode `code` (class BPF_ALU or
 * BPF_ALU64) with offset field `off` and immediate `imm`:
 *  - src is the source operand: the src register for BPF_X, the immediate
 *    sign-extended to 64 bits for BPF_K (BPF_ALU uses its low half);
 *  - off 1 makes div and mod signed; off 8, 16 or 32 makes mov a movsx;
 *  - imm is the width of BPF_END, which for BPF_ALU converts to little
 *    (BPF_TO_LE) or big (BPF_TO_BE) endian and for BPF_ALU64 always swaps.
 * Division by zero gives 0 and modulo by zero leaves dst; INT_MIN / -1 is
 * INT_MIN and INT_MIN % -1 is 0; shift amounts are taken modulo the width;
 * every BPF_ALU result but BPF_END's is zero-extended from 32 bits.
 * Returns false, with *out untouched, when the fields name no operation.
 */
BPF_ALU_INLINE bool bpf_alu_eval(uint8_t code, int16_t off, int32_t imm, uint64_t dst,
				 uint64_t src, uint64_t *out)
{
	uint8_t op = BPF_OP(code);

	if (op == BPF_END) {
		if (BPF_CLASS(code) == BPF_ALU64)
			return BPF_SRC(code) == BPF_TO_LE && bpf_alu_end(dst, imm, true, out);
		if (BPF_CLASS(code) != BPF_ALU)
			return false;
		return bpf_alu_end(dst, imm, BPF_SRC(code) == BPF_TO_BE, out);
	}
	if (BPF_CLASS(code) == BPF_ALU64)
		return bpf_alu_eval64(op, off, dst, src, out);
	if (BPF_CLASS(code) == BPF_ALU)
		return bpf_alu_eval32(op, off, (uint32_t)dst, (uint32_t)src, out);
	return false;
}

#undef BPF_ALU_INLINE

#endif
