// expect: reject bpf_probe_read_kernel: no meaning for a seccomp filter in user space
// tier: privileged
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)ctx->args[0]);
	return v ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EPERM;
}

char _license[] SEC("license") = "GPL";
