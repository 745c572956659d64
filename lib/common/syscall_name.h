/* SPDX-License-Identifier: MIT */
/*
 * Names for what a seccomp_data holds: the arch (AUDIT_ARCH_* to the name
 * libseccomp and `secbpf test --arch` use) and the syscall number on that
 * arch (libseccomp's tables), for messages and generated filters.
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

#endif
