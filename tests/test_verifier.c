// SPDX-License-Identifier: MIT
/*
 * Tests for lib/verifier*.c and lib/install/policy.c: every program of the corpus in
 * tests/verifier/ (assembly and C, each stating its expected verdict), plus
 * unit tests of scalar tracking, facts, messages and the loading policy.
 *
 * The corpus format is described in verifier_corpus.h.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/asm.h"
#include "vm/insn.h"
#include "verifier_corpus.h"
#include "object/object.h"
#include "install/policy.h"
#include "verifier/verifier_internal.h"

struct corpus_case {
	char path[512];
	char name[128];
};

static const char *source_dir(void)
{
	const char *d = getenv("SECBPF_SOURCE_DIR");

	return d ? d : ".";
}

static int cmp_case(const void *a, const void *b)
{
	return strcmp(((const struct corpus_case *)a)->name, ((const struct corpus_case *)b)->name);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

ParameterizedTestParameters(verifier, corpus)
{
	char dir[512];
	struct corpus_case *cases;
	struct dirent *de;
	size_t n = 0, cap = 512;
	DIR *d;

	snprintf(dir, sizeof(dir), "%.280s/tests/verifier", source_dir());
	cases = cr_malloc(cap * sizeof(*cases));
	d = opendir(dir);
	if (!d || !cases)
		return cr_make_param_array(struct corpus_case, cases, 0);
	while ((de = readdir(d)) && n < cap) {
		if (!has_suffix(de->d_name, ".s") && !has_suffix(de->d_name, ".bpf.c"))
			continue;
		memset(&cases[n], 0, sizeof(cases[n]));
		snprintf(cases[n].path, sizeof(cases[n].path), "%.300s/%.200s", dir, de->d_name);
		snprintf(cases[n].name, sizeof(cases[n].name), "%.120s", de->d_name);
		n++;
	}
	closedir(d);
	qsort(cases, n, sizeof(*cases), cmp_case);
	return cr_make_param_array(struct corpus_case, cases, n);
}

static int verify_asm_text(const char *text, struct corpus_spec *spec,
			   struct verifier_facts **facts, struct secbpf_err *err)
{
	struct object obj;
	struct object_prog prog;
	struct bpf_insn *insns = NULL;
	struct verifier_opts opts = { .sz = sizeof(opts),
				      .tier = spec->tier,
				      .strict = spec->strict };
	size_t cnt = 0;
	int ret;

	ret = corpus_assemble(text, spec, &insns, &cnt, err);
	cr_assert_eq(ret, 0, "assembly failed: %s", err->msg);
	corpus_object(spec, insns, cnt, &obj, &prog);
	ret = verifier_check(&obj, &prog, &opts, facts, err);
	free(insns);
	return ret;
}

static int verify_c_file(const char *path, struct corpus_spec *spec, struct secbpf_err *err)
{
	char obj_path[] = "/tmp/secbpf-vtest-XXXXXX";
	char cmd[2048];
	const char *inc = getenv("SECBPF_INCLUDE_DIR");
	struct verifier_opts opts = { .sz = sizeof(opts),
				      .tier = spec->tier,
				      .strict = spec->strict };
	struct object_prog *prog;
	struct object *obj;
	int fd, ret;

	fd = mkstemp(obj_path);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "clang -O2 -g -target bpf -D__x86_64__ "
		 "-I/usr/include/x86_64-linux-gnu -I%s%s -c '%s' -o '%s'",
		 inc ? inc : source_dir(), inc ? "" : "/include", path, obj_path);
	ret = system(cmd);
	cr_assert_eq(ret, 0, "compiling %s failed", path);
	obj = object_open_file(obj_path, err);
	unlink(obj_path);
	cr_assert_not_null(obj, "loading %s: %s", path, err->msg);
	prog = object_find_prog(obj, spec->prog[0] ? spec->prog : NULL, err);
	cr_assert_not_null(prog, "%s: %s", path, err->msg);
	ret = verifier_check(obj, prog, &opts, NULL, err);
	object_free(obj);
	return ret;
}

ParameterizedTest(struct corpus_case *c, verifier, corpus)
{
	struct secbpf_err err = { { 0 } };
	struct corpus_spec spec;
	char *text = corpus_read_file(c->path);
	int ret;

	cr_assert_not_null(text, "cannot read %s", c->path);
	cr_assert_eq(corpus_parse(text, &spec, &err), 0, "%s", err.msg);
	if (has_suffix(c->path, ".s"))
		ret = verify_asm_text(text, &spec, NULL, &err);
	else
		ret = verify_c_file(c->path, &spec, &err);
	free(text);
	if (spec.expect_accept) {
		cr_assert_eq(ret, 0, "%s: expected accept, got: %s", c->name, err.msg);
	} else {
		cr_assert_neq(ret, 0, "%s: expected reject (%s), but it was accepted", c->name,
			      spec.reason);
		cr_assert_not_null(strstr(err.msg, spec.reason),
				   "%s: expected reason \"%s\", got: %s", c->name, spec.reason,
				   err.msg);
	}
}

/* ---- unit tests ---- */

