// SPDX-License-Identifier: MIT
/* A helper call and a global counter on some paths: those cells need the
 * supervisor, every other syscall is decided in the kernel. */
#include <secbpf/filter.h>

__u64 opens;

SEC("seccomp")
int helper(struct seccomp_data *ctx)
{
	if (ctx->nr == __NR_getuid || ctx->nr == __NR_setuid) {
		__u64 ug = bpf_get_current_uid_gid();

		if ((__u32)ug == 0)
			return SECCOMP_RET_ERRNO | EPERM;
		return SECCOMP_RET_ALLOW;
	}
	if (ctx->nr == __NR_open) {
		opens++;
		if (opens > 100)
			return SECCOMP_RET_ERRNO | EMFILE;
	}
	if (ctx->nr == __NR_openat && ctx->args[2] & 0x40)	/* O_CREAT */
		return SECCOMP_RET_ERRNO | EROFS;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
