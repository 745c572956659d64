// SPDX-License-Identifier: MIT
/*
 * The lints of lib/lint through `secbpf verify` and `secbpf cc`: small
 * filters written here, each showing one trap (the warning's text, its C
 * line and the --Werror exit status), and correct filters, multi-arch
 * ones included, that must draw no finding at all.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static char out[65536];
static char dir[4096];

static void lint_setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-lint");
}

static void lint_teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(lint, .init = lint_setup, .fini = lint_teardown);

/* Run `$SECBPF <args>` with stderr merged into stdout, output in out[]. */
#define secbpf(fmt, ...) test_shell(out, sizeof(out), "'%s' " fmt, getenv("SECBPF"), ##__VA_ARGS__)

/* The line of the filter file (test_write_filter puts the #include on
 * line 1, then the body) that holds marker. */
static unsigned line_of(const char *body, const char *marker)
{
	const char *m = strstr(body, marker), *p;
	unsigned line = 2;

	cr_assert_not_null(m, "no marker %s in the body", marker);
	for (p = body; p < m; p++)
		line += *p == '\n';
	return line;
}

/* Whether out has the line "PATH:LINE: SEV: TEXT..." of lint NAME. */
static bool has_finding(const char *path, unsigned line, const char *sev, const char *text,
			const char *name)
{
	char head[4400], tail[64];
	const char *p = out;

	snprintf(head, sizeof(head), "%s:%u: %s: %s", path, line, sev, text);
	snprintf(tail, sizeof(tail), "[lint-%s]\n", name);
	while ((p = strstr(p, head))) {
		const char *eol = strchr(p, '\n');

		if (eol && (size_t)(eol + 1 - p) >= strlen(tail) &&
		    !strncmp(eol + 1 - strlen(tail), tail, strlen(tail)))
			return true;
		p++;
	}
	return false;
}

static const char no_arch_body[] = "SEC(\"seccomp\")\n"
				   "int no_arch(struct seccomp_data *ctx)\n"
				   "{\n"
				   "	if (ctx->nr == __NR_execve)\n"
				   "		return SECCOMP_RET_KILL_PROCESS;\n"
				   "	return SECCOMP_RET_ALLOW;\n"
				   "} /* ALLOW */\n";

Test(lint, no_arch_check_warns_on_the_allow_and_werror_fails)
{
	const char *f = test_write_filter(dir, "no_arch", no_arch_body);

	cr_assert_eq(secbpf("verify '%s'", f), 0, "warnings must not change the status: %s", out);
	cr_expect(has_finding(f, line_of(no_arch_body, "/* ALLOW */"), "warning",
			      "returns ALLOW without having checked ctx->arch", "arch"),
		  "%s", out);
	cr_expect(strstr(out, "`if (ctx->arch != AUDIT_ARCH_X86_64) return "
			      "SECCOMP_RET_KILL_PROCESS;`"),
		  "the fix is named: %s", out);
	cr_expect(strstr(out, ": no_arch: accepted\n"), "%s", out);
	cr_assert_eq(secbpf("verify --Werror '%s'", f), 1, "%s", out);
	cr_expect(strstr(out, "secbpf: "), "%s", out);
	cr_expect(strstr(out, "1 lint warning, an error with --Werror"), "%s", out);
}

/* The classic template: check the arch, switch on nr, default ALLOW. */
static const char x32_body[] = "SEC(\"seccomp\")\n"
			       "int x32(struct seccomp_data *ctx)\n"
			       "{\n"
			       "	if (ctx->arch != AUDIT_ARCH_X86_64)\n"
			       "		return SECCOMP_RET_KILL_PROCESS;\n"
			       "	switch (ctx->nr) { /* SWITCH */\n"
			       "	case __NR_execve:\n"
			       "	case __NR_ptrace:\n"
			       "		return SECCOMP_RET_ERRNO | 1;\n"
			       "	}\n"
			       "	return SECCOMP_RET_ALLOW;\n"
			       "}\n";

