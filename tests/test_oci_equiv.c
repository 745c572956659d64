// SPDX-License-Identifier: MIT
/*
 * `secbpf import-oci` against runc: each profile of tests/profiles is
 * imported and built by secbpf, and built by libseccomp the way runc does
 * (Docker's includes/excludes resolved, one seccomp_rule_add_array per
 * name, runc's rule for repeated indexes, runc's ENOSYS stub in front).
 * Both must give the same action on every syscall number of x86_64, i386
 * and x32 with argument edge cases; and a process under an imported filter
 * gets the profile's errno from the real kernel.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbpf/cbpf.h"
#include "common.h"
#include "host_ia32.h"
#include "object/object.h"
#include "oci/profile.h"
#include "oci_runc_ref.h"
#include "secbpf.h"

#define CAP_SYS_ADMIN_BIT (1ull << 21)
#define CAP_SYS_NICE_BIT (1ull << 23)
#define X32_BIT 0x40000000u

static char scratch[4096];

static void setup(void)
{
	test_scratch_dir(scratch, sizeof(scratch), "oci-equiv");
}

static void teardown(void)
{
	test_remove_tree(scratch);
}

static const char *profile_path(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/tests/profiles/%s.json", getenv("SECBPF_SOURCE_DIR"),
		 name);
	return path;
}

/* `secbpf import-oci` then `secbpf cc`: the object's path. */
static const char *import_and_build(const char *name, const char *import_opts)
{
	static char obj[4096];
	char out[16384];
	int rc;

	cr_assert_lt(snprintf(obj, sizeof(obj), "%s/%s.bpf.o", scratch, name), (int)sizeof(obj));
	rc = test_shell(out, sizeof(out),
			"'%s' import-oci '%s' %s -o '%s/%s.bpf.c' && '%s' cc '%s/%s.bpf.c' -o '%s'",
			getenv("SECBPF"), profile_path(name), import_opts, scratch, name,
			getenv("SECBPF"), scratch, name, obj);
	cr_assert_eq(rc, 0, "import or cc of %s failed: %s", name, out);
	return obj;
}

/* --- The reference: libseccomp as runc drives it (oci_runc_ref.c) ------ */

struct filter {
	struct sock_filter *insns;
	size_t len;
};

/* The filter runc would load for profile p with these knobs. */
static struct filter runc_filter(const struct oci_profile *p, uint64_t caps, unsigned kmajor,
				 unsigned kminor)
{
	const struct oci_runc_opts o = { .caps = caps, .kmajor = kmajor, .kminor = kminor };
	struct secbpf_err err = { { 0 } };
	struct oci_runc_filter f;

	cr_assert_eq(oci_runc_filter_build(p, &o, &f, &err), 0, "%s", err.msg);
	return (struct filter){ .insns = f.insns, .len = f.len };
}

/* --- The comparison ---------------------------------------------------- */

struct compare {
	const struct filter *runc, *secbpf;
	struct secbpf_program *prog; /* NULL: no eBPF runs */
	uint64_t edges[256];
	size_t nedges;
	uint32_t arg_nrs[3][1024]; /* by ABI: x86_64, x32, i386: the numbers with args rules */
	size_t narg_nrs[3];
	unsigned inputs, ebpf_inputs, mismatches, ebpf_mismatches;
	/* secbpf is an exported profile: where it notifies, secbpfd runs the
	 * whole program (counted, not compared) */
	bool notify_ok;
	unsigned notified;
	/* instructions the kernel runs per allowed x86_64 syscall, arguments 0 */
	unsigned long steps_runc, steps_secbpf, allowed;
	/* x86_64 and x32 numbers the kernel's emulator proves always allowed,
	 * per filter (the cache itself keeps only x86_64's, below NR_syscalls) */
	unsigned const_runc, const_secbpf, const_lost;
};

