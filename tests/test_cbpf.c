// SPDX-License-Identifier: MIT
/*
 * Tests for lib/cbpf/: the kernel's acceptance rules, the simulator, and
 * the compiler, checked differentially against the interpreter on the seed
 * sample, the filters in tests/cbpf/ and randomly generated programs.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbpf/cbpf.h"
#include "cbpf/cbpf_internal.h"
#include "object/object.h"
#include "vm/runtime.h"
#include "cbpf/diff.h"
#include "cbpf/gen_prog.h"

#define LD_ABS(k) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (k))
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (k))

/* ---- cbpf_check ---- */

static int check(const struct sock_filter *f, size_t n)
{
	struct secbpf_err err = { { 0 } };

	return cbpf_check(f, n, &err);
}

#define CHECK_OK(...) do {							\
		struct sock_filter f_[] = { __VA_ARGS__ };			\
		cr_expect_eq(check(f_, sizeof(f_) / sizeof(f_[0])), 0,		\
			     "line %d should be accepted", __LINE__);		\
	} while (0)
#define CHECK_BAD(...) do {							\
		struct sock_filter f_[] = { __VA_ARGS__ };			\
		cr_expect_eq(check(f_, sizeof(f_) / sizeof(f_[0])), -EINVAL,	\
			     "line %d should be rejected", __LINE__);		\
	} while (0)

Test(cbpf_check, length)
{
	struct sock_filter big[CBPF_MAX_INSNS + 1];
	size_t i;

	for (i = 0; i < CBPF_MAX_INSNS + 1; i++)
		big[i] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	cr_expect_eq(check(big, 0), -EINVAL);
	cr_expect_eq(check(big, CBPF_MAX_INSNS), 0);
	cr_expect_eq(check(big, CBPF_MAX_INSNS + 1), -EINVAL);
	cr_expect_eq(check(NULL, 1), -EINVAL);
}

Test(cbpf_check, loads)
{
	CHECK_OK(LD_ABS(0), LD_ABS(4), LD_ABS(60), RET(0));
	CHECK_BAD(LD_ABS(64), RET(0));			/* outside seccomp_data */
	CHECK_BAD(LD_ABS(2), RET(0));			/* unaligned */
	CHECK_BAD(BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0), RET(0));
	CHECK_BAD(BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0), RET(0));
	CHECK_BAD(BPF_STMT(BPF_LD | BPF_W | BPF_IND, 0), RET(0));
	CHECK_BAD(BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0), RET(0));
	CHECK_OK(BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0), BPF_STMT(BPF_LDX | BPF_W | BPF_LEN, 0),
		 BPF_STMT(BPF_LD | BPF_IMM, 5), BPF_STMT(BPF_LDX | BPF_IMM, 5), RET(0));
	CHECK_BAD(BPF_STMT(BPF_LD | BPF_B | BPF_IMM, 5), RET(0));	/* not the exact code */
}

Test(cbpf_check, alu)
{
	static const uint16_t ok_ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_AND,
					   BPF_OR, BPF_XOR, BPF_LSH, BPF_RSH };
	size_t i;

	for (i = 0; i < sizeof(ok_ops) / sizeof(ok_ops[0]); i++) {
		CHECK_OK(BPF_STMT(BPF_ALU | ok_ops[i] | BPF_K, 3), RET(0));
		CHECK_OK(BPF_STMT(BPF_ALU | ok_ops[i] | BPF_X, 0), RET(0));
	}
	CHECK_OK(BPF_STMT(BPF_ALU | BPF_NEG, 0), RET(0));
	CHECK_BAD(BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 3), RET(0));	/* no MOD in seccomp */
	CHECK_BAD(BPF_STMT(BPF_ALU | BPF_MOD | BPF_X, 0), RET(0));
	CHECK_BAD(BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), RET(0));	/* constant 0 */
	CHECK_BAD(BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32), RET(0));
	CHECK_BAD(BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 32), RET(0));
	CHECK_OK(BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 31), RET(0));
	CHECK_OK(BPF_STMT(BPF_MISC | BPF_TAX, 0), BPF_STMT(BPF_MISC | BPF_TXA, 0), RET(0));
	CHECK_BAD(BPF_STMT(0xff, 0), RET(0));			/* unknown opcode */
}

Test(cbpf_check, jumps)
{
	CHECK_OK(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1), RET(0), RET(1));
	CHECK_BAD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 2), RET(0), RET(1));
	CHECK_BAD(BPF_JUMP(BPF_JMP | BPF_JGT | BPF_X, 0, 2, 0), RET(0), RET(1));
	CHECK_OK(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_X, 0, 1, 0), RET(0), RET(1));
	CHECK_OK(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0, 1, 0), RET(0), RET(1));
	CHECK_OK(BPF_STMT(BPF_JMP | BPF_JA, 1), RET(0), RET(1));
	CHECK_BAD(BPF_STMT(BPF_JMP | BPF_JA, 2), RET(0), RET(1));
	CHECK_BAD(BPF_STMT(BPF_JMP | BPF_JA, 0xffffffff), RET(0), RET(1));
	CHECK_BAD(RET(0), LD_ABS(0));				/* last is not a RET */
	CHECK_OK(BPF_STMT(BPF_RET | BPF_A, 0));
	CHECK_BAD(BPF_STMT(BPF_RET | BPF_X, 0));
}

Test(cbpf_check, memory_written_before_read_on_every_path)
{
	CHECK_OK(BPF_STMT(BPF_ST, 3), BPF_STMT(BPF_LD | BPF_MEM, 3), RET(0));
	CHECK_OK(BPF_STMT(BPF_STX, 15), BPF_STMT(BPF_LDX | BPF_MEM, 15), RET(0));
	CHECK_BAD(BPF_STMT(BPF_LD | BPF_MEM, 3), RET(0));
	CHECK_BAD(BPF_STMT(BPF_ST, 16), RET(0));
	CHECK_BAD(BPF_STMT(BPF_LDX | BPF_MEM, 16), RET(0));
	/* written on one path only */
	CHECK_BAD(LD_ABS(0), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
		  BPF_STMT(BPF_ST, 0), BPF_STMT(BPF_LD | BPF_MEM, 0), RET(0));
	/* written on both */
	CHECK_OK(LD_ABS(0), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 2),
		 BPF_STMT(BPF_ST, 0), BPF_STMT(BPF_JMP | BPF_JA, 1), BPF_STMT(BPF_ST, 0),
		 BPF_STMT(BPF_LD | BPF_MEM, 0), RET(0));
	/* skipped by a JA */
	CHECK_BAD(BPF_STMT(BPF_JMP | BPF_JA, 1), BPF_STMT(BPF_ST, 0),
		  BPF_STMT(BPF_LD | BPF_MEM, 0), RET(0));
}

/* ---- cbpf_sim ---- */

static uint32_t sim(const struct sock_filter *f, size_t n, const struct seccomp_data *sd)
{
	cr_assert_eq(check(f, n), 0);
	return cbpf_sim_run(f, n, sd);
}