/* The same with x32 denied after the arch check: no warning. */
static const char x32_denied_body[] = "SEC(\"seccomp\")\n"
				      "int x32_denied(struct seccomp_data *ctx)\n"
				      "{\n"
				      "	if (ctx->arch != AUDIT_ARCH_X86_64)\n"
				      "		return SECCOMP_RET_KILL_PROCESS;\n"
				      "	if (ctx->nr >= 0x40000000)\n"
				      "		return SECCOMP_RET_KILL_PROCESS;\n"
				      "	switch (ctx->nr) {\n"
				      "	case __NR_execve:\n"
				      "	case __NR_ptrace:\n"
				      "		return SECCOMP_RET_ERRNO | 1;\n"
				      "	}\n"
				      "	return SECCOMP_RET_ALLOW;\n"
				      "}\n";

Test(lint, x32_numbers_reaching_the_default_allow_warn)
{
	const char *f = test_write_filter(dir, "x32", x32_body);

	cr_assert_eq(secbpf("verify '%s'", f), 0, "%s", out);
	cr_expect(has_finding(f, line_of(x32_body, "/* SWITCH */"), "warning",
			      "returns ALLOW for x32 syscalls too", "x32"),
		  "%s", out);
	cr_expect(strstr(out, "`if (ctx->nr >= 0x40000000) return SECCOMP_RET_KILL_PROCESS;`"),
		  "%s", out);
	cr_expect(!strstr(out, "[lint-arch]"), "the arch is checked: %s", out);
	cr_assert_eq(secbpf("verify --Werror '%s'", f), 1, "%s", out);

	f = test_write_filter(dir, "x32_denied", x32_denied_body);
	cr_assert_eq(secbpf("verify --Werror '%s'", f), 0, "notes are not errors: %s", out);
	cr_expect(!strstr(out, "warning:"), "%s", out);
}

/* Denylist: a note only, which --Werror does not count. */
Test(lint, denylist_default_allow_is_a_note)
{
	const char *f = test_write_filter(dir, "x32_denied", x32_denied_body);

	cr_assert_eq(secbpf("verify --Werror '%s'", f), 0, "%s", out);
	cr_expect(strstr(out, ": note: a denylist: this default returns ALLOW for every syscall"),
		  "%s", out);
	cr_expect(strstr(out, "[lint-denylist]\n"), "%s", out);
}

/* docker_like's bug: socket's protocol (an int) compared on 64 bits. */
static const char arg32_body[] =
	"SEC(\"seccomp\")\n"
	"int arg32(struct seccomp_data *ctx)\n"
	"{\n"
	"	if (ctx->arch != AUDIT_ARCH_X86_64 || ctx->nr >= 0x40000000)\n"
	"		return SECCOMP_RET_KILL_PROCESS;\n"
	"	if (ctx->nr == __NR_socket && ctx->args[2] == 9) /* COMPARE */\n"
	"		return SECCOMP_RET_ERRNO | 1;\n"
	"	if (ctx->nr == __NR_mmap && ctx->args[1] > 4096)\n"
	"		return SECCOMP_RET_ERRNO | 12;\n"
	"	if (ctx->nr == __NR_close && (__u32)ctx->args[0] == 999)\n"
	"		return SECCOMP_RET_ERRNO | 1;\n"
	"	if (ctx->nr == __NR_dup && (int)ctx->args[0] < 0)\n"
	"		return SECCOMP_RET_ERRNO | 9;\n"
	"	return SECCOMP_RET_ALLOW;\n"
	"}\n";

Test(lint, arg32_64_bit_compare_of_an_int_argument_warns)
{
	const char *f = test_write_filter(dir, "arg32", arg32_body);

	cr_assert_eq(secbpf("verify '%s'", f), 0, "%s", out);
	cr_expect(has_finding(f, line_of(arg32_body, "/* COMPARE */"), "warning",
			      "compares all 64 bits of args[2], but socket's argument 2 is `int`",
			      "arg32"),
		  "%s", out);
	cr_expect(strstr(out, "`(int)ctx->args[2]`"), "the fix: %s", out);
	/* mmap's length is a size_t; close and dup compare the low half. */
	cr_expect(!strstr(out, "mmap's"), "%s", out);
	cr_expect(!strstr(out, "close's"), "%s", out);
	cr_expect(!strstr(out, "dup's"), "%s", out);
	cr_assert_eq(secbpf("verify --Werror '%s'", f), 1, "%s", out);
}

