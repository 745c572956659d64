/* SPDX-License-Identifier: MIT */
/*
 * The verifier corpus (tests/verifier/): reading a case's directives and
 * assembling its program, shared by the unit tests (test_verifier.c) and
 * the fidelity run on the patched kernel (verifier_fidelity.c), so that
 * both see exactly the same programs.
 *
 * Corpus files start with directives in comments ('#' in .s, '//' in .c):
 *   expect: accept | reject <text the error message must contain>
 *   tier: restricted | unprivileged | privileged   (default unprivileged)
 *   strict: yes
 *   map: NAME TYPE KEY_SIZE VALUE_SIZE MAX_ENTRIES [btf|data|rodata|bss]
 *   init: MAP_INDEX HEXBYTES...       (initial bytes of a data map)
 *   prog: NAME                        (.bpf.c: which program)
 * Assembly has pseudo instructions for what the common syntax cannot say:
 *   ldmap %rN, IDX            ld_imm64 BPF_PSEUDO_MAP_FD of map IDX
 *   ldmapval %rN, IDX, OFF    ld_imm64 BPF_PSEUDO_MAP_VALUE
 *   ldfunc %rN, LABEL         ld_imm64 BPF_PSEUDO_FUNC of a function
 *   raw CODE DST SRC OFF IMM  one raw instruction (for malformed encodings)
 */
#ifndef SECBPF_VERIFIER_CORPUS_H
#define SECBPF_VERIFIER_CORPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "object/object.h"
#include "install/policy.h"

#define CORPUS_MAX_MAPS 8
#define CORPUS_MAX_RAW 16

/* A case's directives; maps[] point into the struct (names, init bytes). */
struct corpus_spec {
	bool expect_accept;
	char reason[256];
	enum secbpf_tier tier;
	bool strict;
	char prog[64];
	struct object_map maps[CORPUS_MAX_MAPS];
	char map_names[CORPUS_MAX_MAPS][32];
	uint8_t init[CORPUS_MAX_MAPS][256];
	bool has_init[CORPUS_MAX_MAPS];
	uint32_t nmaps;
	struct bpf_insn raw[CORPUS_MAX_RAW];
	uint32_t nraw;
};

/* The whole file, NUL-terminated (malloc'ed), or NULL. */
char *corpus_read_file(const char *path);

/* Read the directives of text into spec. Returns 0, or -errno with err
 * naming the bad directive. */
int corpus_parse(const char *text, struct corpus_spec *spec, struct secbpf_err *err);

/* Assemble a .s case (its pseudo instructions included). On success
 * *insns is malloc'ed; map references hold the map's index in spec. */
int corpus_assemble(const char *text, struct corpus_spec *spec, struct bpf_insn **insns,
		    size_t *cnt, struct secbpf_err *err);

/* An object and program over spec's maps and insns (nothing is copied). */
void corpus_object(struct corpus_spec *spec, struct bpf_insn *insns, size_t cnt, struct object *obj,
		   struct object_prog *prog);

#endif