Test(cbpf_sim, loads_alu_and_jumps)
{
	struct seccomp_data sd = { .nr = 59, .arch = AUDIT_ARCH_X86_64,
				   .args = { 0x1122334455667788ull } };
	struct sock_filter f[] = {
		LD_ABS(16),						/* 0x55667788 */
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 8),			/* 0x00556677 */
		BPF_STMT(BPF_ST, 1),
		LD_ABS(20),						/* 0x11223344 */
		BPF_STMT(BPF_LDX | BPF_MEM, 1),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),			/* 0x117799bb */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x117799bb, 1, 0),
		RET(1),
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sizeof(struct seccomp_data), 1, 0),
		RET(2),
		BPF_STMT(BPF_LD | BPF_IMM, 0xfffffff0),
		BPF_STMT(BPF_ALU | BPF_NEG, 0),				/* 16 */
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_IMM, 3),
		BPF_STMT(BPF_ALU | BPF_LSH | BPF_X, 0),			/* 3 << 16 */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x20000, 0, 1),
		BPF_STMT(BPF_RET | BPF_A, 0),
		RET(3),
	};

	cr_expect_eq(sim(f, sizeof(f) / sizeof(f[0]), &sd), 0x30000);
}

Test(cbpf_sim, division_by_zero_kills)
{
	struct seccomp_data sd = { 0 };
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 7),
		BPF_STMT(BPF_LDX | BPF_IMM, 0),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		RET(SECCOMP_RET_ALLOW),
	};

	cr_expect_eq(sim(f, 4, &sd), SECCOMP_RET_KILL_THREAD);
	f[1].k = 2;
	cr_expect_eq(sim(f, 4, &sd), SECCOMP_RET_ALLOW);
}

Test(cbpf_sim, unsigned_compares_and_fresh_memory)
{
	struct seccomp_data sd = { .nr = -1 };
	struct sock_filter f[] = {
		LD_ABS(0),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 0x7fffffff, 0, 2),	/* -1 is huge */
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};

	cr_expect_eq(sim(f, 5, &sd), 0xffffffff);
}

/* cbpf_sim_exec(): the state a run leaves, for the tests and benchmarks
 * that pin path lengths and loads. */
Test(cbpf_sim, exec_reports_steps_registers_memory_and_loads)
{
	struct seccomp_data sd = { .nr = 3, .arch = AUDIT_ARCH_X86_64, .args = { 5 } };
	struct sock_filter f[] = {
		LD_ABS(0),
		BPF_STMT(BPF_ST, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 3, 0, 2),
		LD_ABS(16),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		LD_ABS(16),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct cbpf_sim_state st;

	cr_assert_eq(check(f, 7), 0);
	cr_expect_eq(cbpf_sim_exec(f, 7, &sd, &st), 5);
	cr_expect_eq(st.steps, 7);
	cr_expect_eq(st.a, 5);
	cr_expect_eq(st.x, 5);
	cr_expect_eq(st.mem[2], 3);
	cr_expect_eq(st.mem[0], 0);
	cr_expect_eq(st.loads[0], 1);
	cr_expect_eq(st.loads[16 / 4], 2);
	cr_expect_eq(st.loads[4 / 4], 0);
	sd.nr = 4;		/* the jump skips two: five steps */
	cr_expect_eq(cbpf_sim_exec(f, 7, &sd, &st), 5);
	cr_expect_eq(st.steps, 5);
	cr_expect_eq(st.x, 0);
	cr_expect_eq(cbpf_sim_exec(f, 7, &sd, NULL), cbpf_sim_run(f, 7, &sd));
}

/* The kernel's action-cache emulation: nr and arch only, K operands only. */
Test(cbpf_sim, const_allow_follows_only_what_the_kernel_emulates)
{
	struct sock_filter f[] = {
		LD_ABS(4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 4),
		LD_ABS(0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 10, 0, 1),
		LD_ABS(16),
		RET(SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_ALLOW),
	};

	cr_assert_eq(check(f, 7), 0);
	cr_expect(cbpf_sim_const_allow(f, 7, AUDIT_ARCH_X86_64, 3));	/* nr < 10 */
	cr_expect_not(cbpf_sim_const_allow(f, 7, AUDIT_ARCH_X86_64, 10));	/* reads args */
	cr_expect(cbpf_sim_const_allow(f, 7, AUDIT_ARCH_I386, 10));
	f[6] = (struct sock_filter)RET(SECCOMP_RET_ERRNO | 1);
	cr_expect_not(cbpf_sim_const_allow(f, 7, AUDIT_ARCH_I386, 10));
}

Test(cbpf_disasm, readable)
{
	struct sock_filter f[] = {
		LD_ABS(4), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		RET(SECCOMP_RET_ERRNO | 1), RET(SECCOMP_RET_ALLOW),
	};
	char buf[128];

	cbpf_disasm_insn(f, 4, 0, buf, sizeof(buf));
	cr_expect(strstr(buf, "arch") != NULL, "%s", buf);
	cbpf_disasm_insn(f, 4, 1, buf, sizeof(buf));
	cr_expect(strstr(buf, "true:3 false:2") != NULL, "%s", buf);
	cbpf_disasm_insn(f, 4, 2, buf, sizeof(buf));
	cr_expect(strstr(buf, "ERRNO(1)") != NULL, "%s", buf);
	cbpf_disasm_insn(f, 4, 3, buf, sizeof(buf));
	cr_expect(strstr(buf, "ALLOW") != NULL, "%s", buf);
	cbpf_disasm_insn(f, 4, 9, buf, sizeof(buf));
	cr_expect(strstr(buf, "out of range") != NULL, "%s", buf);
}

/* ---- the compiler ---- */

static const char *source_dir(void)
{
	const char *d = getenv("SECBPF_SOURCE_DIR");

	return d ? d : ".";
}

/* Build tests/cbpf/NAME.bpf.c (or a sample) with the flags `secbpf cc`
 * uses, into a fresh temporary directory, and open it. */
static struct object *build(const char *rel)
{
	struct secbpf_err err = { { 0 } };
	char dir[] = "/tmp/secbpf-cbpf-XXXXXX", cmd[2048], out[512];
	struct object *obj;

	cr_assert(mkdtemp(dir) != NULL);
	snprintf(out, sizeof(out), "%s/prog.o", dir);
	snprintf(cmd, sizeof(cmd),
		 "clang -O2 -g -target bpf -D__x86_64__ -I/usr/include/x86_64-linux-gnu "
		 "-I'%s/include' -c '%s/%s' -o '%s'", source_dir(), source_dir(), rel, out);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	obj = object_open_file(out, &err);
	cr_assert(obj != NULL, "%s: %s", rel, err.msg);
	unlink(out);
	rmdir(dir);
	return obj;
}

static void dump(const struct cbpf_prog *cp)
{
	char buf[160];
	uint32_t i;

	for (i = 0; i < cp->len; i++) {
		cbpf_disasm_insn(cp->insns, cp->len, i, buf, sizeof(buf));
		fprintf(stderr, "%s\n", buf);
	}
}

struct compiled {
	struct object *obj;
	struct object_prog *prog;
	struct cbpf_prog cp;
	struct runtime *rt;
};

static void compile_obj(struct compiled *c, bool guard)
{
	struct cbpf_compile_opts opts = { .sz = sizeof(opts), .listener_guard = guard };
	struct secbpf_err err = { { 0 } };
	int rc;

	c->prog = object_find_prog(c->obj, NULL, &err);
	cr_assert(c->prog != NULL, "%s", err.msg);
	rc = cbpf_compile(c->obj, c->prog, &opts, &c->cp, &err);
	cr_assert_eq(rc, 0, "compile: %s", err.msg);
	cr_assert_eq(check(c->cp.insns, c->cp.len), 0);
	c->rt = runtime_new(c->obj, c->prog, &err);
	cr_assert(c->rt != NULL, "%s", err.msg);
}

static void release(struct compiled *c)
{
	runtime_free(c->rt);
	cbpf_prog_free(&c->cp);
	object_free(c->obj);
}

static void differential(struct compiled *c, unsigned per_nr)
{
	struct diff_result res;

	if (!diff_check(c->rt, c->prog->insns, c->prog->insn_cnt, &c->cp, NULL, 0, per_nr, 461,
			0x5eed, &res)) {
		dump(&c->cp);
		cr_assert_fail("%s: %s", c->prog->name, res.msg);
	}
}

static uint32_t run_cbpf(const struct compiled *c, uint32_t arch, int nr, uint64_t a0)
{
	struct seccomp_data sd = { .nr = nr, .arch = arch, .args = { a0 } };

	return cbpf_sim_run(c->cp.insns, c->cp.len, &sd);
}

/*
 * For nr 0..450 of arch: whenever the program allows on every sampled
 * argument vector, the kernel's action cache must prove ALLOW from the
 * filter alone; and it must never prove ALLOW for one that it does not.
 */
static void assert_cache_proves_allow(struct compiled *c, uint32_t arch, int except_nr)
{
	static const uint64_t samples[] = { 0, 1, 999, 0x7fffffff, 0x80000000, ~0ull,
					    0x7e020000, 16, 3, 45 };
	uint32_t nr, s, want;
	struct secbpf_err err;

	for (nr = 0; nr <= 450; nr++) {
		bool always = true;

		if ((int)nr == except_nr)
			continue;

		for (s = 0; s < sizeof(samples) / sizeof(samples[0]); s++) {
			struct seccomp_data sd = { .nr = (int)nr, .arch = arch };
			unsigned k;

			for (k = 0; k < 6; k++)
				sd.args[k] = samples[(s + k) % 10];
			cr_assert_eq(runtime_run(c->rt, &sd, &want, &err), 0);
			if (want != SECCOMP_RET_ALLOW)
				always = false;
		}
		cr_expect_eq(cbpf_sim_const_allow(c->cp.insns, c->cp.len, arch, nr), always,
			     "%s: arch 0x%x nr %u: cache %s", c->prog->name, arch, nr,
			     always ? "cannot prove ALLOW" : "proves ALLOW wrongly");
	}
}

/* samples/NAME.bpf.o as the build made it, or built here. */
static struct object *sample_object(const char *name)
{
	const char *b = getenv("SECBPF_BUILD_DIR");
	struct secbpf_err err = { { 0 } };
	char path[1024];

	if (b) {
		struct object *obj;

		snprintf(path, sizeof(path), "%s/samples/%s.bpf.o", b, name);
		obj = object_open_file(path, &err);
		if (obj)
			return obj;
	}
	snprintf(path, sizeof(path), "samples/%s.bpf.c", name);
	return build(path);
}

static struct object *seed_object(void)
{
	return sample_object("seed_close");
}

Test(cbpf_compile, seed_sample)
{
	struct compiled c = { .obj = seed_object() };

	compile_obj(&c, false);
	cr_expect_eq(c.cp.notif_cells, 0);
	cr_expect(!c.cp.needs_supervisor);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 3, 999), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 3, 998), SECCOMP_RET_ALLOW);
	/* close() takes an unsigned int: the sample compares the low half. */
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 3, 999 | 1ull << 32),
		     SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 0x40000003, 999), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_I386, 3, 0), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_leq(c.cp.len, 20, "seed compiles to %u insns", c.cp.len);
	differential(&c, 4);
	assert_cache_proves_allow(&c, AUDIT_ARCH_X86_64, -1);
	release(&c);
}

