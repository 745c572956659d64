// SPDX-License-Identifier: MIT
/*
 * `secbpf record` (tools/cmd_record.c, tools/record_emit.c), end to end on
 * the real kernel: a workload is recorded, the filter written is applied
 * with `secbpf run -f`, the same workload runs again, and a syscall (or an
 * arch) the recording never saw is denied.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "host_ia32.h"

static char out[65536];
static char dir[4096];
static char probe[4200];

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-record");
	test_probe(probe, sizeof(probe), "SECBPF_RECORD_PROBE", dir, "record_probe", "-pthread ");
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(record, .init = setup, .fini = teardown);

#define secbpf(fmt, ...)                                                                           \
	test_shell(out, sizeof(out), "cd '%s' && '%s' " fmt, dir, getenv("SECBPF"), ##__VA_ARGS__)

/* The contents of dir/name, in a static buffer. */
static const char *slurp(const char *name)
{
	static char buf[65536];
	char path[4200];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static bool exists(const char *name)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* The probe's arch calls: i386 only where the kernel has it (on a host
 * without IA-32 emulation int $0x80 kills the probe, filtered or not). */
static const char *arch_calls(void)
{
	return test_host_has_ia32(NULL, 0) ? "i386 x32" : "x32";
}

Test(record, the_same_workload_runs_again_and_a_new_syscall_is_denied)
{
	bool ia32 = test_host_has_ia32(NULL, 0);

	cr_assert_eq(secbpf("record -o rec.bpf.c -- '%s' %s", probe, arch_calls()), 0, "%s", out);
	cr_expect(strstr(out, "secbpf: record: "), "%s", out);
	cr_expect(strstr(out, "written to rec.bpf.c"), "%s", out);
	/* The filter is valid and stateless: the kernel decides all of it. */
	cr_assert_eq(secbpf("verify rec.bpf.c"), 0, "%s", out);
	cr_assert_eq(secbpf("test rec.bpf.c --cbpf --nr execve"), 0, "%s", out);
	cr_expect_str_eq(out, "ALLOW kernel\n");

	/* x32 fails with ENOSYS (38) on kernels without it, filtered or not. */
	cr_assert_eq(secbpf("run -f rec.bpf.c -- '%s' %s", probe, arch_calls()), 0, "%s", out);
	cr_expect_str_eq(out, ia32 ? "probe\ni386=0\nx32=38\n" : "probe\nx32=38\n");
	/* getppid was never made: EPERM (1), though it works unfiltered. */
	cr_assert_eq(secbpf("run -f rec.bpf.c -- '%s' getppid", probe), 0, "%s", out);
	cr_expect_str_eq(out, "probe\ngetppid=1\n");
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' getppid", probe), 0, "%s", out);
	cr_expect_str_eq(out, "probe\ngetppid=0\n");
	/* The deny action is a knob: KILL_PROCESS instead of EPERM. */
	cr_assert_eq(secbpf("run -f rec.bpf.c --set deny_action=0x80000000 -- '%s' getppid", probe),
		     159, "%s", out);
}

Test(record, every_arch_is_listed_with_names)
{
	const char *f;

	cr_assert_eq(secbpf("record -o rec.bpf.c -- '%s' x32", probe), 0, "%s", out);
	f = slurp("rec.bpf.c");
	cr_expect(strstr(f, "if (ctx->arch == AUDIT_ARCH_X86_64)"), "%s", f);
	cr_expect(strstr(f, "case 59: /* execve, 1 call */"), "%s", f);
	cr_expect(strstr(f, "case 231: /* exit_group, 1 call */"), "%s", f);
	cr_expect(strstr(f, "case 0x40000000 | 39: /* getpid, 1 call */"), "%s", f);
	cr_expect(strstr(f, "const volatile __u32 deny_action = SECCOMP_RET_ERRNO | EPERM;"), "%s",
		  f);
	cr_expect(strstr(f, "Recorded by `secbpf record` from:"), "%s", f);
	cr_expect(strstr(f, "record_probe x32"), "%s", f);
	/* Never seen, so never listed: a syscall, and the i386 arch. */
	cr_expect(!strstr(f, "getppid"), "%s", f);
	cr_expect(!strstr(f, "AUDIT_ARCH_I386"), "%s", f);
}

/* An i386 call through int $0x80 is recorded under its own arch, by its
 * i386 name and number: only where the kernel runs i386 code. */
Test(record, an_i386_call_is_listed_under_its_arch)
{
	const char *f;

	test_require_ia32();
	cr_assert_eq(secbpf("record -o rec.bpf.c -- '%s' i386", probe), 0, "%s", out);
	f = slurp("rec.bpf.c");
	cr_expect(strstr(f, "if (ctx->arch == AUDIT_ARCH_I386)"), "%s", f);
	cr_expect(strstr(f, "case 20: /* getpid, 1 call */"), "%s", f);
	cr_assert_eq(secbpf("run -f rec.bpf.c -- '%s' i386", probe), 0, "%s", out);
	cr_expect_str_eq(out, "probe\ni386=0\n");
}

