// SPDX-License-Identifier: MIT
/*
 * `secbpf sys NAME|NR [--arch A] [-j]`: a syscall's name and number on an
 * arch, like libseccomp's scmp_sys_resolver, from the resolver that `test`
 * and the listings use (lib/common/syscall_name.c).
 */
#include <getopt.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Internal header: common/syscall_name.h, the one syscall resolver, and
 * common/number.h, the one parser of numbers. */
#include "common/number.h"
#include "common/syscall_name.h"
#include "cli.h"

/* Exit status when the arch has no such syscall. */
#define EXIT_NOT_A_SYSCALL 1

static void sys_usage(FILE *f)
{
	fprintf(f, "usage: secbpf sys NAME|NR [--arch A] [-j]\n"
		   "\n"
		   "Print a syscall's name and number on an arch, as the kernel puts the\n"
		   "number in seccomp_data.nr: \"NAME NR\". A NAME gives its number (a real\n"
		   "one: i386's socket is 359, never libseccomp's negative pseudo-number\n"
		   "for socketcall arches), an NR its name. Filters name these numbers\n"
		   "__SNR_<arch>_<name> (<secbpf/syscalls.h>).\n"
		   "\n"
		   "  --arch A    x86_64, x86 (or i386), x32, aarch64, ... or an AUDIT_ARCH_*\n"
		   "              number (default: the native arch); x32 numbers have bit 30\n"
		   "  -j, --json  print {\"arch\", \"audit_arch\", \"name\", \"nr\"} instead\n"
		   "  -h, --help  show this help\n"
		   "\n"
		   "Exit status: 0 when found, 1 when the arch has no such syscall, 2 on a\n"
		   "usage or input error.\n");
}

/* Print the answer, as "NAME NR" or as JSON. */
static int sys_print(const struct syscall_abi *abi, const char *name, int32_t nr, bool json)
{
	struct json_object *o;
	char label[32];
	int rc = 0;

	if (!json) {
		printf("%s %d\n", name, nr);
		return 0;
	}
	o = json_object_new_object();
	if (!o ||
	    json_object_object_add(
		    o, "arch",
		    json_object_new_string(syscall_abi_label(abi, label, sizeof(label)))) ||
	    json_object_object_add(o, "audit_arch", json_object_new_int64(abi->audit)) ||
	    json_object_object_add(o, "name", json_object_new_string(name)) ||
	    json_object_object_add(o, "nr", json_object_new_int(nr))) {
		cli_error("sys", "out of memory");
		rc = EXIT_USAGE;
	} else {
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	}
	json_object_put(o);
	return rc;
}

/* NAME|NR on abi: the exit status, after printing the answer or why not. */
static int sys_resolve(const struct syscall_abi *abi, const char *what, bool json)
{
	char buf[32], name[64];
	const char *label = syscall_abi_label(abi, buf, sizeof(buf));
	struct number n;
	int32_t nr;

	if (number_parse(what, 0, &n) == 0) {
		if (n.neg || n.mag > UINT32_MAX) {
			cli_error("sys", "%s is not a syscall number (0 to 0xffffffff)", what);
			return EXIT_USAGE;
		}
		nr = (int32_t)(uint32_t)n.mag;
		if (!syscall_abi_syscall_name(abi, nr, name, sizeof(name))[0]) {
			cli_error("sys", "no syscall %s on %s%s", what, label,
				  abi->token == abi->audit || (n.mag & SYSCALL_X32_BIT)
					  ? ""
					  : " (x32 numbers have bit 30 set: 0x40000000 | n)");
			return EXIT_NOT_A_SYSCALL;
		}
		return sys_print(abi, name, nr, json);
	}
	if (!cli_is_c_identifier(what)) {
		cli_error("sys", "'%s' is neither a syscall name nor a number", what);
		return EXIT_USAGE;
	}
	if (syscall_number(abi, what, &nr)) {
		cli_error("sys", "no syscall named '%s' on %s (check the name and --arch)", what,
			  label);
		return EXIT_NOT_A_SYSCALL;
	}
	return sys_print(abi, what, nr, json);
}

int cmd_sys(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 },
	};
	struct syscall_abi abi = syscall_abi_native();
	struct cli_options o;
	bool json = false;
	int c;

	cli_options_init(&o, argc, argv, "j", longopts, sys_usage, NULL);
	while ((c = cli_options_next(&o)) > 0) {
		switch (c) {
		case 'a':
			if (syscall_abi_parse(optarg, &abi)) {
				cli_error("--arch",
					  "unknown arch '%s' (try x86_64, x86, x32, aarch64 or an "
					  "AUDIT_ARCH_* number)",
					  optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		}
	}
	if (c < 0)
		return c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
	if (optind + 1 != argc) {
		cli_error("sys", "expected one syscall NAME or NR (see secbpf sys --help)");
		return EXIT_USAGE;
	}
	return sys_resolve(&abi, argv[optind], json);
}