static void compare_one(struct compare *c, const struct seccomp_data *sd, bool ebpf)
{
	uint32_t want = cbpf_sim_run(c->runc->insns, c->runc->len, sd);
	uint32_t got = cbpf_sim_run(c->secbpf->insns, c->secbpf->len, sd);
	uint32_t eret;

	c->inputs++;
	if (c->notify_ok && got == SECCOMP_RET_USER_NOTIF) {
		c->notified++;
		return;
	}
	if (want != got && c->mismatches++ < 10)
		cr_log_error("arch %#x nr %#x args %#llx %#llx %#llx %#llx %#llx %#llx: runc %#x, "
			     "secbpf cBPF %#x",
			     sd->arch, sd->nr, (unsigned long long)sd->args[0],
			     (unsigned long long)sd->args[1], (unsigned long long)sd->args[2],
			     (unsigned long long)sd->args[3], (unsigned long long)sd->args[4],
			     (unsigned long long)sd->args[5], want, got);
	static const uint64_t zero[6];

	if (sd->arch == AUDIT_ARCH_X86_64 && !(sd->nr & X32_BIT) &&
	    !memcmp(sd->args, zero, sizeof(zero)) && want == SECCOMP_RET_ALLOW) {
		struct cbpf_sim_state st;

		cbpf_sim_exec(c->runc->insns, c->runc->len, sd, &st);
		c->steps_runc += st.steps;
		cbpf_sim_exec(c->secbpf->insns, c->secbpf->len, sd, &st);
		c->steps_secbpf += st.steps;
		c->allowed++;
	}
	if (!ebpf || !c->prog)
		return;
	c->ebpf_inputs++;
	cr_assert_eq(secbpf_program__test_run(c->prog, sd, &eret), 0);
	if (eret != want && c->ebpf_mismatches++ < 10)
		cr_log_error("arch %#x nr %#x arg0 %#llx: runc %#x, secbpf eBPF %#x", sd->arch,
			     sd->nr, (unsigned long long)sd->args[0], want, eret);
}

static void add_edge(struct compare *c, uint64_t v)
{
	for (size_t i = 0; i < c->nedges; i++)
		if (c->edges[i] == v)
			return;
	if (c->nedges < sizeof(c->edges) / sizeof(c->edges[0]))
		c->edges[c->nedges++] = v;
}

static void mark_nr(struct compare *c, int abi, int nr)
{
	if (nr >= 0 && c->narg_nrs[abi] < 1024)
		c->arg_nrs[abi][c->narg_nrs[abi]++] = (uint32_t)nr;
}

/* The syscall numbers whose rules compare arguments, on each ABI (on
 * i386 also the socketcall and ipc multiplexers and their direct calls). */
static void collect_arg_nrs(struct compare *c, const struct oci_profile *p)
{
	static const uint32_t tokens[3] = { SCMP_ARCH_X86_64, SCMP_ARCH_X32, SCMP_ARCH_X86 };

	for (int nr = 359; nr <= 402; nr++)
		mark_nr(c, 2, nr);
	mark_nr(c, 2, 102);
	mark_nr(c, 2, 117);
	for (size_t i = 0; i < p->nrules; i++)
		for (size_t n = 0; p->rules[i].nargs && n < p->rules[i].nnames; n++)
			for (int a = 0; a < 3; a++)
				mark_nr(c, a,
					seccomp_syscall_resolve_name_arch(tokens[a],
									  p->rules[i].names[n]));
}

static bool has_arg_rules(const struct compare *c, const struct seccomp_data *sd)
{
	int abi = sd->arch == AUDIT_ARCH_I386 ? 2 : (sd->nr & X32_BIT) ? 1 : 0;

	for (size_t i = 0; i < c->narg_nrs[abi]; i++)
		if (c->arg_nrs[abi][i] == (uint32_t)sd->nr)
			return true;
	return false;
}

/* 0, 1, ~0 and value-1, value, value+1 and value with the upper half set
 * for every value the profile compares with. */
static void collect_edges(struct compare *c, const struct oci_profile *p)
{
	add_edge(c, 0);
	add_edge(c, 1);
	add_edge(c, ~0ull);
	for (size_t i = 0; i < p->nrules; i++) {
		for (size_t a = 0; a < p->rules[i].nargs; a++) {
			const struct oci_cond *k = &p->rules[i].args[a];
			uint64_t vs[2] = { k->value, k->value_two };

			for (int j = 0; j < 2; j++) {
				add_edge(c, vs[j] - 1);
				add_edge(c, vs[j]);
				add_edge(c, vs[j] + 1);
				add_edge(c, vs[j] | (1ull << 32));
				add_edge(c, vs[j] | 0xffffffff00000000ull);
			}
		}
	}
}

