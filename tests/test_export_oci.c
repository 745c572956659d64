// SPDX-License-Identifier: MIT
/*
 * `secbpf export-oci` against the filter it came from: the profile is
 * built into a filter the way runc builds linux.seccomp (tests/
 * oci_runc_ref.c: libseccomp with one rule per known name, unknown names
 * skipped, and runc's ENOSYS stub in front), and both are simulated on
 * every syscall number of every arch in the profile and past them, with
 * several argument patterns and around every value a rule compares with.
 * Where the profile notifies, secbpfd runs the whole program; everywhere
 * else the two must give the same action.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbpf/cbpf.h"
#include "common.h"
#include "oci/profile.h"
#include "oci_runc_ref.h"

#define NR_MAX 1024
#define X32_BIT 0x40000000u

struct filter {
	struct sock_filter *insns;
	size_t len;
};

static char out[1 << 20];

static struct filter read_filter(int fd)
{
	struct filter f = { 0 };
	off_t size = lseek(fd, 0, SEEK_END);

	cr_assert(size > 0 && size % sizeof(struct sock_filter) == 0, "filter of %lld bytes",
		  (long long)size);
	f.insns = malloc((size_t)size);
	cr_assert_not_null(f.insns);
	cr_assert_eq(pread(fd, f.insns, (size_t)size, 0), size);
	f.len = (size_t)size / sizeof(struct sock_filter);
	return f;
}

/* The compiled filter of obj, as `secbpf compile` gives it. */
static struct filter secbpf_filter(const char *obj)
{
	char path[4096];
	struct filter f;
	FILE *p;
	int fd;

	snprintf(path, sizeof(path), "/tmp/secbpf-test-export-%d.bin", (int)getpid());
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' compile '%s' -o '%s'", getenv("SECBPF"),
				obj, path),
		     0, "%s", out);
	p = fopen(path, "rb");
	cr_assert_not_null(p);
	fd = fileno(p);
	f = read_filter(fd);
	fclose(p);
	unlink(path);
	return f;
}

/* runc's filter for the exported profile text (oci_runc_ref.c: libseccomp
 * as runc drives it, the ENOSYS stub in front); *p keeps the profile. */
static struct filter runc_filter(const char *text, struct oci_profile *p)
{
	const struct oci_runc_opts o = { .caps = ~0ull, .kmajor = 99, .kminor = 0 };
	struct secbpf_err err = { { 0 } };
	struct oci_runc_filter f;

	cr_assert_eq(oci_profile_parse(text, p, &err), 0, "%s: %s", err.msg, text);
	cr_assert_eq(oci_runc_filter_build(p, &o, &f, &err), 0, "%s", err.msg);
	return (struct filter){ .insns = f.insns, .len = f.len };
}

/* seccomp_data.arch and the first number of libseccomp arch token. */
static uint32_t audit_of(uint32_t token, uint32_t *base)
{
	*base = token == SCMP_ARCH_X32 ? X32_BIT : 0;
	return token == SCMP_ARCH_X32 ? AUDIT_ARCH_X86_64 : token;
}

struct compare {
	const char *obj;
	struct filter orig, prof;
	unsigned inputs, notified, mismatches;
	/* The arch compared, and where runc's stub starts on it: numbers
	 * without a syscall name above the last name of the table that the
	 * filter denies get ENOSYS from runc (docs/containers.md). */
	uint32_t token, stub_above;
	unsigned past_names;
};

/* Whether runc's ENOSYS for sd is its stub's, on a number no table
 * names, which the filter denies otherwise (action ro). */
