// for (i = 0; i < 6; i++) over the syscall arguments.
// expect: accept
// tier: restricted
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	int i;

	for (i = 0; i < 6; i++)
		if (ctx->args[i] == 0xdeadbeef)
			return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