/* Every syscall number of the three x86 ABIs (and around them) with all
 * arguments 0; the numbers with argument rules (and every 16th) also with
 * each edge value in each argument, and all arguments at each edge value.
 * eBPF is run on every number with arguments 0 and with the edge values
 * on the numbers with argument rules. */
static void compare_all(struct compare *c)
{
	static const uint32_t odd[] = { 0x3fffffff, 0x7fffffff, 0x80000000, 0xbfffffff,
					0xffffffff, 0x40001000, 4096 };
	const struct {
		uint32_t arch, base, count;
	} ranges[] = {
		{ AUDIT_ARCH_X86_64, 0, 600 },
		{ AUDIT_ARCH_X86_64, X32_BIT, 600 },
		{ AUDIT_ARCH_I386, 0, 600 },
		{ AUDIT_ARCH_AARCH64, 0, 4 },
	};

	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
		for (uint32_t i = 0; i < ranges[r].count + sizeof(odd) / sizeof(odd[0]); i++) {
			struct seccomp_data sd = { .arch = ranges[r].arch };
			bool ebpf_args;

			sd.nr = (int)(i < ranges[r].count ? ranges[r].base + i
							  : odd[i - ranges[r].count]);
			compare_one(c, &sd, true);
			if (sd.arch == AUDIT_ARCH_X86_64) {
				bool r = cbpf_sim_const_allow(c->runc->insns, c->runc->len, sd.arch,
							      (uint32_t)sd.nr);
				bool b = cbpf_sim_const_allow(c->secbpf->insns, c->secbpf->len,
							      sd.arch, (uint32_t)sd.nr);

				c->const_runc += r;
				c->const_secbpf += b;
				c->const_lost += r && !b;
			}
			ebpf_args = has_arg_rules(c, &sd);
			if (!ebpf_args && i % 16)
				continue;
			for (size_t e = 0; e < c->nedges; e++) {
				for (int a = 0; a < 6; a++) {
					memset(sd.args, 0, sizeof(sd.args));
					sd.args[a] = c->edges[e];
					compare_one(c, &sd, ebpf_args);
				}
				for (int a = 0; a < 6; a++)
					sd.args[a] = c->edges[e];
				compare_one(c, &sd, ebpf_args);
			}
		}
	}
}

/* Import profile name once, then for each knob setting compare it with
 * runc's filter for the same setting. */
struct knobs {
	uint64_t caps;
	unsigned kmajor, kminor;
};

