/* SPDX-License-Identifier: MIT */
/*
 * The eBPF instruction layer: encoding helpers, the checks of one
 * instruction's fields, a structural validator of a whole program and a
 * disassembler that prints the kernel verifier's syntax. The assembler is
 * vm/asm.h.
 *
 * Instructions are the kernel's struct bpf_insn (8 bytes, little endian on
 * the hosts we support). An ld_imm64 takes two slots; the second slot has
 * code 0 and carries the upper 32 bits of the constant in imm.
 */
#ifndef SECBPF_INSN_H
#define SECBPF_INSN_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* Sign-extending loads (RFC 9669); newer than Debian 12's uapi headers. */
#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80
#endif

/* Largest program we accept, in slots (the kernel's BPF_COMPLEXITY_LIMIT_INSNS
 * is 1M for privileged loaders; 4096 was the old unprivileged limit). */
#define INSN_MAX_CNT 1000000

/* Pseudo ld_imm64 source registers, as in <linux/bpf.h>:
 *   BPF_PSEUDO_MAP_FD    (1): imm = map index in the object
 *   BPF_PSEUDO_MAP_VALUE (2): imm = map index, next slot's imm = offset
 *   BPF_PSEUDO_FUNC      (4): imm = relative slot offset of a subprogram
 * Calls: src_reg 0 = helper imm; BPF_PSEUDO_CALL (1) = imm is the relative
 * slot offset of the callee (target = pc + imm + 1). */

static inline bool insn_is_ld_imm64(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW);
}

static inline uint64_t insn_ld_imm64_value(const struct bpf_insn *in)
{
	return (uint64_t)(uint32_t)in[0].imm | ((uint64_t)(uint32_t)in[1].imm << 32);
}

/* Flags for insn_validate(). */
enum insn_validate_flags {
	/* Allow pseudo forms of ld_imm64 (map and function references);
	 * BPF_PSEUDO_CALL is part of the base ISA and always allowed. */
	INSN_ALLOW_PSEUDO = 1 << 0,
	/* Require that no register is read before it is written on any path
	 * (r1..r5 on entry count as written for the entry function only when
	 * the caller says so through entry_args). */
	INSN_CHECK_UNINIT = 1 << 1,
};

/* Why insn_check() refused an instruction. */
struct insn_fault {
	size_t slot;	/* the slot at fault: the instruction, or its lddw's second slot */
	char why[200];	/* e.g. "mov (immediate form) with non-zero src_reg field 3 (must be 0)" */
};

/*
 * The fields of the one instruction at insns[i], on their own: a defined
 * opcode, every field it uses holding a value that selects an operation,
 * every field it does not use zero, registers r0..r10 with r10 never
 * written, and for an lddw its second slot and (with INSN_ALLOW_PSEUDO
 * among flags) its pseudo source. Targets and dataflow need the whole
 * program: insn_validate() checks those. Returns 0, or -EINVAL (malformed)
 * or -EACCES (writes r10) with fault (if not NULL) saying why, in words
 * that name the instruction but not its slot.
 */
int insn_check(const struct bpf_insn *insns, size_t cnt, size_t i, unsigned flags,
	       struct insn_fault *fault);

/*
 * Structural validation of a program, independent of types: every opcode
 * known, reserved fields zero, registers in range, r10 never written, jumps
 * and calls inside the program and never into the second slot of ld_imm64,
 * the last instruction an exit or an unconditional jump.
 * entry_args is the number of argument registers (r1..rN) set on entry.
 * Returns 0 or a negative errno with err naming the slot and the problem.
 */
int insn_validate(const struct bpf_insn *insns, size_t cnt, unsigned flags,
		  int entry_args, struct secbpf_err *err);

/* Name of helper id (e.g. "bpf_map_lookup_elem"), or NULL if unknown. */
const char *insn_helper_name(int32_t id);

/* Helper id from its name, with or without the "bpf_" prefix; -1 if none. */
int32_t insn_helper_id(const char *name);

/*
 * Disassemble the instruction at insns[idx] into buf in the kernel
 * verifier's syntax ("r1 = *(u32 *)(r6 +4)", "if r1 != 0x3e7 goto pc+2",
 * "call bpf_map_lookup_elem#1", "r1 = map[id:0]" ...). Returns the number of
 * slots it spans (1, or 2 for ld_imm64), or -EINVAL if it cannot be decoded
 * (buf then holds a readable "invalid insn 0x.." text).
 */
int insn_disasm(const struct bpf_insn *insns, size_t cnt, size_t idx, char *buf,
		size_t len);

/* Assembler mnemonic of a BPF_ALU op (BPF_OP(code): "add", "arsh") or of a
 * BPF_JMP condition ("jeq", "jsle"); NULL for a value with none. */
const char *insn_alu_op_name(unsigned op);
const char *insn_jmp_op_name(unsigned op);

#endif
