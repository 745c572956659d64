// SPDX-License-Identifier: MIT
/*
 * The IA-32 emulation probe shared by the tests that issue i386 syscalls
 * from a 64-bit process (host_ia32.h): run in a child, so that a kernel
 * without the emulation kills the child, not the test.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host_ia32.h"

#define I386_GETPID 20

/* The child: default dispositions for the faults int $0x80 can raise,
 * then i386's getpid; exits 0 if it returned our pid, 1 if it returned
 * something else. */
static __attribute__((noreturn)) void ia32_probe_child(void)
{
	static const int faults[] = { SIGSEGV, SIGILL, SIGBUS, SIGSYS };
	long r = -ENOSYS;
	size_t i;

	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		signal(faults[i], SIG_DFL);
#if defined(__x86_64__)
	__asm__ volatile("int $0x80" : "=a"(r) : "a"((long)I386_GETPID) : "memory");
#endif
	_exit(r == (long)getpid() ? 0 : 1);
}

bool test_host_has_ia32(char *why, size_t size)
{
	static int known; /* 0: not probed, 1: has it, -1: has not */
	static char known_why[160];
	int status;
	pid_t pid;

	if (!known) {
#if !defined(__x86_64__)
		snprintf(known_why, sizeof(known_why), "not an x86_64 host");
		known = -1;
#else
		pid = fork();
		if (pid == 0)
			ia32_probe_child();
		if (pid < 0 || waitpid(pid, &status, 0) != pid) {
			/* Not an answer about the kernel: probe again next time. */
			snprintf(why, size, "cannot run the probe: %s", strerror(errno));
			return false;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			known = 1;
		} else {
			if (WIFSIGNALED(status))
				snprintf(known_why, sizeof(known_why),
					 "int $0x80 killed a 64-bit process with signal %d",
					 WTERMSIG(status));
			else
				snprintf(known_why, sizeof(known_why),
					 "int $0x80 did not run i386's getpid");
			known = -1;
		}
#endif
	}
	if (why && size)
		snprintf(why, size, "%s", known > 0 ? "" : known_why);
	return known > 0;
}
