/* SPDX-License-Identifier: MIT */
/*
 * The option parsing every secbpf command shares (tools/options.c): a
 * getopt_long loop that answers --help, collects --set VAR=VALUE and
 * reports a bad option the same way in every command (docs/design.md §5).
 */
#ifndef SECBPF_CLI_OPTIONS_H
#define SECBPF_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/* One --set VAR=VALUE (VAR is owned, VALUE points into argv). */
struct cli_set {
	const char *var;
	const char *value;
};

/* The --set options of a command line, in the order given. */
struct cli_sets {
	struct cli_set *v;
	int n;
	int max; /* more than this many is an error; 0: no limit */
};

void cli_sets_free(struct cli_sets *sets);

/* The most long options a command may have, besides --help and --set. */
#define CLI_MAX_OPTIONS 16

/* The value cli_options_next() gives --set in longopts (never returned). */
#define CLI_OPTION_SET 0x100

/* What cli_options_next() returns besides a command's own option. */
enum {
	CLI_OPTIONS_END = 0,   /* no more options: optind is the first operand */
	CLI_OPTIONS_HELP = -1, /* --help: the usage is on stdout, exit 0 */
	CLI_OPTIONS_BAD = -2,  /* an error, printed with a one-line hint */
};

/* A command's options, with -h/--help (and --set when sets is given) added. */
struct cli_options {
	int argc;
	char **argv;
	void (*usage)(FILE *f);
	struct cli_sets *sets; /* NULL: the command takes no --set */
	/* A program of its own (secbpfd), not a secbpf command: its name
	 * leads the messages and the hint, as "secbpfd: ..." and "try
	 * 'secbpfd --help'". NULL: "secbpf: CMD: ...". */
	const char *program;
	bool broken;	       /* more than CLI_MAX_OPTIONS: a bug, reported */
	char shortopts[32];
	struct option longopts[CLI_MAX_OPTIONS + 3];
};

/*
 * Prepare to parse argv[1..argc-1] for a command: shortopts and longopts
 * (ended by { 0 }) are its own, as getopt_long takes them ("+" first:
 * options end at the first operand); usage prints its help. The values of
 * longopts must be neither 'h' nor CLI_OPTION_SET.
 */
void cli_options_init(struct cli_options *o, int argc, char **argv, const char *shortopts,
		      const struct option *longopts, void (*usage)(FILE *f), struct cli_sets *sets);

/*
 * The next option of the command's own (getopt_long's value, optarg set),
 * or CLI_OPTIONS_END, CLI_OPTIONS_HELP or CLI_OPTIONS_BAD. --set is
 * checked and collected here.
 */
int cli_options_next(struct cli_options *o);

/* The single OBJ[:PROG] operand left after the options of command cmd, or
 * NULL after saying there is none or more than one. */
const char *cli_one_target(struct cli_options *o, const char *cmd);

#endif
