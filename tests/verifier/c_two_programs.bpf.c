// The second of two programs, picked by name.
// expect: accept
// prog: second
// tier: restricted
#include <secbpf/filter.h>

SEC("seccomp")
int first(struct seccomp_data *ctx)
{
	return SECCOMP_RET_ALLOW;
}

SEC("seccomp")
int second(struct seccomp_data *ctx)
{
	return ctx->nr == __NR_getpid ? SECCOMP_RET_ERRNO | EPERM : SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
