// SPDX-License-Identifier: MIT
/*
 * `secbpf test OBJ[:PROG] --nr NAME|NUMBER ...`: run a filter once on a
 * seccomp_data given on the command line, with fresh maps, and print the
 * action the kernel would take (docs/design.md §5); with --cbpf, run the
 * compiled classic BPF as the kernel would; with --batch, a list of
 * syscalls against one set of maps (tools/test_batch.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Internal header: common/syscall_name.h, the one resolver of --arch and
 * --nr names. */
#include "common/syscall_name.h"
#include "cli.h"
#include "test_eval.h"

static void test_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf test OBJ[:PROG] --nr NAME|NUMBER [--arch NAME|NUMBER] [--ip N]\n"
		"                   [--arg N]... [--cbpf] [-j] [--set VAR=VALUE]...\n"
		"       secbpf test OBJ[:PROG] --batch FILE [--cbpf] [-j] [--set VAR=VALUE]...\n"
		"\n"
		"Run the program once on the given seccomp_data, with fresh maps, and\n"
		"print the action the kernel would take: ALLOW, ERRNO(n), KILL_PROCESS,\n"
		"KILL_THREAD, TRAP(n), TRACE(n), LOG or USER_NOTIF. OBJ may be a .c file.\n"
		"\n"
		"  --nr NAME|N      syscall name (resolved for --arch, as secbpf sys does:\n"
		"                   i386's socket is 359) or number; negative\n"
		"                   numbers and x32's 0x40000000|n are taken as given\n"
		"  --arch A         x86_64, x86 (or i386), x32, aarch64, ... or an\n"
		"                   AUDIT_ARCH_* number (default: the native arch)\n"
		"  --ip N           instruction_pointer (default 0)\n"
		"  --arg N          args[0], args[1], ... in order (missing ones are 0)\n"
		"  --cbpf           run the classic BPF that `secbpf run` installs, on the\n"
		"                   simulator, as the kernel would; print the action and\n"
		"                   who decides: 'kernel', or 'supervisor' where the filter\n"
		"                   notifies and the program runs in the supervisor\n"
		"  --batch FILE     one syscall per line of FILE ('-': stdin), written as\n"
		"                   the options above (--nr close --arg 999); blank lines\n"
		"                   and # comments are skipped; one action per line, with\n"
		"                   the maps kept from line to line\n"
		"  -j, --json       print one JSON document: {\"action\", \"ret\", \"errno\" or\n"
		"                   \"data\", \"decided_by\" (--cbpf)}; with --batch,\n"
		"                   {\"results\": [...]} with the \"line\" of each\n"
		"  --set VAR=VALUE  write a const volatile global before loading\n"
		"  -h, --help       show this help\n"
		"\n"
		"Numbers are decimal or 0x hex, over the full unsigned 64-bit range.\n"
		"Exit status: 0 after printing the actions, 1 if the program faulted\n"
		"at run time, 2 on a usage or input error (a bad --batch line included:\n"
		"the file is checked whole before any line runs).\n");
}

/* Parse a decimal or 0x-hex number (a leading '-' negates, two's
 * complement). Returns 0, or -1 if s is not entirely a number in range. */