Test(cbpf_compile, seed_sample_with_listener_guard)
{
	struct compiled c = { .obj = seed_object() };
	struct seccomp_data sd = { .nr = 317, .arch = AUDIT_ARCH_X86_64,
				   .args = { SECCOMP_SET_MODE_FILTER,
					     SECCOMP_FILTER_FLAG_NEW_LISTENER | 1 } };

	compile_obj(&c, true);
	cr_expect_eq(cbpf_sim_run(c.cp.insns, c.cp.len, &sd), SECCOMP_RET_ERRNO | EPERM);
	sd.nr = 0x40000000 | 317;	/* x32 */
	cr_expect_eq(cbpf_sim_run(c.cp.insns, c.cp.len, &sd), SECCOMP_RET_ERRNO | EPERM);
	sd.arch = AUDIT_ARCH_I386;
	sd.nr = 354;
	cr_expect_eq(cbpf_sim_run(c.cp.insns, c.cp.len, &sd), SECCOMP_RET_ERRNO | EPERM);
	sd.arch = AUDIT_ARCH_AARCH64;
	sd.nr = 277;
	cr_expect_eq(cbpf_sim_run(c.cp.insns, c.cp.len, &sd), SECCOMP_RET_ERRNO | EPERM);
	/* without the listener flag, or another op: the program decides */
	sd.arch = AUDIT_ARCH_X86_64;
	sd.nr = 317;
	sd.args[1] = 1;
	cr_expect_eq(cbpf_sim_run(c.cp.insns, c.cp.len, &sd), SECCOMP_RET_ALLOW);
	sd.args[0] = 2;
	sd.args[1] = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	cr_expect_eq(cbpf_sim_run(c.cp.insns, c.cp.len, &sd), SECCOMP_RET_ALLOW);
	/* seccomp() itself reads args in the guard: not cacheable, by design */
	assert_cache_proves_allow(&c, AUDIT_ARCH_X86_64, 317);
	release(&c);
}

/* ---- the listener guard (lib/cbpf/guard.c) ---- */

/* The guard alone, then RET ALLOW: what the supervisor builds on. */
Test(cbpf_guard, build_denies_a_listener_on_every_target_and_falls_through_otherwise)
{
	struct cbpf_guard_target t[CBPF_GUARD_MAX_TARGETS];
	struct secbpf_err err = { { 0 } };
	struct sock_filter *g, *f;
	size_t len, nt = cbpf_guard_targets(t, CBPF_GUARD_MAX_TARGETS), i;

	cr_assert_gt(nt, 2);
	cr_assert_eq(cbpf_guard_build(&g, &len, &err), 0, "%s", err.msg);
	f = calloc(len + 1, sizeof(*f));
	cr_assert_not_null(f);
	memcpy(f, g, len * sizeof(*f));
	f[len] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	cr_assert_eq(check(f, len + 1), 0);
	for (i = 0; i < nt; i++) {
		struct seccomp_data sd = { .nr = (int)t[i].nr, .arch = t[i].arch,
					   .args = { SECCOMP_SET_MODE_FILTER,
						     SECCOMP_FILTER_FLAG_NEW_LISTENER } };

		cr_expect_eq(sim(f, len + 1, &sd), SECCOMP_RET_ERRNO | EPERM, "target %zu", i);
		sd.args[1] = 0;
		cr_expect_eq(sim(f, len + 1, &sd), SECCOMP_RET_ALLOW, "target %zu", i);
		sd.args[1] = SECCOMP_FILTER_FLAG_NEW_LISTENER;
		sd.args[0] = SECCOMP_SET_MODE_STRICT;
		cr_expect_eq(sim(f, len + 1, &sd), SECCOMP_RET_ALLOW, "target %zu", i);
		sd.args[0] = SECCOMP_SET_MODE_FILTER;
		sd.nr++;
		cr_expect_eq(sim(f, len + 1, &sd), SECCOMP_RET_ALLOW, "target %zu", i);
	}
	free(f);
	free(g);
}

