// SPDX-License-Identifier: MIT
/*
 * A probe the bypass tests run under filters: a 64-bit x86 process making
 * syscalls through the other ABIs the kernel gives it (i386's through
 * `int $0x80`, x32's with bit 30 of the number) and 64-bit socket calls
 * with garbage in the upper half of an int argument. Prints errnos.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_32BIT, when built outside meson */
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define I386_EXECVE 11
#define I386_CLONE 120
#define I386_OPENAT 295
#define X32_SYSCALL_BIT 0x40000000L
#ifdef MAP_32BIT
#define LOW_4G MAP_32BIT
#else
#define LOW_4G 0
#endif

/* An i386 syscall (up to 5 arguments): -errno or the result. */
static long i386_syscall(long nr, long a, long b, long c, long d, long e)
{
#if defined(__x86_64__)
	long r;

	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
	return r;
#else
	(void)nr, (void)a, (void)b, (void)c, (void)d, (void)e;
	return -ENOSYS; /* no i386 ABI on this host */
#endif
}

/* i386 pointers are 32 bits: memory for them below 4 GiB. */
static char *low_memory(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | LOW_4G, -1,
		       0);

	if (p == MAP_FAILED) {
		perror("abi_probe: mmap(MAP_32BIT)");
		exit(2);
	}
	return p;
}

/* Copy s below 4 GiB; returns its 32-bit address. */
static uint32_t low_string(const char *s)
{
	char *p = low_memory(strlen(s) + 1);

	strcpy(p, s);
	return (uint32_t)(uintptr_t)p;
}

static int print_errno(const char *label, long r)
{
	printf("%s=%ld\n", label, r < 0 ? -r : 0);
	fflush(stdout);
	return 0;
}

/* execve(argv[0], argv, {NULL}) through i386's execve. */
static int i386_execve(int argc, char **argv)
{
	uint32_t *args = (uint32_t *)low_memory(sizeof(uint32_t) * (size_t)(argc + 2));
	int i;

	for (i = 0; i < argc; i++)
		args[i] = low_string(argv[i]);
	args[argc] = 0;
	args[argc + 1] = 0; /* the empty environment */
	return print_errno("execve", i386_syscall(I386_EXECVE, args[0], (long)(uintptr_t)args,
						  (long)(uintptr_t)&args[argc + 1], 0, 0));
}

/* n forks through i386's clone(SIGCHLD); the children exit at once. */
static int i386_forks(long n)
{
	long i, failed = 0, err = 0, r;

	for (i = 0; i < n; i++) {
		r = i386_syscall(I386_CLONE, SIGCHLD, 0, 0, 0, 0);
		if (r == 0)
			syscall(SYS_exit_group, 0);
		if (r < 0) {
			failed++;
			err = -r;
			continue;
		}
		waitpid((pid_t)r, NULL, 0);
	}
	printf("failed=%ld errno=%ld\n", failed, err);
	return 0;
}

/*
 * abi_probe MODE ARGS:
 *   i386-execve PATH [ARG]...   exec PATH with i386's execve
 *   i386-forks N                N forks with i386's clone
 *   i386-openat PATH            open PATH read-only with i386's openat
 *   i386 NR [ARG]...            any i386 syscall (up to 5 arguments)
 *   x32 NR [ARG]...             x32 syscall NR (bit 30 added)
 *   socket FAMILY TYPE PROTO    64-bit socket(2) with these 64-bit values
 *   close-first FD MODE ARGS    close(FD) (64-bit, result ignored), then MODE
 * Prints "NAME=ERRNO" (0 on success), "failed=F errno=E" for i386-forks.
 */
int main(int argc, char **argv)
{
	long a[5] = { 0 };
	int i;

	if (argc > 4 && !strcmp(argv[1], "close-first")) {
		syscall(SYS_close, strtoull(argv[2], NULL, 0));
		argc -= 2;
		argv += 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: abi_probe MODE ARGS (see the source)\n");
		return 2;
	}
	if (!strcmp(argv[1], "i386-execve"))
		return i386_execve(argc - 2, argv + 2);
	if (!strcmp(argv[1], "i386-forks"))
		return i386_forks(strtol(argv[2], NULL, 0));
	if (!strcmp(argv[1], "i386-openat"))
		return print_errno("open", i386_syscall(I386_OPENAT, AT_FDCWD, low_string(argv[2]),
							O_RDONLY, 0, 0));
	for (i = 3; i < argc && i < 8; i++)
		a[i - 3] = (long)strtoull(argv[i], NULL, 0);
	if (!strcmp(argv[1], "i386"))
		return print_errno("ret", i386_syscall(strtol(argv[2], NULL, 0), a[0], a[1], a[2],
						       a[3], a[4]));
	if (!strcmp(argv[1], "x32")) {
		long r = syscall(strtol(argv[2], NULL, 0) | X32_SYSCALL_BIT, a[0], a[1], a[2], a[3],
				 a[4]);
		return print_errno("ret", r < 0 ? -errno : r);
	}
	if (!strcmp(argv[1], "socket")) {
		long r = syscall(SYS_socket, (long)strtoull(argv[2], NULL, 0), a[0], a[1]);

		return print_errno("socket", r < 0 ? -errno : 0);
	}
	fprintf(stderr, "abi_probe: unknown mode '%s'\n", argv[1]);
	return 2;
}
