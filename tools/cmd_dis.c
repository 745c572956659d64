// SPDX-License-Identifier: MIT
/*
 * `secbpf dis OBJ[:PROG]`: print a program as the kernel verifier's log
 * would, with function labels and the C source lines from line info.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "insn.h"

static void dis_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf dis OBJ[:PROG]\n"
		"\n"
		"Disassemble a SEC(\"seccomp\") program after relocation (subprograms\n"
		"appended, map references resolved), in the kernel verifier's syntax,\n"
		"with the C source line of each statement when the object has line info.\n"
		"OBJ may be a .c file; it is compiled first.\n"
		"\n"
		"  -h, --help  show this help\n");
}

static void dis_print(const struct object *obj, const struct object_prog *prog)
{
	const struct object_line *last = NULL, *line;
	char buf[256];
	uint32_t i;
	uint32_t f;
	int n;

	printf("%s: %s (section %s, %u insns)\n", obj->path, prog->name, prog->section,
	       prog->insn_cnt);
	for (i = 0; i < prog->insn_cnt; i += n) {
		for (f = 0; f < prog->func_cnt; f++)
			if (prog->funcs[f].start == i)
				printf("%s:\n", prog->funcs[f].name);
		line = object_prog_line(prog, i);
		/* clang emits several records per statement; show each line once. */
		if (line && line->insn_off == i &&
		    (!last || last->line != line->line || strcmp(last->file, line->file))) {
			const char *text = line->source ? line->source : "";

			text += strspn(text, " \t");
			printf("; %s @ %s:%u\n", text, line->file, line->line);
			last = line;
		}
		n = insn_disasm(prog->insns, prog->insn_cnt, i, buf, sizeof(buf));
		printf("%4u: (%02x) %s\n", i, prog->insns[i].code, buf);
		if (n < 1)
			n = 1;
	}
}

int cmd_dis(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct cli_target t;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			dis_usage(stdout);
			return 0;
		default:
			dis_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		cli_error("dis", "expected exactly one OBJ[:PROG] (see secbpf dis --help)");
		return EXIT_USAGE;
	}
	if (cli_load(argv[optind], &t))
		return EXIT_USAGE;
	dis_print(t.obj, t.prog);
	cli_close(&t);
	return 0;
}
