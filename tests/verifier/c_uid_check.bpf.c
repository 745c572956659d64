// Only uid 0 may call reboot.
// expect: accept
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	if (ctx->nr == __NR_reboot && (__u32)bpf_get_current_uid_gid() != 0)
		return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