static bool stub_past_names(const struct compare *c, const struct seccomp_data *sd, uint32_t ro,
			    uint32_t rp)
{
	char *name;

	if (rp != (SECCOMP_RET_ERRNO | ENOSYS) || (uint32_t)sd->nr <= c->stub_above ||
	    (ro & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ALLOW ||
	    (ro & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_LOG)
		return false;
	name = seccomp_syscall_resolve_num_arch(c->token, sd->nr);
	free(name);
	return name == NULL;
}

static void compare_one(struct compare *c, const struct seccomp_data *sd)
{
	uint32_t ro = cbpf_sim_run(c->orig.insns, c->orig.len, sd);
	uint32_t rp = cbpf_sim_run(c->prof.insns, c->prof.len, sd);

	c->inputs++;
	if (rp == SECCOMP_RET_USER_NOTIF) {
		c->notified++; /* secbpfd runs the whole program */
		return;
	}
	if (ro != rp && stub_past_names(c, sd, ro, rp)) {
		c->past_names++;
		return;
	}
	if (ro != rp && c->mismatches++ < 10)
		cr_log_error("%s: arch %#x nr %#x args %#llx %#llx: filter %#x, profile %#x",
			     c->obj, sd->arch, sd->nr, (unsigned long long)sd->args[0],
			     (unsigned long long)sd->args[1], ro, rp);
}

/* The values around one condition: for MASKED_EQ the datum, each bit of
 * the mask flipped and the bits outside it set; for the others the value,
 * one below and above, and with the upper half changed. */
static size_t cond_edges(const struct oci_cond *k, uint64_t *v)
{
	size_t n = 0, b;

	if (k->op == OCI_MASKED_EQ) {
		v[n++] = k->value_two;
		for (b = 0; b < 64; b++)
			if (k->value >> b & 1)
				v[n++] = k->value_two ^ (1ull << b);
		v[n++] = k->value_two | ~k->value;
		return n;
	}
	v[n++] = k->value;
	v[n++] = k->value - 1;
	v[n++] = k->value + 1;
	v[n++] = k->value ^ (1ull << 32);
	v[n++] = k->value | 0xffffffff00000000ull;
	v[n++] = k->value & 0xffffffffull;
	return n;
}

/* The edges of each argument rule of the profile, on every arch of it:
 * each condition's edges with the others held at their value. */
static void compare_arg_rules(struct compare *c, const struct oci_profile *p)
{
	size_t i, j, a, ci, e;

	for (i = 0; i < p->nrules; i++) {
		const struct oci_rule *r = &p->rules[i];

		for (j = 0; r->nargs && j < r->nnames; j++)
			for (a = 0; a < p->narches; a++) {
				int nr = seccomp_syscall_resolve_name_arch(p->arches[a],
									   r->names[j]);
				struct seccomp_data sd = { .nr = nr };
				uint32_t base;

				if (nr < 0)
					continue;
				sd.arch = audit_of(p->arches[a], &base);
				for (ci = 0; ci < r->nargs; ci++)
					sd.args[r->args[ci].index] = r->args[ci].op == OCI_MASKED_EQ
									     ? r->args[ci].value_two
									     : r->args[ci].value;
				compare_one(c, &sd);
				for (ci = 0; ci < r->nargs; ci++) {
					uint64_t keep = sd.args[r->args[ci].index], v[80];
					size_t n = cond_edges(&r->args[ci], v);

					for (e = 0; e < n; e++) {
						sd.args[r->args[ci].index] = v[e];
						compare_one(c, &sd);
					}
					sd.args[r->args[ci].index] = keep;
				}
			}
	}
}

static const uint64_t arg_patterns[] = { 0, 1, 8, 0xffffffffu, 0x100000001ull, ~0ull };

/* Numbers past every syscall table, where runc's stub answers (below
 * 0x40000000: libseccomp takes x86_64's above it for x32's). */
static const uint32_t odd_nrs[] = { NR_MAX, 4096, 0x3fffffff };

/* Where runc's stub starts on arch token: the largest number the
 * profile names there (runc's patchbpf). */
static uint32_t stub_start(const struct oci_profile *p, uint32_t token)
{
	uint32_t last = 0;
	size_t i, j;

	for (i = 0; i < p->nrules; i++)
		for (j = 0; j < p->rules[i].nnames; j++) {
			int nr = seccomp_syscall_resolve_name_arch(token, p->rules[i].names[j]);

			if (nr >= 0 && (uint32_t)nr > last)
				last = (uint32_t)nr;
		}
	return last;
}

/* Compare the profile of obj with its filter on every number of every
 * arch in it (and past them). Leaves the profile in out; returns the
 * number of inputs the profile notifies. */
static unsigned check_export(const char *obj)
{
	struct compare c = { .obj = obj, .orig = secbpf_filter(obj) };
	struct oci_profile prof;
	size_t a, p, i;

	cr_assert_eq(test_capture(out, sizeof(out),
				  (snprintf(out, sizeof(out), "'%s' export-oci -f '%s' 2>/dev/null",
					    getenv("SECBPF"), obj),
				   out)),
		     0, "export-oci %s failed", obj);
	c.prof = runc_filter(out, &prof);
	for (a = 0; a < prof.narches; a++) {
		uint32_t base, audit = audit_of(prof.arches[a], &base), nr;

		c.token = prof.arches[a];
		c.stub_above = stub_start(&prof, c.token);
		for (nr = 0; nr < NR_MAX + sizeof(odd_nrs) / sizeof(odd_nrs[0]); nr++)
			for (p = 0; p < sizeof(arg_patterns) / sizeof(arg_patterns[0]); p++) {
				struct seccomp_data sd = { .arch = audit };

				sd.nr = (int)(nr < NR_MAX ? base + nr
							  : base | odd_nrs[nr - NR_MAX]);
				for (i = 0; i < 6; i++)
					sd.args[i] = arg_patterns[p];
				sd.instruction_pointer = arg_patterns[p];
				compare_one(&c, &sd);
			}
	}
	c.stub_above = UINT32_MAX;
	compare_arg_rules(&c, &prof);
	cr_log_info("%s: %u inputs on %zu arches, %u notified to secbpfd, %u denied by runc's "
		    "stub past the table's names, %u mismatches",
		    obj, c.inputs, prof.narches, c.notified, c.past_names, c.mismatches);
	cr_expect_eq(c.mismatches, 0, "%s: %u of %u inputs decided differently:\n%s", obj,
		     c.mismatches, c.inputs, out);
	cr_expect_lt(c.notified, c.inputs / 4, "%s: most syscalls go to secbpfd", obj);
	oci_profile_free(&prof);
	free(c.orig.insns);
	free(c.prof.insns);
	return c.notified;
}

static void sample(const char *name, char *path, size_t size)
{
	test_sample_path(path, size, name);
}

Test(export_oci, container_policy_agrees)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/ctr_policy.bpf.o", getenv("SECBPF_BUILD_DIR"));
	check_export(path);
}

Test(export_oci, docker_like_agrees)
{
	char path[4096];

	sample("docker_like", path, sizeof(path));
	check_export(path);
}

Test(export_oci, exec_once_agrees)
{
	char path[4096];

	sample("exec_once", path, sizeof(path));
	check_export(path);
}

Test(export_oci, rate_limit_agrees)
{
	char path[4096];

	sample("rate_limit", path, sizeof(path));
	check_export(path);
}

/* More shapes: allowlists, argument tests, knobs, other arches. */
Test(export_oci, more_filters_agree)
{
	static const char *const objs[] = { "tests/cbpf_allowlist",
					    "tests/cbpf_docker_args",
					    "tests/cbpf_knob",
					    "samples/deny_path",
					    "samples/seed_close",
					    "samples/startup_lockdown",
					    "samples/wx" };
	char path[4096];
	size_t i;

	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.bpf.o", getenv("SECBPF_BUILD_DIR"), objs[i]);
		check_export(path);
	}
}

