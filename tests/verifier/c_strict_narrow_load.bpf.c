// Reading the low byte of nr: fine without --strict, not with it.
// expect: reject strict mode: nr must be read with a 4-byte load
// strict: yes
// tier: restricted
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	return *(volatile __u8 *)&ctx->nr == 3 ? SECCOMP_RET_ERRNO | EPERM : SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
