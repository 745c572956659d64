// SPDX-License-Identifier: MIT
/*
 * Interpreter throughput: executed eBPF instructions per second on a
 * conformance-like loop (ALU, stack and context loads/stores, branches) and
 * on a seccomp-like filter (a chain of 50 `if nr == K` compares).
 */
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vm/interp.h"

#define INSN(c, d, s, o, i)						\
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s),	\
			    .off = (o), .imm = (i) })
#define ALU64_K(op, d, i) INSN(BPF_ALU64 | BPF_##op | BPF_K, d, 0, 0, i)
#define ALU64_X(op, d, s) INSN(BPF_ALU64 | BPF_##op | BPF_X, d, s, 0, 0)
#define JMP_K(op, d, i, o) INSN(BPF_JMP | BPF_##op | BPF_K, d, 0, o, i)
#define JMP32_K(op, d, i, o) INSN(BPF_JMP32 | BPF_##op | BPF_K, d, 0, o, i)
#define LDX(sz, d, s, o) INSN(BPF_LDX | BPF_MEM | BPF_##sz, d, s, o, 0)
#define STX(sz, d, s, o) INSN(BPF_STX | BPF_MEM | BPF_##sz, d, s, o, 0)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

#define SECCOMP_CHAIN 50

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct interp *prepare(const struct bpf_insn *p, size_t n, uint64_t limit)
{
	struct interp_config cfg = { .insns = p, .cnt = (uint32_t)n,
				     .insn_limit = limit };
	struct secbpf_err err;
	struct interp *in = interp_new(&cfg, &err);

	if (!in) {
		fprintf(stderr, "bench_interp: %s\n", err.msg);
		exit(1);
	}
	return in;
}

/*
 * The exact number of instructions one run executes: the smallest insn_limit
 * under which it still completes (the limit is exact, see interp.c).
 */
static uint64_t count_insns(const struct bpf_insn *p, size_t n,
			    const uint64_t args[5], const struct interp_region *r)
{
	uint64_t lo = 1, hi = 1ULL << 40, r0;
	struct secbpf_err err;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		struct interp *in = prepare(p, n, mid);

		if (interp_run(in, args, r, 1, &r0, &err) == 0)
			hi = mid;
		else
			lo = mid + 1;
		interp_free(in);
	}
	return lo;
}

static void bench(const char *name, const struct bpf_insn *p, size_t n,
		  const uint64_t args[5], const struct interp_region *r,
		  unsigned long runs)
{
	uint64_t insns = count_insns(p, n, args, r), r0 = 0, sum = 0;
	struct interp *in = prepare(p, n, 0);
	struct secbpf_err err;
	double t0, dt;
	unsigned long i;

	for (i = 0; i < runs / 10; i++)		/* warm up */
		interp_run(in, args, r, 1, &r0, &err);
	t0 = now();
	for (i = 0; i < runs; i++) {
		if (interp_run(in, args, r, 1, &r0, &err)) {
			fprintf(stderr, "bench_interp: %s: %s\n", name, err.msg);
			exit(1);
		}
		sum += r0;
	}
	dt = now() - t0;
	printf("%-34s %8llu insns/run %10.1f ns/run %8.1f M insns/s (r0 sum %llx)\n",
	       name, (unsigned long long)insns, dt * 1e9 / (double)runs,
	       (double)insns * (double)runs / dt / 1e6, (unsigned long long)sum);
	interp_free(in);
}

int main(int argc, char **argv)
{
	/* A loop doing what conformance tests do: ALU, stack spill/fill,
	 * context loads and stores, a data-dependent branch. */
	const struct bpf_insn loop[] = {
		ALU64_X(MOV, 6, 1),
		ALU64_K(MOV, 0, 0),
		ALU64_K(MOV, 2, 1000),
		/* 3: loop */
		LDX(DW, 3, 6, 0),
		ALU64_X(ADD, 3, 2),
		STX(DW, 10, 3, -8),
		LDX(DW, 4, 10, -8),
		ALU64_K(MUL, 4, 3),
		ALU64_X(XOR, 4, 0),
		LDX(W, 5, 6, 8),
		ALU64_K(RSH, 4, 1),
		JMP_K(JSET, 4, 1, 1),
		ALU64_X(ADD, 0, 5),
		ALU64_X(ADD, 0, 4),
		STX(W, 6, 0, 16),
		INSN(BPF_ALU | BPF_ADD | BPF_K, 0, 0, 0, 7),
		ALU64_K(SUB, 2, 1),
		JMP_K(JNE, 2, 0, -15),
		EXIT(),
	};
	struct bpf_insn chain[3 + SECCOMP_CHAIN + 6];
	uint64_t ctx_mem[4] = { 5, 11, 0, 0 };
	struct seccomp_data sd = { .nr = 100000, .arch = AUDIT_ARCH_X86_64 };
	struct interp_region ctx_region = {
		.base = (uint64_t)(uintptr_t)ctx_mem, .size = sizeof(ctx_mem),
		.writable = true,
	};
	struct interp_region sd_region = {
		.base = (uint64_t)(uintptr_t)&sd, .size = sizeof(sd),
	};
	uint64_t ctx_args[5] = { (uint64_t)(uintptr_t)ctx_mem };
	uint64_t sd_args[5] = { (uint64_t)(uintptr_t)&sd };
	unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
	size_t n = 0;
	int i;

	/* if (arch != X86_64) kill; nr = ...; 50 x if (nr == K) allow;
	 * errno(1). Slots: 0-2 header, 3..52 compares, 53 errno, 55 allow,
	 * 57 kill. */
	chain[n++] = LDX(W, 2, 1, offsetof(struct seccomp_data, arch));
	chain[n++] = JMP32_K(JNE, 2, (int32_t)AUDIT_ARCH_X86_64, SECCOMP_CHAIN + 5);
	chain[n++] = LDX(W, 2, 1, offsetof(struct seccomp_data, nr));
	for (i = 0; i < SECCOMP_CHAIN; i++)
		chain[n++] = JMP32_K(JEQ, 2, i * 3 + 1, SECCOMP_CHAIN + 1 - i);
	chain[n++] = ALU64_K(MOV, 0, (int32_t)(SECCOMP_RET_ERRNO | 1));
	chain[n++] = EXIT();
	chain[n++] = ALU64_K(MOV, 0, (int32_t)SECCOMP_RET_ALLOW);
	chain[n++] = EXIT();
	chain[n++] = ALU64_K(MOV, 0, (int32_t)SECCOMP_RET_KILL_PROCESS);
	chain[n++] = EXIT();

	bench("loop (alu, stack, ctx, branches)", loop, sizeof(loop) / sizeof(loop[0]),
	      ctx_args, &ctx_region, 20000 * scale);
	bench("seccomp chain, miss (all 50)", chain, n, sd_args, &sd_region,
	      2000000 * scale);
	sd.nr = 3 * 24 + 1;
	bench("seccomp chain, hit at 25", chain, n, sd_args, &sd_region,
	      2000000 * scale);
	return 0;
}