/* A program that notifies everything has no exact profile: runc refuses
 * SCMP_ACT_NOTIFY as the default action. */
Test(export_oci, notify_everything_is_refused_with_a_reason)
{
	char path[4096];
	int st;

	sample("syscall_count", path, sizeof(path));
	st = test_shell(out, sizeof(out), "'%s' export-oci -f '%s'", getenv("SECBPF"), path);
	cr_expect_eq(st, 1, "exit %d: %s", st, out);
	cr_expect(strstr(out, "runc refuses SCMP_ACT_NOTIFY as the default action"), "%s", out);
}

Test(export_oci, usage_errors)
{
	cr_expect_eq(test_shell(out, sizeof(out), "'%s' export-oci", getenv("SECBPF")), 2);
	cr_expect(strstr(out, "exactly one of -f OBJ and --prog NAME"), "%s", out);
	cr_expect_eq(test_shell(out, sizeof(out), "'%s' oci frob", getenv("SECBPF")), 2);
	cr_expect(strstr(out, "not a subcommand"), "%s", out);
	cr_expect_eq(test_shell(out, sizeof(out), "'%s' oci patch /nonexistent.json -f x.o",
				getenv("SECBPF")),
		     2);
}

static char scratch[4096];

/* The scratch directory of build_filter, removed after each test. */
static void remove_scratch(void)
{
	if (scratch[0])
		test_remove_tree(scratch);
}

