// SPDX-License-Identifier: MIT
/*
 * The samples (samples/NAME.bpf.c) do what their top comments say: each one is
 * run with `secbpf test` on chosen seccomp_data, enforced with `secbpf run`
 * on real processes (perl for raw syscalls, tests/progs/ probes), and its
 * compiled cBPF is checked to be small and free of supervisor paths.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static char out[65536];
static char dir[4096]; /* this test's scratch directory */

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-samples");
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(samples, .init = setup, .fini = teardown, .timeout = 120);

/* Run a shell command in the scratch directory, stderr merged into stdout;
 * returns the exit status (-1 if the shell was killed), output in out[]. */
#define sh(fmt, ...) test_shell(out, sizeof(out), "cd '%s' && { " fmt " ; }", dir, ##__VA_ARGS__)

static const char *tool(void)
{
	return getenv("SECBPF");
}

/* The object of sample name: the one meson built, else compiled here from
 * the source with `secbpf cc`. */
static const char *sample(const char *name)
{
	static char path[4][4200];
	static int i;
	const char *build = getenv("SECBPF_BUILD_DIR");

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/samples/%s.bpf.o", build ? build : ".", name);
	if (build && access(path[i], R_OK) == 0)
		return path[i];
	snprintf(path[i], sizeof(path[i]), "%s/%s.bpf.o", dir, name);
	if (access(path[i], R_OK) == 0)
		return path[i];
	cr_assert_eq(sh("'%s' cc '%s/samples/%s.bpf.c' -o '%s'", tool(),
			getenv("SECBPF_SOURCE_DIR"), name, path[i]),
		     0, "cannot build sample %s: %s", name, out);
	return path[i];
}

/* A probe from tests/progs/: the one meson built (env var), else built here. */
static const char *probe(const char *name, const char *env)
{
	static char path[4200];
	const char *built = getenv(env);
	const char *cc = getenv("CC");

	if (built && *built && access(built, X_OK) == 0)
		return built;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert_eq(sh("'%s' -O1 -o '%s' '%s/tests/progs/%s.c'", cc && *cc ? cc : "cc", path,
			getenv("SECBPF_SOURCE_DIR"), name),
		     0, "cannot build the probe %s: %s", name, out);
	return path;
}

/* `secbpf test OBJ ARGS` must print want. */
static void expect_action(const char *obj, const char *args, const char *want)
{
	char line[256];

	cr_assert_eq(sh("'%s' test '%s' %s", tool(), obj, args), 0, "test %s: %s", args, out);
	snprintf(line, sizeof(line), "%s\n", want);
	cr_expect_str_eq(out, line, "%s with %s: got %s, expected %s", obj, args, out, want);
}

/* The instruction count of `secbpf compile --format asm` (its header line
 * "# N instructions, R (arch, nr) ranges, S decided by the supervisor"),
 * checked against the listing itself; *notif gets S. */
static unsigned compiled_size(const char *obj, const char *sets, unsigned *notif)
{
	unsigned n = 0, ranges = 0, s = 0, lines = 0;
	char *p;

	cr_assert_eq(sh("'%s' compile '%s' --format asm %s", tool(), obj, sets), 0, "%s", out);
	cr_assert_eq(
		sscanf(out, "# %u instructions, %u (arch, nr) ranges, %u decided", &n, &ranges, &s),
		3, "unexpected compile header: %.200s", out);
	for (p = out; (p = strstr(p, "\n ")); p++)
		if (p[2] >= '0' && p[2] <= '9' && p[6] == ':')
			lines++;
	cr_expect_eq(lines, n, "header says %u instructions, listing has %u", n, lines);
	*notif = s;
	return n;
}

/* `secbpf run -f OBJ SETS -- CMD`; returns the exit status, output in out[]. */
static int run(const char *obj, const char *sets, const char *cmd)
{
	/* In the sanitizer build the probes are instrumented too, and
	 * LeakSanitizer stops the world with ptrace, which some samples
	 * deny: leak checking is for secbpf, not for the filtered probes. */
	return sh("ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' %s -- %s", tool(), obj, sets,
		  cmd);
}

/* A perl one-liner printing the errno of a raw syscall, 0 on success. */
#define PERL_SYSCALL(args) "perl -e 'print syscall(" args ") < 0 ? $!+0 : 0, qq(\\n)'"

/*
 * docker_like.bpf.c
 */