static int guard_for(const struct cbpf_guard_target *t, size_t nt, struct secbpf_err *err)
{
	struct cbpf_asm m = { 0 };
	uint32_t pass = cbpf_asm_label(&m);
	int rc = cbpf_guard_emit_targets(&m, t, nt, pass, err);

	cbpf_asm_free(&m);
	return rc;
}

/* A target list the guard cannot hold is an error, never a guard that
 * silently misses a target. */
Test(cbpf_guard, overflow_is_an_error_not_a_truncation)
{
	struct cbpf_guard_target t[CBPF_GUARD_MAX_ARCHES + 1];
	struct secbpf_err err = { { 0 } };
	uint32_t i;

	for (i = 0; i <= CBPF_GUARD_MAX_ARCHES; i++)
		t[i] = (struct cbpf_guard_target){ .arch = 0x40000000 + i, .nr = 7 };
	cr_expect_eq(guard_for(t, CBPF_GUARD_MAX_ARCHES, &err), 0);
	cr_expect_eq(guard_for(t, CBPF_GUARD_MAX_ARCHES + 1, &err), -E2BIG);
	cr_expect(strstr(err.msg, "listener guard") != NULL, "%s", err.msg);
	for (i = 0; i <= CBPF_GUARD_MAX_NRS; i++)
		t[i] = (struct cbpf_guard_target){ .arch = AUDIT_ARCH_X86_64, .nr = 300 + i };
	memset(&err, 0, sizeof(err));
	cr_expect_eq(guard_for(t, CBPF_GUARD_MAX_NRS, &err), 0);
	cr_expect_eq(guard_for(t, CBPF_GUARD_MAX_NRS + 1, &err), -E2BIG);
	cr_expect(strstr(err.msg, "listener guard") != NULL, "%s", err.msg);
}

/* cache: the program's ALLOWs do not hide rare argument conditions, so
 * sampling finds every always-allowed nr (see assert_cache_proves_allow). */
static void filter_test(const char *name, bool stateless, bool cache, unsigned per_nr)
{
	char rel[256];
	struct compiled c;

	snprintf(rel, sizeof(rel), "tests/cbpf/%s.bpf.c", name);
	c.obj = build(rel);
	compile_obj(&c, false);
	if (stateless)
		cr_expect_eq(c.cp.notif_cells, 0, "%s: %u cells need the supervisor", name,
			     c.cp.notif_cells);
	cr_log_info("%s: %u insns, %u cells, %u notif", name, c.cp.len, c.cp.cells,
		    c.cp.notif_cells);
	differential(&c, per_nr);
	if (cache) {
		assert_cache_proves_allow(&c, AUDIT_ARCH_X86_64, -1);
		assert_cache_proves_allow(&c, AUDIT_ARCH_I386, -1);
	}
	release(&c);
}

Test(cbpf_compile, switch_allowlist) { filter_test("allowlist", true, true, 2); }
Test(cbpf_compile, docker_argument_rules) { filter_test("docker_args", true, true, 8); }
Test(cbpf_compile, wx_mmap_mprotect) { filter_test("wx", true, true, 8); }
Test(cbpf_compile, rodata_knobs) { filter_test("knob", true, true, 2); }
Test(cbpf_compile, loops) { filter_test("loop", true, true, 8); }
Test(cbpf_compile, subprograms) { filter_test("subprog", true, true, 8); }
Test(cbpf_compile, x32_and_negative_nr) { filter_test("x32", true, true, 2); }
Test(cbpf_compile, argument_arithmetic) { filter_test("arith", true, false, 16); }
Test(cbpf_compile, mul_div_mod_64) { filter_test("lower64", true, false, 16); }
Test(cbpf_compile, div_mod_by_a_variable) { filter_test("divvar", true, false, 16); }
Test(cbpf_compile, rodata_tables_by_arguments) { filter_test("table", true, false, 16); }
/* Issue 23, finding 6: .data and .bss globals that nothing writes fold as
 * .rodata does, also through a pointer handed to a subprogram. */
Test(cbpf_compile, read_only_globals_fold)
{
	filter_test("ro_globals", true, false, 16);
}

/* A global written through a pointer a subprogram gets stays state; its
 * neighbour in another section that nothing writes still folds. */
Test(cbpf_compile, written_globals_stay_state)
{
	struct compiled c = { .obj = build("tests/cbpf/rw_global.bpf.c") };
	uint32_t i, data = UINT32_MAX, bss = UINT32_MAX;
	bool knob_punts = false, counter_punts = false;

	for (i = 0; i < c.obj->map_cnt; i++) {
		if (c.obj->maps[i].kind == OBJECT_MAP_DATA)
			data = i;
		if (c.obj->maps[i].kind == OBJECT_MAP_BSS)
			bss = i;
	}
	cr_assert(data != UINT32_MAX && bss != UINT32_MAX);
	cr_expect(object_global_read_only(c.obj, data));
	cr_expect(!object_global_read_only(c.obj, bss));
	compile_obj(&c, false);
	cr_expect(c.cp.needs_state);
	for (i = 0; i < c.cp.npunts; i++) {
		const struct object_line *l = object_prog_line(c.prog, c.cp.punts[i].insn);

		if (l && l->source && strstr(l->source, "knob"))
			knob_punts = true;
		if (l && l->source && strstr(l->source, "counter"))
			counter_punts = true;
	}
	cr_expect(!knob_punts, "the read of knob is supervised");
	cr_expect(counter_punts, "the read of counter is not supervised");
	cr_expect_eq(run_cbpf(&c, 0, 5, 0), SECCOMP_RET_ERRNO | 1);
	differential(&c, 16);
	release(&c);
}

/* A global written only in a callback that a helper calls is state: the
 * read of it is the supervisor's on every syscall. */
Test(cbpf_compile, a_global_written_by_a_callback_stays_state)
{
	struct compiled c = { .obj = build("tests/cbpf/callback_global.bpf.c") };
	uint32_t i, data = UINT32_MAX;

	for (i = 0; i < c.obj->map_cnt; i++)
		if (c.obj->maps[i].kind == OBJECT_MAP_DATA)
			data = i;
	cr_assert(data != UINT32_MAX);
	cr_expect(!object_global_read_only(c.obj, data));
	compile_obj(&c, false);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 0, 0), SECCOMP_RET_USER_NOTIF);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 0, 5), SECCOMP_RET_USER_NOTIF);
	release(&c);
}

/* Issue 23, finding 4: a stack array read at an index bounded by a mask is
 * a lookup over its entries, not the supervisor's. */
Test(cbpf_compile, stack_arrays_by_arguments)
{
	filter_test("stack_array", true, false, 16);
}

