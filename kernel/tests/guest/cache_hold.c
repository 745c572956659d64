// SPDX-License-Identifier: MIT
/*
 * cache_hold: stays alive under a filter so that kernel/tests/seccomp_cache.sh
 * can read its /proc/PID/seccomp_cache, whatever the filter denies: it only
 * waits (pause, then nanosleep; a denied wait returns at once and it tries
 * again) until it is killed. Freestanding, with no C library: a static
 * glibc's start-up needs brk and more, which a filter under test may deny
 * (tests/cbpf/lower64 answers nr 0-20 with computed errnos).
 * guest-cflags: -nostdlib -ffreestanding -fno-stack-protector
 */

/* x86_64 only, as the guest. */
#define NR_PAUSE 34
#define NR_NANOSLEEP 35

static long raw_syscall2(long nr, long a, long b)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
	return ret;
}

__attribute__((force_align_arg_pointer, noreturn)) void _start(void)
{
	static const long one_second[2] = { 1, 0 };

	for (;;) {
		raw_syscall2(NR_PAUSE, 0, 0);
		raw_syscall2(NR_NANOSLEEP, (long)one_second, 0);
	}
}