static int verify_inline(const char *text, enum secbpf_tier tier, struct verifier_facts **facts,
			 struct secbpf_err *err)
{
	struct corpus_spec spec;

	cr_assert_eq(corpus_parse(text, &spec, err), 0, "%s", err->msg);
	spec.tier = tier;
	return verify_asm_text(text, &spec, facts, err);
}

Test(verifier, facts_of_seed_like_program)
{
	struct secbpf_err err = { { 0 } };
	struct verifier_facts *f = NULL;
	int ret = verify_inline("ldxw %r2, [%r1+0]\n" /* 0 */
				"mov %r0, 0\n"	      /* 1 */
				"jgt %r2, 10, out\n"  /* 2 */
				"mov %r0, %r2\n"      /* 3 */
				"out:\n"
				"exit\n", /* 4 */
				SECBPF_TIER_RESTRICTED, &f, &err);

	cr_assert_eq(ret, 0, "%s", err.msg);
	cr_assert_not_null(f);
	cr_assert_eq(f->insn_cnt, 5);
	cr_assert(f->insns[3].flags & VERIFIER_INSN_REACHABLE);
	cr_assert(f->insns[0].flags & VERIFIER_INSN_CTX_LOAD);
	cr_assert_eq(f->insns[0].regs[1].type, VERIFIER_FACT_CTX);
	/* at insn 3 the branch proved nr <= 10 */
	cr_assert_eq(f->insns[3].regs[2].type, VERIFIER_FACT_SCALAR);
	cr_assert_eq(f->insns[3].regs[2].umax, 10);
	/* at insn 4 r0 is 0 or nr <= 10 */
	cr_assert_eq(f->insns[4].regs[0].umax, 10);
	cr_assert_eq(f->insns[4].regs[0].umin, 0);
	cr_assert(!f->uses_helpers);
	verifier_facts_free(f);
}

Test(verifier, facts_mark_helper_calls)
{
	struct secbpf_err err = { { 0 } };
	struct verifier_facts *f = NULL;
	int ret = verify_inline("call 14\nmov %r0, 0\nexit\n", SECBPF_TIER_UNPRIVILEGED, &f, &err);

	cr_assert_eq(ret, 0, "%s", err.msg);
	cr_assert(f->insns[0].flags & VERIFIER_INSN_HELPER_CALL);
	cr_assert(f->insns[0].flags & VERIFIER_INSN_NEEDS_STATE);
	cr_assert(f->uses_helpers);
	verifier_facts_free(f);
}

Test(verifier, message_names_insn_disasm_and_state)
{
	struct secbpf_err err = { { 0 } };
	int ret = verify_inline("ldxw %r0, [%r1+2]\nexit\n", SECBPF_TIER_UNPRIVILEGED, NULL, &err);

	cr_assert_neq(ret, 0);
	cr_assert_not_null(strstr(err.msg, "insn 0 ("), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "misaligned"), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "R1=ctx"), "%s", err.msg);
}