/*
 * Issue 23, finding 5: a hash loop with a break on a negative byte, a
 * subprogram switching on nr and a compare of the hash. The compare is
 * costly, and every split of it on a byte was lowered in full, twice
 * (1.5 s here, 6 s with a compare per kind, 66 s for the original); the
 * lowering lengths are now remembered and a split too long for its worth
 * stops at its first values. The work is counted, not timed: the bound
 * holds on any machine. The filter still decides everything in the kernel.
 */
Test(cbpf_compile, hash_loop_compiles_in_bounded_work)
{
	struct compiled c;

	c.obj = build("tests/cbpf/hash_break.bpf.c");
	compile_obj(&c, false);
	cr_log_info("hash_break: %u insns, %llu units of work", c.cp.len,
		    (unsigned long long)c.cp.work);
	cr_expect_eq(c.cp.notif_cells, 0, "%u cells need the supervisor", c.cp.notif_cells);
	cr_expect_lt(c.cp.work, 1000000, "%llu units of work", (unsigned long long)c.cp.work);
	differential(&c, 16);
	release(&c);
}

/*
 * A cell that takes more work than the budget of one cell is the
 * supervisor's, with the reason and the instruction where the budget ran
 * out; the other cells are compiled. The budget counts work, so two
 * compiles give the same filter.
 */
Test(cbpf_compile, work_budget_supervises_the_cell_and_says_so)
{
	struct compiled c;
	struct cbpf_prog again;
	struct secbpf_err err = { { 0 } };
	struct cbpf_compile_opts opts = { .sz = sizeof(opts) };
	bool said = false;
	uint32_t i;

	c.obj = build("tests/cbpf/work_budget.bpf.c");
	compile_obj(&c, false);
	cr_expect(c.cp.needs_supervisor);
	cr_expect_eq(c.cp.notif_cells, 1, "%u cells need the supervisor", c.cp.notif_cells);
	for (i = 0; i < c.cp.npunts; i++)
		if (strstr(c.cp.punts[i].why, "work budget for one (arch, nr) cell ran out") &&
		    c.cp.punts[i].insn != CBPF_PUNT_NO_INSN)
			said = true;
	cr_expect(said, "no punt names the work budget");
	cr_assert_eq(cbpf_compile(c.obj, c.prog, &opts, &again, &err), 0, "%s", err.msg);
	cr_expect_eq(again.work, c.cp.work);
	cr_expect_eq(again.len, c.cp.len);
	cr_expect(!memcmp(again.insns, c.cp.insns, again.len * sizeof(*again.insns)));
	cbpf_prog_free(&again);
	differential(&c, 16);
	release(&c);
}

/*
 * A program whose cells together take more work than the program's budget:
 * the cells not explored when it runs out are the supervisor's, with the
 * reason, and the compile stops there (2^26 units, a second or so).
 */
Test(cbpf_compile, work_budget_of_the_program_bounds_the_compile)
{
	struct compiled c;
	bool said = false;
	uint32_t i;

	c.obj = build("tests/cbpf/work_budget_total.bpf.c");
	compile_obj(&c, false);
	cr_expect(c.cp.needs_supervisor);
	for (i = 0; i < c.cp.npunts; i++)
		if (strstr(c.cp.punts[i].why, "work budget for the program ran out"))
			said = true;
	cr_expect(said, "no punt names the program's work budget");
	cr_expect_leq(c.cp.work, (1ull << 26) + (1ull << 20), "%llu units of work",
		      (unsigned long long)c.cp.work);
	differential(&c, 16);
	release(&c);
}

/* Interval tests written by clang as "(x + C) op K": the compiler tests
 * x against the interval's ends, so those ends (and their neighbours, which
 * diff_check adds) are the inputs that matter; they are not constants of
 * the eBPF program. */
Test(cbpf_compile, offset_sums_as_ranges)
{
	static const uint64_t ends[] = {
		38, 39, 40, (uint64_t)-5, 100, 7, 10, (uint64_t)-3, 4, 0xfffffffdull,
		0x7ffffffffffffff0ull, 0x8000000000000010ull, 0, ~0ull, (uint64_t)-13,
		0x8000000000000000ull, 0x7fffffffffffffffull, 0x80000000ull,
	};
	struct compiled c = { .obj = build("tests/cbpf/ranges.bpf.c") };
	struct diff_result res;

	compile_obj(&c, false);
	cr_expect_eq(c.cp.notif_cells, 0);
	if (!diff_check(c.rt, c.prog->insns, c.prog->insn_cnt, &c.cp, ends,
			sizeof(ends) / sizeof(ends[0]), 64, 8, 0x5eed, &res)) {
		dump(&c.cp);
		cr_assert_fail("%s", res.msg);
	}
	/* Two compares of x instead of a sum with a carry between its words
	 * (90 instructions before). */
	cr_expect_leq(c.cp.len, 64, "%u instructions", c.cp.len);
	release(&c);
}

Test(cbpf_compile, allowlist_is_small)
{
	struct compiled c = { .obj = build("tests/cbpf/allowlist.bpf.c") };

	compile_obj(&c, false);
	/* one JGE per range boundary plus a RET per range, roughly */
	cr_expect_leq(c.cp.len, 2 * c.cp.cells + 8, "%u insns for %u cells", c.cp.len,
		     c.cp.cells);
	release(&c);
}

Test(cbpf_compile, knob_set_before_compile)
{
	struct compiled c = { .obj = build("tests/cbpf/knob.bpf.c") };
	struct secbpf_err err = { { 0 } };

	cr_assert_eq(object_set_var(c.obj, "denied_nr", "2", &err), 0, "%s", err.msg);
	cr_assert_eq(object_set_var(c.obj, "strict", "1", &err), 0, "%s", err.msg);
	compile_obj(&c, false);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 2, 0), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 39, 0), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 301, 0), SECCOMP_RET_KILL_PROCESS);
	cr_expect_eq(c.cp.notif_cells, 0);
	differential(&c, 2);
	release(&c);
}

Test(cbpf_compile, helper_and_globals_need_the_supervisor)
{
	struct compiled c = { .obj = build("tests/cbpf/helper.bpf.c") };
	struct cbpf_compile_opts opts = { .sz = sizeof(opts) };
	struct secbpf_err err = { { 0 } };
	uint32_t nr;

	c.prog = object_find_prog(c.obj, NULL, &err);
	cr_assert(c.prog);
	cr_assert_eq(cbpf_compile(c.obj, c.prog, &opts, &c.cp, &err), 0, "%s", err.msg);
	cr_expect(c.cp.needs_supervisor);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 102, 0), SECCOMP_RET_USER_NOTIF);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 105, 0), SECCOMP_RET_USER_NOTIF);
	cr_expect_eq(run_cbpf(&c, AUDIT_ARCH_X86_64, 2, 0), SECCOMP_RET_USER_NOTIF);
	for (nr = 0; nr < 450; nr++) {
		struct seccomp_data sd = { .nr = (int)nr, .arch = AUDIT_ARCH_X86_64,
					   .args = { 0, 0, 0x40 } };
		uint32_t want = nr == 102 || nr == 105 || nr == 2 ? SECCOMP_RET_USER_NOTIF :
				nr == 257 ? SECCOMP_RET_ERRNO | EROFS : SECCOMP_RET_ALLOW;

		cr_expect_eq(cbpf_sim_run(c.cp.insns, c.cp.len, &sd), want, "nr %u", nr);
		if (want == SECCOMP_RET_ALLOW)
			cr_expect(cbpf_sim_const_allow(c.cp.insns, c.cp.len, AUDIT_ARCH_X86_64, nr),
				  "nr %u", nr);
	}
	cbpf_prog_free(&c.cp);
	object_free(c.obj);
}

