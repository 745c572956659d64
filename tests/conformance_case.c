// SPDX-License-Identifier: MIT
/*
 * Parser for bpf_conformance .data files (see conformance_case.h). Anything
 * unexpected (an unknown section, a malformed number, no program) is an
 * error, because the negative cases test exactly that.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_case.h"
#include "conformance_run.h"
#include "vm/asm.h"
#include "vm/insn.h"

enum section { SEC_NONE, SEC_ASM, SEC_RAW, SEC_MEM, SEC_RESULT, SEC_ERROR, SEC_IGNORED };

static char *read_file(const char *path, struct secbpf_err *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

	if (!f) {
		err_set(err, errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	do {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 8192);

			if (!nb) {
				free(buf);
				fclose(f);
				err_set(err, ENOMEM, "out of memory");
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static int append(char **dst, size_t *len, const char *line)
{
	size_t n = strlen(line);
	char *nb = realloc(*dst, *len + n + 2);

	if (!nb)
		return -ENOMEM;
	memcpy(nb + *len, line, n);
	nb[*len + n] = '\n';
	nb[*len + n + 1] = '\0';
	*dst = nb;
	*len += n + 1;
	return 0;
}

/* A -- raw section: either 0x-prefixed 64-bit words (one instruction each)
 * or lines of hex bytes. */
static int parse_raw(const char *text, struct conformance_case *c, struct secbpf_err *err)
{
	char *copy = strdup(text), *save = NULL, *line;
	uint8_t *bytes = NULL;
	size_t len = 0;
	long n;

	if (!copy)
		return err_set(err, ENOMEM, "out of memory");
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint8_t *chunk = NULL, *nb;

		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line)
			continue;
		if (line[0] == '0' && (line[1] == 'x' || line[1] == 'X')) {
			char *end;
			unsigned long long w = strtoull(line, &end, 16);

			if (*end && *end != ' ' && *end != '\t') {
				free(copy);
				free(bytes);
				return err_set(err, EINVAL, "raw: bad word '%s'", line);
			}
			chunk = malloc(8);
			if (!chunk)
				break;
			for (int i = 0; i < 8; i++)
				chunk[i] = (uint8_t)(w >> (8 * i));
			n = 8;
		} else {
			n = conformance_hex_decode(line, &chunk);
			if (n < 0) {
				free(copy);
				free(bytes);
				return err_set(err, EINVAL, "raw: bad hex line '%s'", line);
			}
		}
		nb = realloc(bytes, len + n + 1);
		if (!nb) {
			free(chunk);
			break;
		}
		bytes = nb;
		if (n)
			memcpy(bytes + len, chunk, n);
		len += n;
		free(chunk);
	}
	free(copy);
	if (len == 0 || len % 8) {
		free(bytes);
		return err_set(err, EINVAL, "raw: %zu bytes is not a whole number of instructions",
			       len);
	}
	c->insns = (struct bpf_insn *)bytes;
	c->cnt = len / 8;
	return 0;
}

int conformance_case_load(const char *path, struct conformance_case *c, struct secbpf_err *err)
{
	char *text = read_file(path, err), *save = NULL, *line;
	char *asm_text = NULL, *raw_text = NULL, *mem_text = NULL, *result_text = NULL;
	size_t asm_len = 0, raw_len = 0, mem_len = 0, result_len = 0;
	enum section sec = SEC_NONE;
	bool saw_asm = false;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (!text)
		return -EIO;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "--", 2)) {
			const char *name = line + 2;

			while (*name == ' ')
				name++;
			if (!strcmp(name, "asm")) {
				sec = SEC_ASM;
				saw_asm = true;
			} else if (!strcmp(name, "raw")) {
				sec = SEC_RAW;
			} else if (!strcmp(name, "mem")) {
				sec = SEC_MEM;
			} else if (!strcmp(name, "result")) {
				sec = SEC_RESULT;
			} else if (!strcmp(name, "error")) {
				sec = SEC_ERROR;
				c->expect_error = true;
			} else if (!strcmp(name, "c") || !strcmp(name, "no register offset")) {
				sec = SEC_IGNORED;
			} else {
				rc = err_set(err, EINVAL, "unknown section '-- %s'", name);
				goto out;
			}
			continue;
		}
		switch (sec) {
		case SEC_ASM:
			rc = append(&asm_text, &asm_len, line);
			break;
		case SEC_RAW:
			rc = append(&raw_text, &raw_len, line);
			break;
		case SEC_MEM:
			rc = append(&mem_text, &mem_len, line);
			break;
		case SEC_RESULT:
			rc = append(&result_text, &result_len, line);
			break;
		default:
			break;	/* header comments, error text, ignored sections */
		}
		if (rc) {
			rc = err_set(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	if (raw_text) {
		rc = parse_raw(raw_text, c, err);
	} else if (saw_asm) {
		rc = insn_assemble(asm_text ? asm_text : "", &c->insns, &c->cnt, err);
		if (!rc && c->cnt == 0)
			rc = err_set(err, EINVAL, "the asm section has no instructions");
	} else {
		rc = err_set(err, EINVAL, "no program: the file has neither -- asm nor -- raw");
	}
	if (rc)
		goto out;
	if (mem_text) {
		long n = conformance_hex_decode(mem_text, &c->mem);

		if (n < 0) {
			rc = err_set(err, EINVAL, "mem: not hex bytes");
			goto out;
		}
		c->mem_len = n;
	}
	if (result_text) {
		char *p = result_text, *end;

		while (*p == ' ' || *p == '\n')
			p++;
		errno = 0;
		c->result = strtoull(p, &end, 16);
		while (*end == ' ' || *end == '\n')
			end++;
		if (errno || *end || end == p) {
			rc = err_set(err, EINVAL, "result: '%s' is not a hex number", p);
			goto out;
		}
		c->has_result = true;
	}
out:
	free(text);
	free(asm_text);
	free(raw_text);
	free(mem_text);
	free(result_text);
	if (rc)
		conformance_case_free(c);
	return rc;
}

void conformance_case_free(struct conformance_case *c)
{
	free(c->insns);
	free(c->mem);
	memset(c, 0, sizeof(*c));
}
