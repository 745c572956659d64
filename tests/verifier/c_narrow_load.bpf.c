// expect: accept
// tier: restricted
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	return *(volatile __u8 *)&ctx->nr == 3 ? SECCOMP_RET_ERRNO | EPERM : SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
