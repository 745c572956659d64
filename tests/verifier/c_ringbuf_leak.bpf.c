// A record reserved and never submitted on one path.
// expect: reject is neither submitted nor discarded on this path
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	__u32 *e = bpf_ringbuf_reserve(&events, 4, 0);

	if (!e)
		return SECCOMP_RET_ALLOW;
	*e = ctx->nr;
	if (ctx->nr == __NR_ptrace)
		return SECCOMP_RET_KILL_PROCESS;
	bpf_ringbuf_submit(e, 0);
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
