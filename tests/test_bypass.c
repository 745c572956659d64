// SPDX-License-Identifier: MIT
/*
 * Regression tests for the bypasses of issue 12, on the real kernel: a
 * 64-bit process calling i386 syscalls through `int $0x80`, x32 numbers,
 * and int arguments with garbage in their upper half, under the samples
 * and the guide's template (docs/writing-filters.md). Each failed against
 * the filters as they were; SECBPF_BYPASS_OBJECTS=DIR runs the suite on
 * other builds of them (DIR/NAME.bpf.o, template.bpf.o) to show it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "host_ia32.h"

static char out[65536];
static char dir[4096]; /* this test's scratch directory */

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-bypass");
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(bypass, .init = setup, .fini = teardown, .timeout = 60);

#define sh(fmt, ...) test_shell(out, sizeof(out), "cd '%s' && { " fmt " ; }", dir, ##__VA_ARGS__)

/* The object of sample name (or the one of SECBPF_BYPASS_OBJECTS). */
static const char *sample(const char *name)
{
	static char path[4200];
	const char *other = getenv("SECBPF_BYPASS_OBJECTS");

	if (other && *other)
		snprintf(path, sizeof(path), "%s/%s.bpf.o", other, name);
	else
		test_sample_path(path, sizeof(path), name);
	cr_assert_eq(access(path, R_OK), 0, "no object %s", path);
	return path;
}

/* The first C block of docs/writing-filters.md (the template), compiled
 * with `secbpf cc`. */
static const char *template_object(void)
{
	static char obj[4200];
	const char *other = getenv("SECBPF_BYPASS_OBJECTS");

	if (other && *other) {
		snprintf(obj, sizeof(obj), "%s/template.bpf.o", other);
		return obj;
	}
	cr_assert_eq(sh("awk '/^```c/{f=1;next} /^```/{if(f) exit} f' "
			"'%s/docs/writing-filters.md' > template.bpf.c && '%s' cc template.bpf.c "
			"-o template.bpf.o",
			getenv("SECBPF_SOURCE_DIR"), getenv("SECBPF")),
		     0, "%s", out);
	snprintf(obj, sizeof(obj), "%s/template.bpf.o", dir);
	return obj;
}

static const char *abi_probe(void)
{
	static char path[4200];

	return test_probe(path, sizeof(path), "SECBPF_ABI_PROBE", dir, "abi_probe", "");
}

/* `secbpf run -f OBJ SETS -- abi_probe ARGS`: the exit status, output in
 * out[] (leak checking is for secbpf, not for the filtered probe). */
static int run_probe(const char *obj, const char *sets, const char *args)
{
	return sh("ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' %s -- '%s' %s", getenv("SECBPF"),
		  obj, sets, abi_probe(), args);
}

/*
 * `secbpf test OBJ SETS --batch - --cbpf` on lines (one syscall each, maps
 * kept): the decisions of the classic BPF the kernel gets, and of the
 * program where it notifies, on any host. Output in out[].
 */
static void simulate(const char *obj, const char *sets, const char *lines)
{
	cr_assert_eq(sh("printf '%%b' '%s' | '%s' test '%s' %s --batch - --cbpf", lines,
			getenv("SECBPF"), obj, sets),
		     0, "%s", out);
}

/* Without a filter, what the probe does works: the tests below test the
 * filter, not a missing ABI. */
static void probe_works_unfiltered(const char *args, const char *want)
{
	cr_assert_eq(sh("'%s' %s", abi_probe(), args), 0, "%s", out);
	cr_assert_str_eq(out, want, "unfiltered abi_probe %s: %s", args, out);
}

Test(bypass, exec_once_counts_i386_execve)
{
	/* CMD's execve, then i386's (11): the second is a second exec. */
	simulate(sample("exec_once"), "", "--nr execve\\n--arch i386 --nr 11\\n");
	cr_expect_str_eq(out, "ALLOW supervisor\nERRNO(1) supervisor\n");
	test_require_ia32();
	probe_works_unfiltered("i386-execve /bin/echo again", "again\n");
	/* CMD's own execve was the one: i386's execve is a second. */
	cr_assert_eq(run_probe(sample("exec_once"), "", "i386-execve /bin/echo again"), 0, "%s",
		     out);
	cr_expect_str_eq(out, "execve=1\n");
}

Test(bypass, startup_lockdown_locks_i386_execve)
{
	/* i386's close of the marker locks; i386's execve is then denied,
	 * with the marker on its low 32 bits as i386 passes it. */
	simulate(sample("startup_lockdown"), "",
		 "--arch i386 --nr 6 --arg 0x5ecb0d0e\\n--arch i386 --nr 11\\n");
	cr_expect_str_eq(out, "ALLOW supervisor\nERRNO(1) supervisor\n");
	simulate(sample("startup_lockdown"), "",
		 "--arch i386 --nr 6 --arg 0x15ecb0d0e\\n--arch i386 --nr 11\\n");
	cr_expect_str_eq(out, "ALLOW supervisor\nERRNO(1) supervisor\n");
	test_require_ia32();
	/* The probe closes the marker (locking), then execs the i386 way. */
	cr_assert_eq(run_probe(sample("startup_lockdown"), "",
			       "close-first 0x5ecb0d0e i386-execve /bin/echo again"),
		     0, "%s", out);
	cr_expect_str_eq(out, "execve=1\n");
	/* The marker counts on its low 32 bits, as close() takes it. */
	cr_assert_eq(run_probe(sample("startup_lockdown"), "",
			       "close-first 0x15ecb0d0e i386-execve /bin/echo again"),
		     0, "%s", out);
	cr_expect_str_eq(out, "execve=1\n");
}

