// SPDX-License-Identifier: MIT
/* BPF-to-BPF calls, with arguments on the stack of the caller. */
#include <secbpf/filter.h>

static __noinline int check_fd(__u64 fd, const __u64 *limit)
{
	if (fd >= *limit)
		return SECCOMP_RET_ERRNO | EBADF;
	return SECCOMP_RET_ALLOW;
}

static __noinline int is_io(int nr)
{
	return nr == __NR_read || nr == __NR_write || nr == __NR_close;
}

SEC("seccomp")
int subprog(struct seccomp_data *ctx)
{
	__u64 limit = 1024;

	if (is_io(ctx->nr))
		return check_fd(ctx->args[0], &limit);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
