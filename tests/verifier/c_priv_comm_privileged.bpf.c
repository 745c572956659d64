// expect: accept
// tier: privileged
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	char comm[16];

	bpf_get_current_comm(comm, sizeof(comm));
	if (comm[0] == 'x')
		bpf_send_signal(9);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
