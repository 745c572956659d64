// SPDX-License-Identifier: MIT
/*
 * Issue 23's first reproducer: a table of actions that clang puts in
 * .rodata.cst16, read by a subprogram. The loader rebuilds the BTF to list
 * the table under its own section, and .BTF.ext's line info must still be
 * read against the strings clang wrote (it was refused as corrupt).
 */
#include <secbpf/filter.h>

static const __u32 acts[4] = { SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_TRAP | 7,
			       SECCOMP_RET_TRACE | 3, SECCOMP_RET_ALLOW };

static __attribute__((noinline)) __u32 pick(__u64 x)
{
	return acts[x & 3]; /* line 15: the table read */
}

SEC("seccomp")
int prog(struct seccomp_data *ctx)
{
	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_KILL_PROCESS;
	return pick(ctx->args[3]);
}

char _license[] SEC("license") = "GPL";
