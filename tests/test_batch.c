// SPDX-License-Identifier: MIT
/*
 * `secbpf test --batch`, `--cbpf` and `-j` (tools/test_batch.c,
 * tools/test_eval.c): a list of syscalls against maps kept from line to
 * line, the compiled classic BPF on the simulator saying who decides, and
 * the JSON document; each checked against a real run where it can be.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static char out[65536];
static char dir[4096];
static char probe[4200];
static char seed[4200];

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-batch");
	test_probe(probe, sizeof(probe), "SECBPF_CLOSE_PROBE", dir, "close_probe", "");
	test_sample_path(seed, sizeof(seed), "seed_close");
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(batch, .init = setup, .fini = teardown);

#define secbpf(fmt, ...)                                                                           \
	test_shell(out, sizeof(out), "cd '%s' && '%s' " fmt, dir, getenv("SECBPF"), ##__VA_ARGS__)

/* Write dir/name with text. */
static void write_file(const char *name, const char *text)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* close(999) is allowed once per filter, then EPERM: a count in a map. */
static const char *second_close_denied(void)
{
	return test_write_filter(dir, "second_close_denied",
				 "struct {\n"
				 "	__uint(type, BPF_MAP_TYPE_ARRAY);\n"
				 "	__uint(max_entries, 1);\n"
				 "	__type(key, __u32);\n"
				 "	__type(value, __u64);\n"
				 "} seen SEC(\".maps\");\n"
				 "SEC(\"seccomp\")\n"
				 "int second_close_denied(struct seccomp_data *ctx)\n"
				 "{\n"
				 "	__u32 k = 0;\n"
				 "	__u64 *v;\n"
				 "	if (ctx->arch != SECBPF_AUDIT_ARCH_NATIVE)\n"
				 "		return SECCOMP_RET_KILL_PROCESS;\n"
				 "	if (ctx->nr != __NR_close || ctx->args[0] != 999)\n"
				 "		return SECCOMP_RET_ALLOW;\n"
				 "	v = bpf_map_lookup_elem(&seen, &k);\n"
				 "	if (!v)\n"
				 "		return SECCOMP_RET_KILL_PROCESS;\n"
				 "	if (__sync_fetch_and_add(v, 1) >= 1)\n"
				 "		return SECCOMP_RET_ERRNO | EPERM;\n"
				 "	return SECCOMP_RET_ALLOW;\n"
				 "}\n");
}