Test(samples, docker_like_allowlist)
{
	const char *o = sample("docker_like");

	expect_action(o, "--nr getpid", "ALLOW");
	expect_action(o, "--nr read", "ALLOW");
	expect_action(o, "--nr execve", "ALLOW");
	expect_action(o, "--nr futex_waitv", "ALLOW");
	expect_action(o, "--nr 452", "ALLOW"); /* fchmodat2 */
	expect_action(o, "--nr 456", "ALLOW"); /* futex_requeue */
	expect_action(o, "--nr mount", "ERRNO(1)");
	expect_action(o, "--nr unshare", "ERRNO(1)");
	expect_action(o, "--nr setns", "ERRNO(1)");
	expect_action(o, "--nr bpf", "ERRNO(1)");
	expect_action(o, "--nr kexec_load", "ERRNO(1)");
	expect_action(o, "--nr init_module", "ERRNO(1)");
	expect_action(o, "--nr keyctl", "ERRNO(1)");
	expect_action(o, "--nr io_uring_setup", "ERRNO(1)");
	expect_action(o, "--nr 457", "ERRNO(1)");
	expect_action(o, "--nr 100000", "ERRNO(1)");
	/* nr -1 is not an x32 number: it gets the default like any unknown. */
	expect_action(o, "--nr -1", "ERRNO(1)");
}

Test(samples, docker_like_foreign_arch_and_x32_are_killed)
{
	const char *o = sample("docker_like");

	expect_action(o, "--arch x86 --nr getpid", "KILL_PROCESS");
	expect_action(o, "--arch aarch64 --nr getpid", "KILL_PROCESS");
	expect_action(o, "--arch x32 --nr getpid", "KILL_PROCESS");
	expect_action(o, "--nr 0x40000000", "KILL_PROCESS");
	expect_action(o, "--nr 0x80000000", "KILL_PROCESS");
	expect_action(o, "--nr -2", "KILL_PROCESS");
}

Test(samples, docker_like_personality)
{
	const char *o = sample("docker_like");

	expect_action(o, "--nr personality --arg 0", "ALLOW");
	expect_action(o, "--nr personality --arg 0x8", "ALLOW");
	expect_action(o, "--nr personality --arg 0x20000", "ALLOW");
	expect_action(o, "--nr personality --arg 0x20008", "ALLOW");
	expect_action(o, "--nr personality --arg 0xffffffff", "ALLOW");
	expect_action(o, "--nr personality --arg 0x40000", "ERRNO(1)");	 /* ADDR_NO_RANDOMIZE */
	expect_action(o, "--nr personality --arg 0x400000", "ERRNO(1)"); /* READ_IMPLIES_EXEC */
	expect_action(o, "--nr personality --arg 0x9", "ERRNO(1)");
	/* The kernel takes an unsigned int: only the low 32 bits count. */
	expect_action(o, "--nr personality --arg 0x100000000", "ALLOW");
	expect_action(o, "--nr personality --arg 0xffffffffffffffff", "ALLOW");
	expect_action(o, "--nr personality --arg 0x100040000", "ERRNO(1)");
}

Test(samples, docker_like_clone_namespaces)
{
	const char *o = sample("docker_like");
	static const char *ns_flags[] = { "0x20000",	"0x2000000",  "0x4000000", "0x8000000",
					  "0x10000000", "0x20000000", "0x40000000" };
	char args[128];
	size_t i;

	expect_action(o, "--nr clone --arg 0x11", "ALLOW");	   /* fork: SIGCHLD */
	expect_action(o, "--nr clone --arg 0x3d0f00", "ALLOW");	   /* pthread_create's flags */
	expect_action(o, "--nr clone --arg 0x80000000", "ALLOW");  /* CLONE_IO */
	expect_action(o, "--nr clone --arg 0x100000011", "ALLOW"); /* upper half is not a flag */
	for (i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
		snprintf(args, sizeof(args), "--nr clone --arg %s", ns_flags[i]);
		expect_action(o, args, "ERRNO(1)");
		snprintf(args, sizeof(args), "--nr clone --arg 0x%llx",
			 strtoull(ns_flags[i], NULL, 16) | 0x11);
		expect_action(o, args, "ERRNO(1)");
	}
	expect_action(o, "--nr clone3", "ERRNO(38)");
}