Test(verifier, verbose_log_lists_each_insn)
{
	struct secbpf_err err = { { 0 } };
	struct corpus_spec spec;
	char *buf = NULL;
	size_t len = 0;
	FILE *log = open_memstream(&buf, &len);
	struct object obj = { 0 };
	struct object_prog prog = { 0 };
	struct bpf_insn *insns;
	size_t cnt;
	struct verifier_opts opts = {
		.sz = sizeof(opts), .tier = SECBPF_TIER_UNPRIVILEGED, .verbose = true, .log = log
	};

	cr_assert_eq(corpus_parse("", &spec, &err), 0, "%s", err.msg);
	cr_assert_eq(
		insn_assemble("mov %r0, 1\njeq %r0, 1, +1\nmov %r0, 2\nexit\n", &insns, &cnt, &err),
		0);
	prog.insns = insns;
	prog.insn_cnt = (uint32_t)cnt;
	prog.main_cnt = (uint32_t)cnt;
	cr_assert_eq(verifier_check(&obj, &prog, &opts, NULL, &err), 0, "%s", err.msg);
	fclose(log);
	cr_assert_not_null(strstr(buf, "0: (b7)"), "%s", buf);
	cr_assert_not_null(strstr(buf, "R0=1"), "%s", buf);
	cr_assert_not_null(strstr(buf, "verified"), "%s", buf);
	free(buf);
	free(insns);
}

Test(verifier, complexity_limit_option)
{
	struct secbpf_err err = { { 0 } };
	struct object obj = { 0 };
	struct object_prog prog = { 0 };
	struct bpf_insn *insns;
	size_t cnt;
	struct verifier_opts opts = { .sz = sizeof(opts),
				      .tier = SECBPF_TIER_UNPRIVILEGED,
				      .complexity_limit = 100 };

	cr_assert_eq(insn_assemble("mov %r1, 0\nloop:\nadd %r1, 1\n"
				   "jlt %r1, 1000, loop\nmov %r0, 0\nexit\n",
				   &insns, &cnt, &err),
		     0);
	prog.insns = insns;
	prog.insn_cnt = (uint32_t)cnt;
	prog.main_cnt = (uint32_t)cnt;
	cr_assert_eq(verifier_check(&obj, &prog, &opts, NULL, &err), -E2BIG);
	cr_assert_not_null(strstr(err.msg, "too complex"), "%s", err.msg);
	opts.complexity_limit = 0;
	cr_assert_eq(verifier_check(&obj, &prog, &opts, NULL, &err), 0, "%s", err.msg);
	free(insns);
}

Test(verifier, tier_names)
{
	enum secbpf_tier t;

	cr_assert_eq(secbpf_tier_parse("privileged", &t), 0);
	cr_assert_eq(t, SECBPF_TIER_PRIVILEGED);
	cr_assert_eq(secbpf_tier_parse("root", &t), -EINVAL);
	cr_assert_str_eq(secbpf_tier_name(SECBPF_TIER_RESTRICTED), "restricted");
}

Test(tnum, arithmetic)
{
	struct tnum a = tnum_range(0, 15), b = tnum_const(16);

	cr_assert_eq(tnum_add(a, b).value, 16);
	cr_assert_eq(tnum_add(a, b).mask, 15);
	cr_assert(tnum_in(tnum_range(0, 255), a));
	cr_assert(!tnum_in(a, tnum_range(0, 255)));
	cr_assert_eq(tnum_and(tnum_unknown(), tnum_const(0xf0)).mask, 0xf0);
	cr_assert_eq(tnum_mul(tnum_const(6), tnum_const(7)).value, 42);
	cr_assert(tnum_in(tnum_mul(tnum_range(0, 3), tnum_const(4)), tnum_const(12)));
	cr_assert_eq(tnum_arshift(tnum_const(0x80000000), 4, 32).value, 0xf8000000);
}

