// SPDX-License-Identifier: MIT
/*
 * A rate limiter: each process may make `limited_nr` (clone by default, a
 * fork bomb's syscall) at most `burst` times in a row and then `per_second`
 * times a second; beyond that it fails with EAGAIN, as fork does when a
 * limit is hit. A token bucket per process, refilled from bpf_ktime_get_ns.
 * Tokens are counted in nanoseconds of credit so that no division is
 * needed.
 *
 * The bucket is in task storage (bpf_task_storage_get with a NULL task:
 * the calling process), so it goes when its process goes. A map keyed by
 * TGID would keep the bucket of every process that ever cloned: once full,
 * every later process's clone would fail, and under secbpfd, whose maps
 * every user of the program shares, one user could fill it for all.
 *
 * The syscall has a number per ABI: `limited_nr` is x86_64's and
 * `limited_nr_i386` i386's (clone is 120 there, and a 64-bit process
 * reaches it with `int $0x80`); both spend from the same bucket. Any other
 * ABI (x32, ...) gets EPERM for everything. Only that one syscall is
 * limited: fork, vfork and clone3 are others.
 */
#include <secbpf/filter.h>

const volatile __u32 limited_nr = __SNR_x86_64_clone;
const volatile __u32 limited_nr_i386 = __SNR_i386_clone;
const volatile __u64 per_second = 10;
const volatile __u64 burst = 20;

struct bucket {
	__u64 credit_ns; /* tokens * (1e9 / per_second) */
	__u64 last_ns;
	__u32 started; /* 0: created by this call, still empty */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct bucket);
} buckets SEC(".maps");

SEC("seccomp")
int rate_limit(struct seccomp_data *ctx)
{
	__u64 now, cost, cap, credit;
	struct bucket *b;

	SECBPF_DENY_OTHER_ARCHES(ctx, SECCOMP_RET_ERRNO | EPERM, X86_64, I386);
	if ((__u32)ctx->nr != (SECBPF_ARCH_IS_I386(ctx) ? limited_nr_i386 : limited_nr))
		return SECCOMP_RET_ALLOW;
	if (per_second == 0)
		return SECCOMP_RET_ALLOW;
	now = bpf_ktime_get_ns();
	cost = 1000000000ull / per_second;
	cap = cost * burst;
	b = bpf_task_storage_get(&buckets, NULL, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!b)
		return SECCOMP_RET_ERRNO | EAGAIN; /* no room for a bucket: fail closed */
	if (!b->started) {
		b->started = 1;
		b->credit_ns = cap - cost; /* this call spends one */
		b->last_ns = now;
		return SECCOMP_RET_ALLOW;
	}
	/* Threads of one process race here; the supervisor serializes
	 * nothing, so the bucket is approximate under contention. */
	credit = b->credit_ns + (now - b->last_ns);
	if (credit > cap)
		credit = cap;
	b->last_ns = now;
	if (credit < cost) {
		b->credit_ns = credit;
		return SECCOMP_RET_ERRNO | EAGAIN;
	}
	b->credit_ns = credit - cost;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
