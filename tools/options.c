// SPDX-License-Identifier: MIT
/*
 * The option loop of the secbpf commands (see options.h): one getopt_long
 * loop for all of them, so that --help, --set and a bad option behave the
 * same everywhere, and each command sees only its own options.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_sets_free(struct cli_sets *sets)
{
	int i;

	for (i = 0; sets->v && i < sets->n; i++)
		free((char *)sets->v[i].var);
	free(sets->v);
	sets->v = NULL;
	sets->n = 0;
}

/* Parse "VAR=VALUE" into set; prints an error and returns -1 if bad. */
static int parse_set(const char *arg, struct cli_set *set)
{
	const char *eq = strchr(arg, '=');
	char *var;

	if (!eq || eq == arg || !eq[1]) {
		cli_error("--set", "'%s' is not VAR=VALUE", arg);
		return -1;
	}
	var = strndup(arg, eq - arg);
	if (!var || !cli_is_c_identifier(var)) {
		cli_error("--set", "'%s': the variable name is not a C identifier", arg);
		free(var);
		return -1;
	}
	set->var = var;
	set->value = eq + 1;
	return 0;
}

/* Add one --set; argc bounds how many there can be. */
static int sets_add(struct cli_sets *sets, int argc, const char *arg)
{
	if (sets->max && sets->n == sets->max) {
		cli_error("--set", "too many --set options (at most %d)", sets->max);
		return -1;
	}
	if (!sets->v) {
		sets->v = calloc(argc > 0 ? argc : 1, sizeof(*sets->v));
		if (!sets->v) {
			cli_error("--set", "out of memory");
			return -1;
		}
	}
	if (parse_set(arg, &sets->v[sets->n]))
		return -1;
	sets->n++;
	return 0;
}

void cli_options_init(struct cli_options *o, int argc, char **argv, const char *shortopts,
		      const struct option *longopts, void (*usage)(FILE *f), struct cli_sets *sets)
{
	size_t n = 0;

	memset(o, 0, sizeof(*o));
	o->argc = argc;
	o->argv = argv;
	o->usage = usage;
	o->sets = sets;
	while (longopts && longopts[n].name)
		n++;
	/* Room for the ":" and "h" added below, and the NUL. */
	if (n > CLI_MAX_OPTIONS || strlen(shortopts) + 3 > sizeof(o->shortopts)) {
		o->broken = true;
		return;
	}
	memcpy(o->longopts, longopts, n * sizeof(*longopts));
	if (sets)
		o->longopts[n++] =
			(struct option){ "set", required_argument, NULL, CLI_OPTION_SET };
	o->longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	/* ':' right after the optional '+': getopt_long then tells a missing
	 * value (':') from an unknown option ('?'), and prints nothing itself
	 * (opterr = 0): the messages are ours (bad_option). */
	if (shortopts[0] == '+')
		snprintf(o->shortopts, sizeof(o->shortopts), "+:%sh", shortopts + 1);
	else
		snprintf(o->shortopts, sizeof(o->shortopts), ":%sh", shortopts);
}

/*
 * Say what is wrong with the option getopt_long just refused (c is '?' or
 * ':'), as `secbpf: CMD: ...` and a one-line hint, never the whole usage:
 * a script's log shows the mistake, not a screen of help.
 */
static void bad_option(const struct cli_options *o, int c)
{
	const char *cmd = o->argv[0];
	/* The argument getopt_long was looking at: a long option (or an
	 * option needing a value) moved optind past it. */
	const char *arg = optind > 0 && optind <= o->argc ? o->argv[optind - 1] : "";

	if (o->program) {
		if (c == ':')
			fprintf(stderr, "%s: option '%s' needs a value\n", o->program, arg);
		else
			fprintf(stderr, "%s: unknown or ambiguous option '%s'\n", o->program, arg);
		fprintf(stderr, "try '%s --help'\n", o->program);
		return;
	}
	if (c == ':') {
		if (optopt && optopt < 0x100 && strncmp(arg, "--", 2))
			cli_error(cmd, "option '-%c' needs a value", optopt);
		else
			cli_error(cmd, "option '%s' needs a value", arg);
	} else if (optopt && optopt < 0x100 && strncmp(arg, "--", 2)) {
		cli_error(cmd, "unknown option '-%c'", optopt);
	} else {
		cli_error(cmd, "unknown or ambiguous option '%s'", arg);
	}
	fprintf(stderr, "try 'secbpf %s --help'\n", cmd);
}

int cli_options_next(struct cli_options *o)
{
	int c;

	if (o->broken) {
		cli_error(o->argv[0], "internal error: too many options");
		return CLI_OPTIONS_BAD;
	}
	opterr = 0;
	for (;;) {
		c = getopt_long(o->argc, o->argv, o->shortopts, o->longopts, NULL);
		switch (c) {
		case -1:
			return CLI_OPTIONS_END;
		case 'h':
			o->usage(stdout);
			return CLI_OPTIONS_HELP;
		case CLI_OPTION_SET:
			if (sets_add(o->sets, o->argc, optarg))
				return CLI_OPTIONS_BAD;
			continue;
		case '?':
		case ':':
			bad_option(o, c);
			return CLI_OPTIONS_BAD;
		default:
			return c;
		}
	}
}

const char *cli_one_target(struct cli_options *o, const char *cmd)
{
	if (optind + 1 != o->argc) {
		cli_error(cmd, "expected exactly one OBJ[:PROG] (see secbpf %s --help)", cmd);
		return NULL;
	}
	return o->argv[optind];
}
