// SPDX-License-Identifier: MIT
/*
 * Tests of lib/common/proc_status.c, the one /proc/PID/status parser: the
 * edges of a field (missing, cut off, twice), of a number (huge, signed,
 * trailing junk) and a task name that holds spaces, "Uid:" or a newline.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/proc_stat.h"
#include "common/proc_status.h"

/* The lines the kernel writes, as proc_pid_status() orders them. */
#define STATUS_HEAD "Name:\tprobe\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\n"
#define STATUS_IDS "Uid:\t1000\t1001\t1002\t1003\nGid:\t100\t101\t102\t103\n"
#define STATUS_SIGS "SigBlk:\t0000000000000000\nSigIgn:\t0000000040000000\n"
#define STATUS_TAIL "CapEff:\t000001ffffffffff\nSeccomp:\t2\nSeccomp_filters:\t3\n"
#define STATUS STATUS_HEAD STATUS_IDS STATUS_SIGS STATUS_TAIL

static uint64_t u64_of(const char *status, const char *key, int base, int *rc)
{
	uint64_t v = 0xdead;

	*rc = proc_status_u64(status, key, base, &v);
	return v;
}

Test(proc_status, reads_each_field_of_a_status_file)
{
	uint64_t ids[4];
	int rc;

	cr_expect_eq(u64_of(STATUS, "Tgid", 10, &rc), 4242);
	cr_expect_eq(rc, 0);
	cr_expect_eq(u64_of(STATUS, "SigIgn", 16, &rc), 0x40000000);
	cr_expect_eq(u64_of(STATUS, "CapEff", 16, &rc), 0x1ffffffffffull);
	cr_expect_eq(u64_of(STATUS, "Seccomp", 10, &rc), 2, "Seccomp is not Seccomp_filters");
	cr_expect_eq(u64_of(STATUS, "Seccomp_filters", 10, &rc), 3);
	cr_assert_eq(proc_status_numbers(STATUS, "Uid", 10, UINT32_MAX, ids, 4), 0);
	cr_expect(ids[0] == 1000 && ids[1] == 1001 && ids[2] == 1002 && ids[3] == 1003);
	cr_expect_eq(proc_status_numbers(STATUS, "Gid", 10, UINT32_MAX, ids, 5), -EIO,
		     "asking for more numbers than the line has");
}

Test(proc_status, a_missing_field_is_enoent)
{
	int rc;

	u64_of(STATUS, "NoSuchField", 10, &rc);
	cr_expect_eq(rc, -ENOENT);
	u64_of("", "Tgid", 10, &rc);
	cr_expect_eq(rc, -ENOENT);
	/* A key is matched whole: "Tgi" is no field, nor "Seccomp_f". */
	u64_of(STATUS, "Tgi", 10, &rc);
	cr_expect_eq(rc, -ENOENT);
	u64_of(STATUS, "Seccomp_f", 10, &rc);
	cr_expect_eq(rc, -ENOENT);
	/* Nor is a key found anywhere but at the start of a line. */
	u64_of("Name:\tx Tgid:\t1\n", "Tgid", 10, &rc);
	cr_expect_eq(rc, -ENOENT);
}

Test(proc_status, a_field_cut_off_at_the_end_is_not_trusted)
{
	int rc;

	/* A buffer that filled up mid-line: "Tgid:\t42" of "Tgid:\t4242". */
	u64_of(STATUS_HEAD "Tgid:\t42", "Tgid", 10, &rc);
	cr_expect_eq(rc, -EIO);
}

Test(proc_status, huge_and_malformed_numbers_fail)
{
	uint64_t ids[2];
	int rc;

	cr_expect_eq(u64_of("N:\t18446744073709551615\n", "N", 10, &rc), UINT64_MAX);
	cr_expect_eq(rc, 0);
	u64_of("N:\t18446744073709551616\n", "N", 10, &rc);
	cr_expect_eq(rc, -ERANGE);
	u64_of("N:\t99999999999999999999999999\n", "N", 10, &rc);
	cr_expect_eq(rc, -ERANGE);
	cr_expect_eq(u64_of("N:\tffffffffffffffff\n", "N", 16, &rc), UINT64_MAX);
	u64_of("N:\t1ffffffffffffffff\n", "N", 16, &rc);
	cr_expect_eq(rc, -ERANGE);
	cr_expect_eq(proc_status_numbers("Uid:\t4294967296\t0\n", "Uid", 10, UINT32_MAX, ids, 2),
		     -ERANGE);
	/* strtoul would take "-1" as ULONG_MAX and " 12abc" as 12. */
	u64_of("N:\t-1\n", "N", 10, &rc);
	cr_expect_eq(rc, -EIO);
	u64_of("N:\t12abc\n", "N", 10, &rc);
	cr_expect_eq(rc, -EIO);
	u64_of("N:\t0x10\n", "N", 16, &rc);
	cr_expect_eq(rc, -EIO);
	u64_of("N:\t\n", "N", 10, &rc);
	cr_expect_eq(rc, -EIO);
	u64_of("N:\tff\n", "N", 10, &rc);
	cr_expect_eq(rc, -EIO);
}

