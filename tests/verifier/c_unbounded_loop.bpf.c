// The loop bound comes from the syscall argument: no bound at all.
// expect: reject the program is too complex
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u64 i, n = ctx->args[0];
	volatile __u64 sum = 0;

#pragma clang loop unroll(disable)
	for (i = 0; i < n; i++)
		sum += i;
	return sum == 3 ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EPERM;
}

char _license[] SEC("license") = "GPL";
