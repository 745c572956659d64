// SPDX-License-Identifier: MIT
/*
 * `secbpf verify [--tier T] [--strict] [-v] [-j] [--Werror] OBJ[:PROG]`: run
 * the verifier with the tier the system policy allows, say why a program
 * is rejected, and lint an accepted one (docs/lints.md). Exit 0 accepted,
 * 1 rejected (or warnings with --Werror), 2 usage or input error
 * (docs/design.md §5).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* Internal headers: install/policy.h (the tier the system policy grants)
 * and verifier/verifier.h (verifying for a tier, with its log); the public
 * API verifies only inside secbpf_attach(), and says nothing until then. */
#include "cli.h"
#include "cli_lint.h"
#include "install/policy.h"
#include "verifier/verifier.h"

static void verify_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf verify [--tier restricted|unprivileged|privileged] [--strict] [-v]\n"
		"                     [-j] [--Werror] [--set VAR=VALUE]... OBJ[:PROG]\n"
		"\n"
		"Check that every path of the program is safe and uses only what its tier\n"
		"allows. The system policy (" POLICY_DEFAULT_PATH ", and Yama's\n"
		"ptrace_scope) caps the tier asked for. OBJ may be a .c file.\n"
		"An accepted program is linted for the classic traps of seccomp filters\n"
		"(no arch check, x32, 64-bit compares of int arguments, ...): each finding\n"
		"is a `FILE:LINE: warning: ...` or `note:` line on stderr (docs/lints.md).\n"
		"\n"
		"  --tier T         the tier to ask for (default: unprivileged)\n"
		"  --strict         the seed's exact context rules (as a patched kernel has)\n"
		"  -v, --verbose    print the full verifier log to stderr\n"
		"  -j, --json       print the result and the lint findings as one JSON document\n"
		"  --Werror         exit 1 when a lint warns (notes never count)\n"
		"  --set VAR=VALUE  write a const volatile global before verifying\n"
		"  -h, --help       show this help\n"
		"\n"
		"Exit status: 0 accepted, 1 rejected (the reason on stderr, with the C\n"
		"source line when the object has line info) or, with --Werror, accepted\n"
		"with warnings; 2 usage or input error.\n");
}

/* The verdict and the lint findings as one JSON document on stdout. */
static void verify_print_json(const struct cli_target *t, int status, const char *reason,
			      const struct lint_report *r)
{
	json_object *doc = json_object_new_object();

	if (!doc)
		return;
	json_object_object_add(doc, "object", json_object_new_string(t->obj->path));
	json_object_object_add(doc, "program", json_object_new_string(t->prog->name));
	json_object_object_add(doc, "accepted", json_object_new_boolean(status == 0));
	json_object_object_add(doc, "error", reason ? json_object_new_string(reason) : NULL);
	json_object_object_add(doc, "warnings", json_object_new_int64((int64_t)r->warnings));
	json_object_object_add(doc, "findings", cli_lint_json(r));
	puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}

static int verify_check(struct cli_target *t, int requested, bool strict, FILE *verbose_log,
			struct secbpf_err *reason);

int cli_verify_target(struct cli_target *t, int requested, bool strict, FILE *verbose_log)
{
	struct secbpf_err reason = { { 0 } };

	return verify_check(t, requested, strict, verbose_log, &reason);
}

/* cli_verify_target(), with the rejection's reason kept in *reason. */
static int verify_check(struct cli_target *t, int requested, bool strict, FILE *verbose_log,
			struct secbpf_err *reason)
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
	*reason = err;
	return EXIT_REJECTED;
}

int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tier", required_argument, NULL, 't' },
		{ "strict", no_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'j' },
		{ "Werror", no_argument, NULL, 'W' },
		{ 0 },
	};
	struct secbpf_err reason = { { 0 } };
	struct lint_report lints = { 0 };
	bool json = false, werror = false;
	enum secbpf_tier tier = SECBPF_TIER_UNPRIVILEGED;
	struct cli_sets sets = { .max = 64 };
	struct cli_options o;
	struct cli_target t;
	bool strict = false, verbose = false;
	int c, status = EXIT_USAGE;
	const char *spec;

	cli_options_init(&o, argc, argv, "vj", longopts, verify_usage, &sets);
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
		case 'j':
			json = true;
			break;
		case 'W':
			werror = true;
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
	status = verify_check(&t, tier, strict, verbose ? stderr : NULL, &reason);
	if (status == 0)
		cli_lint_program(t.obj, t.prog, &lints);
	if (json)
		verify_print_json(&t, status, status == EXIT_REJECTED ? reason.msg : NULL, &lints);
	else if (status == 0)
		printf("%s: %s: accepted\n", t.obj->path, t.prog->name);
	if (status == 0 && werror && lints.warnings) {
		cli_error(t.obj->path, "%s: %zu lint warning%s, an error with --Werror",
			  t.prog->name, lints.warnings, lints.warnings == 1 ? "" : "s");
		status = EXIT_REJECTED;
	}
	lint_report_free(&lints);
	cli_close(&t);
out_sets:
	cli_sets_free(&sets);
	return status;
}
