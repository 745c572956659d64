// SPDX-License-Identifier: MIT
/*
 * Syscall names: <secbpf/syscalls.h> agrees with libseccomp on every name
 * of x86_64, i386, x32 and aarch64 (its tables compared in C); the
 * resolver (lib/common/syscall_name.c) behind `secbpf sys` and `secbpf
 * test`; the arch macros of <secbpf/filter.h> in one compiled filter; and
 * the names in the cBPF listings.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <secbpf/syscalls.h>

#include "common.h"
#include "common/syscall_name.h"

static char out[65536];
static char dir[4096];

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-sysnames");
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(sysnames, .init = setup, .fini = teardown, .timeout = 60);

#define secbpf(fmt, ...)                                                                           \
	test_shell(out, sizeof(out), "cd '%s' && '%s' " fmt, dir, getenv("SECBPF"), ##__VA_ARGS__)

struct sysname {
	const char *name;
	long nr;
};

#define ENTRY(name, nr) { #name, nr },
static const struct sysname x86_64_names[] = { SECBPF_SYSCALLS_x86_64(ENTRY) };
static const struct sysname i386_names[] = { SECBPF_SYSCALLS_i386(ENTRY) };
static const struct sysname x32_names[] = { SECBPF_SYSCALLS_x32(ENTRY) };
static const struct sysname aarch64_names[] = { SECBPF_SYSCALLS_aarch64(ENTRY) };
#undef ENTRY

/* Whether the header lists (name, nr). */
static bool listed(const struct sysname *t, size_t n, const char *name, long nr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].nr == nr && !strcmp(t[i].name, name))
			return true;
	return false;
}

/*
 * The header's table for one arch against libseccomp's: every entry is
 * libseccomp's name of that number and the resolver's number of that
 * name; every number libseccomp names (each name at the number its name
 * lookup gives, when that is a real number) is in the header.
 */
static void check_arch(const char *arch, const struct sysname *t, size_t n, size_t at_least)
{
	struct syscall_abi abi;
	uint32_t base, i;
	int32_t nr;
	size_t found = 0;
	char *name;
	int by_name;

	cr_assert_eq(syscall_abi_parse(arch, &abi), 0, "%s", arch);
	base = abi.token == SCMP_ARCH_X32 ? 0x40000000u : 0;
	cr_expect_geq(n, at_least, "%s: only %zu names", arch, n);
	for (i = 0; i < n; i++) {
		name = seccomp_syscall_resolve_num_arch(abi.token, (int)t[i].nr);
		cr_expect(name && !strcmp(name, t[i].name), "%s: header %s = %ld, libseccomp: %s",
			  arch, t[i].name, t[i].nr, name ? name : "(none)");
		free(name);
		cr_expect_eq(syscall_number(&abi, t[i].name, &nr), 0, "%s: %s", arch, t[i].name);
		cr_expect_eq(nr, t[i].nr, "%s: %s: resolver %d, header %ld", arch, t[i].name, nr,
			     t[i].nr);
	}
	for (i = 0; i < 1024; i++) {
		name = seccomp_syscall_resolve_num_arch(abi.token, (int)(base + i));
		if (!name)
			continue;
		by_name = seccomp_syscall_resolve_name_arch(abi.token, name);
		if (by_name < 0 || (uint32_t)by_name == base + i) {
			cr_expect(listed(t, n, name, (long)(base + i)), "%s: %s (%u) missing", arch,
				  name, base + i);
			found++;
		}
		free(name);
	}
	cr_expect_eq(found, n, "%s: libseccomp names %zu, the header %zu", arch, found, n);
}

#define CHECK_ARCH(arch, table, at_least)                                                          \
	check_arch(arch, table, sizeof(table) / sizeof(table[0]), at_least)

Test(sysnames, header_agrees_with_libseccomp)
{
	CHECK_ARCH("x86_64", x86_64_names, 300);
	CHECK_ARCH("i386", i386_names, 300);
	CHECK_ARCH("x32", x32_names, 300);
	CHECK_ARCH("aarch64", aarch64_names, 250);
}

