/* SPDX-License-Identifier: MIT */
/*
 * Parsing of bpf_conformance .data files: the sections -- asm, -- raw,
 * -- mem, -- result, -- error (and the ignored -- c, -- no register offset).
 */
#ifndef SECBPF_CONFORMANCE_CASE_H
#define SECBPF_CONFORMANCE_CASE_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct conformance_case {
	struct bpf_insn *insns;
	size_t cnt;
	uint8_t *mem;
	size_t mem_len;
	bool has_result;
	uint64_t result;
	bool expect_error;
};

/* Read and parse path; the program comes from -- raw if present, else it
 * is assembled from -- asm. Returns 0, or a negative errno with err saying
 * why the file is not a valid case (for negative cases, the rejection). */
int conformance_case_load(const char *path, struct conformance_case *c, struct secbpf_err *err);
void conformance_case_free(struct conformance_case *c);

#endif
