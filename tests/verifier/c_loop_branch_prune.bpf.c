// Issue 23, finding 3: a loop whose body branches on the data. Each
// iteration doubles the paths unless the states at the join are pruned:
// acc only flows to the return value, so it need not be compared exactly,
// while i decides the loop exit and the branch and must be.
// expect: accept
// prog: loop64
// tier: restricted
#include <secbpf/filter.h>

#define LOOP_BRANCH_PRUNE(name, N)                                                                 \
	SEC("seccomp") int name(struct seccomp_data *ctx)                                          \
	{                                                                                          \
		__u64 x = ctx->args[0], acc = 0;                                                   \
		_Pragma("clang loop unroll(disable)") for (__u32 i = 0; i < N; i++)                \
		{                                                                                  \
			if ((x >> (i & 63)) & 1)                                                   \
				acc += 3;                                                          \
			else                                                                       \
				acc ^= i;                                                          \
		}                                                                                  \
		return SECCOMP_RET_ERRNO | (__u32)(acc & 0xfff);                                   \
	}

LOOP_BRANCH_PRUNE(loop18, 18)
LOOP_BRANCH_PRUNE(loop64, 64)
/* More iterations than the checkpoints kept per instruction (64). */
LOOP_BRANCH_PRUNE(loop200, 200)

char _license[] SEC("license") = "GPL";