Test(sysnames, well_known_numbers)
{
	cr_expect_eq(__SNR_x86_64_execve, 59);
	cr_expect_eq(__SNR_i386_execve, 11);
	cr_expect_eq(__SNR_i386_clone, 120);
	cr_expect_eq(__SNR_i386_socket, 359); /* not libseccomp's pseudo-number */
	cr_expect_eq(__SNR_i386_socketcall, 102);
	cr_expect_eq(__SNR_x32_execve, 0x40000000 + 520);
	cr_expect_eq(__SNR_aarch64_execve, 221);
}

Test(sysnames, resolver)
{
	struct syscall_abi abi;
	char buf[64];
	int32_t nr;

	cr_assert_eq(syscall_abi_parse("i386", &abi), 0);
	cr_expect_eq(abi.audit, AUDIT_ARCH_I386);
	cr_expect_eq(syscall_number(&abi, "socket", &nr), 0);
	cr_expect_eq(nr, 359);
	cr_expect_str_eq(syscall_abi_syscall_name(&abi, 359, buf, sizeof(buf)), "socket");
	cr_expect_str_eq(syscall_abi_syscall_name(&abi, -101, buf, sizeof(buf)), "");
	cr_assert_eq(syscall_abi_parse("x32", &abi), 0);
	cr_expect_eq(abi.audit, AUDIT_ARCH_X86_64);
	cr_expect_str_eq(syscall_abi_syscall_name(&abi, 0, buf, sizeof(buf)), "");
	cr_expect_str_eq(syscall_abi_syscall_name(&abi, 0x40000000, buf, sizeof(buf)), "read");
	cr_expect_str_eq(syscall_name(AUDIT_ARCH_X86_64, 0x40000000 | 520, buf, sizeof(buf)),
			 "execve");
	cr_assert_eq(syscall_abi_parse("aarch64", &abi), 0);
	cr_expect_eq(syscall_number(&abi, "open", &nr), -ENOENT);
	cr_expect_eq(syscall_number(&abi, "no_such_syscall", &nr), -ENOENT);
	cr_expect_eq(syscall_abi_parse("no_such_arch", &abi), -EINVAL);
	cr_expect_eq(syscall_abi_parse("0x100000000", &abi), -EINVAL);
	cr_assert_eq(syscall_abi_parse("0xc00000b7", &abi), 0);
	cr_expect_eq(abi.token, SCMP_ARCH_AARCH64);
}

Test(sysnames, sys_command)
{
	cr_expect_eq(secbpf("sys execve"), 0, "%s", out);
	cr_expect_str_eq(out, "execve 59\n");
	cr_expect_eq(secbpf("sys 59"), 0, "%s", out);
	cr_expect_str_eq(out, "execve 59\n");
	cr_expect_eq(secbpf("sys socket --arch i386"), 0, "%s", out);
	cr_expect_str_eq(out, "socket 359\n");
	cr_expect_eq(secbpf("sys --arch x86 359"), 0, "%s", out);
	cr_expect_str_eq(out, "socket 359\n");
	cr_expect_eq(secbpf("sys --arch x32 execve"), 0, "%s", out);
	cr_expect_str_eq(out, "execve 1073742344\n");
	cr_expect_eq(secbpf("sys --arch aarch64 openat"), 0, "%s", out);
	cr_expect_str_eq(out, "openat 56\n");
	cr_expect_eq(secbpf("sys --arch i386 -j socket"), 0, "%s", out);
	cr_expect_str_eq(
		out,
		"{\"arch\":\"x86\",\"audit_arch\":1073741827,\"name\":\"socket\",\"nr\":359}\n");
}

Test(sysnames, sys_errors_name_the_arch)
{
	cr_expect_eq(secbpf("sys --arch aarch64 open"), 1, "%s", out);
	cr_expect_str_eq(out, "secbpf: sys: no syscall named 'open' on aarch64 (check the name and "
			      "--arch)\n");
	cr_expect_eq(secbpf("sys 9999"), 1, "%s", out);
	cr_expect(strstr(out, "secbpf: sys: no syscall 9999 on x86_64"), "%s", out);
	cr_expect_eq(secbpf("sys --arch x32 0"), 1, "%s", out);
	cr_expect(strstr(out, "on x32 (x32 numbers have bit 30 set"), "%s", out);
	cr_expect_eq(secbpf("sys --arch mars read"), 2, "%s", out);
	cr_expect(strstr(out, "secbpf: --arch: unknown arch 'mars'"), "%s", out);
	cr_expect_eq(secbpf("sys"), 2, "%s", out);
	cr_expect(strstr(out, "expected one syscall NAME or NR"), "%s", out);
	cr_expect_eq(secbpf("sys 'a b'"), 2, "%s", out);
	cr_expect(strstr(out, "neither a syscall name nor a number"), "%s", out);
	cr_expect_eq(secbpf("sys -- -1"), 2, "%s", out);
	cr_expect(strstr(out, "-1 is not a syscall number"), "%s", out);
	cr_expect_eq(secbpf("sys --help"), 0, "%s", out);
	cr_expect(strstr(out, "usage: secbpf sys NAME|NR"), "%s", out);
}

