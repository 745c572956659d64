// SPDX-License-Identifier: MIT
/*
 * secbpf-conformance-plugin: the bpf_conformance plugin protocol. Reads the
 * program as one line of hex on stdin (8-byte little-endian instructions),
 * the memory as hex in argv[1], runs it in secbpf's interpreter and prints
 * r0 in hex; on an error, a message on stderr and exit status 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_run.h"

int main(int argc, char **argv)
{
	struct secbpf_err err = { { 0 } };
	uint8_t *code = NULL, *mem = NULL;
	char *line = NULL;
	size_t cap = 0;
	long code_len, mem_len = 0;
	uint64_t r0;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: secbpf-conformance-plugin [MEMORY-HEX] < PROGRAM-HEX\n"
			       "Runs an eBPF program for the bpf_conformance suite and prints r0 in hex.\n");
			return 0;
		}
	}
	if (getline(&line, &cap, stdin) < 0) {
		fprintf(stderr, "secbpf-conformance-plugin: no program on standard input\n");
		return 1;
	}
	code_len = conformance_hex_decode(line, &code);
	free(line);
	if (code_len <= 0 || code_len % 8) {
		fprintf(stderr, "secbpf-conformance-plugin: the program must be a non-empty "
				"hex string of 8-byte instructions\n");
		free(code);
		return 1;
	}
	if (argc > 1) {
		mem_len = conformance_hex_decode(argv[1], &mem);
		if (mem_len < 0) {
			fprintf(stderr, "secbpf-conformance-plugin: the memory argument is not hex\n");
			free(code);
			return 1;
		}
	}
	rc = conformance_run((const struct bpf_insn *)code, code_len / 8, mem, mem_len, &r0, &err);
	free(code);
	free(mem);
	if (rc) {
		fprintf(stderr, "secbpf-conformance-plugin: %s\n", err.msg);
		return 1;
	}
	printf("%" PRIx64 "\n", r0);
	return 0;
}
