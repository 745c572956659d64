// SPDX-License-Identifier: MIT
/*
 * A global written only by a bpf_loop callback, code that no call of the
 * program reaches (the helper calls it): it is state, never folded, or the
 * kernel would keep deciding with its first value.
 * guest-cache: skip (it denies execve by its pathname pointer, so
 * kernel/tests/seccomp_cache.sh's cache_hold cannot start under it)
 */
#include <secbpf/filter.h>

__u32 limit = 3;

static long step(__u64 i, void *c)
{
	limit += 1;
	return 0;
}

SEC("seccomp")
int callback_global(struct seccomp_data *ctx)
{
	if (ctx->nr == 1)
		bpf_loop(2, step, 0, 0);
	return ctx->args[0] > limit ? SECCOMP_RET_ERRNO | 1 : SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
