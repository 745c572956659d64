// SPDX-License-Identifier: MIT
/*
 * `secbpf verify [--tier T] [--strict] [-v] OBJ[:PROG]`: run the verifier
 * with the tier the system policy allows, and say why a program is rejected.
 * Exit 0 accepted, 1 rejected, 2 usage or input error (docs/design.md §5).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* Internal headers: install/policy.h (the tier the system policy grants)
 * and verifier/verifier.h (verifying for a tier, with its log); the public
 * API verifies only inside secbpf_attach(), and says nothing until then. */
#include "cli.h"
#include "install/policy.h"
#include "verifier/verifier.h"

static void verify_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf verify [--tier restricted|unprivileged|privileged] [--strict] [-v]\n"
		"                     [--set VAR=VALUE]... OBJ[:PROG]\n"
		"\n"
		"Check that every path of the program is safe and uses only what its tier\n"
		"allows. The system policy (" POLICY_DEFAULT_PATH ", and Yama's\n"
		"ptrace_scope) caps the tier asked for. OBJ may be a .c file.\n"
		"\n"
		"  --tier T         the tier to ask for (default: unprivileged)\n"
		"  --strict         the seed's exact context rules (as a patched kernel has)\n"
		"  -v, --verbose    print the full verifier log to stderr\n"
		"  --set VAR=VALUE  write a const volatile global before verifying\n"
		"  -h, --help       show this help\n"
		"\n"
		"Exit status: 0 accepted, 1 rejected (the reason on stderr, with the C\n"
		"source line when the object has line info), 2 usage or input error.\n");
}

int cli_verify_target(struct cli_target *t, int requested, bool strict, FILE *verbose_log)
{
	struct secbpf_err err = { { 0 } };
	struct verifier_opts opts = { .sz = sizeof(opts) };
	struct policy_decision d;
	struct policy_inputs in;
	int rc;

	if (policy_read_system(&in, NULL, &err) || policy_decide(&in, (enum secbpf_tier)requested, &d, &err)) {
		cli_error("policy", "%s", err.msg);
		return EXIT_USAGE;
	}
	opts.tier = d.tier;
	opts.tier_reason = d.reason[0] ? d.reason : NULL;
	opts.strict = strict;
	opts.verbose = verbose_log != NULL;
	opts.log = verbose_log;
	rc = verifier_check(t->obj, t->prog, &opts, NULL, &err);
	if (rc == 0)
		return 0;
	cli_error(t->obj->path, "%s: rejected: %s", t->prog->name, err.msg);
	return EXIT_REJECTED;
}

int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tier", required_argument, NULL, 't' },
		{ "strict", no_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ 0 },
	};
	enum secbpf_tier tier = SECBPF_TIER_UNPRIVILEGED;
	struct cli_sets sets = { .max = 64 };
	struct cli_options o;
	struct cli_target t;
	bool strict = false, verbose = false;
	int c, status = EXIT_USAGE;
	const char *spec;

	cli_options_init(&o, argc, argv, "v", longopts, verify_usage, &sets);
	while ((c = cli_options_next(&o)) > 0) {
		switch (c) {
		case 't':
			if (secbpf_tier_parse(optarg, &tier)) {
				cli_error("--tier", "'%s' is not restricted, unprivileged or privileged",
					  optarg);
				goto out_sets;
			}
			break;
		case 'S':
			strict = true;
			break;
		case 'v':
			verbose = true;
			break;
		}
	}
	if (c < 0) {
		status = c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
		goto out_sets;
	}
	spec = cli_one_target(&o, "verify");
	if (!spec || cli_open_target(spec, &sets, &t))
		goto out_sets;
	status = cli_verify_target(&t, tier, strict, verbose ? stderr : NULL);
	if (status == 0)
		printf("%s: %s: accepted\n", t.obj->path, t.prog->name);
	cli_close(&t);
out_sets:
	cli_sets_free(&sets);
	return status;
}
