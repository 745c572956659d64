// SPDX-License-Identifier: MIT
/*
 * `secbpf export-oci` against the filter it came from: the profile is
 * built into a filter by libseccomp the way runc builds linux.seccomp
 * (the default action, the profile's arches added to the native one, one
 * rule per known name, unknown names skipped), and both are simulated on
 * every syscall number of every arch in the profile, with several
 * argument patterns. Where the profile notifies, secbpfd runs the whole
 * program; everywhere else the two must give the same action.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cbpf/cbpf.h"
#include "common.h"

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

/* An OCI action (with its errnoRet) as libseccomp's. */
static uint32_t scmp_action(struct json_object *o, const char *akey, const char *ekey)
{
	struct json_object *a, *e;
	const char *name;
	int err = EPERM;

	cr_assert(json_object_object_get_ex(o, akey, &a), "no %s", akey);
	name = json_object_get_string(a);
	if (json_object_object_get_ex(o, ekey, &e))
		err = json_object_get_int(e);
	if (!strcmp(name, "SCMP_ACT_ALLOW"))
		return SCMP_ACT_ALLOW;
	if (!strcmp(name, "SCMP_ACT_ERRNO"))
		return SCMP_ACT_ERRNO(err);
	if (!strcmp(name, "SCMP_ACT_NOTIFY"))
		return SCMP_ACT_NOTIFY;
	if (!strcmp(name, "SCMP_ACT_LOG"))
		return SCMP_ACT_LOG;
	if (!strcmp(name, "SCMP_ACT_TRAP"))
		return SCMP_ACT_TRAP;
	if (!strcmp(name, "SCMP_ACT_KILL_PROCESS"))
		return SCMP_ACT_KILL_PROCESS;
	if (!strcmp(name, "SCMP_ACT_KILL_THREAD"))
		return SCMP_ACT_KILL_THREAD;
	cr_assert_fail("unknown action %s", name);
	return 0;
}

/* An entry's "args" as libseccomp's conditions (export-oci writes
 * SCMP_CMP_MASKED_EQ only, one per argument: value the mask, valueTwo
 * the datum, as runc passes them). */
static unsigned int scmp_args(struct json_object *entry, struct scmp_arg_cmp *out)
{
	struct json_object *args, *v;
	size_t i, n;

	if (!json_object_object_get_ex(entry, "args", &args))
		return 0;
	n = json_object_array_length(args);
	cr_assert(n >= 1 && n <= 6);
	for (i = 0; i < n; i++) {
		struct json_object *a = json_object_array_get_idx(args, i);

		cr_assert(json_object_object_get_ex(a, "op", &v));
		cr_assert_str_eq(json_object_get_string(v), "SCMP_CMP_MASKED_EQ");
		out[i].op = SCMP_CMP_MASKED_EQ;
		cr_assert(json_object_object_get_ex(a, "index", &v));
		out[i].arg = (unsigned int)json_object_get_int(v);
		cr_assert(json_object_object_get_ex(a, "value", &v));
		out[i].datum_a = json_object_get_uint64(v);
		cr_assert(json_object_object_get_ex(a, "valueTwo", &v));
		out[i].datum_b = json_object_get_uint64(v);
	}
	return (unsigned int)n;
}

/* libseccomp's filter for the profile, as runc builds it. */
static struct filter libseccomp_filter(struct json_object *prof, uint32_t *arches, size_t *narches)
{
	struct json_object *archs, *calls;
	scmp_filter_ctx ctx;
	struct filter f;
	size_t i, j;
	int fd, rc;