/* A filter that uses the names and the arch macros: each ABI's execve
 * gets its own errno, x32 and unknown arches are killed. */
static const char names_filter[] =
	"SEC(\"seccomp\")\n"
	"int names(struct seccomp_data *ctx)\n"
	"{\n"
	"	SECBPF_DENY_OTHER_ARCHES(ctx, SECCOMP_RET_KILL_PROCESS, X86_64, I386, AARCH64);\n"
	"	if (SECBPF_ARCH_IS_X86_64(ctx) && ctx->nr == __SNR_x86_64_execve)\n"
	"		return SECCOMP_RET_ERRNO | 1;\n"
	"	if (SECBPF_ARCH_IS_I386(ctx) && ctx->nr == __SNR_i386_execve)\n"
	"		return SECCOMP_RET_ERRNO | 2;\n"
	"	if (SECBPF_ARCH_IS_I386(ctx) && ctx->nr == __SNR_i386_socket)\n"
	"		return SECCOMP_RET_ERRNO | 3;\n"
	"	if (SECBPF_ARCH_IS_AARCH64(ctx) && ctx->nr == __SNR_aarch64_execve)\n"
	"		return SECCOMP_RET_ERRNO | 4;\n"
	"	if (SECBPF_ARCH_ONE_OF(ctx, NATIVE) && SECBPF_ARG_U32(ctx, 0) == 999)\n"
	"		return SECCOMP_RET_ERRNO | 5;\n"
	"	return SECCOMP_RET_ALLOW;\n"
	"}\n";

/* `secbpf test OBJ ARGS` prints want. */
static void expect_action(const char *obj, const char *args, const char *want)
{
	char line[64];

	cr_assert_eq(secbpf("test '%s' %s", obj, args), 0, "%s: %s", args, out);
	snprintf(line, sizeof(line), "%s\n", want);
	cr_expect_str_eq(out, line, "%s: got %s, expected %s", args, out, want);
}

Test(sysnames, macros_in_a_filter)
{
	const char *src = test_write_filter(dir, "names", names_filter);

	cr_assert_eq(secbpf("cc '%s' -o names.o", src), 0, "%s", out);
	expect_action("names.o", "--nr execve", "ERRNO(1)");
	expect_action("names.o", "--arch i386 --nr execve", "ERRNO(2)");
	expect_action("names.o", "--arch i386 --nr 11", "ERRNO(2)");
	/* test resolves socket on i386 to 359, as the header does. */
	expect_action("names.o", "--arch i386 --nr socket", "ERRNO(3)");
	expect_action("names.o", "--arch aarch64 --nr execve", "ERRNO(4)");
	expect_action("names.o", "--nr close --arg 0x1000003e7", "ERRNO(5)");
	expect_action("names.o", "--arch i386 --nr close --arg 999", "ALLOW");
	expect_action("names.o", "--nr getpid", "ALLOW");
	/* x32 (bit 30 under AUDIT_ARCH_X86_64) and other arches. */
	expect_action("names.o", "--arch x32 --nr execve", "KILL_PROCESS");
	expect_action("names.o", "--arch x32 --nr getpid", "KILL_PROCESS");
	expect_action("names.o", "--nr 0x40000027", "KILL_PROCESS");
	expect_action("names.o", "--arch arm --nr getpid", "KILL_PROCESS");
	/* The compiled filter names what it compares. */
	cr_assert_eq(secbpf("compile names.o --format asm"), 0, "%s", out);
	cr_expect(strstr(out, "jeq #0x40000003  true:") && strstr(out, "; x86\n"), "%s", out);
	cr_expect(strstr(out, "; execve\n"), "%s", out);
	cr_expect(strstr(out, "; socket\n"), "%s", out);
	cr_assert_eq(secbpf("dis names.o --cbpf"), 0, "%s", out);
	cr_expect(strstr(out, "; execve\n"), "%s", out);
}

