// SPDX-License-Identifier: MIT
/*
 * A probe tests/test_docker.c runs in containers (statically linked, for a
 * busybox image): the syscalls whose answers tell Docker's default seccomp
 * profile apart, each made raw, one line `NAME ERRNO` each (0: it passed).
 * Two profiles decide alike exactly when the probe prints the same lines.
 * Where a call passes it changes nothing outside the probe (no such mount
 * point, no such key type).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define AF_VSOCK_FAMILY 40
#define PER_LINUX32_FLAG 0x0008
#define UNAME26_FLAG 0x0020000
#define ADDR_NO_RANDOMIZE_FLAG 0x0040000
#define PERSONALITY_QUERY 0xffffffffUL
#define CLONE_NEWUSER_FLAG 0x10000000UL
#define CLONE_NEWNS_FLAG 0x00020000UL
#define NO_SUCH_SYSCALL 1000

/* Print name's outcome: 0 when ret is not -1, else errno. */
static void report(const char *name, long ret)
{
	printf("%s %d\n", name, ret == -1 ? errno : 0);
}

/* Close fd when the call made one (socket, io_uring_setup). */
static void report_fd(const char *name, long fd)
{
	report(name, fd);
	if (fd >= 0)
		close((int)fd);
}

/* personality(persona), then back to the default persona if it passed, so
 * that what follows runs as before. */
static void probe_personality(const char *name, unsigned long persona)
{
	long ret = syscall(SYS_personality, persona);

	report(name, ret);
	if (ret != -1)
		syscall(SYS_personality, 0UL);
}

/* A raw clone with flags (fork-like: no new stack); a child that comes to
 * be exits at once and is reaped. */
static void probe_clone(const char *name, unsigned long flags)
{
	long pid = syscall(SYS_clone, flags | SIGCHLD, 0UL, 0UL, 0UL, 0UL);

	if (pid == 0)
		_exit(0);
	report(name, pid);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
}

/* clone3 with the smallest argument the kernel takes: a plain child. */
static void probe_clone3(void)
{
	uint64_t args[8] = { 0 }; /* struct clone_args, version 0 (64 bytes) */
	long pid;

	args[4] = SIGCHLD; /* exit_signal */
	pid = syscall(SYS_clone3, args, sizeof(args));
	if (pid == 0)
		_exit(0);
	report("clone3", pid);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Allowed by the profile alone. */
	report("getpid", syscall(SYS_getpid));
	report("ptrace_peek_self", syscall(SYS_ptrace, 0x7fffffffL, 0L, 0L, 0L));
	/* socket: allowed by family, AF_VSOCK refused (a range test). */
	report_fd("socket_unix", syscall(SYS_socket, 1L, 1L, 0L));
	report_fd("socket_inet", syscall(SYS_socket, 2L, 2L, 0L));
	report_fd("socket_vsock", syscall(SYS_socket, (long)AF_VSOCK_FAMILY, 1L, 0L));
	/* personality: a list of exact values. */
	probe_personality("personality_linux", 0);
	probe_personality("personality_linux32", PER_LINUX32_FLAG);
	probe_personality("personality_query", PERSONALITY_QUERY);
	probe_personality("personality_uname26", UNAME26_FLAG);
	probe_personality("personality_no_aslr", ADDR_NO_RANDOMIZE_FLAG);
	/* clone: a mask of namespace flags; clone3 gets ENOSYS. */
	probe_clone("clone_plain", 0);
	probe_clone("clone_newuser", CLONE_NEWUSER_FLAG);
	probe_clone("clone_newns", CLONE_NEWNS_FLAG);
	probe_clone3();
	/* Left to the default action (Docker's EPERM). */
	report("unshare_newns", syscall(SYS_unshare, CLONE_NEWNS_FLAG));
	report("keyctl", syscall(SYS_keyctl, 0L, 0L, 0L, 0L, 0L));
	report("add_key", syscall(SYS_add_key, "secbpf-no-such-type", "secbpf", "x", 1L, -3L));
	report("bpf", syscall(SYS_bpf, 0L, 0L, 0L));
	report("userfaultfd", syscall(SYS_userfaultfd, 0L));
	report("mount", syscall(SYS_mount, "none", "/secbpf-no-such-dir", "tmpfs", 0L, NULL));
	report_fd("io_uring_setup", syscall(SYS_io_uring_setup, 0L, NULL));
	/* A number no syscall has: libseccomp's arch has no name for it. */
	report("nosys_1000", syscall(NO_SUCH_SYSCALL));
	return 0;
}