	ctx = seccomp_init(scmp_action(prof, "defaultAction", "defaultErrnoRet"));
	cr_assert_not_null(ctx);
	cr_assert(json_object_object_get_ex(prof, "architectures", &archs));
	*narches = 0;
	for (i = 0; i < json_object_array_length(archs); i++) {
		const char *a = json_object_get_string(json_object_array_get_idx(archs, i));
		char lower[32] = "";
		uint32_t token;
		size_t k;

		/* SCMP_ARCH_X86_64 is libseccomp's "x86_64". */
		for (k = 0; !strncmp(a, "SCMP_ARCH_", 10) && a[10 + k] && k < sizeof(lower) - 1;
		     k++)
			lower[k] = (char)tolower((unsigned char)a[10 + k]);
		lower[k] = '\0';
		token = seccomp_arch_resolve_name(lower);
		cr_assert_neq(token, 0, "arch %s", a);
		arches[(*narches)++] = token;
		rc = seccomp_arch_add(ctx, token);
		cr_assert(rc == 0 || rc == -EEXIST, "arch %s: %s", a, strerror(-rc));
	}
	cr_assert(json_object_object_get_ex(prof, "syscalls", &calls));
	for (i = 0; i < json_object_array_length(calls); i++) {
		struct json_object *c = json_object_array_get_idx(calls, i), *names;
		uint32_t act = scmp_action(c, "action", "errnoRet");
		struct scmp_arg_cmp args[6];
		unsigned int nargs;

		cr_assert(json_object_object_get_ex(c, "names", &names));
		nargs = scmp_args(c, args);
		for (j = 0; j < json_object_array_length(names); j++) {
			const char *n = json_object_get_string(json_object_array_get_idx(names, j));
			int nr = seccomp_syscall_resolve_name(n);

			if (nr == __NR_SCMP_ERROR)
				continue; /* runc skips names libseccomp does not know */
			rc = seccomp_rule_add_array(ctx, act, nr, nargs, nargs ? args : NULL);
			cr_assert_eq(rc, 0, "rule for %s: %s", n, strerror(-rc));
		}
	}
	fd = memfd_create("profile", MFD_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(seccomp_export_bpf(ctx, fd), 0);
	seccomp_release(ctx);
	f = read_filter(fd);
	close(fd);
	return f;
}

struct compare {
	const char *obj;
	struct filter orig, prof;
	unsigned inputs, notified, mismatches;
};

static void compare_one(struct compare *c, const struct seccomp_data *sd)
{
	uint32_t ro = cbpf_sim_run(c->orig.insns, c->orig.len, sd);
	uint32_t rp = cbpf_sim_run(c->prof.insns, c->prof.len, sd);

	c->inputs++;
	if (rp == SECCOMP_RET_USER_NOTIF) {
		c->notified++; /* secbpfd runs the whole program */
		return;
	}
	if (ro != rp && c->mismatches++ < 10)
		cr_log_error("%s: arch %#x nr %#x args %#llx %#llx: filter %#x, profile %#x",
			     c->obj, sd->arch, sd->nr, (unsigned long long)sd->args[0],
			     (unsigned long long)sd->args[1], ro, rp);
}

/* The edges of each argument rule of the profile, on every arch of it:
 * the datum, each bit of the mask flipped, the bits outside it set, for
 * one condition at a time with the others held at their datum. */
static void compare_arg_rules(struct compare *c, struct json_object *prof, const uint32_t *arches,
			      size_t narches)
{
	struct json_object *calls, *names;
	size_t i, j, a, k;

	cr_assert(json_object_object_get_ex(prof, "syscalls", &calls));
	for (i = 0; i < json_object_array_length(calls); i++) {
		struct json_object *e = json_object_array_get_idx(calls, i);
		struct scmp_arg_cmp conds[6];
		unsigned int n = scmp_args(e, conds), ci;

		if (!n)
			continue;
		cr_assert(json_object_object_get_ex(e, "names", &names));
		for (j = 0; j < json_object_array_length(names); j++)
			for (a = 0; a < narches; a++) {
				const char *name =
					json_object_get_string(json_object_array_get_idx(names, j));
				int nr = seccomp_syscall_resolve_name_arch(arches[a], name);
				struct seccomp_data sd = {
					.nr = nr,
					.arch = arches[a] == SCMP_ARCH_X32 ? AUDIT_ARCH_X86_64
									   : arches[a],
				};

				if (nr < 0)
					continue;
				for (ci = 0; ci < n; ci++)
					sd.args[conds[ci].arg] = conds[ci].datum_b;
				compare_one(c, &sd);
				for (ci = 0; ci < n; ci++) {
					uint64_t keep = sd.args[conds[ci].arg];

					for (k = 0; k < 64; k++)
						if (conds[ci].datum_a >> k & 1) {
							sd.args[conds[ci].arg] = keep ^ (1ull << k);
							compare_one(c, &sd);
						}
					sd.args[conds[ci].arg] = keep | ~conds[ci].datum_a;
					compare_one(c, &sd);
					sd.args[conds[ci].arg] = keep;
				}
			}
	}
}

static const uint64_t arg_patterns[] = { 0, 1, 8, 0xffffffffu, 0x100000001ull, ~0ull };

/* Compare the profile of obj with its filter on every number of every
 * arch in it. */
static void check_export(const char *obj)
{
	struct compare c = { .obj = obj, .orig = secbpf_filter(obj) };
	struct json_object *root;
	uint32_t arches[8];
	size_t narches, a, p;

	cr_assert_eq(test_capture(out, sizeof(out),
				  (snprintf(out, sizeof(out), "'%s' export-oci -f '%s' 2>/dev/null",
					    getenv("SECBPF"), obj),
				   out)),
		     0, "export-oci %s failed", obj);
	root = json_tokener_parse(out);
	cr_assert_not_null(root, "not JSON: %s", out);
	c.prof = libseccomp_filter(root, arches, &narches);
	for (a = 0; a < narches; a++) {
		uint32_t audit = arches[a] == SCMP_ARCH_X32 ? AUDIT_ARCH_X86_64 : arches[a];
		uint32_t base = arches[a] == SCMP_ARCH_X32 ? X32_BIT : 0, nr;

		for (nr = 0; nr < NR_MAX; nr++)
			for (p = 0; p < sizeof(arg_patterns) / sizeof(arg_patterns[0]); p++) {
				struct seccomp_data sd = { .nr = (int)(base + nr), .arch = audit };
				int i;

				for (i = 0; i < 6; i++)
					sd.args[i] = arg_patterns[p];
				sd.instruction_pointer = arg_patterns[p];
				compare_one(&c, &sd);
			}
	}
	compare_arg_rules(&c, root, arches, narches);
	cr_log_info("%s: %u inputs on %zu arches, %u notified to secbpfd, %u mismatches", obj,
		    c.inputs, narches, c.notified, c.mismatches);
	cr_expect_eq(c.mismatches, 0, "%s: %u of %u inputs decided differently", obj, c.mismatches,
		     c.inputs);
	cr_expect_lt(c.notified, c.inputs / 4, "%s: most syscalls go to secbpfd", obj);
	json_object_put(root);
	free(c.orig.insns);
	free(c.prof.insns);
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
