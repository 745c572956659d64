// SPDX-License-Identifier: MIT
/*
 * The kernel's acceptance rules for a seccomp cBPF filter: bpf_check_classic()
 * (opcodes, constant operands, jump ranges, a final RET, M[] written before
 * read on every path) and seccomp_check_filter() (the seccomp subset).
 */
#include <errno.h>
#include <stdint.h>

#include "cbpf/cbpf.h"

/* Every code seccomp_check_filter() lets through; each is also in
 * bpf_check_classic()'s table, so one list serves both checks. */
static bool cbpf_code_allowed(uint16_t code)
{
	switch (code) {
	case BPF_LD | BPF_W | BPF_ABS:
	case BPF_LD | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_W | BPF_LEN:
	case BPF_RET | BPF_K:
	case BPF_RET | BPF_A:
	case BPF_ALU | BPF_ADD | BPF_K:
	case BPF_ALU | BPF_ADD | BPF_X:
	case BPF_ALU | BPF_SUB | BPF_K:
	case BPF_ALU | BPF_SUB | BPF_X:
	case BPF_ALU | BPF_MUL | BPF_K:
	case BPF_ALU | BPF_MUL | BPF_X:
	case BPF_ALU | BPF_DIV | BPF_K:
	case BPF_ALU | BPF_DIV | BPF_X:
	case BPF_ALU | BPF_AND | BPF_K:
	case BPF_ALU | BPF_AND | BPF_X:
	case BPF_ALU | BPF_OR | BPF_K:
	case BPF_ALU | BPF_OR | BPF_X:
	case BPF_ALU | BPF_XOR | BPF_K:
	case BPF_ALU | BPF_XOR | BPF_X:
	case BPF_ALU | BPF_LSH | BPF_K:
	case BPF_ALU | BPF_LSH | BPF_X:
	case BPF_ALU | BPF_RSH | BPF_K:
	case BPF_ALU | BPF_RSH | BPF_X:
	case BPF_ALU | BPF_NEG:
	case BPF_LD | BPF_IMM:
	case BPF_LDX | BPF_IMM:
	case BPF_MISC | BPF_TAX:
	case BPF_MISC | BPF_TXA:
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
	case BPF_ST:
	case BPF_STX:
	case BPF_JMP | BPF_JA:
	case BPF_JMP | BPF_JEQ | BPF_K:
	case BPF_JMP | BPF_JEQ | BPF_X:
	case BPF_JMP | BPF_JGE | BPF_K:
	case BPF_JMP | BPF_JGE | BPF_X:
	case BPF_JMP | BPF_JGT | BPF_K:
	case BPF_JMP | BPF_JGT | BPF_X:
	case BPF_JMP | BPF_JSET | BPF_K:
	case BPF_JMP | BPF_JSET | BPF_X:
		return true;
	}
	return false;
}

static bool cbpf_is_cond_jump(uint16_t code)
{
	return BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA;
}

/*
 * check_load_and_stores(): one forward pass, as the kernel does it. The
 * valid-slot mask flowing into an instruction is ANDed with what every jump
 * to it carried; a jump resets the fall-through mask to "all valid" since
 * nothing falls through a jump. Mirrors the kernel exactly, quirks included
 * (a RET does not reset the mask), so that we accept exactly what it does.
 */
static int cbpf_check_memory(const struct sock_filter *insns, size_t len,
			     uint16_t *masks, struct secbpf_err *err)
{
	uint16_t memvalid = 0;
	size_t pc;

	for (pc = 0; pc < len; pc++)
		masks[pc] = 0xffff;
	for (pc = 0; pc < len; pc++) {
		const struct sock_filter *in = &insns[pc];

		memvalid &= masks[pc];
		switch (in->code) {
		case BPF_ST:
		case BPF_STX:
			memvalid |= 1u << in->k;
			break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
			if (!(memvalid & (1u << in->k)))
				return err_set(err, EINVAL,
					       "cbpf insn %zu: M[%u] may be read before it is written",
					       pc, in->k);
			break;
		case BPF_JMP | BPF_JA:
			masks[pc + 1 + in->k] &= memvalid;
			memvalid = 0xffff;
			break;
		default:
			if (!cbpf_is_cond_jump(in->code))
				break;
			masks[pc + 1 + in->jt] &= memvalid;
			masks[pc + 1 + in->jf] &= memvalid;
			memvalid = 0xffff;
			break;
		}
	}
	return 0;
}

/* The per-instruction rules of bpf_check_classic() and seccomp_check_filter(). */
static int cbpf_check_insn(const struct sock_filter *insns, size_t len, size_t pc,
			   struct secbpf_err *err)
{
	const struct sock_filter *in = &insns[pc];

	if (!cbpf_code_allowed(in->code))
		return err_set(err, EINVAL, "cbpf insn %zu: opcode 0x%02x not allowed in seccomp",
			       pc, in->code);
	switch (in->code) {
	case BPF_LD | BPF_W | BPF_ABS:
		if (in->k >= sizeof(struct seccomp_data) || (in->k & 3))
			return err_set(err, EINVAL,
				       "cbpf insn %zu: load at %u is unaligned or outside seccomp_data",
				       pc, in->k);
		break;
	case BPF_ALU | BPF_DIV | BPF_K:
		if (in->k == 0)
			return err_set(err, EINVAL, "cbpf insn %zu: division by constant 0", pc);
		break;
	case BPF_ALU | BPF_LSH | BPF_K:
	case BPF_ALU | BPF_RSH | BPF_K:
		if (in->k >= 32)
			return err_set(err, EINVAL, "cbpf insn %zu: shift by %u >= 32", pc, in->k);
		break;
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
	case BPF_ST:
	case BPF_STX:
		if (in->k >= BPF_MEMWORDS)
			return err_set(err, EINVAL, "cbpf insn %zu: M[%u] out of range", pc, in->k);
		break;
	case BPF_JMP | BPF_JA:
		/* Unsigned as in the kernel: k cannot wrap back into range. */
		if (in->k >= (uint32_t)(len - pc - 1))
			return err_set(err, EINVAL, "cbpf insn %zu: jump out of range", pc);
		break;
	default:
		if (cbpf_is_cond_jump(in->code) &&
		    (pc + in->jt + 1 >= len || pc + in->jf + 1 >= len))
			return err_set(err, EINVAL, "cbpf insn %zu: jump out of range", pc);
		break;
	}
	return 0;
}

int cbpf_check(const struct sock_filter *insns, size_t len, struct secbpf_err *err)
{
	uint16_t masks[CBPF_MAX_INSNS];
	uint16_t last;
	size_t pc;
	int rc;

	if (!insns || len == 0 || len > CBPF_MAX_INSNS)
		return err_set(err, EINVAL, "cbpf filter length %zu not in 1..%d", len,
			       CBPF_MAX_INSNS);
	for (pc = 0; pc < len; pc++) {
		rc = cbpf_check_insn(insns, len, pc, err);
		if (rc)
			return rc;
	}
	last = insns[len - 1].code;
	if (last != (BPF_RET | BPF_K) && last != (BPF_RET | BPF_A))
		return err_set(err, EINVAL, "cbpf insn %zu: the last instruction is not a RET",
			       len - 1);
	return cbpf_check_memory(insns, len, masks, err);
}
