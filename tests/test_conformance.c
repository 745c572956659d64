// SPDX-License-Identifier: MIT
/*
 * The eBPF ISA conformance suite (bpf_conformance data, read in place from
 * $SECBPF_CONFORMANCE_DIR): every positive case must give its result, every
 * negative case must be rejected. Without the data the tests are skipped.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "conformance_case.h"
#include "conformance_run.h"

struct case_file {
	char path[1024];
};

static const char *conformance_dir(void)
{
	const char *d = getenv("SECBPF_CONFORMANCE_DIR");

	return d && *d ? d : "tests/conformance";
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(((const struct case_file *)a)->path, ((const struct case_file *)b)->path);
}

static void free_params(struct criterion_test_params *p)
{
	cr_free(p->params);
}

/* List dir/sub/<*.data> into a cr_malloc'ed array (Criterion requires it). */
static struct criterion_test_params list_cases(const char *sub)
{
	struct case_file *files = NULL;
	size_t n = 0, cap = 0;
	char dir[480];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", conformance_dir(), sub);
	d = opendir(dir);
	if (d) {
		while ((de = readdir(d))) {
			size_t l = strlen(de->d_name);

			if (l < 6 || strcmp(de->d_name + l - 5, ".data"))
				continue;
			if (n == cap) {
				struct case_file *nf = cr_malloc(sizeof(*nf) * (cap = cap * 2 + 64));

				if (files)
					memcpy(nf, files, sizeof(*nf) * n);
				cr_free(files);
				files = nf;
			}
			/* dir (< 480) + '/' + d_name (< 256) always fits. */
			snprintf(files[n++].path, sizeof(files[0].path), "%s/%.255s", dir,
				 de->d_name);
		}
		closedir(d);
	}
	if (!n) {
		/* One placeholder entry: the test reports the data as missing
		 * and skips, so a missing suite never shows as passed. */
		files = cr_malloc(sizeof(*files));
		files[0].path[0] = '\0';
		n = 1;
	}
	qsort(files, n, sizeof(*files), cmp_names);
	return cr_make_param_array(struct case_file, files, n, free_params);
}

ParameterizedTestParameters(conformance, positive)
{
	return list_cases("tests");
}

ParameterizedTest(struct case_file *f, conformance, positive)
{
	struct secbpf_err err = { { 0 } };
	struct conformance_case c;
	uint64_t r0 = 0;
	int rc;

	if (!f->path[0])
		cr_skip_test("conformance data not found in %s (set SECBPF_CONFORMANCE_DIR)",
			     conformance_dir());
	rc = conformance_case_load(f->path, &c, &err);
	cr_assert_eq(rc, 0, "%s: %s", f->path, err.msg);
	rc = conformance_run(c.insns, c.cnt, c.mem, c.mem_len, &r0, &err);
	if (c.expect_error) {
		cr_expect_neq(rc, 0, "%s: expected an error, got r0 = 0x%" PRIx64, f->path, r0);
	} else {
		cr_expect_eq(rc, 0, "%s: %s", f->path, err.msg);
		cr_expect(c.has_result, "%s: no -- result section", f->path);
		cr_expect_eq(r0, c.result, "%s: r0 = 0x%" PRIx64 ", expected 0x%" PRIx64, f->path,
			     r0, c.result);
	}
	conformance_case_free(&c);
}

ParameterizedTestParameters(conformance, negative)
{
	return list_cases("negative");
}

/* A negative case passes when secbpf rejects it: it does not parse or
 * assemble, fails validation or the run, or gives a result other than the
 * (deliberately wrong) one it states. */
ParameterizedTest(struct case_file *f, conformance, negative)
{
	struct secbpf_err err = { { 0 } };
	struct conformance_case c;
	uint64_t r0 = 0;
	int rc;

	if (!f->path[0])
		cr_skip_test("conformance data not found in %s (set SECBPF_CONFORMANCE_DIR)",
			     conformance_dir());
	rc = conformance_case_load(f->path, &c, &err);
	if (rc) {
		cr_log_info("%s rejected: %s", f->path, err.msg);
		return;
	}
	rc = conformance_run(c.insns, c.cnt, c.mem, c.mem_len, &r0, &err);
	if (rc) {
		cr_log_info("%s rejected: %s", f->path, err.msg);
	} else {
		cr_expect(c.has_result && r0 != c.result,
			  "%s: accepted a negative case (r0 = 0x%" PRIx64 ")", f->path, r0);
	}
	conformance_case_free(&c);
}

/* Without the data the whole suite is skipped (exit status 77, which meson
 * reports as SKIP), so that a missing suite never counts as passed; in CI
 * (test_in_ci) it fails instead. */
int main(int argc, char **argv)
{
	struct criterion_test_set *tests;
	char dir[600];
	int ok;

	snprintf(dir, sizeof(dir), "%s/tests", conformance_dir());
	if (access(dir, R_OK | X_OK)) {
		printf("conformance: no data at %s (set SECBPF_CONFORMANCE_DIR): %s\n", dir,
		       test_in_ci() ? "an error in CI" : "skipped");
		return test_in_ci() ? 1 : 77;
	}
	tests = criterion_initialize();
	ok = criterion_handle_args(argc, argv, true);
	if (ok)
		ok = criterion_run_all_tests(tests);
	criterion_finalize(tests);
	return ok ? 0 : 1;
}