Test(samples, docker_like_socket_families)
{
	const char *o = sample("docker_like");

	expect_action(o, "--nr socket --arg 2 --arg 1", "ALLOW");  /* AF_INET */
	expect_action(o, "--nr socket --arg 1 --arg 1", "ALLOW");  /* AF_UNIX */
	expect_action(o, "--nr socket --arg 10 --arg 2", "ALLOW"); /* AF_INET6 */
	expect_action(o, "--nr socket --arg 39 --arg 2", "ALLOW");
	expect_action(o, "--nr socket --arg 40 --arg 1", "ERRNO(1)"); /* AF_VSOCK */
	expect_action(o, "--nr socket --arg 44 --arg 3", "ERRNO(1)"); /* AF_XDP */
	/* The kernel takes the family and protocol as ints: the upper half
	 * does not count (0x100000002 is AF_INET, 0x100000009 NETLINK_AUDIT). */
	expect_action(o, "--nr socket --arg 0x100000002", "ALLOW");
	expect_action(o, "--nr socket --arg 0x100000028", "ERRNO(1)");
	expect_action(o, "--nr socket --arg 16 --arg 3 --arg 0", "ALLOW");    /* NETLINK_ROUTE */
	expect_action(o, "--nr socket --arg 16 --arg 3 --arg 9", "ERRNO(1)"); /* NETLINK_AUDIT */
	expect_action(o, "--nr socket --arg 16 --arg 3 --arg 0x100000009", "ERRNO(1)");
	expect_action(o, "--nr socket --arg 0x100000010 --arg 3 --arg 9", "ERRNO(1)");
	expect_action(o, "--nr socket --arg 16 --arg 3 --arg 0x900000000", "ALLOW");
	expect_action(o, "--nr socket --arg 2 --arg 3 --arg 9", "ALLOW");
}

Test(samples, docker_like_compiles_small_and_in_kernel)
{
	unsigned notif, n = compiled_size(sample("docker_like"), "", &notif);

	cr_expect_eq(notif, 0, "every decision can be made in the kernel");
	/* About 300 allowed syscalls in ~65 ranges: a balanced tree, a few
	 * argument checks. libseccomp needs ~700 (linear) for the same. */
	cr_expect_leq(n, 250, "docker_like compiles to %u instructions", n);
	cr_expect_geq(n, 60);
}

Test(samples, docker_like_runs_ordinary_programs)
{
	const char *o = sample("docker_like");

	/* fork, pipes, exec, files; perl's fork goes through clone. */
	cr_expect_eq(run(o, "", "sh -c 'echo hello | cat; ls / >/dev/null && echo listed'"), 0,
		     "%s", out);
	cr_expect_str_eq(out, "hello\nlisted\n");
	cr_expect_eq(
		run(o, "",
		    "perl -e 'my $p = fork; exit 0 if !$p; waitpid($p, 0); print qq(forked\\n)'"),
		0, "%s", out);
	cr_expect_str_eq(out, "forked\n");
}

Test(samples, docker_like_enforces_personality)
{
	const char *o = sample("docker_like");

	/* ADDR_NO_RANDOMIZE is not a permitted persona. */
	cr_expect_eq(run(o, "", PERL_SYSCALL("135, 0x40000")), 0, "%s", out);
	cr_expect_str_eq(out, "1\n");
	/* The query is allowed (it returns the persona, 0 here). */
	cr_expect_eq(run(o, "", PERL_SYSCALL("135, 0xffffffff")), 0, "%s", out);
	cr_expect_str_eq(out, "0\n");
	/* Without the filter the same call succeeds: the EPERM is the filter's. */
	cr_expect_eq(sh(PERL_SYSCALL("135, 0x40000")), 0, "%s", out);
	cr_expect_str_eq(out, "0\n");
}

Test(samples, docker_like_enforces_namespaces)
{
	const char *o = sample("docker_like");

	/* unshare(CLONE_NEWUSER): not in the allowlist. */
	cr_expect_eq(run(o, "", PERL_SYSCALL("272, 0x10000000")), 0, "%s", out);
	cr_expect_str_eq(out, "1\n");
	/* clone(CLONE_NEWUSER | SIGCHLD): a child (if the filter failed)
	 * exits at once. */
	cr_expect_eq(run(o, "",
			 "perl -e 'my $r = syscall(56, 0x10000011, 0, 0, 0, 0); "
			 "exit 0 if $r == 0; print $r < 0 ? $!+0 : qq(pid), qq(\\n)'"),
		     0, "%s", out);
	cr_expect_str_eq(out, "1\n");
	/* clone3 gets ENOSYS, so that the C library falls back to clone. */
	cr_expect_eq(run(o, "", PERL_SYSCALL("435, 0, 0")), 0, "%s", out);
	cr_expect_str_eq(out, "38\n");
}

