/* SPDX-License-Identifier: MIT */
/*
 * Running a bpf_conformance case: the program gets r1 = a copy of the
 * case's memory and r2 = its length, and the suite's helper 5 ("unwind").
 * Shared by secbpf-conformance-plugin and tests/test_conformance.c.
 */
#ifndef SECBPF_CONFORMANCE_RUN_H
#define SECBPF_CONFORMANCE_RUN_H

#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* Validate (structure and uninitialized registers) and run the program on
 * mem (modified in place). Returns 0 with *r0, or a negative errno. */
int conformance_run(const struct bpf_insn *insns, size_t cnt, uint8_t *mem, size_t mem_len,
		    uint64_t *r0, struct secbpf_err *err);

/* Decode hex bytes ("b7 00 ..", "b70000..", any whitespace, optional 0x per
 * byte group is not accepted). Returns the byte count or -EINVAL. *out is
 * malloc'ed (NULL when there are no bytes). */
long conformance_hex_decode(const char *text, uint8_t **out);

#endif
