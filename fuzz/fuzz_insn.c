// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for lib/vm/insn.c: the input is used both as instructions
 * (validated with every flag combination and disassembled slot by slot) and
 * as assembly text, whose output, when accepted, goes through the same path.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vm/asm.h"
#include "vm/insn.h"

/* Validates and disassembles a program; any crash or sanitizer report fails. */
static void exercise(const struct bpf_insn *insns, size_t cnt, unsigned seed)
{
	struct secbpf_err err;
	char buf[128];
	size_t i;

	for (unsigned flags = 0; flags < 4; flags++)
		insn_validate(insns, cnt, flags, (int)(seed % 7) - 1, &err);
	for (i = 0; i <= cnt; i++) {
		int n = insn_disasm(insns, cnt, i, buf, sizeof(buf));

		if (n != -EINVAL && n != 1 && n != 2)
			abort();
		if (memchr(buf, '\0', sizeof(buf)) == NULL)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bpf_insn *insns, *out = NULL;
	struct secbpf_err err;
	size_t cnt = size / sizeof(*insns), ocnt = 0;
	char *text;

	/* Copy so that the instructions are aligned and the size is exact
	 * (ASan then catches any read past the last slot). */
	insns = malloc(cnt ? cnt * sizeof(*insns) : 1);
	if (!insns)
		return 0;
	memcpy(insns, data, cnt * sizeof(*insns));
	exercise(insns, cnt, size ? data[0] : 0);
	free(insns);

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (insn_assemble(text, &out, &ocnt, &err) == 0) {
		if (!out || !ocnt)
			abort();
		exercise(out, ocnt, (unsigned)ocnt);
		free(out);
	} else if (out || !err.msg[0]) {
		abort();
	}
	free(text);
	return 0;
}
