// An index into a stack array, bounded by a check the verifier follows.
// expect: accept
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u64 table[4] = { 1, 2, 3, 4 };
	__u64 i = ctx->args[0];

	if (i >= 4)
		return SECCOMP_RET_ALLOW;
	return table[i] == 3 ? SECCOMP_RET_ERRNO | EPERM : SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
