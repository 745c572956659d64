// Spins forever unless nr is 5.
// expect: reject infinite loop detected
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	volatile __u32 nr = ctx->nr;

	while (nr != 5)
		;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