static void check_profile(const char *name, const struct knobs *k, size_t nk)
{
	struct secbpf_err err = { { 0 } };
	struct oci_profile p;
	const char *obj_path = import_and_build(name, "");

	cr_assert_eq(oci_profile_load(profile_path(name), &p, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < nk; i++) {
		struct cbpf_compile_opts opts = { .sz = sizeof(opts) };
		struct filter runc = runc_filter(&p, k[i].caps, k[i].kmajor, k[i].kminor), sec;
		struct compare c = { .runc = &runc, .secbpf = &sec };
		struct cbpf_prog prog = { 0 };
		struct secbpf_object *pub;
		struct object_prog *op;
		struct object *obj;
		char v[3][32];

		snprintf(v[0], sizeof(v[0]), "%#llx", (unsigned long long)k[i].caps);
		snprintf(v[1], sizeof(v[1]), "%u", k[i].kmajor);
		snprintf(v[2], sizeof(v[2]), "%u", k[i].kminor);
		obj = object_open_file(obj_path, &err);
		cr_assert_not_null(obj, "%s", err.msg);
		cr_assert_eq(object_set_var(obj, "caps", v[0], &err), 0, "%s", err.msg);
		cr_assert_eq(object_set_var(obj, "kernel_major", v[1], &err), 0, "%s", err.msg);
		cr_assert_eq(object_set_var(obj, "kernel_minor", v[2], &err), 0, "%s", err.msg);
		op = object_find_prog(obj, NULL, &err);
		cr_assert_not_null(op, "%s", err.msg);
		cr_assert_eq(cbpf_compile(obj, op, &opts, &prog, &err), 0, "%s", err.msg);
		sec.insns = prog.insns;
		sec.len = prog.len;
		pub = secbpf_object__open_file(obj_path, NULL);
		cr_assert_not_null(pub);
		cr_assert_eq(secbpf_object__set_var(pub, "caps", v[0]), 0);
		cr_assert_eq(secbpf_object__set_var(pub, "kernel_major", v[1]), 0);
		cr_assert_eq(secbpf_object__set_var(pub, "kernel_minor", v[2]), 0);
		c.prog = secbpf_object__find_program(pub, NULL);
		cr_assert_not_null(c.prog);
		collect_edges(&c, &p);
		collect_arg_nrs(&c, &p);
		compare_all(&c);
		cr_log_info("%s caps %s kernel %s.%s: %u inputs (cBPF, %u insns; libseccomp+stub "
			    "%zu insns), %u mismatches; %u eBPF runs, %u mismatches",
			    name, v[0], v[1], v[2], c.inputs, prog.len, runc.len, c.mismatches,
			    c.ebpf_inputs, c.ebpf_mismatches);
		printf("oci_equiv: %s caps %s kernel %s.%s: %u inputs, %u mismatches (cBPF); %u "
		       "inputs, %u mismatches (eBPF)\n",
		       name, v[0], v[1], v[2], c.inputs, c.mismatches, c.ebpf_inputs,
		       c.ebpf_mismatches);
		if (c.allowed)
			printf("oci_equiv: %s: %lu allowed x86_64 syscalls, instructions run per "
			       "syscall: secbpf %.1f, runc (libseccomp + stub) %.1f\n",
			       name, c.allowed, (double)c.steps_secbpf / (double)c.allowed,
			       (double)c.steps_runc / (double)c.allowed);
		printf("oci_equiv: %s: x86_64 and x32 numbers the kernel's emulator proves always "
		       "allowed: secbpf %u, runc %u (the kernel's bitmap keeps only the x86_64 "
		       "ones; "
		       "bench/bench_oci_insns counts those)\n",
		       name, c.const_secbpf, c.const_runc);
		cr_expect_eq(c.const_lost, 0,
			     "%s: %u numbers runc's filter has in the kernel's "
			     "constant-allow cache, secbpf's not",
			     name, c.const_lost);
		cr_expect_eq(c.mismatches, 0, "%s: %u of %u inputs differ from runc's filter", name,
			     c.mismatches, c.inputs);
		cr_expect_eq(c.ebpf_mismatches, 0, "%s: %u of %u eBPF runs differ", name,
			     c.ebpf_mismatches, c.ebpf_inputs);
		secbpf_object__close(pub);
		cbpf_prog_free(&prog);
		object_free(obj);
		free(runc.insns);
	}
	oci_profile_free(&p);
}

#define DOCKER_CAPS 0xa80425fbull

TestSuite(oci_equiv, .init = setup, .fini = teardown, .timeout = 120);

Test(oci_equiv, docker_default)
{
	const struct knobs k[] = { { DOCKER_CAPS, 6, 1 } };

	check_profile("docker-default", k, 1);
}

Test(oci_equiv, docker_default_with_sys_admin)
{
	const struct knobs k[] = { { DOCKER_CAPS | CAP_SYS_ADMIN_BIT | CAP_SYS_NICE_BIT, 6, 1 } };

	check_profile("docker-default", k, 1);
}

Test(oci_equiv, docker_default_no_caps_old_kernel)
{
	const struct knobs k[] = { { 0, 4, 4 } };

	check_profile("docker-default", k, 1);
}

Test(oci_equiv, podman_default)
{
	const struct knobs k[] = { { DOCKER_CAPS, 6, 1 } };

	check_profile("podman-default", k, 1);
}

Test(oci_equiv, every_op_and_args)
{
	const struct knobs k[] = { { DOCKER_CAPS, 6, 1 } };

	check_profile("feature-ops", k, 1);
}

Test(oci_equiv, every_action)
{
	const struct knobs k[] = { { DOCKER_CAPS, 6, 1 } };

	check_profile("feature-actions", k, 1);
}

Test(oci_equiv, includes_excludes_archmap)
{
	const struct knobs k[] = {
		{ DOCKER_CAPS, 6, 1 },
		{ DOCKER_CAPS | CAP_SYS_ADMIN_BIT, 5, 10 },
		{ DOCKER_CAPS | CAP_SYS_NICE_BIT, 5, 16 },
		{ 0, 5, 12 },
		{ ~0ull, 4, 19 },
	};

	check_profile("feature-conditions", k, 5);
}

Test(oci_equiv, i386_socketcall_and_ipc)
{
	const struct knobs k[] = { { DOCKER_CAPS, 6, 1 } };

	check_profile("feature-socketcall", k, 1);
}

Test(oci_equiv, one_arch_profiles)
{
	const struct knobs k[] = { { DOCKER_CAPS, 6, 1 } };

	check_profile("feature-x86-only", k, 1);
	check_profile("feature-x32", k, 1);
	check_profile("feature-errno-enosys", k, 1);
	check_profile("feature-errno", k, 1);
}

/* --- The round trip: import-oci, cc, export-oci, runc ------------------ */

/*
 * Profile name imported, built and exported again (`secbpf export-oci`
 * with knobs k), then both the original and the exported profile built as
 * runc builds them (stub included): runc must decide the exported profile
 * as the original on every input compare_all makes, with the edges of
 * both profiles' values, but where it notifies (secbpfd decides). Leaves
 * the exported profile in `exported`; returns how many inputs notified.
 */
static char exported[1 << 20];

static unsigned check_round_trip(const char *name, const struct knobs *k)
{
	struct secbpf_err err = { { 0 } };
	struct oci_profile orig, back;
	const char *obj = import_and_build(name, "");
	struct filter want, got;
	struct compare c = { .runc = &want, .secbpf = &got, .notify_ok = true };
	int rc;

	rc = test_shell(exported, sizeof(exported),
			"'%s' export-oci -f '%s' --set caps=%#llx --set kernel_major=%u "
			"--set kernel_minor=%u -o '%s/%s.export.json' && cat '%s/%s.export.json'",
			getenv("SECBPF"), obj, (unsigned long long)k->caps, k->kmajor, k->kminor,
			scratch, name, scratch, name);
	cr_assert_eq(rc, 0, "export-oci of the imported %s failed: %s", name, exported);
	memmove(exported, strchr(exported, '{') ? strchr(exported, '{') : exported,
		strlen(strchr(exported, '{') ? strchr(exported, '{') : exported) + 1);
	cr_assert_eq(oci_profile_load(profile_path(name), &orig, &err), 0, "%s", err.msg);
	cr_assert_eq(oci_profile_parse(exported, &back, &err), 0, "%s: %s", err.msg, exported);
	want = runc_filter(&orig, k->caps, k->kmajor, k->kminor);
	got = runc_filter(&back, k->caps, k->kmajor, k->kminor);
	collect_edges(&c, &orig);
	collect_edges(&c, &back);
	collect_arg_nrs(&c, &orig);
	collect_arg_nrs(&c, &back);
	compare_all(&c);
	printf("oci_equiv: %s through import-oci and export-oci: %u inputs, %u notified to "
	       "secbpfd, %u mismatches (runc's filter of each profile)\n",
	       name, c.inputs, c.notified, c.mismatches);
	cr_expect_eq(c.mismatches, 0,
		     "%s: runc decides %u of %u inputs of the exported profile "
		     "differently:\n%s",
		     name, c.mismatches, c.inputs, exported);
	oci_profile_free(&orig);
	oci_profile_free(&back);
	free(want.insns);
	free(got.insns);
	return c.notified;
}

/* Docker's default (deny by default with EPERM: runc's ENOSYS stub above
 * the last name; socket, personality and clone by their arguments) comes
 * back as a profile runc reads as the original. */
Test(oci_equiv, docker_default_round_trip)
{
	const struct knobs k = { DOCKER_CAPS, 6, 1 };

	cr_expect_eq(check_round_trip("docker-default", &k), 0);
	cr_expect(!strstr(exported, "SCMP_ACT_NOTIFY"), "the round trip notifies: %s", exported);
	cr_expect(strstr(exported, "\"SCMP_CMP_LT\"") && strstr(exported, "\"SCMP_CMP_GT\""),
		  "socket's rule is not a range: %s", exported);
}

Test(oci_equiv, docker_default_round_trip_other_knobs)
{
	const struct knobs k[] = { { DOCKER_CAPS | CAP_SYS_ADMIN_BIT | CAP_SYS_NICE_BIT, 6, 1 },
				   { 0, 4, 4 } };

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		cr_expect_eq(check_round_trip("docker-default", &k[i]), 0, "knobs %zu: %s", i,
			     exported);
}

Test(oci_equiv, other_profiles_round_trip)
{
	static const char *const names[] = { "podman-default", "feature-ops", "feature-x86-only",
					     "feature-errno", "feature-errno-enosys" };
	const struct knobs k = { DOCKER_CAPS, 6, 1 };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		check_round_trip(names[i], &k);
}

/* --- Bad input, and the real kernel ----------------------------------- */

static char out[16384];

Test(oci_equiv, bad_input_names_the_json_path)
{
	static const struct {
		const char *json, *want;
	} cases[] = {
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		  "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, \"value\": 1, "
		  "\"op\": \"SCMP_CMP_ALMOST\"}]}]}",
		  "syscalls[0].args[0].op: unknown op 'SCMP_CMP_ALMOST'" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		  "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 6, \"value\": 1, "
		  "\"op\": \"SCMP_CMP_EQ\"}]}]}",
		  "syscalls[0].args[0].index: a syscall has arguments 0 to 5" },
		{ "{\"defaultAction\": \"SCMP_ACT_PERHAPS\"}", "defaultAction: unknown action" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_Z80\"]}",
		  "architectures[0]: unknown arch 'SCMP_ARCH_Z80'" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		  "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"caps\": [\"CAP_FLY\"]}}]}",
		  "syscalls[0].includes.caps[0]: unknown capability 'CAP_FLY'" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		  "\"action\": \"SCMP_ACT_KILL\", \"errnoRet\": 5}]}",
		  "syscalls[0].action: errnoRet is given but action SCMP_ACT_KILL takes no errno" },
		{ "{\"defaultAction\": ", "not JSON" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[4200];
		FILE *f;

		snprintf(path, sizeof(path), "%s/bad%zu.json", scratch, i);
		f = fopen(path, "w");
		cr_assert_not_null(f);
		fputs(cases[i].json, f);
		fclose(f);
		cr_expect_eq(test_shell(out, sizeof(out), "'%s' import-oci '%s'", getenv("SECBPF"),
					path),
			     2, "case %zu: %s", i, out);
		cr_expect(strstr(out, "secbpf: import-oci: ") && strstr(out, cases[i].want),
			  "case %zu: want '%s' in: %s", i, cases[i].want, out);
	}
}

static const char *abi_probe(void)
{
	static char path[4200];

	return test_probe(path, sizeof(path), "SECBPF_ABI_PROBE", scratch, "abi_probe", "");
}

/* `secbpf run -f OBJ -- CMD`, leak checking for secbpf, not for CMD. */
static int run_under(const char *obj, const char *cmd)
{
	return test_shell(out, sizeof(out), "ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' -- %s",
			  getenv("SECBPF"), obj, cmd);
}

Test(oci_equiv, kernel_denies_with_the_profiles_errno)
{
	const char *obj = import_and_build("feature-errno", "");
	char dir[4200];

	snprintf(dir, sizeof(dir), "%s/made", scratch);
	cr_assert_neq(test_shell(out, sizeof(out),
				 "ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' -- mkdir '%s'",
				 getenv("SECBPF"), obj, dir),
		      0, "mkdir ran under the filter: %s", out);
	cr_expect(strstr(out, "Permission denied"), "mkdir did not get EACCES (13): %s", out);
	cr_expect_neq(access(dir, F_OK), 0, "the directory was made");
	/* what the profile does not name is allowed (defaultAction ALLOW) */
	cr_expect_eq(run_under(obj, "true"), 0, "%s", out);
}

Test(oci_equiv, kernel_docker_default_and_its_stub)
{
	const char *obj = import_and_build("docker-default", "");

	cr_expect_eq(run_under(obj, "mkdir -p /tmp"), 0, "%s", out);
	/* The i386 decisions below, by the program and by the classic BPF
	 * the kernel gets, on any host; then by the kernel where it runs
	 * i386 code. */
	cr_assert_eq(test_shell(out, sizeof(out),
				"'%s' test '%s' --arch i386 --nr 51 --arg 0 --cbpf",
				getenv("SECBPF"), obj),
		     0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1) kernel\n");
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' test '%s' --arch i386 --nr 457 --arg 0",
				getenv("SECBPF"), obj),
		     0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(38)\n");
	test_require_ia32();
	/* acct (i386 51) is not allowed without CAP_SYS_PACCT: EPERM */
	cr_assert_eq(test_shell(out, sizeof(out),
				"ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' -- '%s' i386 51 0",
				getenv("SECBPF"), obj, abi_probe()),
		     0, "%s", out);
	cr_expect_str_eq(out, "ret=1\n");
	/* statmount (i386 457) is newer than any syscall libseccomp 2.5.4
	 * names in the profile: runc's stub answers ENOSYS */
	cr_assert_eq(test_shell(out, sizeof(out),
				"ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' -- '%s' i386 457 0",
				getenv("SECBPF"), obj, abi_probe()),
		     0, "%s", out);
	cr_expect_str_eq(out, "ret=38\n");
}

