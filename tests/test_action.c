// SPDX-License-Identifier: MIT
/*
 * Tests for lib/install/action.c: printing as `secbpf test` does and the kernel's
 * precedence between stacked filters.
 */
#include <criterion/criterion.h>
#include <linux/seccomp.h>

#include "install/action.h"

static const char *fmt(uint32_t ret)
{
	static char buf[32];

	return action_format(ret, buf, sizeof(buf));
}

Test(action, format_every_action)
{
	cr_expect_str_eq(fmt(SECCOMP_RET_ALLOW), "ALLOW");
	cr_expect_str_eq(fmt(SECCOMP_RET_ALLOW | 5), "ALLOW");
	cr_expect_str_eq(fmt(SECCOMP_RET_ERRNO | 1), "ERRNO(1)");
	cr_expect_str_eq(fmt(SECCOMP_RET_ERRNO | 4095), "ERRNO(4095)");
	cr_expect_str_eq(fmt(SECCOMP_RET_ERRNO | 4096), "ERRNO(4095)");
	cr_expect_str_eq(fmt(SECCOMP_RET_ERRNO | 0xffff), "ERRNO(4095)");
	cr_expect_str_eq(fmt(SECCOMP_RET_KILL_PROCESS), "KILL_PROCESS");
	cr_expect_str_eq(fmt(SECCOMP_RET_KILL_THREAD), "KILL_THREAD");
	cr_expect_str_eq(fmt(SECCOMP_RET_KILL_THREAD | 7), "KILL_THREAD");
	cr_expect_str_eq(fmt(SECCOMP_RET_TRAP | 42), "TRAP(42)");
	cr_expect_str_eq(fmt(SECCOMP_RET_TRACE | 65535), "TRACE(65535)");
	cr_expect_str_eq(fmt(SECCOMP_RET_LOG | 3), "LOG");
	cr_expect_str_eq(fmt(SECCOMP_RET_USER_NOTIF), "USER_NOTIF");
}

Test(action, unknown_actions_kill_the_process)
{
	cr_expect_str_eq(fmt(0x00010000), "KILL_PROCESS");
	cr_expect_str_eq(fmt(0x7ffe0000), "KILL_PROCESS");
	cr_expect_str_eq(fmt(0xffff0000), "KILL_PROCESS");
	cr_expect_eq(action_effective(0x7ffe0000), SECCOMP_RET_KILL_PROCESS);
}

Test(action, precedence_follows_the_kernel)
{
	cr_expect_eq(action_combine(SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | 1),
		     SECCOMP_RET_ERRNO | 1);
	cr_expect_eq(action_combine(SECCOMP_RET_ERRNO | 1, SECCOMP_RET_KILL_PROCESS),
		     SECCOMP_RET_KILL_PROCESS);
	cr_expect_eq(action_combine(SECCOMP_RET_KILL_THREAD, SECCOMP_RET_KILL_PROCESS),
		     SECCOMP_RET_KILL_PROCESS);
	cr_expect_eq(action_combine(SECCOMP_RET_USER_NOTIF, SECCOMP_RET_LOG),
		     SECCOMP_RET_USER_NOTIF);
	/* Ties: the newer filter's data wins. */
	cr_expect_eq(action_combine(SECCOMP_RET_ERRNO | 2, SECCOMP_RET_ERRNO | 1),
		     SECCOMP_RET_ERRNO | 2);
	/* An unknown action competes by its raw value: ERRNO beats 0x7ffe0000. */
	cr_expect_eq(action_combine(0x7ffe0000, SECCOMP_RET_ERRNO | 1), SECCOMP_RET_ERRNO | 1);
	cr_expect_eq(action_combine(SECCOMP_RET_ALLOW, 0x7ffe0000), 0x7ffe0000);
}
