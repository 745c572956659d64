// SPDX-License-Identifier: MIT
/*
 * helper_values: reports what the helpers return, through the errno of
 * close(0x5ecb00OP, ARG1, ARG2), for the stateful fidelity test: the same
 * object runs natively and under secbpf's supervisor
 * (kernel/tests/native_fidelity.sh, guest/state_probe.c). 201: the helper
 * gave what the caller passed in ARG1 (ARG2); 202: something else; 203: the
 * helper failed; 300+N: the N-th count in the process's task storage.
 * calls[OP] counts the probes, for the map comparison. Without task
 * storage (helper_values_unpriv.bpf.c) an unprivileged loader can load it
 * natively too: 6.1 creates task storage maps only for bpf_capable().
 */
#include <linux/bpf.h>
#include <linux/seccomp.h>
#include <asm/unistd.h>
#include <bpf/bpf_helpers.h>

#define SAW_IT (SECCOMP_RET_ERRNO | 201)
#define SAW_OTHER (SECCOMP_RET_ERRNO | 202)
#define FAILED (SECCOMP_RET_ERRNO | 203)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} calls SEC(".maps");

#ifndef HELPER_VALUES_NO_TASK_STORAGE
struct task_count {
	__u64 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_count);
} task_counts SEC(".maps");
#endif

SEC("seccomp")
int helper_values(struct seccomp_data *ctx)
{
#ifndef HELPER_VALUES_NO_TASK_STORAGE
	struct task_count *tc;
#endif
	char str[64];
	__u64 *count, v;
	__u32 op;
	long n;

	__u64 a1, a2;

	if (ctx->nr != __NR_close || (ctx->args[0] >> 8) != 0x5ecb00)
		return SECCOMP_RET_ALLOW;
	op = ctx->args[0] & 7;
	/* Read up front: clang may otherwise load them through a moved
	 * context pointer, which the kernel verifier refuses. */
	a1 = ctx->args[1];
	a2 = ctx->args[2];
	count = bpf_map_lookup_elem(&calls, &op);
	if (count)
		__sync_fetch_and_add(count, 1);
	switch (op) {
	case 1:
		return bpf_get_current_uid_gid() == a1 ? SAW_IT : SAW_OTHER;
	case 2:
		return bpf_get_current_pid_tgid() == a1 ? SAW_IT : SAW_OTHER;
	case 3:
		if (bpf_probe_read_user(&v, sizeof(v), (const void *)a1))
			return FAILED;
		return v == a2 ? SAW_IT : SAW_OTHER;
	case 4:
		n = bpf_probe_read_user_str(str, sizeof(str), (const void *)a1);
		if (n < 0)
			return FAILED;
		return (__u64)n == a2 ? SAW_IT : SAW_OTHER;
#ifndef HELPER_VALUES_NO_TASK_STORAGE
	case 5:
		tc = bpf_task_storage_get(&task_counts, NULL, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!tc)
			return FAILED;
		tc->n++;
		return SECCOMP_RET_ERRNO | (300 + (tc->n & 0xff));
#endif
	default:
		return SECCOMP_RET_ALLOW;
	}
}

char _license[] SEC("license") = "GPL";