static int parse_u64(const char *s, uint64_t *out)
{
	bool neg = false;
	char *end;
	int base = 10;

	if (*s == '-') {
		neg = true;
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	if (neg)
		*out = -*out;
	return 0;
}

/* --nr on abi: a number taken as given, or a name resolved for abi.
 * Returns 0, or -1 after printing why. */
static int parse_nr(const char *s, const struct syscall_abi *abi, int32_t *nr)
{
	char label[32];
	uint64_t n;

	if (parse_u64(s, &n) == 0) {
		if ((int64_t)n < INT32_MIN || ((int64_t)n > INT32_MAX && n > UINT32_MAX)) {
			cli_error("--nr", "%s does not fit in 32 bits", s);
			return -1;
		}
		*nr = (int32_t)(uint32_t)n;
		return 0;
	}
	if (syscall_number(abi, s, nr)) {
		cli_error("--nr", "no syscall named '%s' on %s (see: secbpf sys NAME --arch ARCH)",
			  s, syscall_abi_label(abi, label, sizeof(label)));
		return -1;
	}
	return 0;
}

/* --ip and --arg: a decimal or 0x hex number. Returns 0, or -1 after
 * printing why. */
static int parse_number_option(const char *option, const char *arg, uint64_t *v)
{
	if (parse_u64(arg, v) == 0)
		return 0;
	cli_error(option, "'%s' is not a decimal or 0x hex number", arg);
	return -1;
}

/* --arch (or the native arch) into sd->arch and the libseccomp token that
 * resolves --nr names, then --nr into sd->nr. Returns 0, or -1 after
 * printing why. */
static int test_syscall(const char *arch_arg, const char *nr_arg, struct seccomp_data *sd)
{
	struct syscall_abi abi = syscall_abi_native();

	if (!nr_arg) {
		cli_error("test", "--nr is required (a syscall name or number)");
		return -1;
	}
	if (arch_arg && syscall_abi_parse(arch_arg, &abi)) {
		cli_error("--arch", "unknown arch '%s' (try x86_64, x86, x32, aarch64 or an AUDIT_ARCH_* number)",
			  arch_arg);
		return -1;
	}
	sd->arch = abi.audit;
	return parse_nr(nr_arg, &abi, &sd->nr);
}

int test_syscall_option(struct test_syscall_args *a, int c, const char *arg)
{
	switch (c) {
	case TEST_OPT_NR:
		a->nr = arg;
		return 0;
	case TEST_OPT_ARCH:
		a->arch = arg;
		return 0;
	case TEST_OPT_IP:
		return parse_number_option("--ip", arg, &a->ip);
	case TEST_OPT_ARG:
		if (a->nargs == 6) {
			cli_error("--arg", "a syscall has at most 6 arguments");
			return -1;
		}
		return parse_number_option("--arg", arg, &a->args[a->nargs++]);
	}
	return 0;
}

int test_syscall_resolve(const struct test_syscall_args *a, struct seccomp_data *sd)
{
	int i;

	memset(sd, 0, sizeof(*sd));
	if (test_syscall(a->arch, a->nr, sd))
		return -1;
	sd->instruction_pointer = a->ip;
	for (i = 0; i < a->nargs; i++)
		sd->args[i] = a->args[i];
	return 0;
}

/* The command line of test, besides the syscall options. */
struct test_options {
	struct test_syscall_args args;
	bool given; /* some syscall option was given */
	bool cbpf;
	bool json;
	const char *batch;
	struct cli_sets sets;
};

/* Parse argv into o; returns 0, 1 after --help, -1 after printing why. */
static int test_parse(int argc, char **argv, struct test_options *o, const char **spec)
{
	static const struct option longopts[] = {
		{ "nr", required_argument, NULL, TEST_OPT_NR },
		{ "arch", required_argument, NULL, TEST_OPT_ARCH },
		{ "ip", required_argument, NULL, TEST_OPT_IP },
		{ "arg", required_argument, NULL, TEST_OPT_ARG },
		{ "cbpf", no_argument, NULL, 'C' },
		{ "batch", required_argument, NULL, 'B' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 },
	};
	struct cli_options opts;
	int c;

	cli_options_init(&opts, argc, argv, "j", longopts, test_usage, &o->sets);
	while ((c = cli_options_next(&opts)) > 0) {
		switch (c) {
		case 'C':
			o->cbpf = true;
			break;
		case 'B':
			o->batch = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		default:
			o->given = true;
			if (test_syscall_option(&o->args, c, optarg))
				return -1;
		}
	}
	if (c < 0)
		return c == CLI_OPTIONS_HELP ? 1 : -1;
	*spec = cli_one_target(&opts, "test");
	if (!*spec)
		return -1;
	if (o->batch && o->given) {
		cli_error("test", "--batch takes the syscalls from its FILE: give --nr, --arch, "
				  "--ip and --arg there, not here");
		return -1;
	}
	return 0;
}

/* One syscall from the command line. Returns test's exit status. */
static int test_one(struct test_eval *e, const struct test_options *o)
{
	struct test_syscall s = { .line = 0 };
	struct test_result r;
	int status;

	if (test_syscall_resolve(&o->args, &s.sd))
		return EXIT_USAGE;
	status = test_eval_run(e, &s, &r);
	if (status)
		return status;
	if (o->json)
		test_json_print(test_result_json(&s, &r));
	else
		test_result_print(stdout, &r);
	return 0;
}

int cmd_test(int argc, char **argv)
{
	struct test_options o = { .sets = { .max = 64 } };
	struct cli_target t;
	struct test_eval e;
	const char *spec;
	int rc, status = EXIT_USAGE;

	rc = test_parse(argc, argv, &o, &spec);
	if (rc) {
		status = rc > 0 ? 0 : EXIT_USAGE;
		goto out;
	}
	/* A bad --nr fails before the object is compiled or loaded. */
	if (!o.batch) {
		struct seccomp_data sd;

		if (test_syscall_resolve(&o.args, &sd))
			goto out;
	}
	if (cli_open_target(spec, &o.sets, &t))
		goto out;
	status = test_eval_init(&e, &t, spec, o.cbpf);
	if (!status) {
		status = o.batch ? test_batch(&e, o.batch, o.json) : test_one(&e, &o);
		test_eval_free(&e);
	}
	cli_close(&t);
out:
	cli_sets_free(&o.sets);
	return status;
}