Test(record, an_arch_the_recording_never_used_is_killed)
{
	cr_assert_eq(secbpf("record -o plain.bpf.c -- '%s'", probe), 0, "%s", out);
	cr_expect(!strstr(slurp("plain.bpf.c"), "AUDIT_ARCH_I386"));
	cr_assert_eq(secbpf("run -f plain.bpf.c -- '%s'", probe), 0, "%s", out);
	cr_expect_str_eq(out, "probe\n");
	cr_expect_eq(secbpf("run -f plain.bpf.c -- '%s' x32", probe), 159, "%s", out);
	/* i386: by the program and by the filter the kernel gets, on any
	 * host; by the kernel itself where it runs i386 code. */
	cr_assert_eq(secbpf("test plain.bpf.c --arch i386 --nr getpid"), 0, "%s", out);
	cr_expect_str_eq(out, "KILL_PROCESS\n");
	cr_assert_eq(secbpf("test plain.bpf.c --cbpf --arch i386 --nr getpid"), 0, "%s", out);
	cr_expect_str_eq(out, "KILL_PROCESS kernel\n");
	test_require_ia32();
	cr_expect_eq(secbpf("run -f plain.bpf.c -- '%s' i386", probe), 159, "%s", out);
}

Test(record, children_and_threads_are_recorded)
{
	/* A child of a shell: fork, exec, then getppid in the child. */
	cr_assert_eq(secbpf("record -o sh.bpf.c -- sh -c \"'%s' getppid; true\"", probe), 0, "%s",
		     out);
	cr_assert_eq(secbpf("run -f sh.bpf.c -- sh -c \"'%s' getppid; true\"", probe), 0, "%s",
		     out);
	cr_expect_str_eq(out, "probe\ngetppid=0\n");
	/* getppid made by a second thread only. */
	cr_assert_eq(secbpf("record -o thread.bpf.c -- '%s' thread", probe), 0, "%s", out);
	cr_expect(strstr(slurp("thread.bpf.c"), "/* getppid, 1 call */"));
	cr_assert_eq(secbpf("run -f thread.bpf.c -- '%s' thread", probe), 0, "%s", out);
	cr_expect_str_eq(out, "probe\nthread=0\n");
}

Test(record, exit_status_output_and_errors)
{
	/* CMD's status, and the filter still written. */
	cr_assert_eq(secbpf("record -o exit3.bpf.c -- sh -c 'exit 3'"), 3, "%s", out);
	cr_expect(strstr(slurp("exit3.bpf.c"), "exit_group"));
	/* Without -o, on stdout once CMD is done; it compiles. */
	cr_assert_eq(
		secbpf("record -- true > stdout.bpf.c && '%s' cc stdout.bpf.c", getenv("SECBPF")),
		0, "%s", out);
	cr_expect(strstr(slurp("stdout.bpf.c"), "int recorded(struct seccomp_data *ctx)"));
	/* -o is checked before CMD runs. */
	cr_assert_eq(secbpf("record -o nodir/x.bpf.c -- touch ran"), 125, "%s", out);
	cr_expect(strstr(out, "nodir/x.bpf.c: cannot write the filter"), "%s", out);
	cr_expect(!exists("ran"), "CMD ran although -o cannot be written");
	/* A command that cannot run leaves no empty filter behind. */
	cr_assert_eq(secbpf("record -o none.bpf.c -- ./no-such-command"), 127, "%s", out);
	cr_expect(!exists("none.bpf.c"));
	cr_assert_eq(secbpf("record -o none.bpf.c"), 125, "%s", out);
	cr_expect(strstr(out, "no command to record"), "%s", out);
	cr_assert_eq(secbpf("record --bogus -- true"), 125, "%s", out);
	cr_expect(strstr(out, "try 'secbpf record --help'"), "%s", out);
}

Test(record, recording_needs_no_privileges)
{
	char tool_dir[64], tool[4096], probe_dir[64], staged_probe[4096], work[4200];
	int rc;

	if (access("/usr/bin/setpriv", X_OK)) {
		test_skip_unless_ci("setpriv(1) is needed to record unprivileged");
		return;
	}
	/* uid 65534 runs copies under /tmp (the build directory may be out
	 * of its reach), with the filter headers next to them, and writes
	 * into a directory of its own. */
	test_stage_for_other_users(getenv("SECBPF"), tool_dir, sizeof(tool_dir), tool,
				   sizeof(tool));
	test_stage_for_other_users(probe, probe_dir, sizeof(probe_dir), staged_probe,
				   sizeof(staged_probe));
	snprintf(work, sizeof(work), "%s/work", dir);
	rc = test_shell(out, sizeof(out),
			"cp -r '%s/include' '%s/include' && chmod -R a+rX '%s/include' && "
			"mkdir '%s' && chown 65534:65534 '%s' && chmod 755 '%s' && cd '%s' && "
			"ASAN_OPTIONS=detect_leaks=0 SECBPF_INCLUDE_DIR='%s/include' "
			"setpriv --reuid=65534 --regid=65534 --clear-groups "
			"'%s' record -o rec.bpf.c -- '%s' getppid",
			getenv("SECBPF_SOURCE_DIR"), tool_dir, tool_dir, work, work, dir, work,
			tool_dir, tool, staged_probe);
	cr_expect_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "probe\ngetppid=0\n"), "%s", out);
	cr_expect(strstr(out, "written to rec.bpf.c"), "%s", out);
	if (rc == 0) {
		cr_assert_eq(secbpf("run -f work/rec.bpf.c -- '%s' getppid", probe), 0, "%s", out);
		cr_expect_str_eq(out, "probe\ngetppid=0\n");
	}
	test_remove_tree(tool_dir);
	test_remove_tree(probe_dir);
}
