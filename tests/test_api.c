// SPDX-License-Identifier: MIT
/*
 * Tests for the public API (include/secbpf.h, lib/api/api.c) on the seed
 * sample: opening, finding programs, knobs, test runs and error reporting.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <stdio.h>
#include <stdlib.h>

#include "secbpf.h"

static char *sample_path(void)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s/samples/seed_close.bpf.o", getenv("SECBPF_BUILD_DIR"));
	return buf;
}

Test(api, seed_sample_decides_like_the_seed)
{
	struct seccomp_data sd = { .nr = 3, .arch = AUDIT_ARCH_X86_64, .args = { 999 } };
	struct secbpf_object *obj = secbpf_object__open_file(sample_path(), NULL);
	struct secbpf_program *prog;
	uint32_t ret;

	cr_assert_not_null(obj);
	cr_assert_eq(secbpf_object__program_cnt(obj), 1);
	prog = secbpf_object__find_program(obj, NULL);
	cr_assert_not_null(prog, "%s", secbpf_object__last_error(obj));
	cr_expect_str_eq(secbpf_program__name(prog), "bpf_prog1");
	cr_expect_gt(secbpf_program__insn_cnt(prog), 4);
	cr_assert_eq(secbpf_program__test_run(prog, &sd, &ret), 0);
	cr_expect_eq(ret, SECCOMP_RET_ERRNO | 1);
	sd.args[0] = 111;
	cr_assert_eq(secbpf_program__test_run(prog, &sd, &ret), 0);
	cr_expect_eq(ret, SECCOMP_RET_ALLOW);
	sd.arch = AUDIT_ARCH_I386;
	cr_assert_eq(secbpf_program__test_run(prog, &sd, &ret), 0);
	cr_expect_eq(ret, SECCOMP_RET_ERRNO | 1);
	secbpf_object__close(obj);
}

Test(api, errors_are_reported)
{
	struct secbpf_object_open_opts opts = { .sz = sizeof(opts) };
	struct secbpf_object *obj;
	char buf[256] = "";

	opts.errbuf = buf;
	opts.errbuf_sz = sizeof(buf);
	errno = 0;
	cr_expect_null(secbpf_object__open_file("/nonexistent/x.o", &opts));
	cr_expect_neq(errno, 0);
	cr_expect_neq(buf[0], '\0');
	cr_expect_null(secbpf_object__open_mem("\177ELF", 4, &opts));

	obj = secbpf_object__open_file(sample_path(), NULL);
	cr_assert_not_null(obj);
	cr_expect_null(secbpf_object__find_program(obj, "nosuch"));
	cr_expect_eq(errno, ENOENT);
	cr_expect_neq(secbpf_object__last_error(obj)[0], '\0');
	cr_expect_eq(secbpf_object__set_var(obj, "nosuch", "1"), -ENOENT);
	cr_expect_null(secbpf_object__program(obj, 1));
	secbpf_object__close(obj);
}