/* On i386 every argument is 32 bits: a 64-bit compare reads what int $0x80
 * passes in the upper halves. */
static const char arg32_i386_body[] = "SEC(\"seccomp\")\n"
				      "int arg32_i386(struct seccomp_data *ctx)\n"
				      "{\n"
				      "	if (ctx->arch == AUDIT_ARCH_I386) {\n"
				      "		if (ctx->nr == 6 && ctx->args[0] == 2) /* I386 */\n"
				      "			return SECCOMP_RET_ERRNO | 1;\n"
				      "		return SECCOMP_RET_ALLOW;\n"
				      "	}\n"
				      "	return SECCOMP_RET_KILL_PROCESS;\n"
				      "}\n";

Test(lint, arg32_every_argument_of_a_32_bit_arch)
{
	const char *f = test_write_filter(dir, "arg32_i386", arg32_i386_body);

	cr_assert_eq(secbpf("verify '%s'", f), 0, "%s", out);
	cr_expect(has_finding(f, line_of(arg32_i386_body, "/* I386 */"), "warning",
			      "compares all 64 bits of args[0] of close on x86, where every "
			      "argument is 32 bits",
			      "arg32"),
		  "%s", out);
	cr_expect(!strstr(out, "[lint-arch]"), "%s", out);
}

/* A program that decides uretprobe (335) apart: never enforced. */
static const char uprobe_body[] =
	"SEC(\"seccomp\")\n"
	"int uprobe(struct seccomp_data *ctx)\n"
	"{\n"
	"	if (ctx->arch != AUDIT_ARCH_X86_64 || ctx->nr >= 0x40000000)\n"
	"		return SECCOMP_RET_KILL_PROCESS;\n"
	"	if (ctx->nr == 335)\n"
	"		return SECCOMP_RET_ERRNO | 7;\n"
	"	return SECCOMP_RET_ALLOW;\n"
	"}\n";

Test(lint, uretprobe_decided_apart_is_noted)
{
	const char *f = test_write_filter(dir, "uprobe", uprobe_body);

	cr_assert_eq(secbpf("verify --Werror '%s'", f), 0, "%s", out);
	cr_expect(strstr(out, ": note: decides uretprobe (x86_64 nr 335) apart from its default "
			      "and its neighbours, but recent kernels run uretprobe and uprobe "
			      "without consulting seccomp filters"),
		  "%s", out);
	cr_expect(strstr(out, "[lint-uprobe]\n"), "%s", out);
	cr_expect(!strstr(out, "decides uprobe"), "336 gets the default: %s", out);

	/* A bound on the numbers decides 335 with its neighbours: no note. */
	f = test_write_filter(dir, "uprobe_range",
			      "SEC(\"seccomp\")\n"
			      "int uprobe_range(struct seccomp_data *ctx)\n"
			      "{\n"
			      "	if (ctx->arch != AUDIT_ARCH_X86_64 || ctx->nr >= 0x40000000)\n"
			      "		return SECCOMP_RET_KILL_PROCESS;\n"
			      "	if (ctx->nr >= 512)\n"
			      "		return SECCOMP_RET_ERRNO | 38;\n"
			      "	return SECCOMP_RET_ALLOW;\n"
			      "}\n");
	cr_assert_eq(secbpf("verify '%s'", f), 0, "%s", out);
	cr_expect(!strstr(out, "[lint-uprobe]"), "%s", out);
}

/*
 * Correct filters draw no finding: an allowlist for x86_64 (x32 denied)
 * and i386 with arguments compared on their low 32 bits (and a size_t
 * on 64), and a stateful one that checks the arch before its map.
 */
