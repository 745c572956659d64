// SPDX-License-Identifier: MIT
/*
 * Seccomp action decoding and printing, following kernel/seccomp.c: the
 * action is the top 16 bits (SECCOMP_RET_ACTION_FULL), unknown actions kill.
 */
#include <linux/seccomp.h>
#include <stdio.h>

#include "install/action.h"

uint32_t action_effective(uint32_t ret)
{
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS:
	case SECCOMP_RET_KILL_THREAD:
	case SECCOMP_RET_TRAP:
	case SECCOMP_RET_ERRNO:
	case SECCOMP_RET_USER_NOTIF:
	case SECCOMP_RET_TRACE:
	case SECCOMP_RET_LOG:
	case SECCOMP_RET_ALLOW:
		return ret;
	default:
		return SECCOMP_RET_KILL_PROCESS;
	}
}

const char *action_format(uint32_t ret, char *buf, size_t len)
{
	uint32_t eff = action_effective(ret);
	uint32_t data = eff & SECCOMP_RET_DATA;

	switch (eff & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS:
		snprintf(buf, len, "KILL_PROCESS");
		break;
	case SECCOMP_RET_KILL_THREAD:
		snprintf(buf, len, "KILL_THREAD");
		break;
	case SECCOMP_RET_TRAP:
		snprintf(buf, len, "TRAP(%u)", data);
		break;
	case SECCOMP_RET_ERRNO:
		/* The kernel caps the errno it returns at MAX_ERRNO. */
		snprintf(buf, len, "ERRNO(%u)", data > ACTION_MAX_ERRNO ? ACTION_MAX_ERRNO : data);
		break;
	case SECCOMP_RET_USER_NOTIF:
		snprintf(buf, len, "USER_NOTIF");
		break;
	case SECCOMP_RET_TRACE:
		snprintf(buf, len, "TRACE(%u)", data);
		break;
	case SECCOMP_RET_LOG:
		snprintf(buf, len, "LOG");
		break;
	default:
		snprintf(buf, len, "ALLOW");
		break;
	}
	return buf;
}

uint32_t action_combine(uint32_t newer, uint32_t older)
{
	/* The kernel compares the raw action bits as signed 32-bit values
	 * (ACTION_ONLY casts to s32), so KILL_PROCESS (0x80000000) is the
	 * lowest; an unknown action competes by its raw value and only turns
	 * into KILL_PROCESS once it has won (action_effective). */
	if ((int32_t)(older & SECCOMP_RET_ACTION_FULL) < (int32_t)(newer & SECCOMP_RET_ACTION_FULL))
		return older;
	return newer;
}
