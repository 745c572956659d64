// SPDX-License-Identifier: MIT
/*
 * The bpf_conformance execution environment (see conformance_run.h): memory
 * in r1/r2 and the suite's one helper that tests use, 5 "unwind".
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_run.h"
#include "vm/insn.h"
#include "vm/interp.h"

/* Helper 5 of the suite: returns its argument; a zero argument ends the
 * program at once with r0 = 0. */
static uint64_t conformance_unwind(struct interp_call *call, const uint64_t args[5])
{
	if (args[0] == 0)
		interp_call_exit(call, 0);
	return args[0];
}

static interp_helper_fn conformance_helper(void *user, int32_t id)
{
	return id == 5 ? conformance_unwind : NULL;
}

/* The suite's whole call table: no helper of lib/vm/helpers.c is needed. */
static const struct interp_call_table conformance_calls = { .resolve = conformance_helper };

int conformance_run(const struct bpf_insn *insns, size_t cnt, uint8_t *mem, size_t mem_len,
		    uint64_t *r0, struct secbpf_err *err)
{
	struct interp_config cfg = {
		.insns = insns,
		.cnt = (uint32_t)cnt,
		.calls = &conformance_calls,
	};
	struct interp_region region = {
		.base = (uint64_t)(uintptr_t)mem,
		.size = mem_len,
		.writable = true,
	};
	uint64_t args[5] = { (uint64_t)(uintptr_t)mem, mem_len };
	struct interp *in;
	int rc;

	if (cnt > INSN_MAX_CNT)
		return err_set(err, E2BIG, "program has %zu instructions, more than %d", cnt,
			       INSN_MAX_CNT);
	rc = insn_validate(insns, cnt, INSN_CHECK_UNINIT, 2, err);
	if (rc)
		return rc;
	in = interp_new(&cfg, err);
	if (!in)
		return -EINVAL;
	rc = interp_run(in, args, &region, mem_len ? 1 : 0, r0, err);
	interp_free(in);
	return rc;
}

static int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

long conformance_hex_decode(const char *text, uint8_t **out)
{
	size_t len = strlen(text), n = 0;
	uint8_t *buf = malloc(len / 2 + 1);
	int hi = -1, v;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	for (; *text; text++) {
		if (isspace((unsigned char)*text)) {
			if (hi >= 0)
				goto bad; /* a lone nibble before a space */
			continue;
		}
		v = hex_value((unsigned char)*text);
		if (v < 0)
			goto bad;
		if (hi < 0) {
			hi = v;
		} else {
			buf[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	if (hi >= 0)
		goto bad;
	if (!n) {
		free(buf);
		return 0;
	}
	*out = buf;
	return (long)n;
bad:
	free(buf);
	return -EINVAL;
}
