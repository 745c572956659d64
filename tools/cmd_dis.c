// SPDX-License-Identifier: MIT
/*
 * `secbpf dis OBJ[:PROG]`: print a program as the kernel verifier's log
 * would, with function labels and the C source lines from line info.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* Internal headers: cbpf/cbpf.h (--cbpf: the compiled filter) and
 * vm/insn.h (the eBPF disassembler); the public API gives a program's
 * instructions (secbpf_program__insns) but neither disassembles them nor
 * exposes the line info and function boundaries printed here. */
#include "cbpf/cbpf.h"
#include "cli.h"
#include "vm/insn.h"

static void dis_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf dis OBJ[:PROG] [--cbpf] [--set VAR=VALUE]...\n"
		"\n"
		"Disassemble a SEC(\"seccomp\") program after relocation (subprograms\n"
		"appended, map references resolved), in the kernel verifier's syntax,\n"
		"with the C source line of each statement when the object has line info.\n"
		"OBJ may be a .c file; it is compiled first.\n"
		"\n"
		"  --cbpf           show the classic-BPF filter secbpf compiles it to\n"
		"  --set VAR=VALUE  write a const volatile global first (matters for --cbpf)\n"
		"  -h, --help       show this help\n");
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
	static const struct option longopts[] = {
		{ "cbpf", no_argument, NULL, 'c' },
		{ 0 },
	};
	struct cli_sets sets = { .max = 64 };
	struct cbpf_prog p = { 0 };
	struct cli_options o;
	struct cli_target t;
	int c, status = EXIT_USAGE;
	const char *spec;
	bool cbpf = false;

	cli_options_init(&o, argc, argv, "", longopts, dis_usage, &sets);
	while ((c = cli_options_next(&o)) > 0)
		if (c == 'c')
			cbpf = true;
	if (c < 0) {
		status = c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
		goto out_sets;
	}
	spec = cli_one_target(&o, "dis");
	if (!spec || cli_open_target(spec, &sets, &t))
		goto out_sets;
	if (cbpf) {
		if (cli_compile_target_stack(&t, &p))
			goto out_target;
		cli_print_cbpf(stdout, &p);
		cbpf_prog_free(&p);
	} else {
		dis_print(t.obj, t.prog);
	}
	status = 0;
out_target:
	cli_close(&t);
out_sets:
	cli_sets_free(&sets);
	return status;
}