Test(scalar, bounds_through_alu_and_branches)
{
	struct reg_state r, k;

	reg_mark_unknown_size(&r, 4);
	cr_assert_eq(r.umax, 0xffffffff);
	reg_mark_const(&k, 16);
	cr_assert(scalar_branch_refine(&r, &k, BPF_JLT, true, true));
	cr_assert_eq(r.umax, 15);
	reg_mark_const(&k, 8);
	scalar_alu(&r, &k, BPF_MUL, true, false);
	cr_assert_eq(r.umax, 120);
	cr_assert_eq(r.var_off.value & 7, 0);
	cr_assert_eq(r.var_off.mask & 7, 0);
	/* a 32-bit add wraps: bounds must not claim otherwise */
	reg_mark_unknown_size(&r, 4);
	reg_mark_const(&k, 1);
	scalar_alu(&r, &k, BPF_ADD, false, false);
	cr_assert_eq(r.umin, 0);
	cr_assert_eq(r.umax, 0xffffffff);
	/* a signed check on an unsigned value */
	reg_mark_unknown(&r);
	reg_mark_const(&k, 0);
	cr_assert(scalar_branch_refine(&r, &k, BPF_JSGE, true, true));
	cr_assert_eq(r.smin, 0);
	cr_assert_eq(r.umax, (uint64_t)INT64_MAX);
}

Test(scalar, branch_taken)
{
	struct reg_state r, k;

	reg_mark_unknown_size(&r, 1);
	reg_mark_const(&k, 256);
	cr_assert_eq(scalar_branch_taken(&r, &k, BPF_JLT, true), 1);
	cr_assert_eq(scalar_branch_taken(&r, &k, BPF_JEQ, true), 0);
	reg_mark_const(&k, 100);
	cr_assert_eq(scalar_branch_taken(&r, &k, BPF_JLT, true), -1);
}

/* ---- policy ---- */