Test(proc_status, a_name_with_spaces_or_a_key_in_it_is_only_the_name)
{
	const char *v;
	size_t len;
	int rc;

	/* The kernel writes the name as is, spaces and colons included. */
	const char *status = "Name:\tUid: 0 0 0 0\nUmask:\t0022\n" STATUS_IDS;

	cr_expect_eq(proc_status_field(status, "Name", &v, &len), 0);
	cr_expect_eq(len, strlen("\tUid: 0 0 0 0"));
	cr_expect_eq(u64_of(status, "Uid", 10, &rc), 1000);
	cr_expect_eq(rc, 0);
	status = "Name:\tTgid:\t1 Seccomp:\t0\n" STATUS_IDS "Tgid:\t77\n";
	cr_expect_eq(u64_of(status, "Tgid", 10, &rc), 77);
	cr_expect_eq(rc, 0);
}

Test(proc_status, a_second_line_for_a_key_fails_closed)
{
	int rc;

	/* The kernel escapes a newline in the name ("\n" as two bytes), so
	 * a name can never forge a line; text where one did is refused. */
	u64_of("Name:\tx\nUid:\t0\t0\t0\t0\nUmask:\t0022\n" STATUS_IDS, "Uid", 10, &rc);
	cr_expect_eq(rc, -EIO);
	u64_of("Name:\tx\\nUid:\t0\t0\t0\t0\nUmask:\t0022\n" STATUS_IDS, "Uid", 10, &rc);
	cr_expect_eq(rc, 0, "an escaped newline is part of the name");
	u64_of("Seccomp:\t0\nSeccomp:\t2\n", "Seccomp", 10, &rc);
	cr_expect_eq(rc, -EIO);
}

Test(proc_status, reads_a_whole_file_or_what_fits)
{
	char path[] = "/tmp/secbpf-proc-status-XXXXXX";
	char buf[PROC_STATUS_SIZE], small[22];
	int fd = mkstemp(path), rc;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, STATUS, strlen(STATUS)), (ssize_t)strlen(STATUS));
	close(fd);
	cr_expect_eq(proc_status_read(AT_FDCWD, path, buf, sizeof(buf)), (ssize_t)strlen(STATUS));
	cr_expect_str_eq(buf, STATUS);
	/* What does not fit is left out, and a line cut there is missing. */
	cr_expect_eq(proc_status_read(AT_FDCWD, path, small, sizeof(small)), 21);
	cr_expect_str_eq(small, "Name:\tprobe\nUmask:\t00");
	u64_of(small, "Umask", 10, &rc);
	cr_expect_eq(rc, -EIO);
	u64_of(small, "Tgid", 10, &rc);
	cr_expect_eq(rc, -ENOENT);
	unlink(path);
	cr_expect_eq(proc_status_read(AT_FDCWD, path, buf, sizeof(buf)), -ENOENT);
}

Test(proc_status, reads_this_process)
{
	uint64_t tgid;

	cr_assert_eq(proc_status_self_u64("Tgid", 10, &tgid), 0);
	cr_expect_eq(tgid, (uint64_t)getpid());
}

/* A child named like a trap for a parser, "x) 1 2 (y": its start time is
 * read past the last ')' and is not before ours; a PID no process has is
 * -ESRCH. */
Test(proc_status, start_time_of_a_process)
{
	uint64_t ours = 0, theirs = 0;
	int to_parent[2], st;
	char c;
	pid_t pid;

	cr_assert_eq(proc_stat_start_time(getpid(), &ours), 0);
	cr_assert_eq(pipe(to_parent), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_NAME, "x) 1 2 (y", 0, 0, 0);
		if (write(to_parent[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	cr_assert_eq(read(to_parent[0], &c, 1), 1);
	cr_assert_eq(proc_stat_start_time(pid, &theirs), 0);
	cr_assert_geq(theirs, ours);
	/* within the ten seconds after ours (clock ticks, 100 a second) */
	cr_assert_lt(theirs - ours, 100 * 10);
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert_eq(proc_stat_start_time(pid, &theirs), -ESRCH);
	close(to_parent[0]);
	close(to_parent[1]);
}
