// The seed sample also passes the seed's exact context rules.
// expect: accept
// strict: yes
// tier: restricted
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	if (ctx->arch != AUDIT_ARCH_X86_64)
		return SECCOMP_RET_KILL_PROCESS;
	switch (ctx->nr) {
	case __NR_read:
	case __NR_write:
	case __NR_exit_group:
		return SECCOMP_RET_ALLOW;
	case __NR_openat:
		return ctx->args[2] & 3 ? SECCOMP_RET_ERRNO | EACCES : SECCOMP_RET_ALLOW;
	}
	return SECCOMP_RET_ERRNO | ENOSYS;
}

char _license[] SEC("license") = "GPL";