static char *write_policy(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/secbpf-policy-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static enum secbpf_tier decide(const char *cfg, int scope, uint64_t caps, bool init_ns,
			       enum secbpf_tier req, char *why)
{
	struct policy_inputs in = { .config_path = cfg,
				    .ptrace_scope = scope,
				    .cap_effective = caps,
				    .in_init_userns = init_ns,
				    .config_trusted = true };
	struct policy_decision d;
	struct secbpf_err err = { { 0 } };

	cr_assert_eq(policy_decide(&in, req, &d, &err), 0, "%s", err.msg);
	if (why)
		strcpy(why, d.reason);
	return d.tier;
}

#define CAP(x) (1ULL << POLICY_CAP_##x)

Test(policy, defaults)
{
	char why[256];

	cr_assert_eq(decide(NULL, -1, 0, true, SECBPF_TIER_UNPRIVILEGED, why),
		     SECBPF_TIER_UNPRIVILEGED);
	cr_assert_str_eq(why, "");
	cr_assert_eq(
		decide("/nonexistent/policy.conf", -1, 0, true, SECBPF_TIER_UNPRIVILEGED, NULL),
		SECBPF_TIER_UNPRIVILEGED);
	cr_assert_eq(decide(NULL, -1, 0, true, SECBPF_TIER_RESTRICTED, NULL),
		     SECBPF_TIER_RESTRICTED);
}

Test(policy, privileged_is_off_by_default)
{
	char why[256];

	/* no file: unprivileged is the ceiling even for root */
	cr_assert_eq(decide(NULL, -1, ~0ULL, true, SECBPF_TIER_PRIVILEGED, why),
		     SECBPF_TIER_UNPRIVILEGED);
	cr_assert_not_null(strstr(why, "default policy"), "%s", why);
	cr_assert_eq(
		decide("/nonexistent/policy.conf", -1, ~0ULL, true, SECBPF_TIER_PRIVILEGED, NULL),
		SECBPF_TIER_UNPRIVILEGED);
}

Test(policy, privileged_needs_bpf_and_perfmon_in_init_userns)
{
	char why[256];
	char *p = write_policy("max_tier = privileged\n");

	cr_assert_eq(decide(p, -1, CAP(BPF) | CAP(PERFMON), true, SECBPF_TIER_PRIVILEGED, NULL),
		     SECBPF_TIER_PRIVILEGED);
	cr_assert_eq(decide(p, -1, CAP(SYS_ADMIN), true, SECBPF_TIER_PRIVILEGED, NULL),
		     SECBPF_TIER_PRIVILEGED);
	cr_assert_eq(decide(p, -1, CAP(BPF), true, SECBPF_TIER_PRIVILEGED, why),
		     SECBPF_TIER_UNPRIVILEGED);
	cr_assert_not_null(strstr(why, "CAP_BPF"));
	/* root of a child user namespace is nobody */
	cr_assert_eq(decide(p, -1, ~0ULL, false, SECBPF_TIER_PRIVILEGED, why),
		     SECBPF_TIER_UNPRIVILEGED);
	cr_assert_not_null(strstr(why, "initial user namespace"));
	/* the request still caps: asking for less gives less */
	cr_assert_eq(decide(p, -1, ~0ULL, true, SECBPF_TIER_UNPRIVILEGED, NULL),
		     SECBPF_TIER_UNPRIVILEGED);
	unlink(p);
}

Test(policy, file_caps_the_tier)
{
	char why[256];
	char *p = write_policy("# site policy\nmax_tier = restricted  # no maps\n");

	cr_assert_eq(decide(p, -1, CAP(SYS_ADMIN), true, SECBPF_TIER_PRIVILEGED, why),
		     SECBPF_TIER_RESTRICTED);
	cr_assert_not_null(strstr(why, "capped to restricted"));
	unlink(p);
	p = write_policy("max_tier=unprivileged\n");
	cr_assert_eq(decide(p, -1, CAP(SYS_ADMIN), true, SECBPF_TIER_PRIVILEGED, NULL),
		     SECBPF_TIER_UNPRIVILEGED);
	unlink(p);
}

Test(policy, malformed_file_is_an_error)
{
	struct policy_inputs in = { .ptrace_scope = -1, .in_init_userns = true };
	struct policy_decision d;
	struct secbpf_err err = { { 0 } };
	char *p = write_policy("max_tier = root\n");

	in.config_path = p;
	cr_assert_eq(policy_decide(&in, SECBPF_TIER_UNPRIVILEGED, &d, &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, ":1:"), "%s", err.msg);
	unlink(p);
	p = write_policy("colour = blue\n");
	in.config_path = p;
	cr_assert_eq(policy_decide(&in, SECBPF_TIER_UNPRIVILEGED, &d, &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "unknown key"), "%s", err.msg);
	unlink(p);
}

Test(policy, yama_modes)
{
	char why[256];

	cr_assert_eq(decide(NULL, 0, 0, true, SECBPF_TIER_UNPRIVILEGED, NULL),
		     SECBPF_TIER_UNPRIVILEGED);
	cr_assert_eq(decide(NULL, 1, 0, true, SECBPF_TIER_UNPRIVILEGED, NULL),
		     SECBPF_TIER_UNPRIVILEGED);
	cr_assert_eq(decide(NULL, 2, 0, true, SECBPF_TIER_UNPRIVILEGED, why),
		     SECBPF_TIER_RESTRICTED);
	cr_assert_not_null(strstr(why, "ptrace_scope=2"));
	cr_assert_eq(decide(NULL, 2, CAP(SYS_PTRACE), true, SECBPF_TIER_UNPRIVILEGED, NULL),
		     SECBPF_TIER_UNPRIVILEGED);
	/* CAP_SYS_PTRACE from a child namespace does not count */
	cr_assert_eq(decide(NULL, 2, CAP(SYS_PTRACE), false, SECBPF_TIER_UNPRIVILEGED, NULL),
		     SECBPF_TIER_RESTRICTED);
	cr_assert_eq(decide(NULL, 3, ~0ULL, true, SECBPF_TIER_UNPRIVILEGED, why),
		     SECBPF_TIER_RESTRICTED);
	cr_assert_not_null(strstr(why, "ptrace_scope=3"));
}

Test(policy, yama_can_be_ignored_by_the_file)
{
	char *p = write_policy("yama = ignore\n");

	cr_assert_eq(decide(p, 3, 0, true, SECBPF_TIER_UNPRIVILEGED, NULL),
		     SECBPF_TIER_UNPRIVILEGED);
	unlink(p);
}

Test(policy, dumpable_bypass_needs_sys_ptrace)
{
	struct policy_inputs in = { .ptrace_scope = -1,
				    .in_init_userns = true,
				    .cap_effective = CAP(SYS_PTRACE) };
	struct policy_decision d;
	struct secbpf_err err = { { 0 } };

	cr_assert_eq(policy_decide(&in, SECBPF_TIER_UNPRIVILEGED, &d, &err), 0);
	cr_assert(d.may_read_nondumpable);
	in.in_init_userns = false;
	cr_assert_eq(policy_decide(&in, SECBPF_TIER_UNPRIVILEGED, &d, &err), 0);
	cr_assert(!d.may_read_nondumpable);
}

Test(policy, read_system)
{
	struct policy_inputs in;
	struct secbpf_err err = { { 0 } };

	cr_assert_eq(policy_read_system(&in, "/nonexistent/policy.conf", &err), 0, "%s", err.msg);
	cr_assert_str_eq(in.config_path, "/nonexistent/policy.conf");
	cr_assert_geq(in.ptrace_scope, -1);
}

/* ---- messages and samples built from C ---- */

static struct object *compile_and_open(const char *src, struct secbpf_err *err)
{
	char obj_path[] = "/tmp/secbpf-vtest-XXXXXX";
	char cmd[2048];
	const char *inc = getenv("SECBPF_INCLUDE_DIR");
	struct object *obj;
	int fd;

	fd = mkstemp(obj_path);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "clang -O2 -g -target bpf -D__x86_64__ "
		 "-I/usr/include/x86_64-linux-gnu -I%s%s -c '%s/%s' -o '%s'",
		 inc ? inc : source_dir(), inc ? "" : "/include", source_dir(), src, obj_path);
	cr_assert_eq(system(cmd), 0, "compiling %s failed", src);
	obj = object_open_file(obj_path, err);
	unlink(obj_path);
	cr_assert_not_null(obj, "%s: %s", src, err->msg);
	return obj;
}

