// SPDX-License-Identifier: MIT
/*
 * The filter `secbpf record` writes (see record.h): C for `secbpf cc` and
 * `secbpf run -f`, one switch on the syscall number per arch the workload
 * used, each number named (libseccomp's tables) in a comment.
 */
#include <linux/audit.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Internal header: common/syscall_name.h, the one number-to-name resolver. */
#include "common/syscall_name.h"
#include "record.h"

/* The <linux/audit.h> names the filter compares arch with. */
static const struct {
	uint32_t arch;
	const char *macro;
	const char *what;
} arch_macros[] = {
	{ AUDIT_ARCH_X86_64, "AUDIT_ARCH_X86_64", "x86_64, and x32 with bit 30 of nr" },
	{ AUDIT_ARCH_I386, "AUDIT_ARCH_I386", "i386: int $0x80, or a 32-bit process" },
	{ AUDIT_ARCH_AARCH64, "AUDIT_ARCH_AARCH64", "aarch64" },
	{ AUDIT_ARCH_ARM, "AUDIT_ARCH_ARM", "32-bit arm" },
};

static int by_arch_then_nr(const void *a, const void *b)
{
	const struct record_syscall *x = a, *y = b;

	if (x->arch != y->arch)
		return x->arch < y->arch ? -1 : 1;
	if (x->nr != y->nr)
		return (uint32_t)x->nr < (uint32_t)y->nr ? -1 : 1;
	return 0;
}

static bool is_x32(const struct record_syscall *s)
{
	return s->arch == AUDIT_ARCH_X86_64 && ((uint32_t)s->nr & SYSCALL_X32_BIT);
}

/* The arch as the filter writes it: a macro where one exists. */
static void emit_arch(FILE *f, uint32_t arch)
{
	size_t i;

	for (i = 0; i < sizeof(arch_macros) / sizeof(arch_macros[0]); i++) {
		if (arch_macros[i].arch == arch) {
			fprintf(f, "%s) { /* %s */\n", arch_macros[i].macro, arch_macros[i].what);
			return;
		}
	}
	fprintf(f, "0x%08x) { /* %s */\n", arch, syscall_abi_name(arch, 0) ?: "unknown arch");
}

/*
 * The switch for seen[0..n-1] (one ABI), indented by tabs: each number a
 * case with its name and count, all allowed, the rest deny_action.
 */
static void emit_switch(FILE *f, const struct record_syscall *seen, size_t n, int tabs)
{
	char name[64];
	size_t i;

	fprintf(f, "%.*sswitch (nr) {\n", tabs, "\t\t\t\t");
	for (i = 0; i < n; i++) {
		syscall_name(seen[i].arch, seen[i].nr, name, sizeof(name));
		fprintf(f, "%.*scase %s%u: /* %s, %llu call%s */\n", tabs, "\t\t\t\t",
			is_x32(&seen[i]) ? "0x40000000 | " : "",
			(uint32_t)seen[i].nr & ~(is_x32(&seen[i]) ? SYSCALL_X32_BIT : 0),
			name[0] ? name : "no name in libseccomp", (unsigned long long)seen[i].count,
			seen[i].count == 1 ? "" : "s");
	}
	fprintf(f, "%.*s\treturn SECCOMP_RET_ALLOW;\n", tabs, "\t\t\t\t");
	fprintf(f, "%.*s}\n", tabs, "\t\t\t\t");
	fprintf(f, "%.*sreturn deny_action;\n", tabs, "\t\t\t\t");
}

/* The comment at the top: what was recorded, with comment ends defused. */
static void emit_header(FILE *f, const char *cmdline)
{
	const char *p;

	fputs("/*\n"
	      " * Recorded by `secbpf record` from:\n"
	      " *   ",
	      f);
	for (p = cmdline; *p; p++) {
		if (*p == '\n')
			fputs("\n *   ", f);
		else if (p[0] == '*' && p[1] == '/')
			fputs("*\\", f);
		else
			fputc(*p, f);
	}
	fputs("\n"
	      " *\n"
	      " * A starting allowlist: the syscalls that run made, per arch, with\n"
	      " * their names. Review it before trusting it: a code path the run did\n"
	      " * not take (an error path, another option, a signal) is denied, and no\n"
	      " * argument is checked. A syscall not listed fails with deny_action\n"
	      " * (EPERM; `--set deny_action=0x80000000` kills instead); an arch the\n"
	      " * run never used kills the process, as does x32 unless it was used.\n"
	      " * Try it with: secbpf run -f THIS_FILE -- the same command\n"
	      " */\n"
	      "#include <secbpf/filter.h>\n"
	      "\n"
	      "const volatile __u32 deny_action = SECCOMP_RET_ERRNO | EPERM;\n"
	      "\n",
	      f);
}

/* The x86_64 arch: x32 numbers (bit 30) first, then x86_64's own. */
static void emit_x86_64(FILE *f, const struct record_syscall *v, size_t n)
{
	size_t nx32 = 0, i;

	for (i = 0; i < n; i++)
		nx32 += is_x32(&v[i]);
	fputs("\t\tif (nr & 0x40000000) {\n", f);
	if (nx32) {
		fputs("\t\t\t/* x32 */\n", f);
		/* Sorted by unsigned nr: the x32 numbers come last. */
		emit_switch(f, v + n - nx32, nx32, 3);
	} else {
		fputs("\t\t\t/* x32, which the run never used (nor nr -1) */\n"
		      "\t\t\treturn SECCOMP_RET_KILL_PROCESS;\n",
		      f);
	}
	fputs("\t\t}\n", f);
	emit_switch(f, v, n - nx32, 2);
}

void record_emit(FILE *f, struct record_syscall *seen, size_t n, const char *cmdline)
{
	size_t i, j;

	qsort(seen, n, sizeof(*seen), by_arch_then_nr);
	emit_header(f, cmdline);
	fputs("SEC(\"seccomp\")\n"
	      "int recorded(struct seccomp_data *ctx)\n"
	      "{\n"
	      "\t__u32 nr = ctx->nr;\n"
	      "\n",
	      f);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && seen[j].arch == seen[i].arch; j++)
			;
		fputs("\tif (ctx->arch == ", f);
		emit_arch(f, seen[i].arch);
		if (seen[i].arch == AUDIT_ARCH_X86_64)
			emit_x86_64(f, seen + i, j - i);
		else
			emit_switch(f, seen + i, j - i, 2);
		fputs("\t}\n", f);
	}
	fputs("\t/* An arch the run never used. */\n"
	      "\treturn SECCOMP_RET_KILL_PROCESS;\n"
	      "}\n"
	      "\n"
	      "char _license[] SEC(\"license\") = \"GPL\";\n",
	      f);
}