Test(bypass, rate_limit_counts_i386_clone)
{
	long failed = -1, err = -1;
	char lines[512] = "";
	int i;

	/* i386's clone (120) counts: a burst of 2, then EAGAIN (11). */
	for (i = 0; i < 10; i++)
		strcat(lines, "--arch i386 --nr 120\\n");
	simulate(sample("rate_limit"), "--set burst=2 --set per_second=1", lines);
	cr_expect_str_eq(out, "ALLOW supervisor\nALLOW supervisor\n"
			      "ERRNO(11) supervisor\nERRNO(11) supervisor\n"
			      "ERRNO(11) supervisor\nERRNO(11) supervisor\n"
			      "ERRNO(11) supervisor\nERRNO(11) supervisor\n"
			      "ERRNO(11) supervisor\nERRNO(11) supervisor\n");
	test_require_ia32();
	probe_works_unfiltered("i386-forks 3", "failed=0 errno=0\n");
	/* A burst of 2 and 1 a second: of 10 forks in a row, 8 fail (7 or
	 * 6 on a machine so loaded that they took a second or two). */
	cr_assert_eq(run_probe(sample("rate_limit"), "--set burst=2 --set per_second=1",
			       "i386-forks 10"),
		     0, "%s", out);
	cr_assert_eq(sscanf(out, "failed=%ld errno=%ld", &failed, &err), 2, "%s", out);
	cr_expect(failed >= 6 && failed <= 8 && err == 11, "%s", out);
}

Test(bypass, deny_path_checks_i386_openat)
{
	char denied[4200], args[4300];
	FILE *fp;

	/* i386's openat (295) is never allowed in the kernel: the program
	 * reads its path in the supervisor. */
	simulate(sample("deny_path"), "", "--arch i386 --nr 295\\n");
	cr_expect(strstr(out, " supervisor\n"), "i386 openat decided by the kernel: %s", out);
	test_require_ia32();
	mkdir("/tmp/secbpf-denied", 0755);
	snprintf(denied, sizeof(denied), "/tmp/secbpf-denied/bypass%d", (int)getpid());
	fp = fopen(denied, "w");
	cr_assert_not_null(fp);
	fclose(fp);
	snprintf(args, sizeof(args), "i386-openat %s", denied);
	probe_works_unfiltered(args, "open=0\n");
	cr_assert_eq(run_probe(sample("deny_path"), "", args), 0, "%s", out);
	cr_expect_str_eq(out, "open=13\n");
	unlink(denied);
}

Test(bypass, docker_like_audit_socket_with_upper_bits)
{
	/* socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT | 1 << 32): the kernel
	 * takes the protocol as an int, so this is an audit socket. */
	probe_works_unfiltered("socket 16 3 0x100000009", "socket=0\n");
	cr_assert_eq(run_probe(sample("docker_like"), "", "socket 16 3 0x100000009"), 0, "%s", out);
	cr_expect_str_eq(out, "socket=1\n");
	cr_assert_eq(run_probe(sample("docker_like"), "", "socket 16 3 9"), 0, "%s", out);
	cr_expect_str_eq(out, "socket=1\n");
	/* The family too is an int: AF_UNIX with garbage above is AF_UNIX. */
	cr_assert_eq(run_probe(sample("docker_like"), "", "socket 0x100000001 1 0"), 0, "%s", out);
	cr_expect_str_eq(out, "socket=0\n");
}

Test(bypass, seed_close_fd_upper_bits_and_x32)
{
	/* close(999 | 1 << 32) is close(999) to the kernel. */
	cr_assert_eq(run_probe(sample("seed_close"), "", "x32 3 999"), 0, "%s", out);
	cr_expect_str_eq(out, "ret=1\n", "x32 close(999): %s", out);
	cr_assert_eq(sh("ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' -- perl -e 'print "
			"syscall(3, 0x1000003e7) < 0 ? $!+0 : 0, qq(\\n)'",
			getenv("SECBPF"), sample("seed_close")),
		     0, "%s", out);
	cr_expect_str_eq(out, "1\n", "close(999 | 1 << 32): %s", out);
}

Test(bypass, template_denies_x32_and_i386)
{
	const char *o = template_object();

	/* x32's ptrace (521): killed (SIGSYS: 128 + 31), never allowed. On a
	 * kernel without x32 an allowed call would return ENOSYS. */
	cr_expect_eq(run_probe(o, "", "x32 521"), 159, "%s", out);
	/* i386's ptrace (26) and close(999), by the filter the kernel gets
	 * on any host, then through int $0x80 where the kernel runs it. */
	simulate(o, "",
		 "--arch i386 --nr 26\\n--arch i386 --nr 6 --arg 999\\n--arch i386 --nr 20\\n");
	cr_expect_str_eq(out, "ERRNO(1) kernel\nERRNO(1) kernel\nALLOW kernel\n");
	test_require_ia32();
	cr_assert_eq(run_probe(o, "", "i386 26 0"), 0, "%s", out);
	cr_expect_str_eq(out, "ret=1\n");
	cr_assert_eq(run_probe(o, "", "i386 6 999"), 0, "%s", out);
	cr_expect_str_eq(out, "ret=1\n");
	cr_assert_eq(run_probe(o, "", "i386 20"), 0, "%s", out); /* getpid */
	cr_expect_str_eq(out, "ret=0\n");
}