Test(verifier, seed_sample_every_tier)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj = compile_and_open("samples/seed_close.bpf.c", &err);
	struct object_prog *prog = object_find_prog(obj, NULL, &err);
	struct verifier_facts *f = NULL;
	enum secbpf_tier t;

	cr_assert_not_null(prog, "%s", err.msg);
	for (t = SECBPF_TIER_RESTRICTED; t <= SECBPF_TIER_PRIVILEGED; t++) {
		struct verifier_opts opts = { .sz = sizeof(opts), .tier = t };

		cr_assert_eq(verifier_check(obj, prog, &opts, NULL, &err), 0, "%s", err.msg);
		opts.strict = true;
		cr_assert_eq(verifier_check(obj, prog, &opts, NULL, &err), 0, "%s", err.msg);
	}
	{
		struct verifier_opts opts = { .sz = sizeof(opts), .tier = SECBPF_TIER_RESTRICTED };
		uint32_t i, reachable = 0;

		cr_assert_eq(verifier_check(obj, prog, &opts, &f, &err), 0);
		for (i = 0; i < f->insn_cnt; i++)
			if (f->insns[i].flags & VERIFIER_INSN_REACHABLE)
				reachable++;
		/* all but the second slot of the ld_imm64 of AUDIT_ARCH_X86_64 */
		cr_assert_eq(reachable, f->insn_cnt - 1);
		cr_assert(!f->uses_helpers && !f->uses_maps);
		verifier_facts_free(f);
	}
	object_free(obj);
}