Test(samples, docker_like_enforces_socket)
{
	const char *o = sample("docker_like");

	cr_expect_eq(run(o, "", "perl -e 'print socket(my $s, 40, 1, 0) ? 0 : $!+0, qq(\\n)'"), 0,
		     "%s", out);
	cr_expect_str_eq(out, "1\n");
	cr_expect_eq(run(o, "", "perl -e 'print socket(my $s, 16, 3, 9) ? 0 : $!+0, qq(\\n)'"), 0,
		     "%s", out);
	cr_expect_str_eq(out, "1\n");
	cr_expect_eq(run(o, "", "perl -e 'print socket(my $s, 1, 1, 0) ? 0 : $!+0, qq(\\n)'"), 0,
		     "%s", out);
	cr_expect_str_eq(out, "0\n");
}

Test(samples, docker_like_kills_x32_syscalls)
{
	/* x32's getpid: KILL_PROCESS, seen as SIGSYS (128 + 31). */
	cr_expect_eq(run(sample("docker_like"), "", "perl -e 'syscall(0x40000027)'"), 159, "%s",
		     out);
}

/*
 * wx.bpf.c
 */

Test(samples, wx_decisions)
{
	const char *o = sample("wx");

	expect_action(o, "--nr mmap --arg 0 --arg 4096 --arg 7", "ERRNO(1)");
	expect_action(o, "--nr mmap --arg 0 --arg 4096 --arg 6", "ERRNO(1)");
	expect_action(o, "--nr mmap --arg 0 --arg 4096 --arg 3", "ALLOW");
	expect_action(o, "--nr mmap --arg 0 --arg 4096 --arg 5", "ALLOW");
	expect_action(o, "--nr mprotect --arg 0 --arg 4096 --arg 7", "ERRNO(1)");
	expect_action(o, "--nr mprotect --arg 0 --arg 4096 --arg 0x1000006", "ERRNO(1)");
	expect_action(o, "--nr mprotect --arg 0 --arg 4096 --arg 0x100000006", "ERRNO(1)");
	expect_action(o, "--nr mprotect --arg 0 --arg 4096 --arg 0x100000004", "ALLOW");
	expect_action(o, "--nr mprotect --arg 0 --arg 4096 --arg 1", "ALLOW");
	expect_action(o, "--nr pkey_mprotect --arg 0 --arg 4096 --arg 7 --arg 1", "ERRNO(1)");
	expect_action(o, "--nr pkey_mprotect --arg 0 --arg 4096 --arg 5 --arg 1", "ALLOW");
	/* prot is the third argument only. */
	expect_action(o, "--nr mmap --arg 7 --arg 7 --arg 1 --arg 7", "ALLOW");
	expect_action(o, "--nr openat --arg 7 --arg 7 --arg 7", "ALLOW");
	expect_action(o, "--nr -1", "ALLOW");
	expect_action(o, "--arch x86 --nr 192 --arg 0 --arg 4096 --arg 7", "KILL_PROCESS");
	expect_action(o, "--arch x32 --nr mmap", "KILL_PROCESS");
}

Test(samples, wx_compiles_small)
{
	unsigned notif, n = compiled_size(sample("wx"), "", &notif);

	cr_expect_eq(notif, 0);
	cr_expect_leq(n, 32, "wx compiles to %u instructions", n);
}

Test(samples, wx_enforced_on_a_real_process)
{
	const char *p = probe("wx_probe", "SECBPF_WX_PROBE");

	/* Unfiltered, every request succeeds: the probe tests something. */
	cr_assert_eq(sh("'%s'", p), 0, "%s", out);
	cr_expect_str_eq(out, "mmap_rwx=0 mmap_wx=0 mprotect_rwx=0 pkey_mprotect_rwx=0 "
			      "mmap_rw=0 mmap_rx=0 jit=42\n");
	cr_assert_eq(run(sample("wx"), "", p), 0, "%s", out);
	cr_expect_str_eq(out, "mmap_rwx=1 mmap_wx=1 mprotect_rwx=1 pkey_mprotect_rwx=1 "
			      "mmap_rw=0 mmap_rx=0 jit=42\n");
}

/*
 * knobs.bpf.c
 */

