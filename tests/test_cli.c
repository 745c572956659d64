// SPDX-License-Identifier: MIT
/*
 * End-to-end tests of the secbpf tool (tools/): the commands run as a user
 * would run them, on the samples built by meson, checking output and exit
 * status (docs/design.md §5 is the contract).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static char out[65536];

/* Run `$SECBPF <args>` through the shell with stderr merged into stdout;
 * returns the exit status (or -1 on a signal) and leaves output in out[]. */
#define secbpf(fmt, ...)                                                                           \
	test_shell(out, sizeof(out), "cd '%s' && '%s' " fmt, getenv("SECBPF_BUILD_DIR"),           \
		   getenv("SECBPF"), ##__VA_ARGS__)

static const char *src(const char *rel)
{
	static char buf[4][1024];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", getenv("SECBPF_SOURCE_DIR"), rel);
	return buf[i];
}

#define SEED "samples/seed_close.bpf.o"

Test(cli, seed_sample_close_999_is_eperm)
{
	cr_assert_eq(secbpf("test " SEED " --nr close --arg 999"), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
}

Test(cli, seed_sample_close_111_is_allowed)
{
	cr_assert_eq(secbpf("test " SEED " --nr close --arg 111"), 0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\n");
	cr_assert_eq(secbpf("test " SEED " --nr 3 --arg 0x3e6"), 0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\n");
	cr_assert_eq(secbpf("test " SEED " --nr 3 --arg 0x3e7"), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
}

Test(cli, seed_sample_foreign_arch_is_eperm)
{
	cr_assert_eq(secbpf("test " SEED " --arch i386 --nr close --arg 111"), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
	cr_assert_eq(secbpf("test " SEED " --arch aarch64 --nr getpid"), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
	/* A numeric arch: AUDIT_ARCH_X86_64 is the sample's own. */
	cr_assert_eq(secbpf("test " SEED " --arch 0xc000003e --nr close --arg 999"), 0, "%s",
		     out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
}

Test(cli, x32_names_resolve_with_bit_30)
{
	/* x32's close is 0x40000003, which the sample denies as a foreign ABI
	 * (so is -1, whose bit 30 is set); x32's getpid is 0x40000027. */
	cr_assert_eq(secbpf("test " SEED " --arch x32 --nr close --arg 999"), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
	cr_assert_eq(secbpf("test " SEED " --arch x32 --nr 0x40000003 --arg 998"), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
	cr_assert_eq(secbpf("test " SEED " --nr -1 --arg 999"), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
}

Test(cli, c_source_is_compiled_first)
{
	cr_assert_eq(secbpf("test %s --nr close --arg 999", src("samples/seed_close.bpf.c")), 0,
		     "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
	cr_assert_eq(secbpf("test %s:bpf_prog1 --nr close --arg 111",
			    src("samples/seed_close.bpf.c")),
		     0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\n");
}

Test(cli, cc_builds_default_and_v3_objects)
{
	char dir[] = "/tmp/secbpf-cli-XXXXXX";

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(secbpf("cc %s -o %s/v1.o", src("samples/seed_close.bpf.c"), dir), 0, "%s",
		     out);
	cr_assert_eq(secbpf("cc %s --mcpu v3 -o %s/v3.o", src("samples/seed_close.bpf.c"), dir),
		     0, "%s", out);
	cr_assert_eq(secbpf("test %s/v3.o --nr close --arg 999", dir), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
	cr_assert_eq(secbpf("test %s/v1.o --nr close --arg 999", dir), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
	cr_assert_eq(secbpf("dis %s/v3.o", dir), 0, "%s", out);
	cr_expect(strstr(out, "if w2 != 0x3 goto pc+2"), "%s", out);
	secbpf("cc %s/nonexistent.c -o %s/x.o", dir, dir);
	cr_expect(strstr(out, "secbpf: "), "%s", out);
	unlink(strcat(strcpy(out, dir), "/v1.o"));
	snprintf(out, sizeof(out), "%s/v3.o", dir);
	unlink(out);
	rmdir(dir);
}

Test(cli, dis_prints_verifier_syntax_and_source_lines)
{
	cr_assert_eq(secbpf("dis " SEED), 0, "%s", out);
	cr_expect(strstr(out, "bpf_prog1"), "%s", out);
	cr_expect(strstr(out, "r2 = *(u32 *)(r1 +4)"), "%s", out);
	cr_expect(strstr(out, "seed_close.bpf.c:"), "%s", out);
	cr_expect(strstr(out, "exit"), "%s", out);
}

Test(cli, input_errors_exit_2_with_a_reason)
{
	cr_expect_eq(secbpf("test " SEED " --nr no_such_syscall"), 2);
	cr_expect(strstr(out, "secbpf: --nr: no syscall named 'no_such_syscall'"), "%s", out);
	/* open does not exist on aarch64: never libseccomp's pseudo number. */
	cr_expect_eq(secbpf("test " SEED " --arch aarch64 --nr open"), 2);
	cr_expect_eq(secbpf("test " SEED " --arch nosuch --nr close"), 2);
	cr_expect(strstr(out, "unknown arch"), "%s", out);
	cr_expect_eq(secbpf("test " SEED), 2);
	cr_expect(strstr(out, "--nr is required"), "%s", out);
	cr_expect_eq(secbpf("test " SEED " --nr close --arg 1x"), 2);
	cr_expect_eq(secbpf("test " SEED " --nr close --arg 0x10000000000000000"), 2);
	cr_expect_eq(secbpf("test /nonexistent.o --nr close"), 2);
	cr_expect(strstr(out, "secbpf: /nonexistent.o"), "%s", out);
	cr_expect_eq(secbpf("test " SEED ":nosuchprog --nr close"), 2);
	cr_expect(strstr(out, "nosuchprog"), "%s", out);
	cr_expect_eq(secbpf("test " SEED " --nr close --set nosuchvar=1"), 2);
	cr_expect(strstr(out, "nosuchvar"), "%s", out);
	cr_expect_eq(secbpf("nosuchcommand"), 2);
	cr_expect_eq(secbpf("test %s --nr close", src("meson.build")), 2);
}

Test(cli, full_64bit_arguments)
{
	cr_assert_eq(secbpf("test " SEED " --nr close --arg 0xffffffffffffffff"), 0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\n");
	/* 999 in the low half: close() takes an unsigned int, and the
	 * sample compares that half only. */
	cr_assert_eq(secbpf("test " SEED " --nr close --arg 0x1000003e7"), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
	cr_assert_eq(secbpf("test " SEED " --nr close --arg 0x3e700000000"), 0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\n");
}

Test(cli, help_everywhere)
{
	cr_expect_eq(secbpf("--help"), 0);
	cr_expect(strstr(out, "usage: secbpf"), "%s", out);
	cr_expect_eq(secbpf("cc --help"), 0);
	cr_expect(strstr(out, "usage: secbpf cc"), "%s", out);
	cr_expect_eq(secbpf("dis --help"), 0);
	cr_expect(strstr(out, "usage: secbpf dis"), "%s", out);
	cr_expect_eq(secbpf("compile --help"), 0);
	cr_expect(strstr(out, "usage: secbpf compile"), "%s", out);
	cr_expect_eq(secbpf("run --help"), 0);
	cr_expect(strstr(out, "usage: secbpf run"), "%s", out);
	cr_expect_eq(secbpf("verify --help"), 0);
	cr_expect(strstr(out, "usage: secbpf verify"), "%s", out);
	cr_expect_eq(secbpf("test --help"), 0);
	cr_expect(strstr(out, "usage: secbpf test"), "%s", out);
}

/* The option loop every command shares (tools/options.c): a bad option
 * is named in one line with a hint, not the whole usage, and exits 2 (125
 * for run and native-run, the statuses of docs/design.md §5); --set is
 * checked where it is taken. */
Test(cli, bad_options_say_what_with_the_commands_status)
{
	static const char *const cmds[] = { "cc", "compile", "dis", "test", "verify", "dump",
					    "native-verify" };
	char want[256];
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		cr_expect_eq(secbpf("%s --no-such-option", cmds[i]), 2, "%s: %s", cmds[i], out);
		snprintf(want, sizeof(want),
			 "secbpf: %s: unknown or ambiguous option '--no-such-option'\n"
			 "try 'secbpf %s --help'\n",
			 cmds[i], cmds[i]);
		cr_expect_str_eq(out, want, "%s", cmds[i]);
		cr_expect_eq(secbpf("%s -h", cmds[i]), 0, "%s: %s", cmds[i], out);
	}
	cr_expect_eq(secbpf("run --no-such-option -f " SEED " true"), 125, "%s", out);
	cr_expect(strstr(out, "try 'secbpf run --help'"), "%s", out);
	cr_expect_eq(secbpf("native-run --no-such-option " SEED " -- true"), 125, "%s", out);
	cr_expect(strstr(out, "try 'secbpf native-run --help'"), "%s", out);
	/* Only native-run takes --stats. */
	cr_expect_eq(secbpf("native-verify --stats " SEED), 2, "%s", out);
	cr_expect(strstr(out, "secbpf: native-verify: --stats is an option of native-run only"),
		  "%s", out);
	/* cc and dump take no --set. */
	cr_expect_eq(secbpf("dump --set x=1 1"), 2, "%s", out);
	cr_expect_eq(secbpf("compile --set 1x=2 --format asm " SEED), 2, "%s", out);
	cr_expect(strstr(out, "secbpf: --set: '1x=2': the variable name is not a C identifier"),
		  "%s", out);
	cr_expect_eq(secbpf("dis --set novalue " SEED), 2, "%s", out);
	cr_expect(strstr(out, "secbpf: --set: 'novalue' is not VAR=VALUE"), "%s", out);
	cr_expect_eq(secbpf("compile " SEED " " SEED " --format asm"), 2, "%s", out);
	cr_expect(strstr(out, "expected exactly one OBJ[:PROG]"), "%s", out);
}

Test(cli, compile_formats)
{
	char path[] = "/tmp/secbpf-compile-XXXXXX";
	int fd = mkstemp(path);
	long size;
	FILE *f;

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(secbpf("compile " SEED " --format asm"), 0, "%s", out);
	cr_expect(strstr(out, "ld  $data[4]"), "%s", out);
	cr_expect(strstr(out, "ERRNO(1)"), "%s", out);
	cr_assert_eq(secbpf("compile " SEED " --format c"), 0, "%s", out);
	cr_expect(strstr(out, "struct sock_filter secbpf_filter[]"), "%s", out);
	cr_assert_eq(secbpf("compile " SEED " -o %s", path), 0, "%s", out);
	f = fopen(path, "rb");
	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	unlink(path);
	cr_expect(size > 0 && size % 8 == 0, "size %ld", size);
	cr_expect_eq(secbpf("compile " SEED " --format nope"), 2);
	cr_expect(strstr(out, "--format"), "%s", out);
}

Test(cli, dis_cbpf_shows_the_compiled_filter)
{
	cr_assert_eq(secbpf("dis --cbpf " SEED), 0, "%s", out);
	cr_expect(strstr(out, "instructions"), "%s", out);
	cr_expect(strstr(out, "jeq #0xc000003e"), "%s", out);
}

Test(cli, verify_exit_codes_and_reasons)
{
	cr_expect_eq(secbpf("verify " SEED), 0, "%s", out);
	cr_expect(strstr(out, "bpf_prog1: accepted"), "%s", out);
	cr_expect_eq(secbpf("verify --strict --tier restricted " SEED), 0, "%s", out);
	/* A helper call is more than the restricted tier allows: rejected
	 * with the helper's name and the C line. */
	cr_expect_eq(secbpf("verify --tier restricted %s", src("tests/cbpf/helper.bpf.c")), 1,
		     "%s", out);
	cr_expect(strstr(out, "helper.bpf.c:"), "%s", out);
	cr_expect(strstr(out, "bpf_get_current_uid_gid"), "%s", out);
	cr_expect(strstr(out, "restricted tier"), "%s", out);
	cr_expect_eq(secbpf("verify --tier nosuch " SEED), 2);
	cr_expect_eq(secbpf("verify /nonexistent.o"), 2);
	cr_expect_eq(secbpf("verify"), 2);
	cr_expect_eq(secbpf("verify -v " SEED), 0, "%s", out);
	cr_expect(strstr(out, "r2 = *(u32 *)(r1 +4)"), "verbose log: %s", out);
}

Test(cli, native_commands_say_the_kernel_lacks_support)
{
	/* This test runs on stock kernels; on the patched one (kernel/) the
	 * guest tests exercise these commands instead. */
	if (access("/proc/sys/kernel/seccomp/extended", F_OK) == 0)
		cr_skip_test("this kernel has the eBPF seccomp port");
	cr_expect_eq(secbpf("native-run " SEED " -- true"), 125, "%s", out);
	cr_expect(strstr(out, "lacks eBPF seccomp support"), "%s", out);
	cr_expect_eq(secbpf("native-verify " SEED), 2, "%s", out);
	cr_expect(strstr(out, "lacks eBPF seccomp support"), "%s", out);
}

/* secbpf-conformance-plugin speaks the bpf_conformance protocol: the
 * program as hex on stdin, the memory as hex in argv[1], r0 in hex out. */
static int plugin(const char *prog_hex, const char *mem_hex)
{
	char cmd[4096];
	size_t n;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "echo '%s' | '%s/secbpf-conformance-plugin' %s 2>&1", prog_hex,
		 getenv("SECBPF_BUILD_DIR"), mem_hex);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(cli, conformance_plugin_protocol)
{
	/* lddw r0, 0x1122334455667788; exit */
	cr_assert_eq(plugin("18 00 00 00 88 77 66 55 00 00 00 00 44 33 22 11 "
			    "95 00 00 00 00 00 00 00",
			    ""),
		     0, "%s", out);
	cr_expect_str_eq(out, "1122334455667788\n");
	/* ldxw r0, [r1+4]; exit, on memory "aa bb cc dd 01 02 03 04" */
	cr_assert_eq(plugin("6110040000000000 9500000000000000", "'aabbccdd01020304'"), 0, "%s",
		     out);
	cr_expect_str_eq(out, "4030201\n");
	/* A load past the memory is an error, not a crash. */
	cr_expect_eq(plugin("6110100000000000 9500000000000000", "'aabbccdd'"), 1, "%s", out);
	cr_expect(strstr(out, "secbpf-conformance-plugin:"), "%s", out);
	/* Not hex. */
	cr_expect_eq(plugin("zz", ""), 1, "%s", out);
}

/* Issue 26: the messages that were not true. */

/* secbpfd is a program of its own: its bad options name it, and point to
 * its own help, not to a `secbpf secbpfd` that does not exist. */
Test(cli, secbpfd_options_name_secbpfd_and_it_has_a_version)
{
	const char *d = getenv("SECBPFD");

	cr_assert_not_null(d);
	cr_expect_eq(test_shell(out, sizeof(out), "'%s' --bogus", d), 2, "%s", out);
	cr_expect_str_eq(out, "secbpfd: unknown or ambiguous option '--bogus'\n"
			      "try 'secbpfd --help'\n");
	cr_expect_eq(test_shell(out, sizeof(out), "'%s' --config", d), 2, "%s", out);
	cr_expect_str_eq(out, "secbpfd: option '--config' needs a value\ntry 'secbpfd --help'\n");
	/* A policy file named on purpose must exist. */
	cr_expect_eq(test_shell(out, sizeof(out), "'%s' --policy /nonexistent/p.conf --check", d),
		     2, "%s", out);
	cr_expect(strstr(out, "secbpfd: usage: --policy /nonexistent/p.conf: No such file"), "%s",
		  out);
	cr_expect_eq(test_shell(out, sizeof(out), "'%s' --version", d), 0, "%s", out);
	cr_expect_eq(strncmp(out, "secbpfd ", 8), 0, "%s", out);
	cr_expect_eq(test_shell(out, sizeof(out), "'%s' -V", d), 0, "%s", out);
	cr_expect_eq(strncmp(out, "secbpfd ", 8), 0, "%s", out);
	/* The same version as secbpf's. */
	cr_assert_eq(secbpf("--version"), 0, "%s", out);
	{
		char mine[128];

		snprintf(mine, sizeof(mine), "%.100s", out + strlen("secbpf "));
		cr_assert_eq(test_shell(out, sizeof(out), "'%s' --version", d), 0, "%s", out);
		cr_expect_str_eq(out + strlen("secbpfd "), mine);
	}
}

/* A policy file asked for by name must exist: it never reads as the
 * defaults (the default path may be absent: no policy written yet). */
Test(cli, policy_config_that_does_not_exist_is_an_error)
{
	cr_expect_eq(secbpf("policy --config /nonexistent/policy.conf"), 2, "%s", out);
	cr_expect(strstr(out, "secbpf: policy: --config /nonexistent/policy.conf: No such file"),
		  "%s", out);
	cr_expect_null(strstr(out, "tier:"), "%s", out);
}

/* The x32 boundary test is not a syscall: `jge #0x40000000` was annotated
 * as x32's read. */
Test(cli, dis_cbpf_names_the_x32_boundary)
{
	char *line, *end;

	cr_assert_eq(secbpf("dis --cbpf samples/docker_like.bpf.o"), 0, "%s", out);
	line = strstr(out, "jge #0x40000000");
	cr_assert_not_null(line, "no x32 test in the sample: %s", out);
	end = strchr(line, '\n');
	cr_assert_not_null(end);
	*end = '\0';
	cr_expect(strstr(line, "; x32 ABI (bit 30 of nr)"), "%s", line);
	cr_expect_null(strstr(line, "; read"), "%s", line);
}
