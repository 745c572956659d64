// SPDX-License-Identifier: MIT
/*
 * `secbpf test OBJ[:PROG] --nr NAME|NUMBER ...`: run a filter once on a
 * seccomp_data given on the command line, with fresh maps, and print the
 * action the kernel would take (docs/design.md §5).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Internal headers: vm/runtime.h, to run the program once (see
 * test_run_once for why not secbpf_program__test_run), and
 * install/action.h, to print the action as docs/design.md §5 says. */
#include "common/syscall_name.h"
#include "install/action.h"
#include "cli.h"
#include "vm/runtime.h"

static void test_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf test OBJ[:PROG] --nr NAME|NUMBER [--arch NAME|NUMBER] [--ip N]\n"
		"                   [--arg N]... [--set VAR=VALUE]...\n"
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
		"  --set VAR=VALUE  write a const volatile global before loading\n"
		"  -h, --help       show this help\n"
		"\n"
		"Numbers are decimal or 0x hex, over the full unsigned 64-bit range.\n"
		"Exit status: 0 after printing the action, 1 if the program faulted\n"
		"at run time, 2 on a usage or input error.\n");
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

/*
 * Run t's program once on sd with fresh maps and print the action. The
 * runtime, not secbpf_program__test_run(): that one returns the same kind
 * of error for a program that cannot be set up (exit 2) and for one that
 * faulted (exit 1).
 */
static int test_run_once(struct cli_target *t, const char *spec, const struct seccomp_data *sd)
{
	struct secbpf_err err = { { 0 } };
	struct runtime *rt;
	int status = 0;
	uint32_t ret;
	char out[32];

	rt = runtime_new(t->obj, t->prog, &err);
	if (!rt) {
		cli_error(spec, "%s", err.msg);
		return EXIT_USAGE;
	}
	if (runtime_run(rt, sd, &ret, &err)) {
		cli_error(spec, "the program faulted: %s", err.msg);
		status = EXIT_REJECTED;
	} else {
		printf("%s\n", action_format(ret, out, sizeof(out)));
	}
	runtime_free(rt);
	return status;
}

int cmd_test(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "nr", required_argument, NULL, 'n' },
		{ "arch", required_argument, NULL, 'a' },
		{ "ip", required_argument, NULL, 'i' },
		{ "arg", required_argument, NULL, 'g' },
		{ 0 },
	};
	const char *nr_arg = NULL, *arch_arg = NULL, *spec;
	struct cli_sets sets = { .max = 64 };
	struct seccomp_data sd = { 0 };
	struct cli_options o;
	struct cli_target t;
	int nargs = 0, c, status = EXIT_USAGE;
	uint64_t v;

	cli_options_init(&o, argc, argv, "", longopts, test_usage, &sets);
	while ((c = cli_options_next(&o)) > 0) {
		switch (c) {
		case 'n':
			nr_arg = optarg;
			break;
		case 'a':
			arch_arg = optarg;
			break;
		case 'i':
			if (parse_number_option("--ip", optarg, &v))
				goto out;
			sd.instruction_pointer = v;
			break;
		case 'g':
			if (nargs == 6) {
				cli_error("--arg", "a syscall has at most 6 arguments");
				goto out;
			}
			if (parse_number_option("--arg", optarg, &v))
				goto out;
			sd.args[nargs++] = v;
			break;
		}
	}
	if (c < 0) {
		status = c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
		goto out;
	}
	spec = cli_one_target(&o, "test");
	if (!spec || test_syscall(arch_arg, nr_arg, &sd))
		goto out;
	if (cli_open_target(spec, &sets, &t))
		goto out;
	status = test_run_once(&t, spec, &sd);
	cli_close(&t);
out:
	cli_sets_free(&sets);
	return status;
}
