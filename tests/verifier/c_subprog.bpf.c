// A noinline function: a bpf-to-bpf call with its own frame.
// expect: accept
// tier: restricted
#include <secbpf/filter.h>

static __attribute__((noinline)) int is_dangerous(__u64 nr, __u64 arg0)
{
	if (nr == __NR_kill && arg0 == 1)
		return 1;
	return nr == __NR_reboot;
}

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	if (is_dangerous(ctx->nr, ctx->args[0]))
		return SECCOMP_RET_KILL_PROCESS;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
