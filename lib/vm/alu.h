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

/* Unsigned division and modulo; a 32-bit divide for the 32-bit forms,
 * which is cheaper than a 64-bit one on most hosts. */
BPF_ALU_INLINE uint64_t bpf_alu_udiv(uint64_t x, uint64_t y, bool is64)
{
	if (y == 0)
		return 0;
	return is64 ? x / y : (uint32_t)x / (uint32_t)y;
}

BPF_ALU_INLINE uint64_t bpf_alu_umod(uint64_t x, uint64_t y, bool is64)
{
	if (y == 0)
		return x;
	return is64 ? x % y : (uint32_t)x % (uint32_t)y;
}

/* Every operation but BPF_END, at either width: the 32-bit forms compute
 * on the low halves (zero-extended, or sign-extended where the sign
 * counts) and keep the low half of the result. */
BPF_ALU_INLINE bool bpf_alu_arith(uint8_t op, bool is64, int16_t off, uint64_t dst,
				   uint64_t src, uint64_t *out)
{
	uint64_t d = is64 ? dst : (uint32_t)dst, s = is64 ? src : (uint32_t)src;
	int64_t sd = is64 ? (int64_t)dst : (int32_t)dst, ss = is64 ? (int64_t)src : (int32_t)src;
	unsigned shift = (unsigned)s & (is64 ? 63 : 31);
	uint64_t v;

	switch (op) {
	case BPF_ADD: v = d + s; break;
	case BPF_SUB: v = d - s; break;
	case BPF_MUL: v = d * s; break;
	case BPF_OR: v = d | s; break;
	case BPF_AND: v = d & s; break;
	case BPF_XOR: v = d ^ s; break;
	case BPF_LSH: v = d << shift; break;
	case BPF_RSH: v = d >> shift; break;
	/* gcc and clang define >> of a negative value as arithmetic */
	case BPF_ARSH: v = (uint64_t)(sd >> shift); break;
	case BPF_NEG: v = 0 - d; break;
	case BPF_DIV:
		if (off != 0 && off != 1)
			return false;
		v = off ? (uint64_t)bpf_alu_sdiv(sd, ss) : bpf_alu_udiv(d, s, is64);
		break;
	case BPF_MOD:
		if (off != 0 && off != 1)
			return false;
		v = off ? (uint64_t)bpf_alu_smod(sd, ss) : bpf_alu_umod(d, s, is64);
		break;
	case BPF_MOV:
		if (off == 0)
			v = s;
		/* movsx into a 32-bit register: from 8 or 16 bits only */
		else if ((!is64 && off == 32) || !bpf_alu_sext(src, off, &v))
			return false;
		break;
	default:
		return false;
	}
	*out = is64 ? v : (uint32_t)v;
	return true;
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
	if (BPF_CLASS(code) != BPF_ALU64 && BPF_CLASS(code) != BPF_ALU)
		return false;
	return bpf_alu_arith(op, BPF_CLASS(code) == BPF_ALU64, off, dst, src, out);
}

#undef BPF_ALU_INLINE

#endif