Test(sysnames, test_resolves_socketcall_arches)
{
	const char *src = test_write_filter(dir, "echo_nr",
					    "SEC(\"seccomp\")\n"
					    "int echo_nr(struct seccomp_data *ctx)\n"
					    "{\n"
					    "	return SECCOMP_RET_ERRNO | (ctx->nr & 0xfff);\n"
					    "}\n");

	cr_assert_eq(secbpf("cc '%s' -o echo.o", src), 0, "%s", out);
	expect_action("echo.o", "--arch i386 --nr socket", "ERRNO(359)");
	expect_action("echo.o", "--arch x86 --nr connect", "ERRNO(362)");
	expect_action("echo.o", "--arch i386 --nr socketcall", "ERRNO(102)");
	cr_expect_eq(secbpf("test echo.o --arch aarch64 --nr open"), 2, "%s", out);
	cr_expect(strstr(out, "secbpf: --nr: no syscall named 'open' on aarch64"), "%s", out);
}

/* The headers docs/writing-filters.md names for constants compile for BPF
 * and give the kernel's values. */
Test(sysnames, constant_headers_compile_for_bpf)
{
	const char *src = test_write_filter(
		dir, "consts",
		"#include <linux/sched.h>\n#include <linux/mman.h>\n#include <linux/fcntl.h>\n"
		"#include <linux/netlink.h>\n#include <linux/in.h>\n"
		"#include <linux/personality.h>\n#include <linux/ptrace.h>\n"
		"#include <linux/prctl.h>\n#include <sys/socket.h>\n"
		"SEC(\"seccomp\")\n"
		"int consts(struct seccomp_data *ctx)\n"
		"{\n"
		"	switch (ctx->args[0]) {\n"
		"	case CLONE_NEWUSER: return SECCOMP_RET_ERRNO | 1;\n"
		"	case PROT_EXEC: return SECCOMP_RET_ERRNO | 2;\n"
		"	case O_CLOEXEC: return SECCOMP_RET_ERRNO | 3;\n"
		"	case NETLINK_AUDIT: return SECCOMP_RET_ERRNO | 4;\n"
		"	case IPPROTO_SCTP: return SECCOMP_RET_ERRNO | 5;\n"
		"	case PER_LINUX32: return SECCOMP_RET_ERRNO | 6;\n"
		"	case PTRACE_SEIZE: return SECCOMP_RET_ERRNO | 7;\n"
		"	case PR_SET_NO_NEW_PRIVS: return SECCOMP_RET_ERRNO | 8;\n"
		"	case AF_NETLINK: return SECCOMP_RET_ERRNO | 10;\n"
		"	case (unsigned long)AT_FDCWD: return SECCOMP_RET_ERRNO | 11;\n"
		"	}\n"
		"	return SECCOMP_RET_ALLOW;\n"
		"}\n");

	cr_assert_eq(secbpf("cc '%s' -o consts.o", src), 0, "%s", out);
	expect_action("consts.o", "--nr getpid --arg 0x10000000", "ERRNO(1)");
	expect_action("consts.o", "--nr getpid --arg 4", "ERRNO(2)");
	expect_action("consts.o", "--nr getpid --arg 0x80000", "ERRNO(3)");
	expect_action("consts.o", "--nr getpid --arg 9", "ERRNO(4)");
	expect_action("consts.o", "--nr getpid --arg 132", "ERRNO(5)");
	expect_action("consts.o", "--nr getpid --arg 8", "ERRNO(6)");
	expect_action("consts.o", "--nr getpid --arg 0x4206", "ERRNO(7)");
	expect_action("consts.o", "--nr getpid --arg 38", "ERRNO(8)");
	expect_action("consts.o", "--nr getpid --arg 16", "ERRNO(10)");
	expect_action("consts.o", "--nr getpid --arg 0xffffffffffffff9c", "ERRNO(11)");
}
