// const volatile configuration in .rodata, a counter in .bss.
// expect: accept
#include <secbpf/filter.h>

const volatile __u32 blocked_nr = __NR_ptrace;
const volatile int errno_value = EPERM;
__u64 hits;

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	if (ctx->nr == blocked_nr) {
		hits++;
		return SECCOMP_RET_ERRNO | errno_value;
	}
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
