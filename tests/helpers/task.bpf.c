// SPDX-License-Identifier: MIT
/*
 * Helpers that act on the calling task, for tests/test_helpers.c: ids,
 * reading its memory (seed 009), per-process storage (seed 011), and the
 * privileged tracing helpers. Results go to the .bss struct res.
 */
#include <secbpf/filter.h>

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} calls SEC(".maps");

struct result {
	__s64 rc[4];
	__u64 val[4];
	char str[32];
	char small[4];
} res;

SEC("seccomp")
int ids(struct seccomp_data *ctx)
{
	res.val[0] = bpf_get_current_pid_tgid();
	res.val[1] = bpf_get_current_uid_gid();
	res.val[2] = bpf_get_smp_processor_id();
	return SECCOMP_RET_ALLOW;
}

SEC("seccomp")
int read_str(struct seccomp_data *ctx)
{
	res.rc[0] = bpf_probe_read_user_str(res.str, sizeof(res.str), (void *)ctx->args[0]);
	res.rc[1] = bpf_probe_read_user_str(res.small, sizeof(res.small), (void *)ctx->args[0]);
	return SECCOMP_RET_ALLOW;
}

SEC("seccomp")
int read_mem(struct seccomp_data *ctx)
{
	res.rc[0] = bpf_probe_read_user(res.str, 16, (void *)ctx->args[0]);
	return SECCOMP_RET_ALLOW;
}

/* Calls so far by this process, counting this one; args[0] = 1 deletes. */
SEC("seccomp")
int storage(struct seccomp_data *ctx)
{
	__u64 *v;

	if (ctx->args[0] == 1)
		return bpf_task_storage_delete(&calls, NULL);
	if (ctx->args[0] == 2)
		return bpf_task_storage_get(&calls, NULL, NULL, 2) != NULL;
	v = bpf_task_storage_get(&calls, NULL, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!v)
		return 0xffffffff;
	return __sync_add_and_fetch(v, 1);
}

SEC("seccomp")
int comm(struct seccomp_data *ctx)
{
	res.rc[0] = bpf_get_current_comm(res.str, sizeof(res.str));
	res.rc[1] = bpf_get_current_comm(res.small, sizeof(res.small));
	return SECCOMP_RET_ALLOW;
}

SEC("seccomp")
int cgroup(struct seccomp_data *ctx)
{
	res.val[0] = bpf_get_current_cgroup_id();
	return SECCOMP_RET_ALLOW;
}

SEC("seccomp")
int signal(struct seccomp_data *ctx)
{
	res.rc[0] = bpf_send_signal(ctx->args[0]);
	return SECCOMP_RET_ALLOW;
}

SEC("seccomp")
int misc(struct seccomp_data *ctx)
{
	char lt[8] = "abb", eq[8] = "abc", gt[8] = "abd";
	static const char bad[] = "%q\n";
	__u64 t1, t2;

	t1 = bpf_ktime_get_ns();
	t2 = bpf_ktime_get_ns();
	res.val[0] = t2 >= t1 && t1 > 0;
	res.val[1] = bpf_ktime_get_boot_ns();
	res.val[2] = bpf_ktime_get_coarse_ns();
	res.val[3] = bpf_get_prandom_u32() | (__u64)bpf_get_prandom_u32() << 32;
	res.rc[0] = bpf_strncmp(lt, 4, "abc") * 100 + bpf_strncmp(eq, 4, "abc") * 10 +
		    bpf_strncmp(gt, 4, "abc");
	res.rc[1] = bpf_printk("nr=%d arg=%llx s=%s", ctx->nr, ctx->args[0], eq);
	res.rc[2] = bpf_trace_printk(bad, sizeof(bad));
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
