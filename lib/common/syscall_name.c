// SPDX-License-Identifier: MIT
/*
 * Arch and syscall names from libseccomp's tables (see syscall_name.h):
 * the one resolver of messages, listings, `secbpf sys` and `secbpf test`.
 */
#include <errno.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/number.h"
#include "common/syscall_name.h"

/* Above every number of libseccomp's tables (x32's reach 547). */
#define SYSCALL_NR_LIMIT 1024

/* libseccomp's arch tokens are the AUDIT_ARCH_* values, x32 aside. */
static const struct {
	uint32_t arch;
	const char *name;
} abis[] = {
	{ AUDIT_ARCH_X86_64, "x86_64" },   { AUDIT_ARCH_I386, "x86" },
	{ AUDIT_ARCH_AARCH64, "aarch64" }, { AUDIT_ARCH_ARM, "arm" },
	{ AUDIT_ARCH_RISCV64, "riscv64" }, { AUDIT_ARCH_PPC64LE, "ppc64le" },
	{ AUDIT_ARCH_PPC64, "ppc64" },	   { AUDIT_ARCH_S390X, "s390x" },
	{ AUDIT_ARCH_S390, "s390" },	   { AUDIT_ARCH_MIPSEL64, "mipsel64" },
	{ AUDIT_ARCH_MIPS64, "mips64" },   { AUDIT_ARCH_MIPSEL, "mipsel" },
	{ AUDIT_ARCH_MIPS, "mips" },	   { AUDIT_ARCH_PPC, "ppc" },
};

const char *syscall_abi_name(uint32_t arch, int32_t nr)
{
	size_t i;

	if (arch == AUDIT_ARCH_X86_64 && ((uint32_t)nr & SYSCALL_X32_BIT))
		return "x32";
	for (i = 0; i < sizeof(abis) / sizeof(abis[0]); i++)
		if (abis[i].arch == arch)
			return abis[i].name;
	return NULL;
}

const char *syscall_name(uint32_t arch, int32_t nr, char *buf, size_t len)
{
	struct syscall_abi abi = { .audit = arch, .token = arch };

	if (arch == AUDIT_ARCH_X86_64 && ((uint32_t)nr & SYSCALL_X32_BIT))
		abi.token = SCMP_ARCH_X32;
	return syscall_abi_syscall_name(&abi, nr, buf, len);
}

struct syscall_abi syscall_abi_native(void)
{
	struct syscall_abi abi = { .token = seccomp_arch_native() };

	/* The kernel reports x32 tasks with AUDIT_ARCH_X86_64. */
	abi.audit = abi.token == SCMP_ARCH_X32 ? AUDIT_ARCH_X86_64 : abi.token;
	return abi;
}

int syscall_abi_parse(const char *s, struct syscall_abi *abi)
{
	struct number n;

	if (!strcmp(s, "i386"))
		s = "x86";
	if (number_parse(s, 0, &n) == 0) {
		if (n.neg || n.mag > UINT32_MAX)
			return -EINVAL;
		abi->audit = (uint32_t)n.mag;
		abi->token = abi->audit;
		return 0;
	}
	abi->token = seccomp_arch_resolve_name(s);
	if (!abi->token)
		return -EINVAL;
	abi->audit = abi->token == SCMP_ARCH_X32 ? AUDIT_ARCH_X86_64 : abi->token;
	return 0;
}

const char *syscall_abi_label(const struct syscall_abi *abi, char *buf, size_t len)
{
	const char *name;

	if (abi->token == SCMP_ARCH_X32)
		return "x32";
	name = syscall_abi_name(abi->audit, 0);
	if (name)
		return name;
	snprintf(buf, len, "arch 0x%08x", abi->audit);
	return buf;
}

/* The first number of abi's table, and its lookups by number. */
static uint32_t syscall_base(const struct syscall_abi *abi)
{
	return abi->token == SCMP_ARCH_X32 ? SYSCALL_X32_BIT : 0;
}

int syscall_number(const struct syscall_abi *abi, const char *name, int32_t *nr)
{
	uint32_t base = syscall_base(abi), i;
	char buf[64];
	int r;

	r = seccomp_syscall_resolve_name_arch(abi->token, name);
	if (r >= 0) {
		*nr = r;
		return 0;
	}
	if (r == __NR_SCMP_ERROR)
		return -ENOENT;
	/* A pseudo-number: the syscall may still have a number of its own. */
	for (i = 0; i < SYSCALL_NR_LIMIT; i++) {
		syscall_abi_syscall_name(abi, (int32_t)(base + i), buf, sizeof(buf));
		if (!strcmp(buf, name)) {
			*nr = (int32_t)(base + i);
			return 0;
		}
	}
	return -ENOENT;
}

const char *syscall_abi_syscall_name(const struct syscall_abi *abi, int32_t nr, char *buf,
				     size_t len)
{
	char *name;

	buf[0] = '\0';
	/* Negative numbers are libseccomp's pseudo-numbers, never the kernel's. */
	if (nr < 0 || !syscall_abi_name(abi->audit, 0))
		return buf;
	/* x32's numbers all have bit 30 (libseccomp would also name 0..n). */
	if (abi->token == SCMP_ARCH_X32 && !((uint32_t)nr & SYSCALL_X32_BIT))
		return buf;
	name = seccomp_syscall_resolve_num_arch(abi->token, nr);
	if (name)
		snprintf(buf, len, "%s", name);
	free(name);
	return buf;
}