Test(samples, knobs_defaults)
{
	const char *o = sample("knobs");

	expect_action(o, "--nr close --arg 999", "ERRNO(1)");
	/* close() takes an unsigned int: the upper half does not matter. */
	expect_action(o, "--nr close --arg 0x1000003e7", "ERRNO(1)");
	expect_action(o, "--nr close --arg 998", "ALLOW");
	expect_action(o, "--nr ptrace", "ERRNO(1)");
	expect_action(o, "--nr process_vm_readv", "ERRNO(1)");
	expect_action(o, "--nr process_vm_writev", "ERRNO(1)");
	expect_action(o, "--nr getpid", "ALLOW");
	expect_action(o, "--arch x86 --nr getpid", "ERRNO(1)");
	expect_action(o, "--arch x32 --nr close --arg 999", "ERRNO(1)");
	expect_action(o, "--nr -1", "ALLOW");
}

Test(samples, knobs_set)
{
	const char *o = sample("knobs");
	char args[512];

	snprintf(args, sizeof(args), "--nr close --arg 42 --set denied_fd=42");
	expect_action(o, args, "ERRNO(1)");
	expect_action(o, "--nr close --arg 999 --set denied_fd=42", "ALLOW");
	expect_action(o, "--nr close --arg 999 --set denied_fd=-1", "ALLOW");
	expect_action(o, "--nr close --arg 0xffffffff --set denied_fd=-1", "ALLOW");
	expect_action(o, "--nr ptrace --set deny_ptrace=false", "ALLOW");
	expect_action(o, "--nr ptrace --set deny_ptrace=0", "ALLOW");
	expect_action(o, "--nr ptrace --set deny_errno=13", "ERRNO(13)");
	/* A huge errno is capped, never turned into another action. */
	expect_action(o, "--nr ptrace --set deny_errno=0x10000", "ERRNO(4095)");
	expect_action(o, "--nr ptrace --set deny_errno=0xffffffff", "ERRNO(4095)");
}

Test(samples, knobs_fold_to_constants)
{
	const char *o = sample("knobs");
	unsigned notif, full, off;

	full = compiled_size(o, "", &notif);
	cr_expect_eq(notif, 0);
	cr_expect_leq(full, 32, "knobs compiles to %u instructions", full);
	/* Both rules off: only the arch and x32 checks remain. */
	off = compiled_size(o, "--set denied_fd=-1 --set deny_ptrace=false", &notif);
	cr_expect_eq(notif, 0);
	cr_expect_leq(off, 10, "knobs with every rule off compiles to %u instructions", off);
	cr_expect_lt(off, full);
}

Test(samples, knobs_enforced_with_set)
{
	const char *o = sample("knobs");
	const char *p = probe("close_probe", "SECBPF_CLOSE_PROBE");
	char cmd[4400];

	/* close_probe prints the errnos of close(999) and close(111). */
	cr_expect_eq(run(o, "", p), 0, "%s", out);
	cr_expect_str_eq(out, "main close(999)=1 close(111)=9\n");
	cr_expect_eq(run(o, "--set denied_fd=111 --set deny_errno=13", p), 0, "%s", out);
	cr_expect_str_eq(out, "main close(999)=9 close(111)=13\n");
	/* Descendants get the filter too. */
	snprintf(cmd, sizeof(cmd), "'%s' fork-exec", p);
	cr_expect_eq(run(o, "--set denied_fd=111", cmd), 0, "%s", out);
	cr_expect_str_eq(out,
			 "fork-exec close(999)=9 close(111)=1\nmain close(999)=9 close(111)=1\n");

	/* ptrace(PTRACE_TRACEME): denied by default, allowed when switched off. */
	cr_expect_eq(run(o, "", PERL_SYSCALL("101, 0, 0, 0, 0")), 0, "%s", out);
	cr_expect_str_eq(out, "1\n");
	cr_expect_eq(run(o, "--set deny_ptrace=false", PERL_SYSCALL("101, 0, 0, 0, 0")), 0, "%s",
		     out);
	cr_expect_str_eq(out, "0\n");
}

/*
 * Every sample: compiled entirely to the kernel, within the kernel's limit.
 */
Test(samples, all_samples_compile_without_supervisor)
{
	static const char *names[] = { "seed_close", "docker_like", "wx", "knobs" };
	unsigned notif, n;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = compiled_size(sample(names[i]), "", &notif);
		cr_expect_eq(notif, 0, "%s: %u cells need the supervisor", names[i], notif);
		cr_expect(n > 0 && n <= 4096, "%s: %u instructions", names[i], n);
	}
}
