// SPDX-License-Identifier: MIT
/*
 * `secbpf import-oci PROFILE.json [-o FILE.bpf.c] [--set VAR=VALUE]...
 * [--kernel-args]`: an OCI or Docker seccomp profile as a secbpf C filter
 * (lib/oci, docs/oci-import.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/number.h"
#include "oci/profile.h"
#include "cli.h"
#include "options.h"

static void import_oci_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf import-oci PROFILE.json [-o FILE.bpf.c] [--set VAR=VALUE]...\n"
		"                         [--kernel-args]\n"
		"\n"
		"Write an OCI (runc) or Docker seccomp profile as a SEC(\"seccomp\") C filter\n"
		"that `secbpf cc` builds and that decides every syscall as runc with\n"
		"libseccomp would, ENOSYS stub included (docs/oci-import.md).\n"
		"\n"
		"  -o FILE          write the filter to FILE (default: stdout)\n"
		"  --set caps=MASK  the container's capabilities, bit n for capability n\n"
		"                   (default: Docker's default set, 0x%llx)\n"
		"  --set kernel_major=N, --set kernel_minor=N\n"
		"                   the kernel minKernel compares with (default: this one)\n"
		"  --kernel-args    compare the arguments the kernel declares 32 bits wide\n"
		"                   (int, unsigned int) on their low 32 bits, as the kernel\n"
		"                   reads them; runc compares all 64 bits, so that\n"
		"                   socket(40 | 1<<32, ...) passes a rule against 40\n"
		"  -h, --help       show this help\n"
		"\n"
		"The knobs stay const volatile globals of the filter: `secbpf run`, `test`\n"
		"and `compile` take --set for them too. Exit status: 0, or 2 on bad input.\n",
		(unsigned long long)oci_docker_default_caps);
}

static int apply_set(const struct cli_set *s, struct oci_emit_opts *o)
{
	struct number n;

	if (number_parse(s->value, 0, &n) || n.neg) {
		cli_error("import-oci", "--set %s=%s: not a non-negative number", s->var, s->value);
		return -EINVAL;
	}
	if (!strcmp(s->var, "caps")) {
		o->caps = n.mag;
	} else if (!strcmp(s->var, "kernel_major") && n.mag <= 0xffff) {
		o->kernel_major = (unsigned int)n.mag;
	} else if (!strcmp(s->var, "kernel_minor") && n.mag <= 0xffff) {
		o->kernel_minor = (unsigned int)n.mag;
	} else {
		cli_error("import-oci",
			  "--set %s: no such knob, or out of range (caps, "
			  "kernel_major, kernel_minor)",
			  s->var);
		return -EINVAL;
	}
	return 0;
}

int cmd_import_oci(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "kernel-args", no_argument, NULL, 'k' },
		{ 0 },
	};
	struct oci_emit_opts opts = { .caps = oci_docker_default_caps };
	struct secbpf_err err = { { 0 } };
	struct cli_sets sets = { 0 };
	struct oci_profile p;
	const char *out = NULL;
	struct cli_options o;
	FILE *f = stdout;
	int c, rc;

	oci_running_kernel(&opts.kernel_major, &opts.kernel_minor);
	cli_options_init(&o, argc, argv, "o:", longopts, import_oci_usage, &sets);
	while ((c = cli_options_next(&o)) > 0) {
		if (c == 'o')
			out = optarg;
		else if (c == 'k')
			opts.kernel_args = true;
	}
	if (c < 0) {
		cli_sets_free(&sets);
		return c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
	}
	for (int i = 0; i < sets.n; i++) {
		if (apply_set(&sets.v[i], &opts)) {
			cli_sets_free(&sets);
			return EXIT_USAGE;
		}
	}
	cli_sets_free(&sets);
	if (optind + 1 != argc) {
		cli_error("import-oci", "expected one PROFILE.json (see secbpf import-oci --help)");
		return EXIT_USAGE;
	}
	if (oci_profile_load(argv[optind], &p, &err)) {
		cli_error("import-oci", "%s", err.msg);
		return EXIT_USAGE;
	}
	opts.source = argv[optind];
	if (out && !(f = fopen(out, "w"))) {
		cli_error("import-oci", "%s: %s", out, strerror(errno));
		oci_profile_free(&p);
		return EXIT_USAGE;
	}
	rc = oci_emit_c(&p, &opts, f, &err);
	if (rc)
		cli_error("import-oci", "%s", err.msg);
	if (out && fclose(f) && !rc) {
		cli_error("import-oci", "%s: %s", out, strerror(errno));
		rc = -EIO;
	}
	if (rc && out)
		unlink(out); /* no half-written filter */
	oci_profile_free(&p);
	return rc ? EXIT_USAGE : 0;
}
