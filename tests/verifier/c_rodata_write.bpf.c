// Casting const away does not make .rodata writable.
// expect: reject is read-only
#include <secbpf/filter.h>

const volatile __u32 limit = 10;

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	*(volatile __u32 *)&limit = ctx->nr;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