/* The filter source (a SEC("seccomp") function body over ctx) built with
 * `secbpf cc` in a scratch directory: the object's path in obj. */
static void build_filter(const char *name, const char *body, char *obj, size_t size)
{
	char src[4200];
	FILE *f;

	test_scratch_dir(scratch, sizeof(scratch), "export-oci");
	snprintf(src, sizeof(src), "%s/%s.bpf.c", scratch, name);
	snprintf(obj, size, "%s/%s.bpf.o", scratch, name);
	f = fopen(src, "w");
	cr_assert_not_null(f);
	fprintf(f,
		"#include <secbpf/filter.h>\n"
		"SEC(\"seccomp\")\nint %s(struct seccomp_data *ctx)\n{\n"
		"\tSECBPF_DENY_OTHER_ARCHES(ctx, SECCOMP_RET_ERRNO | EPERM, X86_64);\n"
		"%s}\nchar _license[] SEC(\"license\") = \"GPL\";\n",
		name, body);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' cc -I '%s/include' '%s' -o '%s'",
				getenv("SECBPF"), getenv("SECBPF_SOURCE_DIR"), src, obj),
		     0, "secbpf cc %s: %s", src, out);
}

/*
 * An allowlist that denies with EPERM: runc puts its ENOSYS stub above the
 * last number the profile names, so the profile names the last number of
 * the table (with the default action) for the stub to start past every
 * syscall the filter denies with EPERM.
 */
Test(export_oci, deny_by_default_names_the_last_number_for_runcs_stub, .fini = remove_scratch)
{
	char obj[4400];

	build_filter("allow_few",
		     "\tswitch (ctx->nr) {\n"
		     "\tcase __NR_read: case __NR_write: case __NR_exit_group:\n"
		     "\t\treturn SECCOMP_RET_ALLOW;\n\t}\n"
		     "\treturn SECCOMP_RET_ERRNO | EPERM;\n",
		     obj, sizeof(obj));
	cr_expect_eq(check_export(obj), 0);
	cr_expect(strstr(out, "\"SCMP_ACT_ERRNO\""), "no name carries the default: %s", out);
}

/*
 * Flags tested bit by bit, ranges and lists of values, tests of two
 * arguments, with several actions: every cell becomes argument rules, none
 * notifies.
 */
