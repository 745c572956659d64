// SPDX-License-Identifier: MIT
/*
 * cache_hold: stays alive under a filter so that kernel/tests/seccomp_cache.sh
 * can read its /proc/PID/seccomp_cache, whatever the filter denies: it only
 * waits (pause, then nanosleep; a denied wait returns at once and it tries
 * again) until it is killed.
 */
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	struct timespec ts = { .tv_sec = 1 };

	for (;;) {
		syscall(SYS_pause);
		syscall(SYS_nanosleep, &ts, NULL);
	}
}