Test(oci_equiv, kernel_args_option_reads_int_arguments_as_the_kernel)
{
	const char *runc_like = import_and_build("docker-default", "");
	char kernel_like[4200];

	snprintf(kernel_like, sizeof(kernel_like), "%s", runc_like);
	strcpy(strrchr(kernel_like, '/') + 1, "docker-kernel-args.bpf.o");
	cr_assert_eq(test_shell(out, sizeof(out),
				"'%s' import-oci '%s' --kernel-args -o '%s/k.bpf.c' && '%s' cc "
				"'%s/k.bpf.c' -o '%s'",
				getenv("SECBPF"), profile_path("docker-default"), scratch,
				getenv("SECBPF"), scratch, kernel_like),
		     0, "%s", out);
	/* AF_VSOCK (40) is denied by both */
	cr_assert_eq(
		test_shell(out, sizeof(out),
			   "ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' -- '%s' socket 40 1 0",
			   getenv("SECBPF"), runc_like, abi_probe()),
		0, "%s", out);
	cr_expect_str_eq(out, "socket=1\n");
	/* 40 | 1<<32: runc's comparison sees no 40 and lets the kernel make an
	 * AF_VSOCK socket (or fail for want of the module); --kernel-args
	 * compares what the kernel reads, 40, and denies it */
	cr_assert_eq(test_shell(out, sizeof(out),
				"ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' -- '%s' socket "
				"0x100000028 1 0",
				getenv("SECBPF"), runc_like, abi_probe()),
		     0, "%s", out);
	cr_expect_str_neq(out, "socket=1\n", "the runc-like import denied it: %s", out);
	cr_assert_eq(test_shell(out, sizeof(out),
				"ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' -- '%s' socket "
				"0x100000028 1 0",
				getenv("SECBPF"), kernel_like, abi_probe()),
		     0, "%s", out);
	cr_expect_str_eq(out, "socket=1\n");
	/* an ordinary socket still works under both */
	cr_assert_eq(test_shell(out, sizeof(out),
				"ASAN_OPTIONS=detect_leaks=0 '%s' run -f '%s' -- '%s' socket 1 1 0",
				getenv("SECBPF"), kernel_like, abi_probe()),
		     0, "%s", out);
	cr_expect_str_eq(out, "socket=0\n");
}