Test(export_oci, flags_and_ranges_become_argument_rules, .fini = remove_scratch)
{
	char obj[4400];

	build_filter("flags_ranges",
		     "\tswitch (ctx->nr) {\n"
		     "\tcase __NR_unshare:\n"
		     "\t\tif (ctx->args[0] & 0x10000000)\n"
		     "\t\t\treturn SECCOMP_RET_ERRNO | EPERM;\n"
		     "\t\treturn SECCOMP_RET_ALLOW;\n"
		     "\tcase __NR_setns:\n"
		     "\t\tif ((ctx->args[1] & 0x20000) != 0)\n"
		     "\t\t\treturn SECCOMP_RET_ALLOW;\n"
		     "\t\treturn SECCOMP_RET_ERRNO | EACCES;\n"
		     "\tcase __NR_chmod:\n"
		     "\t\tif (ctx->args[1] > 0777)\n"
		     "\t\t\treturn SECCOMP_RET_ERRNO | EPERM;\n"
		     "\t\treturn SECCOMP_RET_ALLOW;\n"
		     "\tcase __NR_dup:\n"
		     "\t\tif (ctx->args[0] != 5)\n"
		     "\t\t\treturn SECCOMP_RET_ERRNO | EBADF;\n"
		     "\t\treturn SECCOMP_RET_ALLOW;\n"
		     "\tcase __NR_kill:\n"
		     "\t\tif (ctx->args[1] == 9)\n"
		     "\t\t\treturn SECCOMP_RET_ERRNO | EPERM;\n"
		     "\t\tif (ctx->args[1] >= 32 && ctx->args[1] < 64)\n"
		     "\t\t\treturn SECCOMP_RET_ERRNO | EINVAL;\n"
		     "\t\treturn SECCOMP_RET_ALLOW;\n"
		     "\tcase __NR_tgkill:\n"
		     "\t\tif (ctx->args[2] == 9 && ctx->args[0] > 1)\n"
		     "\t\t\treturn SECCOMP_RET_ERRNO | EPERM;\n"
		     "\t\tif (ctx->args[2] < 4 && ctx->args[1] == 0)\n"
		     "\t\t\treturn SECCOMP_RET_ERRNO | ESRCH;\n"
		     "\t\treturn SECCOMP_RET_ALLOW;\n"
		     "\tcase __NR_personality:\n"
		     "\t\tif (ctx->args[0] == 0 || ctx->args[0] == 8 ||\n"
		     "\t\t    ctx->args[0] == 0xffffffffULL)\n"
		     "\t\t\treturn SECCOMP_RET_ALLOW;\n"
		     "\t\treturn SECCOMP_RET_ERRNO | EPERM;\n"
		     "\t}\n"
		     "\treturn SECCOMP_RET_ALLOW;\n",
		     obj, sizeof(obj));
	cr_expect_eq(check_export(obj), 0, "some cell notifies: %s", out);
	cr_expect(strstr(out, "\"SCMP_CMP_GT\"") && strstr(out, "\"SCMP_CMP_EQ\"") &&
			  strstr(out, "\"SCMP_CMP_MASKED_EQ\""),
		  "%s", out);
}

/*
 * Numbers without a name that get ENOSYS below others that get the
 * default: runc's stub gives ENOSYS only above the last number named, so
 * no profile says it, and export-oci refuses, naming both numbers.
 */
Test(export_oci, enosys_below_the_default_is_refused, .fini = remove_scratch)
{
	char obj[4400];
	int st;

	/* 335 has no name on x86_64 (libseccomp 2.5.4), nor has 1000 */
	build_filter("enosys_hole",
		     "\tif (ctx->nr == 335)\n"
		     "\t\treturn SECCOMP_RET_ERRNO | ENOSYS;\n"
		     "\tif (ctx->nr == __NR_read)\n"
		     "\t\treturn SECCOMP_RET_ALLOW;\n"
		     "\treturn SECCOMP_RET_ERRNO | EPERM;\n",
		     obj, sizeof(obj));
	st = test_shell(out, sizeof(out), "'%s' export-oci -f '%s'", getenv("SECBPF"), obj);
	cr_expect_eq(st, 1, "exit %d: %s", st, out);
	cr_expect(strstr(out, "x86_64 nr 335 gets ENOSYS and nr 1023, above it, the default "
			      "0x50001"),
		  "%s", out);
}
