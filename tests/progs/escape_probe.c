// SPDX-License-Identifier: MIT
/*
 * The filtered tree's attempt to escape through the secbpf processes around
 * it (tests/test_escape.c): run as CMD under a filter that allows ptrace,
 * it finds every secbpf, secbpfd and secbpf-supervisor descending from
 * ROOT_PID and tries PTRACE_ATTACH, PTRACE_SEIZE, writing /proc/PID/mem,
 * process_vm_writev and pidfd_getfd on each. First, the same attempts on a
 * child of its own prove that the filter lets them through.
 *
 *   escape_probe ROOT_PID
 *
 * One line per process found and per attempt, then
 * "escape_probe: summary found=N granted=M control=K/5": an attempt is
 * granted when the kernel's access check passed (even if the address or
 * fd then turned out wrong).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define NATTEMPTS 5

/* Written by the control attempts in the child (same address after fork). */
static volatile unsigned long control_target = 0x5ecb;

/* Whether errno after a failed attempt says the access check refused it
 * (or the process is gone), rather than let it through. */
static bool refused(int e)
{
	return e == EPERM || e == EACCES || e == ESRCH;
}

static void report(pid_t pid, const char *what, bool granted, int e)
{
	printf("escape_probe: attempt %d %s %s%s%s\n", (int)pid, what,
	       granted ? "granted" : "refused", e ? " errno=" : "", e ? strerror(e) : "");
}

/* The state and parent of pid from /proc/PID/stat (after the comm's last
 * ')'); false if it cannot be read. */
static bool stat_of(pid_t pid, char *state, pid_t *ppid)
{
	char path[64], buf[1024], *p;
	int parent;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d", state, &parent) != 2)
		return false;
	*ppid = parent;
	return true;
}

/* The parent of pid, or -1. */
static pid_t parent_of(pid_t pid)
{
	pid_t ppid;
	char state;

	return stat_of(pid, &state, &ppid) ? ppid : -1;
}

/* A zombie has no memory and no fds left to take: the kernel's checks
 * skip the dumpable test for it, and nothing is to be had. */
static bool is_zombie(pid_t pid)
{
	pid_t ppid;
	char state;

	return stat_of(pid, &state, &ppid) && (state == 'Z' || state == 'X');
}

static bool descends_from(pid_t pid, pid_t root)
{
	int depth;

	for (depth = 0; pid > 1 && depth < 64; depth++) {
		if (pid == root)
			return true;
		pid = parent_of(pid);
	}
	return pid == root;
}

/* Which secbpf program pid runs, by its comm or its argv[0]'s last
 * component (the staged copies keep their names); NULL if none. */
static const char *secbpf_kind(pid_t pid)
{
	static const char *const names[] = { "secbpf", "secbpfd", "secbpf-supervisor" };
	char path[64], comm[64] = "", argv0[4096] = "";
	const char *base;
	size_t i, n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (f) {
		n = fread(argv0, 1, sizeof(argv0) - 1, f);
		argv0[n] = '\0';
		fclose(f);
	}
	base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char cut[16];

		/* The comm is cut at 15 bytes: "secbpf-supervis". */
		snprintf(cut, sizeof(cut), "%s", names[i]);
		if (!strcmp(base, names[i]) || !strcmp(comm, cut))
			return names[i];
	}
	return NULL;
}

/* A writable address in pid, from its maps (readable only to who may
 * ptrace it); fallback when they cannot be read. */
static unsigned long writable_address(pid_t pid, unsigned long fallback)
{
	char path[64], line[512], perms[8];
	unsigned long start;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return fallback;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%*x %7s", &start, perms) == 2 && perms[0] == 'r' &&
		    perms[1] == 'w') {
			fclose(f);
			return start;
		}
	fclose(f);
	return fallback;
}

static bool try_ptrace_attach(pid_t pid)
{
	bool granted = ptrace(PTRACE_ATTACH, pid, 0, 0) == 0;
	int e = granted ? 0 : errno;

	if (granted) {
		waitpid(pid, NULL, __WALL);
		ptrace(PTRACE_DETACH, pid, 0, 0);
	}
	report(pid, "ptrace_attach", granted || !refused(e), e);
	return granted || !refused(e);
}

static bool try_ptrace_seize(pid_t pid)
{
	bool granted = ptrace(PTRACE_SEIZE, pid, 0, 0) == 0;
	int e = granted ? 0 : errno;

	if (granted) {
		ptrace(PTRACE_INTERRUPT, pid, 0, 0);
		waitpid(pid, NULL, __WALL);
		ptrace(PTRACE_DETACH, pid, 0, 0);
	}
	report(pid, "ptrace_seize", granted || !refused(e), e);
	return granted || !refused(e);
}

