// bpf_get_current_comm is a tracing helper.
// expect: reject bpf_get_current_comm needs the privileged tier
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	char comm[16];

	bpf_get_current_comm(comm, sizeof(comm));
	return comm[0] == 'x' ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
