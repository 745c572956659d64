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
 *
 * Each denied path is also submitted to the ring buffer denied_paths, as
 * the string with its NUL: `secbpf run --events` prints it, e.g.
 *   secbpf: event denied_paths 24: 2f746d70...00 "/tmp/secbpf-denied/x"
 * Without a reader the ring fills up and later records are dropped, as in
 * the kernel; the decision does not depend on them.
 *
 * openat has a number per ABI: the filter checks x86_64's and i386's (a
 * 64-bit process reaches i386's with `int $0x80`, where the kernel uses
 * only the low 32 bits of the path pointer, and so does the filter). Any
 * other ABI (x32, ...) gets EPERM for everything.
 */
#include <secbpf/filter.h>

#define PREFIX "/tmp/secbpf-denied/"
#define PREFIX_LEN (sizeof(PREFIX) - 1)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} denied_paths SEC(".maps");

SEC("seccomp")
int deny_path(struct seccomp_data *ctx)
{
	static const char prefix[] = PREFIX;
	char path[64];
	__u64 user_path;
	long n;
	int i;

	SECBPF_DENY_OTHER_ARCHES(ctx, SECCOMP_RET_ERRNO | EPERM, X86_64, I386);
	if (SECBPF_ARCH_IS_I386(ctx)) {
		if (ctx->nr != __SNR_i386_openat)
			return SECCOMP_RET_ALLOW;
		user_path = SECBPF_ARG_U32(ctx, 1);
	} else {
		if (ctx->nr != __SNR_x86_64_openat)
			return SECCOMP_RET_ALLOW;
		user_path = ctx->args[1];
	}
	n = bpf_probe_read_user_str(path, sizeof(path), (const void *)user_path);
	if (n < 0)
		return SECCOMP_RET_ALLOW; /* the kernel will fail it with EFAULT */
	if (n <= (long)PREFIX_LEN)
		return SECCOMP_RET_ALLOW;
	for (i = 0; i < (int)PREFIX_LEN; i++)
		if (path[i] != prefix[i])
			return SECCOMP_RET_ALLOW;
	/* n counts the NUL and is at most sizeof(path); a full ring only
	 * loses the record. */
	if (n > (long)sizeof(path))
		n = sizeof(path);
	bpf_ringbuf_output(&denied_paths, path, n, 0);
	return SECCOMP_RET_ERRNO | EACCES;
}

char _license[] SEC("license") = "GPL";
