// SPDX-License-Identifier: MIT
/*
 * Arch and syscall names from libseccomp's tables (see syscall_name.h):
 * the one num-to-name resolver of messages and generated filters.
 */
#include <linux/audit.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/syscall_name.h"

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
	uint32_t token = arch;
	char *name;

	buf[0] = '\0';
	if (!syscall_abi_name(arch, nr) || nr < 0)
		return buf;
	if (arch == AUDIT_ARCH_X86_64 && ((uint32_t)nr & SYSCALL_X32_BIT))
		token = SCMP_ARCH_X32;
	name = seccomp_syscall_resolve_num_arch(token, nr);
	if (name)
		snprintf(buf, len, "%s", name);
	free(name);
	return buf;
}
