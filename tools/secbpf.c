// SPDX-License-Identifier: MIT
/*
 * The secbpf command-line tool: dispatches to one command per file
 * (cmd_*.c). The command line is a contract (docs/design.md §5).
 */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "cc", cmd_cc, "compile a filter written in C into a BPF object" },
	{ "compile", cmd_compile, "compile a filter to the classic BPF the kernel runs" },
	{ "dis", cmd_dis, "disassemble a filter (eBPF, or the compiled cBPF)" },
	{ "dump", cmd_dump, "list and disassemble the seccomp filters of a process" },
	{ "map", cmd_map, "print a live map of the filter attached to a process" },
	{ "native-run", cmd_native_run,
	  "run a command under a filter enforced by a patched kernel" },
	{ "native-verify", cmd_native_verify, "load a filter into a patched kernel, show its verdict" },
	{ "ps", cmd_ps, "list the processes under seccomp and their supervisors" },
	{ "run", cmd_run, "run a command under filters" },
	{ "import-oci", cmd_import_oci, "an OCI or Docker seccomp profile as a C filter" },
	{ "sys", cmd_sys, "a syscall's name and number on an arch (like scmp_sys_resolver)" },
	{ "test", cmd_test, "run a filter on one seccomp_data and print the action" },
	{ "verify", cmd_verify, "check a filter is safe for its tier, and say why not" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: secbpf COMMAND [OPTIONS] [ARGS]\n\n"
		   "eBPF seccomp filters on stock kernels.\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'secbpf COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	/* The loader reports bad BTF itself; libbpf's own stderr lines about
	 * the same input would only repeat it in other words. */
	libbpf_set_print(NULL);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	cli_error(argv[1], "unknown command (see secbpf --help)");
	return EXIT_USAGE;
}