Test(oci_equiv, import_set_gives_the_knobs_defaults)
{
	const char *obj = import_and_build(
		"docker-default", "--set caps=0x200000 --set kernel_major=4 --set kernel_minor=4");

	/* clone3 is allowed with CAP_SYS_ADMIN, ENOSYS without */
	cr_assert_eq(
		test_shell(out, sizeof(out), "'%s' test '%s' --nr clone3", getenv("SECBPF"), obj),
		0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\n");
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' test '%s' --set caps=0 --nr clone3",
				getenv("SECBPF"), obj),
		     0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(38)\n");
	/* ptrace needs kernel 4.8 in Docker's profile */
	cr_assert_eq(
		test_shell(out, sizeof(out), "'%s' test '%s' --nr ptrace", getenv("SECBPF"), obj),
		0, "%s", out);
	cr_expect_str_eq(out, "ERRNO(1)\n");
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' test '%s' --set kernel_minor=8 --nr ptrace",
				getenv("SECBPF"), obj),
		     0, "%s", out);
	cr_expect_str_eq(out, "ALLOW\n");
	cr_expect_eq(test_shell(out, sizeof(out), "'%s' import-oci '%s' --set nosuch=1",
				getenv("SECBPF"), profile_path("docker-default")),
		     2, "%s", out);
	cr_expect(strstr(out, "--set nosuch: no such knob"), "%s", out);
}