/* ---- programs written here: rejections and corner cases ---- */

static int compile_insns(const struct bpf_insn *insns, uint32_t n, struct cbpf_prog *cp,
			 struct secbpf_err *err)
{
	struct object_prog prog = { .name = "t", .section = "seccomp",
				    .insns = (struct bpf_insn *)insns, .insn_cnt = n,
				    .main_cnt = n };
	struct object obj = { .path = "t", .progs = &prog, .prog_cnt = 1 };

	return cbpf_compile(&obj, &prog, NULL, cp, err);
}

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
						 .off = (o), .imm = (i) })
#define EXIT INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define MOV0(v) INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, (v))

Test(cbpf_compile, rejects_bad_context_access)
{
	struct secbpf_err err = { { 0 } };
	struct cbpf_prog cp;
	struct bpf_insn write[] = {
		INSN(BPF_ST | BPF_MEM | BPF_W, 1, 0, 0, 5), MOV0(0), EXIT,
	};
	struct bpf_insn oob[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_DW, 2, 1, 64, 0), MOV0(0), EXIT,
	};
	struct bpf_insn unaligned[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_W, 2, 1, 18 + 0, 0), MOV0(0), EXIT,
	};
	struct bpf_insn spans[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_DW, 2, 1, 0, 0), MOV0(0), EXIT,
	};
	struct bpf_insn negative[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_W, 2, 1, -4, 0), MOV0(0), EXIT,
	};
	struct bpf_insn narrow_ok[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_H, 0, 1, 18, 0), EXIT,
	};

	cr_expect_eq(compile_insns(write, 3, &cp, &err), -EINVAL);
	cr_expect(strstr(err.msg, "read-only") != NULL, "%s", err.msg);
	cr_expect_eq(compile_insns(oob, 3, &cp, &err), -EINVAL);
	cr_expect_eq(compile_insns(unaligned, 3, &cp, &err), -EINVAL);
	cr_expect_eq(compile_insns(spans, 3, &cp, &err), -EINVAL);
	cr_expect_eq(compile_insns(negative, 3, &cp, &err), -EINVAL);
	cr_assert_eq(compile_insns(narrow_ok, 2, &cp, &err), 0, "%s", err.msg);
	{
		struct seccomp_data sd = { .args = { 0x1234abcd5678ull } };

		cr_expect_eq(cbpf_sim_run(cp.insns, cp.len, &sd), 0xabcd);
	}
	cbpf_prog_free(&cp);
}

Test(cbpf_compile, infinite_loop_is_supervised)
{
	struct secbpf_err err = { { 0 } };
	struct cbpf_prog cp;
	struct bpf_insn loop[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_W, 2, 1, 0, 0),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 1, 7),
		MOV0(0), EXIT,
		INSN(BPF_JMP | BPF_JA, 0, 0, -1, 0),		/* nr == 7: spin */
	};
	struct seccomp_data sd = { .nr = 7 };

	loop[1].off = 2;
	cr_assert_eq(compile_insns(loop, 5, &cp, &err), 0, "%s", err.msg);
	cr_expect_eq(cbpf_sim_run(cp.insns, cp.len, &sd), SECCOMP_RET_USER_NOTIF);
	sd.nr = 8;
	cr_expect_eq(cbpf_sim_run(cp.insns, cp.len, &sd), 0);
	cr_expect(cbpf_sim_const_allow(cp.insns, cp.len, 0, 8) == false);
	cbpf_prog_free(&cp);
}

/* The biggest dispatch that can still fit: every nr a different action. */
Test(cbpf_compile, huge_dispatch_is_cut_to_fit)
{
	struct secbpf_err err = { { 0 } };
	struct bpf_insn *p = calloc(8192, sizeof(*p));	/* 3 * 2500 + 3 */
	struct cbpf_prog cp;
	uint32_t n = 0, i;

	p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_W, 2, 1, 0, 0);
	for (i = 0; i < 2500; i++) {
		p[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, 2, 0, 2, (int32_t)(i * 2));
		p[n++] = MOV0((int32_t)(SECCOMP_RET_ERRNO | (i % 4000)));
		p[n++] = EXIT;
	}
	p[n++] = MOV0(SECCOMP_RET_ALLOW);
	p[n++] = EXIT;
	cr_assert_eq(compile_insns(p, n, &cp, &err), 0, "%s", err.msg);
	cr_expect_leq(cp.len, CBPF_MAX_INSNS);
	cr_expect(cp.needs_supervisor);
	for (i = 0; i < 5002; i++) {
		struct seccomp_data sd = { .nr = (int)i };
		uint32_t got = cbpf_sim_run(cp.insns, cp.len, &sd);
		uint32_t want = i % 2 == 0 && i < 5000 ? SECCOMP_RET_ERRNO | ((i / 2) % 4000) :
			       SECCOMP_RET_ALLOW;

		cr_expect(got == want || got == SECCOMP_RET_USER_NOTIF, "nr %u: 0x%x", i, got);
	}
	cbpf_prog_free(&cp);
	free(p);
}

/* Randomly generated programs through the same differential check. */
Test(cbpf_compile, random_programs, .timeout = 300)
{
	static struct gen_prog g;
	unsigned iter, compiled = 0;

	for (iter = 0; iter < 300; iter++) {
		struct gen_src src = { .rng = 0x9e3779b97f4a7c15ull * (iter + 1) };
		struct object_prog prog = { .name = "random", .section = "seccomp" };
		struct object obj = { .path = "random", .progs = &prog, .prog_cnt = 1 };
		struct secbpf_err err = { { 0 } };
		struct diff_result res;
		struct cbpf_prog cp;
		struct runtime *rt;
		int rc;

		if (!gen_program(&src, &g))
			continue;
		prog.insns = g.insns;
		prog.insn_cnt = g.n;
		prog.main_cnt = g.n;
		rc = cbpf_compile(&obj, &prog, NULL, &cp, &err);
		cr_assert_eq(rc, 0, "iter %u: %s", iter, err.msg);
		compiled++;
		rt = runtime_new(&obj, &prog, &err);
		cr_assert(rt != NULL, "%s", err.msg);
		if (!diff_check(rt, g.insns, g.n, &cp, g.consts, g.nconsts, 1, 461, iter, &res)) {
			dump(&cp);
			cr_assert_fail("iter %u: %s", iter, res.msg);
		}
		runtime_free(rt);
		cbpf_prog_free(&cp);
	}
	cr_expect_gt(compiled, 250);
}

/* ---- path lengths: what the kernel executes, pinned ---- */

/* x86_64 numbers: the filters are built for x86_64 whatever the host. */
#define NR_CLOSE 3
#define NR_GETPID 39
#define NR_SOCKET 41
#define NR_CLONE 56
#define NR_PERSONALITY 135

/* Instructions executed for (arch x86_64, nr, args), and the action. */
static uint32_t steps(const struct compiled *c, int nr, uint64_t a0, uint64_t a1, uint64_t a2,
		      uint32_t *action)
{
	struct seccomp_data sd = { .nr = nr, .arch = AUDIT_ARCH_X86_64, .args = { a0, a1, a2 } };
	struct cbpf_sim_state st;

	*action = cbpf_sim_exec(c->cp.insns, c->cp.len, &sd, &st);
	return st.steps;
}

