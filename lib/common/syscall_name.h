/* SPDX-License-Identifier: MIT */
/*
 * Names for what a seccomp_data holds: the arch (AUDIT_ARCH_* to the name
 * libseccomp and `secbpf test --arch` use, and back) and the syscall on
 * that arch (libseccomp's tables, name to number and number to name). The
 * one resolver of `secbpf sys`, `test`, the listings and messages.
 */
#ifndef SECBPF_SYSCALL_NAME_H
#define SECBPF_SYSCALL_NAME_H

#include <stddef.h>
#include <stdint.h>

/* x32's syscalls reach seccomp as AUDIT_ARCH_X86_64 with this bit set. */
#define SYSCALL_X32_BIT 0x40000000u

/*
 * The name of the ABI a syscall (arch, nr) was made with: "x86_64", "x32"
 * (AUDIT_ARCH_X86_64 with bit 30 of nr), "x86" (i386), "aarch64", ...; NULL
 * for an arch libseccomp does not know.
 */
const char *syscall_abi_name(uint32_t arch, int32_t nr);

/*
 * The name of syscall nr made with arch into buf ("getppid"), or "" when
 * libseccomp has no name for it. Returns buf.
 */
const char *syscall_name(uint32_t arch, int32_t nr, char *buf, size_t len);

/*
 * An ABI as the tools take it (--arch): the value seccomp_data.arch holds,
 * and the libseccomp token whose table names its syscalls (they differ for
 * x32 only: AUDIT_ARCH_X86_64, SCMP_ARCH_X32).
 */
struct syscall_abi {
	uint32_t audit;
	uint32_t token;
};

/* The ABI secbpf runs on. */
struct syscall_abi syscall_abi_native(void);

/*
 * Parse --arch: a libseccomp arch name (x86_64, x86, x32, aarch64, ...),
 * i386 for x86, or an AUDIT_ARCH_* number (decimal or 0x hex; its names
 * are libseccomp's arch of that value). Returns 0, or -EINVAL.
 */
int syscall_abi_parse(const char *s, struct syscall_abi *abi);

/* The name of an ABI for messages: syscall_abi_name's, or "arch 0x%08x"
 * in buf for one libseccomp does not know. Returns the name. */
const char *syscall_abi_label(const struct syscall_abi *abi, char *buf, size_t len);

/*
 * The number of syscall name on abi, as the kernel puts it in
 * seccomp_data.nr (x32's with bit 30 set). libseccomp gives a negative
 * pseudo-number for a syscall that an arch also multiplexes (i386's socket
 * through socketcall); that is looked up in its table of real numbers
 * (socket is 359 on i386). Returns 0 with *nr set, or -ENOENT when the
 * arch has no such syscall.
 */
int syscall_number(const struct syscall_abi *abi, const char *name, int32_t *nr);

/* The name of syscall nr on abi into buf, "" if it has none. Returns buf. */
const char *syscall_abi_syscall_name(const struct syscall_abi *abi, int32_t nr, char *buf,
				     size_t len);

#endif
