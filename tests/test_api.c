// SPDX-License-Identifier: MIT
/*
 * Tests for the public API (include/secbpf.h, lib/api/api.c) on the seed
 * sample: opening, finding programs, knobs, test runs and error reporting.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* open_file fails with errno as open(2) did, never a blanket EINVAL. */
Test(api, open_file_sets_the_real_errno)
{
	char buf[256] = "";
	struct secbpf_object_open_opts opts = { .sz = sizeof(opts), .errbuf = buf,
						.errbuf_sz = sizeof(buf) };

	errno = 0;
	cr_expect_null(secbpf_object__open_file("/nonexistent/x.bpf.o", &opts));
	cr_expect_eq(errno, ENOENT, "errno %d", errno);
	cr_expect(strstr(buf, "/nonexistent/x.bpf.o"), "%s", buf);
	errno = 0;
	cr_expect_null(secbpf_object__open_file("/dev/null/x.bpf.o", NULL));
	cr_expect_eq(errno, ENOTDIR, "errno %d", errno);
	/* A directory: EISDIR; not an object: EINVAL. */
	errno = 0;
	cr_expect_null(secbpf_object__open_file("/", NULL));
	cr_expect_eq(errno, EISDIR, "errno %d", errno);
	errno = 0;
	cr_expect_null(secbpf_object__open_mem("\177ELF", 4, NULL));
	cr_expect_eq(errno, EINVAL, "errno %d", errno);
}

/* EACCES: a file its reader may not read (as nobody when run as root). */
Test(api, open_file_of_an_unreadable_file_is_eacces)
{
	char path[] = "/tmp/secbpf-test-api-XXXXXX";
	int fd = mkstemp(path), status;
	pid_t pid;

	cr_assert_geq(fd, 0);
	cr_assert_eq(fchmod(fd, 0), 0);
	close(fd);
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(2);
		errno = 0;
		if (secbpf_object__open_file(path, NULL))
			_exit(3);
		_exit(errno == EACCES ? 0 : 4);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	unlink(path);
	cr_assert(WIFEXITED(status));
	cr_expect_eq(WEXITSTATUS(status), 0, "child step %d", WEXITSTATUS(status));
}

/* The end of field in struct secbpf_object_open_opts. */
#define OPEN_OPTS_END(field)                                     \
	(offsetof(struct secbpf_object_open_opts, field) +       \
	 sizeof(((struct secbpf_object_open_opts *)0)->field))

/* errbuf is written only when sz covers both errbuf and errbuf_sz. */
Test(api, open_opts_smaller_sz_is_honoured_field_by_field)
{
	struct secbpf_object_open_opts opts;
	char buf[256];

	memset(&opts, 0, sizeof(opts));
	opts.errbuf = buf;
	opts.errbuf_sz = sizeof(buf);

	opts.sz = sizeof(opts);
	strcpy(buf, "untouched");
	cr_expect_null(secbpf_object__open_file("/nonexistent/x.bpf.o", &opts));
	cr_expect_eq(errno, ENOENT);
	cr_expect(strstr(buf, "cannot open"), "%s", buf);

	opts.sz = OPEN_OPTS_END(errbuf);
	strcpy(buf, "untouched");
	cr_expect_null(secbpf_object__open_file("/nonexistent/x.bpf.o", &opts));
	cr_expect_eq(errno, ENOENT);
	cr_expect_str_eq(buf, "untouched");

	opts.sz = sizeof(size_t);
	cr_expect_null(secbpf_object__open_file("/nonexistent/x.bpf.o", &opts));
	cr_expect_eq(errno, ENOENT);
	cr_expect_str_eq(buf, "untouched");

	/* Not even room for sz. */
	opts.sz = 1;
	cr_expect_null(secbpf_object__open_file(sample_path(), &opts));
	cr_expect_eq(errno, EINVAL);
	cr_expect_str_eq(buf, "untouched");

	/* A short errbuf gets the start of the message, NUL-terminated. */
	opts.sz = sizeof(opts);
	opts.errbuf_sz = 4;
	strcpy(buf, "untouched");
	cr_expect_null(secbpf_object__open_file("/nonexistent/x.bpf.o", &opts));
	cr_expect_str_eq(buf, "/no");
}

/* A caller built against a newer header: its struct is longer. */
struct newer_open_opts {
	struct secbpf_object_open_opts o;
	uint64_t added_later;
};

Test(api, open_opts_unknown_trailing_bytes_are_refused)
{
	struct newer_open_opts n;
	struct secbpf_object *obj;
	char buf[256] = "";

	memset(&n, 0, sizeof(n));
	n.o.sz = sizeof(n);
	n.o.errbuf = buf;
	n.o.errbuf_sz = sizeof(buf);
	n.added_later = 1;
	errno = 0;
	cr_expect_null(secbpf_object__open_file(sample_path(), &n.o));
	cr_expect_eq(errno, EINVAL);
	cr_expect(strstr(buf, "newer"), "%s", buf);
	cr_expect_null(secbpf_object__open_mem("\177ELF", 4, &n.o));
	cr_expect_eq(errno, EINVAL);

	/* Zero bytes past what this library knows: accepted. */
	n.added_later = 0;
	obj = secbpf_object__open_file(sample_path(), &n.o);
	cr_assert_not_null(obj, "%s", buf);
	secbpf_object__close(obj);
}