/* How many times the filter loads the word at offset off for this input. */
static uint32_t loads_of(const struct compiled *c, int nr, uint64_t a0, uint32_t off)
{
	struct seccomp_data sd = { .nr = nr, .arch = AUDIT_ARCH_X86_64, .args = { a0 } };
	struct cbpf_sim_state st;

	cbpf_sim_exec(c->cp.insns, c->cp.len, &sd, &st);
	return st.loads[off / 4];
}

/*
 * samples/docker_like.bpf.c: personality allows five values of its
 * unsigned int argument, so only the low word is loaded, once, and a tree
 * tests it (docker_args_personality below keeps a 64-bit compare: the high
 * word tested once, then the low one).
 */
Test(cbpf_paths, docker_like_personality)
{
	static const uint64_t allowed[] = {
		0, 8, 0x20000, 0x20008, 0xffffffff, 0x100000000ull, ~0ull, 0xffffffff00000000ull
	};
	static const uint64_t denied[] = { 1, 9, 0x20007, 0x20009, 0xfffffffe, 0x100000001ull };
	struct compiled c = { .obj = sample_object("docker_like") };
	uint32_t i, act, n;

	compile_obj(&c, false);
	cr_expect_leq(c.cp.len, 154, "docker_like: %u insns", c.cp.len);
	n = steps(&c, NR_PERSONALITY, 0xffffffff, 0, 0, &act);
	cr_expect_eq(act, SECCOMP_RET_ALLOW);
	cr_expect_leq(n, 17, "personality(0xffffffff): %u insns", n);
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		n = steps(&c, NR_PERSONALITY, allowed[i], 0, 0, &act);
		cr_expect_eq(act, SECCOMP_RET_ALLOW, "persona 0x%llx",
			     (unsigned long long)allowed[i]);
		cr_expect_leq(n, 17, "persona 0x%llx: %u insns", (unsigned long long)allowed[i], n);
		cr_expect_eq(loads_of(&c, NR_PERSONALITY, allowed[i], 20), 0);
		cr_expect_eq(loads_of(&c, NR_PERSONALITY, allowed[i], 16), 1);
	}
	for (i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		n = steps(&c, NR_PERSONALITY, denied[i], 0, 0, &act);
		cr_expect_eq(act, SECCOMP_RET_ERRNO | EPERM, "persona 0x%llx",
			     (unsigned long long)denied[i]);
		cr_expect_leq(n, 17, "persona 0x%llx: %u insns", (unsigned long long)denied[i], n);
		cr_expect_eq(loads_of(&c, NR_PERSONALITY, denied[i], 20), 0);
		cr_expect_eq(loads_of(&c, NR_PERSONALITY, denied[i], 16), 1);
	}
	/* the other argument rules did not get longer */
	n = steps(&c, NR_CLONE, 0x11, 0, 0, &act);
	cr_expect_eq(act, SECCOMP_RET_ALLOW);
	cr_expect_leq(n, 13, "clone(SIGCHLD): %u insns", n);
	n = steps(&c, NR_CLONE, 0x20000, 0, 0, &act);
	cr_expect_eq(act, SECCOMP_RET_ERRNO | EPERM);
	cr_expect_leq(n, 13, "clone(CLONE_NEWNS): %u insns", n);
	n = steps(&c, NR_SOCKET, 2, 1, 0, &act);
	cr_expect_eq(act, SECCOMP_RET_ALLOW);
	cr_expect_leq(n, 18, "socket(AF_INET): %u insns", n);
	n = steps(&c, NR_SOCKET, 16, 3, 9, &act);
	cr_expect_eq(act, SECCOMP_RET_ERRNO | EPERM);
	cr_expect_leq(n, 18, "socket(AF_NETLINK, NETLINK_AUDIT): %u insns", n);
	n = steps(&c, NR_GETPID, 0, 0, 0, &act);
	cr_expect_eq(act, SECCOMP_RET_ALLOW);
	cr_expect_leq(n, 10, "getpid: %u insns", n);
	differential(&c, 4);
	release(&c);
}

Test(cbpf_paths, docker_args_personality)
{
	struct compiled c = { .obj = build("tests/cbpf/docker_args.bpf.c") };
	uint32_t act, n;

	compile_obj(&c, false);
	cr_expect_leq(c.cp.len, 49, "docker_args: %u insns", c.cp.len);
	n = steps(&c, NR_PERSONALITY, 0xffffffff, 0, 0, &act);
	cr_expect_eq(act, SECCOMP_RET_ALLOW);
	cr_expect_leq(n, 15, "personality(0xffffffff): %u insns", n);
	n = steps(&c, NR_PERSONALITY, 0x1ffffffffull, 0, 0, &act);
	cr_expect_eq(act, SECCOMP_RET_ERRNO | EPERM);
	cr_expect_leq(n, 15, "personality(0x1ffffffff): %u insns", n);
	release(&c);
}

Test(cbpf_paths, seed_close)
{
	struct compiled c = { .obj = seed_object() };
	uint32_t act, n;

	compile_obj(&c, false);
	n = steps(&c, NR_CLOSE, 999, 0, 0, &act);
	cr_expect_eq(act, SECCOMP_RET_ERRNO | EPERM);
	cr_expect_leq(n, 10, "close(999): %u insns", n);
	n = steps(&c, NR_CLOSE, 999 | 1ull << 32, 0, 0, &act);
	cr_expect_eq(act, SECCOMP_RET_ERRNO | EPERM);
	cr_expect_leq(n, 10, "close(999 + 2^32): %u insns", n);
	release(&c);
}

/*
 * Written here: x == 1 || x == 2 || x == 3 on a 64-bit argument after a
 * costly 64-bit expression, (args[0] + args[1]): the sum's words are
 * computed once per path (A, or a scratch slot), not once per compare.
 */
Test(cbpf_paths, costly_word_computed_once)
{
	struct secbpf_err err = { { 0 } };
	struct bpf_insn p[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_DW, 2, 1, 16, 0),	/* r2 = args[0] */
		INSN(BPF_LDX | BPF_MEM | BPF_DW, 3, 1, 24, 0),	/* r3 = args[1] */
		INSN(BPF_ALU64 | BPF_ADD | BPF_X, 2, 3, 0, 0),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 4, 1),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 3, 2),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 2, 3),
		MOV0(SECCOMP_RET_ERRNO | EPERM), EXIT,
		MOV0(SECCOMP_RET_ALLOW), EXIT,
	};
	struct object_prog prog = { .name = "t", .section = "seccomp", .insns = p,
				    .insn_cnt = 10, .main_cnt = 10 };
	struct object obj = { .path = "t", .progs = &prog, .prog_cnt = 1 };
	struct compiled c = { .obj = &obj, .prog = &prog };
	struct diff_result res;
	uint64_t v;
	uint32_t act, n, first = 0;

	cr_assert_eq(cbpf_compile(&obj, &prog, NULL, &c.cp, &err), 0, "%s", err.msg);
	c.rt = runtime_new(&obj, &prog, &err);
	cr_assert(c.rt != NULL, "%s", err.msg);
	for (v = 0; v <= 4; v++) {
		n = steps(&c, 0, v, 0, 0, &act);
		cr_expect_eq(act, v >= 1 && v <= 3 ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EPERM);
		if (v == 1)
			first = n;
		/* each further compare costs at most a reload and a jump */
		else if (v == 3 || v == 4)
			cr_expect_leq(n, first + 4, "x = %llu: %u insns (x = 1: %u)",
				      (unsigned long long)v, n, first);
	}
	if (!diff_check(c.rt, p, 10, &c.cp, NULL, 0, 8, 4, 7, &res)) {
		dump(&c.cp);
		cr_assert_fail("%s", res.msg);
	}
	runtime_free(c.rt);
	cbpf_prog_free(&c.cp);
}

