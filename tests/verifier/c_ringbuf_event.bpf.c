// Log denied syscalls through a ringbuf record.
// expect: accept
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

struct event {
	__u32 nr;
	__u32 pid;
	__u64 arg0;
};

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	struct event *e;

	if (ctx->nr != __NR_ptrace)
		return SECCOMP_RET_ALLOW;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e) {
		e->nr = ctx->nr;
		e->pid = bpf_get_current_pid_tgid() >> 32;
		e->arg0 = ctx->args[0];
		bpf_ringbuf_submit(e, 0);
	}
	return SECCOMP_RET_ERRNO | EPERM;
}

char _license[] SEC("license") = "GPL";