Test(verifier, message_names_c_file_and_line)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj = compile_and_open("tests/verifier/c_null_unchecked.bpf.c", &err);
	struct object_prog *prog = object_find_prog(obj, NULL, &err);
	struct verifier_opts opts = { .sz = sizeof(opts), .tier = SECBPF_TIER_UNPRIVILEGED };
	const char *p;

	cr_assert_not_null(prog);
	cr_assert_neq(verifier_check(obj, prog, &opts, NULL, &err), 0);
	/* "…/c_null_unchecked.bpf.c:28: insn N (r0 = *(u32 *)(r0 +0)): R0 may be NULL…" */
	p = strstr(err.msg, "c_null_unchecked.bpf.c:");
	cr_assert_not_null(p, "%s", err.msg);
	p += strlen("c_null_unchecked.bpf.c:");
	cr_assert(*p >= '1' && *p <= '9', "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, ": insn "), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "map_value_or_null"), "%s", err.msg);
	object_free(obj);
}

Test(verifier, tier_reason_in_message)
{
	struct secbpf_err err = { { 0 } };
	struct object obj = { 0 };
	struct object_prog prog = { 0 };
	struct bpf_insn *insns;
	size_t cnt;
	struct verifier_opts opts = { .sz = sizeof(opts),
				      .tier = SECBPF_TIER_RESTRICTED,
				      .tier_reason =
					      "capped to restricted by Yama ptrace_scope=3" };

	cr_assert_eq(insn_assemble("call 14\nexit\n", &insns, &cnt, &err), 0);
	prog.insns = insns;
	prog.insn_cnt = (uint32_t)cnt;
	prog.main_cnt = (uint32_t)cnt;
	cr_assert_eq(verifier_check(&obj, &prog, &opts, NULL, &err), -EACCES);
	cr_assert_not_null(strstr(err.msg, "ptrace_scope=3"), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "bpf_get_current_pid_tgid"), "%s", err.msg);
	free(insns);
}

Test(verifier, rejects_empty_and_null)
{
	struct secbpf_err err = { { 0 } };
	struct object_prog prog = { 0 };

	cr_assert_eq(verifier_check(NULL, &prog, NULL, NULL, &err), -EINVAL);
	cr_assert_eq(verifier_check(NULL, NULL, NULL, NULL, &err), -EINVAL);
}

/*
 * Issue 23's second reproducer as clang writes it: the callee is a bare
 * `exit` (its constant return propagated into the caller), and the program
 * is accepted, as the kernel accepts it.
 */
Test(verifier, subprogram_with_a_bare_exit_is_accepted)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj = compile_and_open("tests/cbpf/subprog_bare_exit.bpf.c", &err);
	struct object_prog *prog = object_find_prog(obj, NULL, &err);
	struct verifier_opts opts = { .sz = sizeof(opts), .tier = SECBPF_TIER_RESTRICTED };
	uint32_t i;
	bool bare = false;

	cr_assert_not_null(prog, "%s", err.msg);
	/* The shape under test: a function that is one exit. */
	for (i = 0; i < prog->func_cnt; i++)
		bare |= prog->funcs[i].start > 0 &&
			prog->insns[prog->funcs[i].start].code == (BPF_JMP | BPF_EXIT);
	cr_assert(bare, "clang did not leave a bare exit: the test no longer tests the case");
	cr_assert_eq(verifier_check(obj, prog, &opts, NULL, &err), 0, "%s", err.msg);
	object_free(obj);
}

/* Does fact f admit the value v? */
static bool reg_fact_admits(const struct verifier_reg_fact *f, uint64_t v)
{
	if (f->type != VERIFIER_FACT_SCALAR)
		return f->type == VERIFIER_FACT_MIXED;
	return (v & ~f->mask) == f->value && v >= f->umin && v <= f->umax &&
	       (int64_t)v >= f->smin && (int64_t)v <= f->smax;
}

/* The reproducer's return value for x, computed in C. */
static uint32_t loop_branch_prune_ret(uint64_t x, uint32_t n)
{
	uint64_t acc = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if ((x >> (i & 63)) & 1)
			acc += 3;
		else
			acc ^= i;
	}
	return 0x00050000u | (uint32_t)(acc & 0xfff); /* SECCOMP_RET_ERRNO */
}

