// SPDX-License-Identifier: MIT
/*
 * `secbpf cc FILE.c [-o OBJ]`: compile a filter with the flags a secbpf
 * filter needs (-O2 -g -target bpf, multiarch includes, <secbpf/filter.h>),
 * then lint its programs (docs/lints.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_lint.h"

static void cc_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf cc FILE.c [-o OBJ] [-I DIR] [-D NAME[=VALUE]] [--mcpu CPU] [--Werror]\n"
		"                 [-- CLANG-ARGS...]\n"
		"\n"
		"Compile a SEC(\"seccomp\") filter written in C into a BPF object with\n"
		"clang -O2 -g -target bpf, the host's multiarch include directory and the\n"
		"directory of <secbpf/filter.h>. The default output is FILE.o (FILE.c with\n"
		"its .c replaced). Set SECBPF_CLANG to use another clang.\n"
		"Each program is then linted for the classic traps of seccomp filters:\n"
		"`FILE:LINE: warning: ...` and `note:` lines on stderr (docs/lints.md).\n"
		"\n"
		"  -o OBJ         write the object to OBJ\n"
		"  -I DIR         add an include directory\n"
		"  -D NAME[=VAL]  define a macro\n"
		"  --mcpu CPU     BPF CPU version for clang (v1 to v4; v4 needs clang 18+;\n"
		"                 default: clang's)\n"
		"  --Werror       a lint warning is an error: exit 1, no object written\n"
		"  -h, --help     show this help\n"
		"\n"
		"One source at a time, a regular file whose name ends in .c; what follows\n"
		"-- goes to clang as is. Exit status: 0 when compiled, 2 otherwise.\n");
}

/*
 * Where secbpf's own options end: the first "--" that is not the value of
 * an option (-o --, -D --). argc when there is none.
 */
static int cc_split_at_dashes(int argc, char **argv)
{
	static const char *const with_value[] = { "-o", "-I", "-D", "--output", "--mcpu" };
	size_t j;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return i;
		for (j = 0; j < sizeof(with_value) / sizeof(with_value[0]); j++)
			if (!strcmp(argv[i], with_value[j]))
				i++;
	}
	return argc;
}

/*
 * The one source among the operands argv[first..last-1]: a regular file
 * named *.c. Returns it, or NULL after saying why (a directory, another
 * kind of file, none or two: clang would take them and secbpf would
 * report success for an object the user never asked for).
 */
static const char *cc_source(char **argv, int first, int last)
{
	const char *src;
	struct stat st;
	size_t n;

	if (first >= last) {
		cli_error("cc", "no source file given (usage: secbpf cc FILE.c [-o OBJ])");
		return NULL;
	}
	if (last - first > 1) {
		cli_error("cc", "one source at a time, not '%s' and '%s' (run secbpf cc once each)",
			  argv[first], argv[first + 1]);
		return NULL;
	}
	src = argv[first];
	if (stat(src, &st)) {
		cli_error("cc", "%s: %s", src, strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		cli_error("cc", "%s: is a directory (give the filter's .c file)", src);
		return NULL;
	}
	n = strlen(src);
	if (!S_ISREG(st.st_mode) || n < 3 || strcmp(src + n - 2, ".c")) {
		cli_error("cc", "%s: not a C source (a filter is a regular file named *.c)", src);
		return NULL;
	}
	return src;
}

int cmd_cc(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "mcpu", required_argument, NULL, 'm' },
		{ "Werror", no_argument, NULL, 'W' },
		{ 0 },
	};
	bool werror = false;
	int lint_status = 0;
	const char *extra[48];
	char *owned[48];	/* the -I/-D/-mcpu strings built here */
	char *out = NULL, *out_arg = NULL, *buf;
	int nextra = 0, nowned = 0, c, rc = -1, dashes;
	struct cli_options o;
	const char *src;

	/* secbpf's options and the source before "--", clang's after. */
	dashes = cc_split_at_dashes(argc, argv);
	cli_options_init(&o, dashes, argv, "o:I:D:", longopts, cc_usage, NULL);
	while ((c = cli_options_next(&o)) > 0) {
		if (nextra > 40) {
			cli_error("cc", "too many options");
			goto out;
		}
		switch (c) {
		case 'o':
			out = out_arg = optarg;
			break;
		case 'I':
			if (asprintf(&buf, "-I%s", optarg) < 0)
				goto out;
			extra[nextra++] = owned[nowned++] = buf;
			break;
		case 'D':
			if (asprintf(&buf, "-D%s", optarg) < 0)
				goto out;
			extra[nextra++] = owned[nowned++] = buf;
			break;
		case 'm':
			if (asprintf(&buf, "-mcpu=%s", optarg) < 0)
				goto out;
			extra[nextra++] = owned[nowned++] = buf;
			break;
		case 'W':
			werror = true;
			break;
		}
	}
	if (c < 0) {
		rc = c == CLI_OPTIONS_HELP ? 0 : -1;
		goto out;
	}
	src = cc_source(argv, optind, dashes);
	if (!src)
		goto out;
	for (c = dashes + 1; c < argc; c++) {
		if (nextra == 46) {
			cli_error("cc", "too many clang arguments after --");
			goto out;
		}
		extra[nextra++] = argv[c];
	}
	extra[nextra] = NULL;

	if (!out) {
		size_t n = strlen(src);

		/* cc_source checked that src ends in .c. */
		if (asprintf(&out, "%.*s.o", (int)(n - 2), src) < 0) {
			out = NULL;
			goto out;
		}
	}
	rc = cli_compile(src, out, extra);
	if (!rc)
		lint_status = cli_lint_compiled(src, out, werror);
out:
	for (c = 0; c < nowned; c++)
		free(owned[c]);
	if (out != out_arg)
		free(out);
	return rc ? EXIT_USAGE : lint_status;
}