static const char clean_body[] =
	"SEC(\"seccomp\")\n"
	"int clean(struct seccomp_data *ctx)\n"
	"{\n"
	"	__u32 nr = ctx->nr;\n"
	"\n"
	"	if (ctx->arch == AUDIT_ARCH_X86_64) {\n"
	"		if (nr >= 0x40000000)\n"
	"			return SECCOMP_RET_KILL_PROCESS;\n"
	"		switch (nr) {\n"
	"		case __NR_read: case __NR_write: case __NR_exit_group:\n"
	"		case __NR_rseq: case 337:\n"
	"			return SECCOMP_RET_ALLOW;\n"
	"		case __NR_socket:\n"
	"			if ((int)ctx->args[0] == 16 && (__u32)ctx->args[2] == 9)\n"
	"				return SECCOMP_RET_ERRNO | 1;\n"
	"			return SECCOMP_RET_ALLOW;\n"
	"		case __NR_mmap:\n"
	"			return ctx->args[1] > (1ull << 32) ? SECCOMP_RET_ERRNO | 12\n"
	"							   : SECCOMP_RET_ALLOW;\n"
	"		}\n"
	"		return SECCOMP_RET_ERRNO | 38;\n"
	"	}\n"
	"	if (ctx->arch == AUDIT_ARCH_I386) {\n"
	"		if (nr == 3 || nr == 4 || nr == 252)\n"
	"			return SECCOMP_RET_ALLOW;\n"
	"		if (nr == 6 && (__u32)ctx->args[0] != 2)\n"
	"			return SECCOMP_RET_ALLOW;\n"
	"		return SECCOMP_RET_ERRNO | 38;\n"
	"	}\n"
	"	return SECCOMP_RET_KILL_PROCESS;\n"
	"}\n";

static const char clean_stateful_body[] =
	"struct {\n"
	"	__uint(type, BPF_MAP_TYPE_ARRAY);\n"
	"	__uint(max_entries, 1);\n"
	"	__type(key, __u32);\n"
	"	__type(value, __u64);\n"
	"} forks SEC(\".maps\");\n"
	"\n"
	"SEC(\"seccomp\")\n"
	"int clean_stateful(struct seccomp_data *ctx)\n"
	"{\n"
	"	__u32 key = 0;\n"
	"	__u64 *n;\n"
	"\n"
	"	if (ctx->arch != AUDIT_ARCH_X86_64 || ctx->nr >= 0x40000000)\n"
	"		return SECCOMP_RET_KILL_PROCESS;\n"
	"	if (ctx->nr != __NR_fork && ctx->nr != __NR_vfork && ctx->nr != __NR_clone)\n"
	"		return SECCOMP_RET_ERRNO | 38;\n"
	"	n = bpf_map_lookup_elem(&forks, &key);\n"
	"	if (!n || ++*n > 3)\n"
	"		return SECCOMP_RET_ERRNO | 11;\n"
	"	return SECCOMP_RET_ALLOW;\n"
	"}\n";

Test(lint, correct_multi_arch_filters_draw_no_finding)
{
	const char *f = test_write_filter(dir, "clean", clean_body);

	cr_assert_eq(secbpf("verify --Werror '%s'", f), 0, "%s", out);
	cr_expect(!strstr(out, "warning:") && !strstr(out, "note:"), "%s", out);
	cr_expect(strstr(out, ": clean: accepted\n"), "%s", out);
	f = test_write_filter(dir, "clean_stateful", clean_stateful_body);
	cr_assert_eq(secbpf("verify --Werror '%s'", f), 0, "%s", out);
	cr_expect(!strstr(out, "warning:") && !strstr(out, "note:"), "%s", out);
}

/* secbpf cc lints what it compiled; --Werror fails and leaves no object. */
Test(lint, cc_prints_the_warnings_and_werror_fails_without_an_object)
{
	const char *f = test_write_filter(dir, "no_arch", no_arch_body);
	char obj[4200];

	snprintf(obj, sizeof(obj), "%s/no_arch.o", dir);
	cr_assert_eq(secbpf("cc '%s' -o '%s'", f, obj), 0, "%s", out);
	cr_expect(has_finding(f, line_of(no_arch_body, "/* ALLOW */"), "warning",
			      "returns ALLOW without having checked ctx->arch", "arch"),
		  "%s", out);
	cr_expect_eq(access(obj, F_OK), 0, "the object is written");
	cr_assert_eq(secbpf("cc --Werror '%s' -o '%s'", f, obj), 1, "%s", out);
	cr_expect(strstr(out, "1 lint warning, an error with --Werror"), "%s", out);
	cr_expect_neq(access(obj, F_OK), 0, "no object after --Werror failed");
	f = test_write_filter(dir, "clean", clean_body);
	cr_assert_eq(secbpf("cc --Werror '%s' -o '%s'", f, obj), 0, "%s", out);
	cr_expect_str_eq(out, "");
}

