// SPDX-License-Identifier: MIT
/*
 * A workload for the record tests: a fixed set of syscalls, and on request
 * one more per ABI of an x86_64 process, each reported as "WHAT=0" (it
 * ran) or "WHAT=ERRNO" (it failed), so that a recorded filter can be seen
 * to let the same run through and to deny what the recording never saw.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* i386's getpid (20) through int $0x80: the kernel reports it with
 * AUDIT_ARCH_I386 even from a 64-bit process. */
static long int80_getpid(void)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory", "r8", "r9", "r10", "r11");
	return ret;
#else
	return -ENOSYS;
#endif
}

/* getppid in a thread of its own: the recording must see every thread. */
static void *thread_getppid(void *arg)
{
	long *ret = arg;

	*ret = syscall(SYS_getppid) < 0 ? -errno : 0;
	return NULL;
}

static long in_thread_getppid(void)
{
	pthread_t t;
	long ret = -EINVAL;
	int e;

	e = pthread_create(&t, NULL, thread_getppid, &ret);
	if (e)
		return -e;
	pthread_join(t, NULL);
	return ret;
}

static void report(const char *what, long ret)
{
	printf("%s=%ld\n", what, ret < 0 ? -ret : 0L);
}

/*
 * record_probe [getppid] [thread] [i386] [x32]...: always write a line;
 * then each word asks for one more syscall: getppid (x86_64), thread
 * (getppid in a new thread), i386 (getpid through int $0x80), x32 (getpid
 * with bit 30: ENOSYS where the kernel has no x32, but seccomp sees it
 * first).
 */
int main(int argc, char **argv)
{
	int i;

	printf("probe\n");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "getppid"))
			report("getppid", syscall(SYS_getppid) < 0 ? -errno : 0);
		else if (!strcmp(argv[i], "thread"))
			report("thread", in_thread_getppid());
		else if (!strcmp(argv[i], "i386"))
			report("i386", int80_getpid() == getpid() ? 0 : int80_getpid());
		else if (!strcmp(argv[i], "x32"))
			report("x32", syscall(0x40000000 | SYS_getpid) < 0 ? -errno : 0);
		else
			return 2;
	}
	return 0;
}
