// SPDX-License-Identifier: MIT
/*
 * `secbpf cc FILE.c [-o OBJ]`: compile a filter with the flags a secbpf
 * filter needs (-O2 -g -target bpf, multiarch includes, <secbpf/filter.h>),
 * then lint its programs (docs/lints.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		"  --mcpu CPU     BPF CPU version for clang (v1, v2, v3; default: clang's)\n"
		"  --Werror       a lint warning is an error: exit 1, no object written\n"
		"  -h, --help     show this help\n");
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
	struct cli_options o;
	int nextra = 0, nowned = 0, c, rc;

	cli_options_init(&o, argc, argv, "o:I:D:", longopts, cc_usage, NULL);
	while ((c = cli_options_next(&o)) > 0) {
		if (nextra > 40) {
			cli_error("cc", "too many options");
			return EXIT_USAGE;
		}
		switch (c) {
		case 'o':
			out = out_arg = optarg;
			break;
		case 'I':
			if (asprintf(&buf, "-I%s", optarg) < 0)
				return EXIT_USAGE;
			extra[nextra++] = owned[nowned++] = buf;
			break;
		case 'D':
			if (asprintf(&buf, "-D%s", optarg) < 0)
				return EXIT_USAGE;
			extra[nextra++] = owned[nowned++] = buf;
			break;
		case 'm':
			if (asprintf(&buf, "-mcpu=%s", optarg) < 0)
				return EXIT_USAGE;
			extra[nextra++] = owned[nowned++] = buf;
			break;
		case 'W':
			werror = true;
			break;
		}
	}
	if (c < 0)
		return c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
	if (optind >= argc) {
		cli_error("cc", "no source file given (usage: secbpf cc FILE.c [-o OBJ])");
		return EXIT_USAGE;
	}
	const char *src = argv[optind++];
	for (; optind < argc && nextra < 46; optind++)
		extra[nextra++] = argv[optind];
	extra[nextra] = NULL;

	if (!out) {
		size_t n = strlen(src);

		if (n > 2 && !strcmp(src + n - 2, ".c")) {
			if (asprintf(&out, "%.*s.o", (int)(n - 2), src) < 0)
				return EXIT_USAGE;
		} else if (asprintf(&out, "%s.o", src) < 0) {
			return EXIT_USAGE;
		}
	}
	rc = cli_compile(src, out, extra);
	if (!rc)
		lint_status = cli_lint_compiled(src, out, werror);
	for (c = 0; c < nowned; c++)
		free(owned[c]);
	if (out != out_arg)
		free(out);
	return rc ? EXIT_USAGE : lint_status;
}
