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
	{ "export-oci", cmd_export_oci,
	  "an OCI seccomp profile for runc, its stateful part to secbpfd" },
	{ "import-oci", cmd_import_oci, "an OCI or Docker seccomp profile as a C filter" },
	{ "map", cmd_map, "print a live map of the filter attached to a process" },
	{ "native-run", cmd_native_run,
	  "run a command under a filter enforced by a patched kernel" },
	{ "native-verify", cmd_native_verify, "load a filter into a patched kernel, show its verdict" },
	{ "oci", cmd_oci, "annotations that run a container under a filter with crun" },
	{ "policy", cmd_policy, "print the tier this user would get, and why" },
	{ "ps", cmd_ps, "list the processes under seccomp and their supervisors" },
	{ "record", cmd_record, "run a command and write an allowlist filter of its syscalls" },
	{ "run", cmd_run, "run a command under filters" },
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
	fprintf(f, "\nRun 'secbpf COMMAND --help' (or 'secbpf help COMMAND') for a command's\n"
		   "options, 'secbpf --version' for the version.\n");
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* `secbpf help [COMMAND]`: the tool's usage, or COMMAND --help. */
static int help(int argc, char **argv)
{
	const struct command *c;
	char *help_argv[] = { NULL, "--help", NULL };

	if (argc < 3) {
		usage(stdout);
		return 0;
	}
	if (argc > 3) {
		cli_error("help", "one command at a time (try 'secbpf help %s')", argv[2]);
		return EXIT_USAGE;
	}
	c = find_command(argv[2]);
	if (!c) {
		cli_error("help", "unknown command '%s' (try 'secbpf --help')", argv[2]);
		return EXIT_USAGE;
	}
	help_argv[0] = argv[2];
	return c->run(2, help_argv);
}

int main(int argc, char **argv)
{
	const struct command *c;

	/* The loader reports bad BTF itself; libbpf's own stderr lines about
	 * the same input would only repeat it in other words. */
	libbpf_set_print(NULL);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		/* SECBPF_VERSION: meson's project version (meson.build). */
		printf("secbpf %s\n", SECBPF_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc, argv);
	c = find_command(argv[1]);
	if (c)
		return c->run(argc - 1, argv + 1);
	cli_error(argv[1], "unknown command (try 'secbpf --help')");
	return EXIT_USAGE;
}
