// SPDX-License-Identifier: MIT
/*
 * The conventions of the secbpf tool (docs/design.md §5): --version, help,
 * option errors with a one-line hint, cc's refusals, --stats=FILE checked
 * first, the supervisor saying why it killed CMD and naming --agent, and
 * where `meson install` puts the conformance plugin. Real processes under
 * real filters.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static char out[65536];
static char dir[4096];
static char probe[4200];

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-conventions");
	test_probe(probe, sizeof(probe), "SECBPF_CLOSE_PROBE", dir, "close_probe", "");
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(conventions, .init = setup, .fini = teardown);

/* `$SECBPF <args>` in the scratch directory, stderr merged into out. */
#define secbpf(fmt, ...)                                                                           \
	test_shell(out, sizeof(out), "cd '%s' && '%s' " fmt, dir, getenv("SECBPF"), ##__VA_ARGS__)

/* dir/name, in one of 4 static buffers used in turn. */
static const char *in_dir(const char *name)
{
	static char path[4][4200];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

/* The number of lines of s. */
static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* How often needle occurs in s. */
static int count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* Where `meson install` puts the conformance plugin: libexec/secbpf, not
 * bin (it is for the bpf_conformance runner, not for users' PATH). */
Test(conventions, conformance_plugin_installs_to_libexec)
{
	cr_assert_eq(test_shell(out, sizeof(out), "meson introspect --installed '%s'",
				getenv("SECBPF_BUILD_DIR")),
		     0, "%s", out);
	cr_expect(strstr(out, "/libexec/secbpf/secbpf-conformance-plugin\""), "%s", out);
	cr_expect(!strstr(out, "/bin/secbpf-conformance-plugin\""), "%s", out);
}

Test(conventions, version_is_mesons_project_version)
{
	char want[256], meson[65536];
	const char *v, *end;
	FILE *f;
	size_t n;

	snprintf(want, sizeof(want), "%s/meson.build", getenv("SECBPF_SOURCE_DIR"));
	f = fopen(want, "r");
	cr_assert_not_null(f);
	n = fread(meson, 1, sizeof(meson) - 1, f);
	fclose(f);
	meson[n] = '\0';
	v = strstr(meson, "version: '");
	cr_assert_not_null(v);
	v += strlen("version: '");
	end = strchr(v, '\'');
	cr_assert_not_null(end);
	snprintf(want, sizeof(want), "secbpf %.*s\n", (int)(end - v), v);

	cr_assert_eq(secbpf("--version"), 0, "%s", out);
	cr_expect_str_eq(out, want);
}

Test(conventions, help_cmd_is_cmd_help)
{
	static const char *const cmds[] = { "test", "run", "cc", "verify", "dump" };
	char help[65536];
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		cr_assert_eq(secbpf("%s --help", cmds[i]), 0, "%s", out);
		snprintf(help, sizeof(help), "%s", out);
		cr_assert(strstr(help, "usage: secbpf "), "%s", help);
		cr_assert_eq(secbpf("help %s", cmds[i]), 0, "%s", out);
		cr_expect_str_eq(out, help, "secbpf help %s", cmds[i]);
	}
	cr_assert_eq(secbpf("help"), 0, "%s", out);
	cr_expect(strstr(out, "commands:"), "%s", out);
	cr_expect_eq(secbpf("help nosuchcommand"), 2, "%s", out);
	cr_expect(strstr(out, "secbpf: help: unknown command 'nosuchcommand'"), "%s", out);
}

Test(conventions, option_errors_are_one_line_and_a_hint)
{
	cr_assert_eq(secbpf("test --bogus x.o"), 2, "%s", out);
	cr_expect_str_eq(out, "secbpf: test: unknown or ambiguous option '--bogus'\n"
			      "try 'secbpf test --help'\n");
	cr_assert_eq(secbpf("test x.o --nr"), 2, "%s", out);
	cr_expect_str_eq(out, "secbpf: test: option '--nr' needs a value\n"
			      "try 'secbpf test --help'\n");
	cr_assert_eq(secbpf("verify -q x.o"), 2, "%s", out);
	cr_expect_str_eq(out, "secbpf: verify: unknown option '-q'\n"
			      "try 'secbpf verify --help'\n");
	/* run's usage errors are its 125, and CMD never runs. */
	cr_assert_eq(secbpf("run -f"), 125, "%s", out);
	cr_expect_str_eq(out, "secbpf: run: option '-f' needs a value\n"
			      "try 'secbpf run --help'\n");
	cr_assert_eq(secbpf("run --nope -f x.o -- true"), 125, "%s", out);
	cr_expect_eq(lines(out), 2, "%s", out);
	cr_expect(!strstr(out, "usage:"), "%s", out);
}

Test(conventions, cc_refuses_a_directory_a_non_c_file_and_two_sources)
{
	const char *src = test_write_filter(dir, "allow_all",
					    "SEC(\"seccomp\")\n"
					    "int allow_all(struct seccomp_data *ctx)\n"
					    "{\n"
					    "	return SECCOMP_RET_ALLOW;\n"
					    "}\n");
	char other[4200];

	cr_assert_eq(secbpf("cc '%s'", dir), 2, "%s", out);
	cr_expect(strstr(out, "is a directory"), "%s", out);
	cr_assert_eq(test_shell(out, sizeof(out), "echo hello > '%s'", in_dir("notc.txt")), 0);
	cr_assert_eq(secbpf("cc notc.txt -o notc.o"), 2, "%s", out);
	cr_expect(strstr(out, "not a C source"), "%s", out);
	cr_expect_neq(access(in_dir("notc.o"), F_OK), 0);
	snprintf(other, sizeof(other), "%s/other.c", dir);
	cr_assert_eq(test_shell(out, sizeof(out), "cp '%s' '%s'", src, other), 0, "%s", out);
	cr_assert_eq(secbpf("cc '%s' '%s' -o two.o", src, other), 2, "%s", out);
	cr_expect(strstr(out, "one source at a time"), "%s", out);
	cr_expect_neq(test_shell(out, sizeof(out), "test -f '%s/two.o'", dir), 0,
		      "no object may be written");
	cr_assert_eq(secbpf("cc"), 2, "%s", out);
	cr_expect(strstr(out, "no source file given"), "%s", out);
	/* What follows -- is clang's, and a real source still compiles. */
	cr_assert_eq(secbpf("cc '%s' -o one.o -- -DUNUSED=1", src), 0, "%s", out);
	cr_assert_eq(secbpf("test one.o --nr getppid"), 0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\n");
}

/* A stateful filter (it counts closes in a map) with action for close(999). */
static const char *stateful_close_filter(const char *name, const char *action)
{
	char body[2048];

	snprintf(body, sizeof(body),
		 "struct {\n"
		 "	__uint(type, BPF_MAP_TYPE_ARRAY);\n"
		 "	__uint(max_entries, 1);\n"
		 "	__type(key, __u32);\n"
		 "	__type(value, __u64);\n"
		 "} closes SEC(\".maps\");\n"
		 "SEC(\"seccomp\")\n"
		 "int %s(struct seccomp_data *ctx)\n"
		 "{\n"
		 "	__u32 k = 0;\n"
		 "	__u64 *v;\n"
		 "	if (ctx->arch != SECBPF_AUDIT_ARCH_NATIVE)\n"
		 "		return SECCOMP_RET_KILL_PROCESS;\n"
		 "	if (ctx->nr != __NR_close)\n"
		 "		return SECCOMP_RET_ALLOW;\n"
		 "	v = bpf_map_lookup_elem(&closes, &k);\n"
		 "	if (v)\n"
		 "		__sync_fetch_and_add(v, 1);\n"
		 "	if (ctx->args[0] == 999)\n"
		 "		return %s;\n"
		 "	return SECCOMP_RET_ALLOW;\n"
		 "}\n",
		 name, action);
	return test_write_filter(dir, name, body);
}

Test(conventions, stats_file_is_checked_before_cmd_runs)
{
	const char *f = stateful_close_filter("count_closes", "SECCOMP_RET_ERRNO | EPERM");

	cr_assert_eq(secbpf("run --stats=nodir/stats.txt -f '%s' -- touch ran", f), 125, "%s", out);
	cr_expect(strstr(out, "nodir/stats.txt: cannot write the stats"), "%s", out);
	cr_expect_neq(access(in_dir("ran"), F_OK), 0,
		      "CMD ran although --stats=FILE cannot be written");
	/* A good FILE gets the stats once CMD is done. */
	cr_assert_eq(secbpf("run --stats=stats.txt -f '%s' -- '%s' && cat stats.txt", f, probe), 0,
		     "%s", out);
	cr_expect(strstr(out, "main close(999)=1 close(111)=9\n"), "%s", out);
	cr_expect(strstr(out, " closes 0 = "), "%s", out);
}

Test(conventions, run_stats_json_is_one_document)
{
	const char *f = stateful_close_filter("count_closes", "SECCOMP_RET_ERRNO | EPERM");

	/* The probe closes 999 and 111, then stdio closes nothing else it
	 * could: at least 2 closes counted, given as a JSON number. */
	cr_assert_eq(secbpf("run --stats=stats.json -j -f '%s' -- '%s' >/dev/null && "
			    "python3 -c 'import json,sys; d=json.load(open(\"stats.json\")); "
			    "f=d[\"filters\"][0]; e=f[\"maps\"][\"closes\"][0]; "
			    "print(f[\"filter\"].endswith(\"count_closes.c\"), e[\"key\"], "
			    "e[\"value\"] >= 2)'",
			    f, probe),
		     0, "%s", out);
	cr_expect_str_eq(out, "True 0 True\n");
	cr_assert_eq(secbpf("run -j -f '%s' -- true", f), 125, "%s", out);
	cr_expect(strstr(out, "give --stats too"), "%s", out);
}

Test(conventions, supervisor_says_why_it_killed_cmd)
{
	const char *f = stateful_close_filter("kill_close_999", "SECCOMP_RET_KILL_PROCESS");

	cr_assert_eq(secbpf("run -f '%s' -- '%s'", f, probe), 137, "%s", out);
	cr_expect(strstr(out, "secbpf: supervisor: killed process "), "%s", out);
	cr_expect(strstr(out, "a filter returned KILL_PROCESS for its x86_64 syscall close (3)"),
		  "%s", out);
}

Test(conventions, user_notif_without_agent_names_agent)
{
	const char *stateless =
		test_write_filter(dir, "notify_close_999",
				  "SEC(\"seccomp\")\n"
				  "int notify_close_999(struct seccomp_data *ctx)\n"
				  "{\n"
				  "	if (ctx->nr == __NR_close && ctx->args[0] == 999)\n"
				  "		return SECCOMP_RET_USER_NOTIF;\n"
				  "	return SECCOMP_RET_ALLOW;\n"
				  "}\n");
	const char *stateful = stateful_close_filter("count_notify", "SECCOMP_RET_USER_NOTIF");

	/* Installed without a listener, the kernel would fail it with
	 * ENOSYS: refused before CMD runs. */
	cr_assert_eq(secbpf("run -f '%s' -- touch ran", stateless), 125, "%s", out);
	cr_expect(strstr(out, "returns USER_NOTIF and no user agent is given"), "%s", out);
	cr_expect(strstr(out, "--agent SOCKET"), "%s", out);
	cr_expect_neq(access(in_dir("ran"), F_OK), 0);
	/* The supervisor fails it with ENOSYS too, and says so once. */
	cr_assert_eq(secbpf("run -f '%s' -- sh -c \"'%s'; '%s'\"", stateful, probe, probe), 0, "%s",
		     out);
	cr_expect(strstr(out, "main close(999)=38 close(111)=9\n"), "%s", out);
	cr_expect(strstr(out, "secbpf run --agent SOCKET"), "%s", out);
	cr_expect_eq(count(out, "secbpf run --agent SOCKET"), 1, "%s", out);
}
