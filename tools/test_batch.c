// SPDX-License-Identifier: MIT
/*
 * `secbpf test OBJ --batch FILE`: each line of FILE holds what `test`
 * takes after OBJ to describe a syscall (--nr close --arg 999). The whole
 * file is checked first, then every line runs against the same maps, so
 * that stateful paths ("the 4th fork is denied") are tested without a
 * process. One action per line, or one JSON document.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "test_eval.h"

/* The most words a line may have: --nr, --arch, --ip and six --arg. */
#define BATCH_MAX_WORDS 24

static void batch_usage(FILE *f)
{
	fprintf(f, "a --batch line: --nr NAME|N [--arch A] [--ip N] [--arg N]...\n");
}

/*
 * Split line into words (spaces and tabs; a word starting with '#' starts
 * a comment) after argv[0]. Returns the number of words plus one, or -1
 * if there are too many.
 */
static int batch_split(char *line, char **argv)
{
	int argc = 1;
	char *w;

	for (w = strtok(line, " \t\r\n"); w; w = strtok(NULL, " \t\r\n")) {
		if (w[0] == '#')
			break;
		if (argc == BATCH_MAX_WORDS + 1)
			return -1;
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	return argc;
}

/*
 * Parse one line (its words in argv[1..argc-1]) into s. Returns 0, or -1
 * after printing why.
 */
static int batch_parse_words(int argc, char **argv, struct test_syscall *s)
{
	static const struct option longopts[] = {
		{ "nr", required_argument, NULL, TEST_OPT_NR },
		{ "arch", required_argument, NULL, TEST_OPT_ARCH },
		{ "ip", required_argument, NULL, TEST_OPT_IP },
		{ "arg", required_argument, NULL, TEST_OPT_ARG },
		{ 0 },
	};
	struct test_syscall_args a = { 0 };
	struct cli_options o;
	int c;

	/* A fresh getopt_long for each line (optind = 0 resets it whole). */
	optind = 0;
	cli_options_init(&o, argc, argv, "", longopts, batch_usage, NULL);
	while ((c = cli_options_next(&o)) > 0)
		if (test_syscall_option(&a, c, optarg))
			return -1;
	if (c < 0)
		return -1;
	if (optind < argc) {
		cli_error("test", "unexpected '%s': a line holds only --nr, --arch, --ip and --arg",
			  argv[optind]);
		return -1;
	}
	return test_syscall_resolve(&a, &s->sd);
}

/* The syscalls of the batch file. */
struct batch {
	struct test_syscall *v;
	int n, max;
};

/* Add the syscall of line lineno (text in line, modified), if it has one.
 * Returns 0, or -1 after printing why. */
static int batch_add_line(struct batch *b, const char *path, int lineno, char *line)
{
	char *argv[BATCH_MAX_WORDS + 2] = { "test" };
	struct test_syscall *grown;
	int argc;

	argc = batch_split(line, argv);
	if (argc == 1)
		return 0; /* blank or a comment */
	if (argc < 0) {
		cli_error("test", "%s:%d: more than %d words", path, lineno, BATCH_MAX_WORDS);
		return -1;
	}
	if (b->n == b->max) {
		b->max = b->max ? 2 * b->max : 64;
		grown = realloc(b->v, b->max * sizeof(*b->v));
		if (!grown) {
			cli_error("test", "%s: out of memory", path);
			return -1;
		}
		b->v = grown;
	}
	memset(&b->v[b->n], 0, sizeof(b->v[b->n]));
	b->v[b->n].line = lineno;
	if (batch_parse_words(argc, argv, &b->v[b->n])) {
		cli_error("test", "%s:%d: not a syscall (see above)", path, lineno);
		return -1;
	}
	b->n++;
	return 0;
}

/* Read and check the whole file. Returns 0, or -1 after printing why. */
static int batch_read(struct batch *b, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;

	if (!f) {
		cli_error("test", "--batch %s: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		rc = batch_add_line(b, path, lineno, line);
		if (rc)
			break;
	}
	if (!rc && ferror(f)) {
		cli_error("test", "--batch %s: %s", path, strerror(errno));
		rc = -1;
	}
	if (!rc && b->n == 0) {
		cli_error("test", "--batch %s: no syscall in it (one per line: --nr NAME ...)",
			  path);
		rc = -1;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

int test_batch(struct test_eval *e, const char *path, bool json)
{
	struct json_object *doc = NULL, *results = NULL;
	struct batch b = { 0 };
	struct test_result r;
	int i, status = 0;

	if (batch_read(&b, path)) {
		free(b.v);
		return EXIT_USAGE;
	}
	if (json) {
		doc = json_object_new_object();
		results = json_object_new_array();
		json_object_object_add(doc, "results", results);
	}
	for (i = 0; i < b.n; i++) {
		status = test_eval_run(e, &b.v[i], &r);
		if (status)
			break;
		if (json)
			json_object_array_add(results, test_result_json(&b.v[i], &r));
		else
			test_result_print(stdout, &r);
	}
	/* A fault ends the batch: what ran before it is still printed. */
	if (json)
		test_json_print(doc);
	free(b.v);
	return status;
}