/* Open /proc/PID/mem for writing and write back the byte read at addr. */
static bool try_proc_mem(pid_t pid, unsigned long addr)
{
	char path[64], byte = 0;
	int fd, e;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		report(pid, "proc_mem_open", !refused(e), e);
		return !refused(e);
	}
	report(pid, "proc_mem_open", true, 0);
	if (pread(fd, &byte, 1, (off_t)addr) == 1 && pwrite(fd, &byte, 1, (off_t)addr) == 1)
		report(pid, "proc_mem_write", true, 0);
	else
		report(pid, "proc_mem_write", true, errno);
	close(fd);
	return true;
}

/* process_vm_writev of the byte process_vm_readv read at addr: EFAULT
 * means the access check passed. */
static bool try_process_vm_write(pid_t pid, unsigned long addr)
{
	char byte = 0;
	struct iovec local = { &byte, 1 }, remote = { (void *)addr, 1 };
	ssize_t n;
	int e;

	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != 1)
		byte = 0;
	n = process_vm_writev(pid, &local, 1, &remote, 1, 0);
	e = n == 1 ? 0 : errno;
	report(pid, "process_vm_writev", n == 1 || !refused(e), e);
	return n == 1 || !refused(e);
}

/* pidfd_getfd of fds 0..63: any fd taken, or EBADF (the access check
 * passed, the fd is not there), is granted. */
static bool try_pidfd_getfd(pid_t pid)
{
	long pidfd, fd;
	int i, e = 0;
	bool granted = false;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		e = errno;
		report(pid, "pidfd_open", false, e);
		return false;
	}
	for (i = 0; i < 64; i++) {
		fd = syscall(SYS_pidfd_getfd, (int)pidfd, i, 0);
		if (fd >= 0) {
			close((int)fd);
			granted = true;
			e = 0;
			break;
		}
		e = errno;
		if (!refused(e)) {
			granted = true;
			break;
		}
	}
	close((int)pidfd);
	report(pid, "pidfd_getfd", granted, e);
	return granted;
}

/* Every attempt on pid; how many were granted. */
static int attack(pid_t pid, unsigned long fallback_addr)
{
	unsigned long addr = writable_address(pid, fallback_addr);
	int granted = 0;

	granted += try_ptrace_attach(pid);
	granted += try_ptrace_seize(pid);
	granted += try_proc_mem(pid, addr);
	granted += try_process_vm_write(pid, addr);
	granted += try_pidfd_getfd(pid);
	return granted;
}

/* The attempts on a dumpable child of ours, which the kernel grants:
 * proof that the filter does not stop them. */
static int control(void)
{
	pid_t child;
	int granted;

	child = fork();
	if (child < 0)
		return 0;
	if (child == 0) {
		for (;;)
			pause();
	}
	printf("escape_probe: control %d\n", (int)child);
	granted = attack(child, (unsigned long)&control_target);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return granted;
}

int main(int argc, char **argv)
{
	int found = 0, granted = 0, controlled;
	pid_t root, self = getpid(), pid;
	const char *kind;
	struct dirent *d;
	DIR *proc;

	if (argc != 2 || (root = (pid_t)atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: escape_probe ROOT_PID\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	controlled = control();
	for (pid = parent_of(self); pid > 1; pid = parent_of(pid))
		printf("escape_probe: ancestor %d %s\n", (int)pid,
		       secbpf_kind(pid) ? secbpf_kind(pid) : "-");
	proc = opendir("/proc");
	if (!proc) {
		perror("escape_probe: /proc");
		return 2;
	}
	while ((d = readdir(proc))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid = (pid_t)atoi(d->d_name);
		if (pid == self || !(kind = secbpf_kind(pid)))
			continue;
		if (!descends_from(pid, root)) {
			printf("escape_probe: not ours %d %s\n", (int)pid, kind);
			continue;
		}
		if (is_zombie(pid)) {
			printf("escape_probe: zombie %d %s\n", (int)pid, kind);
			continue;
		}
		printf("escape_probe: found %d %s\n", (int)pid, kind);
		found++;
		granted += attack(pid, 0x10000);
	}
	closedir(proc);
	printf("escape_probe: summary found=%d granted=%d control=%d/%d\n", found, granted,
	       controlled, NATTEMPTS);
	return 0;
}