/*
 * Issue 23, finding 3: a loop with a branch on the data doubled its paths at
 * every iteration ("more than 1000000 instructions processed" at N=18). acc
 * decides nothing, so the two states of an iteration join; the work is
 * about linear in N (the kernel processes 1,768 insns for N=64), also past
 * the 64 checkpoints kept per insn. The facts of the exit still hold for
 * the values of the paths pruned.
 */
Test(verifier, loop_with_a_data_branch_is_pruned)
{
	static const struct {
		const char *name;
		uint32_t n;
		uint64_t max_processed;
	} cases[] = { { "loop18", 18, 600 }, { "loop64", 64, 2000 }, { "loop200", 200, 12000 } };
	static const uint64_t xs[] = {
		0, ~0ULL, 0x5555555555555555ULL, 0x123456789abcdef0ULL, 1, 0x8000000000000000ULL
	};
	struct secbpf_err err = { { 0 } };
	struct object *obj = compile_and_open("tests/verifier/c_loop_branch_prune.bpf.c", &err);
	size_t c, k;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct object_prog *prog = object_find_prog(obj, cases[c].name, &err);
		struct verifier_opts opts = { .sz = sizeof(opts), .tier = SECBPF_TIER_RESTRICTED };
		struct verifier_facts *f = NULL;
		uint32_t i, exits = 0;

		cr_assert_not_null(prog, "%s", err.msg);
		cr_assert_eq(verifier_check(obj, prog, &opts, &f, &err), 0, "%s: %s", cases[c].name,
			     err.msg);
		cr_log_info("%s: %llu insns processed, %u states stored", cases[c].name,
			    (unsigned long long)f->insns_processed, f->states_stored);
		cr_assert_leq(f->insns_processed, cases[c].max_processed,
			      "%s: %llu insns processed", cases[c].name,
			      (unsigned long long)f->insns_processed);
		for (i = 0; i < prog->insn_cnt; i++) {
			if (prog->insns[i].code != (BPF_JMP | BPF_EXIT))
				continue;
			exits++;
			cr_assert(f->insns[i].flags & VERIFIER_INSN_REACHABLE);
			for (k = 0; k < sizeof(xs) / sizeof(xs[0]); k++) {
				uint32_t r0 = loop_branch_prune_ret(xs[k], cases[c].n);

				cr_assert(reg_fact_admits(&f->insns[i].regs[BPF_REG_0], r0),
					  "%s: r0 = %#x at exit %u is outside its facts",
					  cases[c].name, r0, i);
			}
		}
		cr_assert_eq(exits, 1, "%s: the test expects one exit", cases[c].name);
		verifier_facts_free(f);
	}
	object_free(obj);
}

/*
 * A path pruned at a join because its r0 (the return value, which decides
 * nothing) differs from the explored one's: the facts at the exit must
 * still admit its value (they are read as a bound on every run).
 */
Test(verifier, facts_hold_on_a_pruned_path)
{
	struct secbpf_err err = { { 0 } };
	struct verifier_facts *f = NULL;
	int ret = verify_inline("ldxw %r2, [%r1+0]\n" /* 0 */
				"mov %r0, 1\n"	      /* 1 */
				"jgt %r2, 10, out\n"  /* 2: taken (r0 = 1) is explored second */
				"mov %r0, 2\n"	      /* 3 */
				"out:\n"
				"mov %r3, %r0\n" /* 4 */
				"exit\n",	 /* 5 */
				SECBPF_TIER_RESTRICTED, &f, &err);

	cr_assert_eq(ret, 0, "%s", err.msg);
	cr_assert_lt(f->insns_processed, 8, "the second path was not pruned at insn 4");
	cr_assert(reg_fact_admits(&f->insns[4].regs[0], 1));
	cr_assert(reg_fact_admits(&f->insns[4].regs[0], 2));
	cr_assert(reg_fact_admits(&f->insns[5].regs[0], 1));
	cr_assert(reg_fact_admits(&f->insns[5].regs[3], 1), "a copy of a pruned value");
	/* r2 was proved <= 10 on the explored path only */
	cr_assert(reg_fact_admits(&f->insns[5].regs[2], 11));
	verifier_facts_free(f);
}
