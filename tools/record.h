/* SPDX-License-Identifier: MIT */
/*
 * `secbpf record`: the syscalls a workload made (tools/cmd_record.c
 * records them under a supervisor) and the starting allowlist filter in C
 * written from them (tools/record_emit.c).
 */
#ifndef SECBPF_CLI_RECORD_H
#define SECBPF_CLI_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One (arch, nr) the workload made, and how often. */
struct record_syscall {
	uint32_t arch; /* AUDIT_ARCH_* as seccomp_data has it */
	int32_t nr;    /* x32: AUDIT_ARCH_X86_64 and bit 30 set */
	uint64_t count;
};

/*
 * Write the filter for the n syscalls of seen (sorted here) to f: an arch
 * guard (an arch never seen is killed, as is x32 when it was never seen),
 * per arch an allowlist of the numbers seen with their names, and for the
 * rest the const volatile deny_action, ERRNO(EPERM) unless --set.
 * cmdline says what was recorded, for the comment at the top.
 */
void record_emit(FILE *f, struct record_syscall *seen, size_t n, const char *cmdline);

#endif
