// Deny if any configured argument value matches.
// expect: accept
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} banned SEC(".maps");

struct ctxt {
	__u64 arg;
	int hit;
};

static long check(void *map, __u32 *key, __u64 *val, struct ctxt *c)
{
	if (*val == c->arg) {
		c->hit = 1;
		return 1;
	}
	return 0;
}

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	struct ctxt c = { .arg = ctx->args[0], .hit = 0 };

	bpf_for_each_map_elem(&banned, check, &c, 0);
	return c.hit ? SECCOMP_RET_ERRNO | EPERM : SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