/* verify -j: one JSON document with the verdict and the findings. */
Test(lint, verify_json_has_the_findings)
{
	const char *f = test_write_filter(dir, "arg32", arg32_body);
	json_object *doc, *findings, *x, *v;
	bool found = false;
	size_t i, n;

	char cmd[8192];

	/* stdout alone: the findings are on stderr too. */
	snprintf(cmd, sizeof(cmd), "'%s' verify -j '%s' 2>/dev/null", getenv("SECBPF"), f);
	cr_assert_eq(test_capture(out, sizeof(out), cmd), 0, "%s", out);
	doc = json_tokener_parse(out);
	cr_assert_not_null(doc, "not JSON: %s", out);
	cr_expect(json_object_object_get_ex(doc, "accepted", &v) && json_object_get_boolean(v));
	cr_expect(json_object_object_get_ex(doc, "program", &v) &&
		  !strcmp(json_object_get_string(v), "arg32"));
	cr_assert(json_object_object_get_ex(doc, "findings", &findings), "%s", out);
	n = json_object_array_length(findings);
	for (i = 0; i < n; i++) {
		x = json_object_array_get_idx(findings, i);
		if (!json_object_object_get_ex(x, "lint", &v) ||
		    strcmp(json_object_get_string(v), "arg32"))
			continue;
		found = true;
		cr_expect(json_object_object_get_ex(x, "line", &v) &&
			  json_object_get_int(v) == (int)line_of(arg32_body, "/* COMPARE */"));
		cr_expect(json_object_object_get_ex(x, "severity", &v) &&
			  !strcmp(json_object_get_string(v), "warning"));
		cr_expect(json_object_object_get_ex(x, "file", &v) &&
			  !strcmp(json_object_get_string(v), f));
	}
	cr_expect(found, "%s", out);
	cr_expect(json_object_object_get_ex(doc, "warnings", &v) && json_object_get_int(v) >= 1);
	json_object_put(doc);
}

/* The shipped samples check the arch, deny x32 and compare int arguments
 * on 32 bits: no warning (denylists keep their note). */
Test(lint, samples_have_no_warning)
{
	static const char *const samples[] = {
		"deny_path",  "docker_like",	  "exec_once",	   "knobs", "rate_limit",
		"seed_close", "startup_lockdown", "syscall_count", "wx",
	};
	char obj[4096];
	size_t i;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		test_sample_path(obj, sizeof(obj), samples[i]);
		cr_expect_eq(secbpf("verify --Werror '%s'", obj), 0, "%s: %s", samples[i], out);
		cr_expect(!strstr(out, "warning:"), "%s: %s", samples[i], out);
	}
}

/* verify -j on a rejected program: accepted false, the reason, status 1. */
Test(lint, verify_json_of_a_rejected_program)
{
	const char *f = test_write_filter(dir, "rejected",
					  "SEC(\"seccomp\")\n"
					  "int rejected(struct seccomp_data *ctx)\n"
					  "{\n"
					  "	return *(int *)((char *)ctx + 4096);\n"
					  "}\n");
	json_object *doc, *v;
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "'%s' verify -j '%s' 2>/dev/null", getenv("SECBPF"), f);
	cr_assert_eq(test_capture(out, sizeof(out), cmd), 1, "%s", out);
	doc = json_tokener_parse(out);
	cr_assert_not_null(doc, "not JSON: %s", out);
	cr_expect(json_object_object_get_ex(doc, "accepted", &v) && !json_object_get_boolean(v));
	cr_expect(json_object_object_get_ex(doc, "error", &v) && json_object_get_string(v) &&
			  strlen(json_object_get_string(v)) > 0,
		  "%s", out);
	cr_expect(json_object_object_get_ex(doc, "findings", &v) &&
			  json_object_array_length(v) == 0,
		  "%s", out);
	json_object_put(doc);
}
