// A bounded loop clang keeps as a loop (volatile accumulator on the stack).
// expect: accept
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	volatile __u64 acc = 0;
	unsigned i;

#pragma clang loop unroll(disable)
	for (i = 0; i < 16; i++)
		acc += i * ctx->nr;
	return acc == 120 ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EPERM;
}

char _license[] SEC("license") = "GPL";
