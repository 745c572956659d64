/* SPDX-License-Identifier: MIT */
/*
 * The eBPF assembler: source text in the common eBPF assembly syntax (the
 * one bpf_conformance and the verifier corpus use) to instructions. It
 * checks the syntax only; vm/insn.h validates what it produces.
 */
#ifndef SECBPF_ASM_H
#define SECBPF_ASM_H

#include <linux/bpf.h>
#include <stddef.h>

#include "common/err.h"

/*
 * Assemble source text: one instruction per line, '#' or ';' comments,
 * "label:" lines, numeric "+N"/"-N" or label jump targets, "lddw", "lock"
 * atomics, "call N", "call local LABEL", "call %rN" (callx), "exit".
 * On success *out is malloc'ed and *cnt set; on failure err names the line.
 */
int insn_assemble(const char *text, struct bpf_insn **out, size_t *cnt,
		  struct secbpf_err *err);

#endif
