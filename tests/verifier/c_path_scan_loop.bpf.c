// Look for ".." in the path passed to openat: a bounded loop over a buffer
// the helper filled, indexed within its bounds.
// expect: accept
#include <secbpf/filter.h>

#define PATH_MAX_SCAN 64

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	char path[PATH_MAX_SCAN];
	long len;
	int i;

	if (ctx->nr != __NR_openat)
		return SECCOMP_RET_ALLOW;
	len = bpf_probe_read_user_str(path, sizeof(path), (void *)ctx->args[1]);
	if (len <= 1)
		return SECCOMP_RET_ALLOW;
	for (i = 0; i < PATH_MAX_SCAN - 1 && i < len - 1; i++)
		if (path[i] == '.' && path[i + 1] == '.')
			return SECCOMP_RET_ERRNO | EACCES;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