/* The low bits of x laid on the set bits of mask (x86's pdep). */
static uint64_t deposit(uint64_t x, uint64_t mask)
{
	uint64_t r = 0, bit;

	for (bit = 1; mask; bit <<= 1) {
		uint64_t low = mask & -mask;

		if (x & bit)
			r |= low;
		mask &= mask - 1;
	}
	return r;
}

/*
 * tests/cbpf/known.bpf.c: arch folded in its cell, .rodata tables indexed
 * by a few bits, shifts and products of a key with few values. The filter
 * has no USER_NOTIF at all, and matches the interpreter on every value of
 * each key (x), with the other operands at their edges (y).
 */
Test(cbpf_compile, known_constants_and_keys, .timeout = 120)
{
	static const uint32_t arches[] = { AUDIT_ARCH_AARCH64, AUDIT_ARCH_X86_64 };
	uint64_t ys[40];
	struct diff_result res = { 0 };
	struct compiled c;
	uint32_t i, ny = 0, a, nr, x, y;

	c.obj = build("tests/cbpf/known.bpf.c");
	compile_obj(&c, false);
	cr_assert(!c.cp.needs_supervisor, "%u cells need the supervisor", c.cp.notif_cells);
	for (i = 0; i < c.cp.len; i++)
		cr_assert(!(BPF_CLASS(c.cp.insns[i].code) == BPF_RET &&
			    c.cp.insns[i].k == SECCOMP_RET_USER_NOTIF),
			  "insn %u returns USER_NOTIF", i);
	differential(&c, 16);
	for (i = 0; i <= 16; i++) /* (y << s) >> 40 == 0x12 for s = 0..15 */
		ys[ny++] = 0x12ull << (40 - i);
	for (i = 0; i < 6; i++) {
		ys[ny++] = i;
		ys[ny++] = (uint64_t)-(int64_t)i;
	}
	ys[ny++] = 0xfffffffdull;
	ys[ny++] = 0x100000001ull;
	ys[ny++] = 0x8000000000000000ull;
	ys[ny++] = 0x123456789abcdefull;
	for (a = 0; a < 2; a++)
		for (nr = 0; nr < 9; nr++)
			for (x = 0; x < 256; x++)
				for (y = 0; y < ny; y++) {
					struct seccomp_data sd = {
						.nr = (int)nr,
						.arch = arches[a],
						.instruction_pointer =
							deposit(x, 0xc000003e) | (ys[y] & ~0xc000003eull),
						.args = { x, ys[y], x, x, x, x },
					};

					if (!diff_one(c.rt, &c.cp, &sd, &res))
						cr_assert_fail("%s", res.msg);
					sd.args[0] = x | ys[y] << 32;
					sd.args[1] = x;
					sd.args[2] = ys[y] & ~63ull ? x | (ys[y] & ~63ull) : ys[y];
					sd.args[3] = x | (ys[y] & ~0xffull);
					if (!diff_one(c.rt, &c.cp, &sd, &res))
						cr_assert_fail("%s", res.msg);
				}
	cr_log_info("known: %u insns, %llu runs", c.cp.len, (unsigned long long)res.runs);
	release(&c);
}

/*
 * A stateless program that still needs the supervisor says why: the eBPF
 * instruction, its C line (BTF line info) and the operation, in the
 * compiled program and in `secbpf compile --format asm`. Divisions by
 * variables nested three deep need more than cBPF's 16 scratch words.
 */
#define NESTED_WHY "an expression nested too deep for cBPF's 16 scratch words"

Test(cbpf_compile, punts_name_their_line_and_operation)
{
	static const char src[] =
		"#include <secbpf/filter.h>\n"
		"SEC(\"seccomp\") int punts(struct seccomp_data *ctx)\n"
		"{\n"
		"	if (ctx->nr == 3 && ctx->args[0] / (ctx->args[1] / (ctx->args[2] / ctx->args[3])) == 3)\n"
		"		return SECCOMP_RET_ERRNO | 1;\n"
		"	if (ctx->nr == 4 && ctx->args[0] % (ctx->args[1] % (ctx->args[2] % ctx->args[3])) == 0x100000000ULL)\n"
		"		return SECCOMP_RET_ERRNO | 2;\n"
		"	return SECCOMP_RET_ALLOW;\n"
		"}\n"
		"char _license[] SEC(\"license\") = \"GPL\";\n";
	char dir[] = "/tmp/secbpf-punts-XXXXXX", path[64], obj[64], cmd[1024], out[4096];
	bool div = false, mod = false;
	struct secbpf_err err = { { 0 } };
	struct compiled c;
	FILE *f;
	size_t n;
	uint32_t i;

	cr_assert(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/punts.bpf.c", dir);
	snprintf(obj, sizeof(obj), "%s/punts.bpf.o", dir);
	f = fopen(path, "w");
	cr_assert(f);
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "clang -O2 -g -target bpf -D__x86_64__ -I/usr/include/x86_64-linux-gnu "
		 "-I'%s/include' -c '%s' -o '%s'",
		 source_dir(), path, obj);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	c.obj = object_open_file(obj, &err);
	cr_assert(c.obj, "%s", err.msg);
	compile_obj(&c, false);
	cr_assert(c.cp.needs_supervisor);
	for (i = 0; i < c.cp.npunts; i++) {
		const struct cbpf_punt *u = &c.cp.punts[i];
		const struct object_line *l = object_prog_line(c.prog, u->insn);

		cr_assert(l && l->file, "punt at insn %u has no line", u->insn);
		if (!strcmp(u->why, NESTED_WHY) && l->line == 4) {
			div = true;
		} else if (!strcmp(u->why, NESTED_WHY) && l->line == 6) {
			mod = true;
		} else {
			cr_assert_fail("unexpected reason '%s'", u->why);
		}
	}
	cr_assert(div && mod, "%u reasons", c.cp.npunts);
	differential(&c, 4);
	release(&c);

	snprintf(cmd, sizeof(cmd), "'%s' compile '%s' --format asm", getenv("SECBPF"), obj);
	f = popen(cmd, "r");
	cr_assert(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	cr_assert_eq(pclose(f), 0, "%s", out);
	cr_assert(strstr(out, "# supervised: ") && strstr(out, "punts.bpf.c:4 (insn ") &&
			  strstr(out, "): " NESTED_WHY "\n") &&
			  strstr(out, "punts.bpf.c:6 (insn ") &&
			  strstr(out, "ctx->args[0] % (ctx->args[1] % (ctx->args[2] % ctx->args[3]))"),
		  "%s", out);
	unlink(path);
	unlink(obj);
	rmdir(dir);
}