Test(batch, maps_are_kept_from_line_to_line_as_in_a_real_run)
{
	const char *f = second_close_denied();

	write_file("closes.txt", "# the first close(999) passes, the next ones do not\n"
				 "--nr close --arg 999\n"
				 "\n"
				 "--nr close --arg 111   # another fd: not counted\n"
				 "--nr close --arg 999\n"
				 "--nr 3 --arg 0x3e7\n");
	cr_assert_eq(secbpf("test '%s' --batch closes.txt", f), 0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\nALLOW\nERRNO(1)\nERRNO(1)\n");
	/* Each plain test starts with fresh maps. */
	cr_assert_eq(secbpf("test '%s' --nr close --arg 999", f), 0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\n");
	/* The kernel agrees: the forked child's close(999) runs (EBADF, 9),
	 * the parent's, the second, gets EPERM (1). */
	cr_assert_eq(secbpf("run -f '%s' -- '%s' fork", f, probe), 0, "%s", out);
	cr_expect_str_eq(out, "child close(999)=9 close(111)=9\nmain close(999)=1 close(111)=9\n");
}

Test(batch, the_fourth_fork_is_denied_by_the_rate_limit_sample)
{
	char rl[4200];

	test_sample_path(rl, sizeof(rl), "rate_limit");
	write_file("forks.txt", "--nr clone\n--nr clone\n--nr clone\n--nr clone\n--nr getppid\n");
	/* A burst of 3 and a refill of one a second: the 4th clone, a few
	 * microseconds later, finds the bucket empty. */
	cr_assert_eq(secbpf("test '%s' --set burst=3 --set per_second=1 --batch forks.txt", rl), 0,
		     "%s", out);
	cr_expect_str_eq(out, "ALLOW\nALLOW\nALLOW\nERRNO(11)\nALLOW\n");
	/* From stdin too. */
	cr_assert_eq(secbpf("test '%s' --set burst=3 --set per_second=1 --batch - < forks.txt", rl),
		     0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\nALLOW\nALLOW\nERRNO(11)\nALLOW\n");
}

Test(batch, errors_name_the_line_and_nothing_runs)
{
	write_file("bad_nr.txt", "--nr close\n# fine so far\n--nr no_such_syscall\n");
	cr_assert_eq(secbpf("test '%s' --batch bad_nr.txt 2>&1", seed), 2, "%s", out);
	cr_expect(strstr(out, "no syscall named 'no_such_syscall'"), "%s", out);
	cr_expect(strstr(out, "secbpf: test: bad_nr.txt:3: "), "%s", out);
	cr_expect(!strstr(out, "ALLOW"), "the file is checked before any line runs: %s", out);

	write_file("bad_opt.txt", "--nr close\n--bogus 1\n");
	cr_assert_eq(secbpf("test '%s' --batch bad_opt.txt", seed), 2, "%s", out);
	cr_expect(strstr(out, "unknown or ambiguous option '--bogus'"), "%s", out);
	cr_expect(strstr(out, "bad_opt.txt:2: "), "%s", out);

	write_file("operand.txt", "\n\n--nr close 5\n");
	cr_assert_eq(secbpf("test '%s' --batch operand.txt", seed), 2, "%s", out);
	cr_expect(strstr(out, "unexpected '5'"), "%s", out);
	cr_expect(strstr(out, "operand.txt:3: "), "%s", out);

	write_file("set.txt", "--set x=1 --nr close\n");
	cr_assert_eq(secbpf("test '%s' --batch set.txt", seed), 2, "%s", out);
	cr_expect(strstr(out, "set.txt:1: "), "%s", out);

	write_file("empty.txt", "# nothing\n\n");
	cr_assert_eq(secbpf("test '%s' --batch empty.txt", seed), 2, "%s", out);
	cr_expect(strstr(out, "no syscall in it"), "%s", out);
	cr_assert_eq(secbpf("test '%s' --batch missing.txt", seed), 2, "%s", out);
	cr_expect(strstr(out, "missing.txt: No such file"), "%s", out);
	/* The syscall options go in the file. */
	cr_assert_eq(secbpf("test '%s' --batch empty.txt --nr close", seed), 2, "%s", out);
	cr_expect(strstr(out, "give --nr, --arch, --ip and --arg there"), "%s", out);
}

Test(batch, lines_take_arches_and_numbers)
{
	write_file("arches.txt", "--arch i386 --nr close --arg 111\n"
				 "--arch x86_64 --nr close --arg 0x3e7\n"
				 "--arch x32 --nr close --arg 999\n"
				 "--nr close --arg 111\n"
				 "--arch 0xc000003e --nr 3 --arg 999\n");
	/* The sample denies every foreign ABI, x32 included. */
	cr_assert_eq(secbpf("test '%s' --batch arches.txt", seed), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\nERRNO(1)\nERRNO(1)\nALLOW\nERRNO(1)\n");
}

Test(batch, cbpf_says_who_decides)
{
	const char *f = second_close_denied();

	/* Stateless: the kernel decides everything. */
	cr_assert_eq(secbpf("test '%s' --cbpf --nr close --arg 999", seed), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1) kernel\n");
	cr_assert_eq(secbpf("test '%s' --cbpf --arch i386 --nr getpid", seed), 0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1) kernel\n");
	/* Stateful: the paths reaching the map are the supervisor's, the
	 * others (and the foreign arch) the kernel's. */
	write_file("mixed.txt", "--nr close --arg 999\n"
				"--nr close --arg 999\n"
				"--nr getppid\n"
				"--arch i386 --nr getppid\n");
	cr_assert_eq(secbpf("test '%s' --cbpf --batch mixed.txt", f), 0, "%s", out);
	cr_expect_str_eq(out, "ALLOW supervisor\nERRNO(1) supervisor\nALLOW kernel\n"
			      "KILL_PROCESS kernel\n");
}

Test(batch, cbpf_runs_the_listener_guard_the_kernel_runs)
{
	const char *f = second_close_denied();

	/* seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER):
	 * the program allows it, but `run` installs it behind the listener
	 * guard (docs/design.md §1), which the kernel runs first. */
	cr_assert_eq(secbpf("test '%s' --nr seccomp --arg 1 --arg 8", f), 0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\n");
	cr_assert_eq(secbpf("test '%s' --cbpf --nr seccomp --arg 1 --arg 8", f), 0, "%s", out);
	cr_expect(strstr(out, " kernel\n") && strncmp(out, "ALLOW", 5), "%s", out);
	/* Without the flag it goes through. */
	cr_assert_eq(secbpf("test '%s' --cbpf --nr seccomp --arg 1 --arg 0", f), 0, "%s", out);
	cr_expect_str_eq(out, "ALLOW kernel\n");
}

Test(batch, json_is_one_document)
{
	const char *f = second_close_denied();

	cr_assert_eq(secbpf("test '%s' -j --nr close --arg 999", seed), 0, "%s", out);
	cr_expect_str_eq(out, "{\"action\":\"ERRNO(1)\",\"ret\":327681,\"errno\":1}\n");
	cr_assert_eq(secbpf("test '%s' --cbpf -j --nr close --arg 111", seed), 0, "%s", out);
	cr_expect_str_eq(out,
			 "{\"action\":\"ALLOW\",\"ret\":2147418112,\"decided_by\":\"kernel\"}\n");
	write_file("two.txt", "--nr close --arg 999\n\n--nr close --arg 999\n");
	cr_assert_eq(
		secbpf("test '%s' --cbpf --batch two.txt --json | python3 -c 'import json,sys; "
		       "d=json.load(sys.stdin); "
		       "print([(r[\"line\"], r[\"action\"], r.get(\"errno\"), r[\"decided_by\"]) "
		       "for r in d[\"results\"]])'",
		       f),
		0, "%s", out);
	cr_expect_str_eq(out,
			 "[(1, 'ALLOW', None, 'supervisor'), (3, 'ERRNO(1)', 1, 'supervisor')]\n");
}
