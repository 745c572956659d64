// The seed sample (RFC patch 05/12): close(999) gets EPERM.
// expect: accept
// tier: restricted
#include <secbpf/filter.h>

SEC("seccomp")
int bpf_prog1(struct seccomp_data *ctx)
{
	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_ERRNO | EPERM;
	if (ctx->nr == __NR_close && ctx->args[0] == 999)
		return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
