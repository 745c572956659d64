// bpf_loop with a callback that reads the caller's context copy.
// expect: accept
#include <secbpf/filter.h>

struct scan {
	__u64 args[6];
	int found;
};

static long check_arg(__u32 i, void *data)
{
	struct scan *s = data;

	if (i >= 6)
		return 1;
	if (s->args[i] == 0x1337) {
		s->found = 1;
		return 1;
	}
	return 0;
}

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	struct scan s = { .found = 0 };
	int i;

	for (i = 0; i < 6; i++)
		s.args[i] = ctx->args[i];
	bpf_loop(6, check_arg, &s, 0);
	return s.found ? SECCOMP_RET_ERRNO | EPERM : SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
