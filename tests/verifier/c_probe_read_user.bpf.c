// Read the path argument of openat from the target's memory (seed 009).
// expect: accept
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	char path[16];

	if (ctx->nr != __NR_openat)
		return SECCOMP_RET_ALLOW;
	if (bpf_probe_read_user_str(path, sizeof(path), (void *)ctx->args[1]) < 0)
		return SECCOMP_RET_ALLOW;
	if (path[0] == '/' && path[1] == 'e' && path[2] == 't' && path[3] == 'c')
		return SECCOMP_RET_ERRNO | EACCES;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
