// SPDX-License-Identifier: MIT
/*
 * Deny opening files under a directory: openat() of a path that starts
 * with /tmp/secbpf-denied/ fails with EACCES. Shows reading the target's
 * memory with bpf_probe_read_user_str (seed 009: only while the target is
 * dumpable, unless the loader has CAP_SYS_PTRACE).
 *
 * NOT A SECURITY BOUNDARY. The path is read from the process's memory
 * while the syscall waits; another thread of that process can change the
 * string after this program has read it and before the kernel does, and
 * open the denied file anyway. Relative paths, "..", symlinks and other
 * directory fds escape a prefix test too. Use it for auditing or to catch
 * mistakes; to confine a process use Landlock or mount namespaces.
 */
#include <secbpf/filter.h>

#define PREFIX "/tmp/secbpf-denied/"
#define PREFIX_LEN (sizeof(PREFIX) - 1)

SEC("seccomp")
int deny_path(struct seccomp_data *ctx)
{
	static const char prefix[] = PREFIX;
	char path[64];
	long n;
	int i;

	if (ctx->nr != __NR_openat)
		return SECCOMP_RET_ALLOW;
	n = bpf_probe_read_user_str(path, sizeof(path), (const void *)ctx->args[1]);
	if (n < 0)
		return SECCOMP_RET_ALLOW; /* the kernel will fail it with EFAULT */
	if (n <= (long)PREFIX_LEN)
		return SECCOMP_RET_ALLOW;
	for (i = 0; i < (int)PREFIX_LEN; i++)
		if (path[i] != prefix[i])
			return SECCOMP_RET_ALLOW;
	return SECCOMP_RET_ERRNO | EACCES;
}

char _license[] SEC("license") = "GPL";
