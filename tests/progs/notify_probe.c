// SPDX-License-Identifier: MIT
/*
 * A probe the supervisor tests (tests/test_supervisor.c, test_agent.c) run
 * under stateful filters: it makes the syscalls those filters send to the
 * supervisor and prints what it saw, one "key=value" per line. The filters
 * it expects are written by the tests; the syscalls used are getppid
 * (counted, or asked an action, by its first argument) and getpgid
 * (notified, always allowed); `call` makes the syscalls it is given.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#define QUERY_MAGIC 0x5ecb /* getppid(QUERY_MAGIC, i): bits 10i.. of the count */
#define COUNT_MAGIC 0xc0   /* getppid(COUNT_MAGIC): counted */
#define ACTION_MAGIC 0xac  /* getppid(ACTION_MAGIC, k): the filter's action k */

/* errno of a syscall, 0 on success. */
static long errno_of(long rc)
{
	return rc < 0 ? errno : 0;
}

/* The count the filter keeps, read 10 bits at a time through errnos. */
static unsigned long long query_count(void)
{
	unsigned long long count = 0;
	long i, rc;

	for (i = 0; i < 4; i++) {
		rc = syscall(SYS_getppid, QUERY_MAGIC, i);
		if (rc != -1 || errno < 1 || errno > 1024)
			return ~0ull;
		count |= (unsigned long long)(errno - 1) << (10 * i);
	}
	return count;
}

struct counter_arg {
	long n;
};

static void *count_thread(void *p)
{
	const struct counter_arg *a = p;
	long i;

	for (i = 0; i < a->n; i++)
		syscall(SYS_getppid, COUNT_MAGIC, 0);
	return NULL;
}

/* count THREADS N: THREADS threads make N getppid each. */
static int mode_count(int threads, long n)
{
	pthread_t t[64];
	struct counter_arg a = { .n = n };
	int i;

	if (threads < 1 || threads > 64)
		return 2;
	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, count_thread, &a))
			return 1;
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("count=%llu\n", query_count());
	return 0;
}

/* churn T N: T threads one after the other, N counted getppid each (the
 * supervisor's per-thread cache must follow threads coming and going). */
static int mode_churn(int threads, long n)
{
	struct counter_arg a = { .n = n };
	pthread_t t;
	int i;

	for (i = 0; i < threads; i++) {
		if (pthread_create(&t, NULL, count_thread, &a))
			return 1;
		pthread_join(t, NULL);
	}
	printf("count=%llu\n", query_count());
	return 0;
}

static void *exec_thread(void *p)
{
	const char *self = p;

	execl(self, self, "count", "1", "10", (char *)NULL);
	_exit(126);
}

/* threadexec: 10 counted getppid, then a second thread execs "count 1 10"
 * (the exec'ing thread takes the leader's TID). */
static int mode_threadexec(const char *self)
{
	pthread_t t;

	count_thread(&(struct counter_arg){ .n = 10 });
	if (pthread_create(&t, NULL, exec_thread, (void *)self))
		return 1;
	pthread_join(t, NULL); /* never returns: the exec replaces us */
	return 1;
}

/* forkexec N [child]: N getppid here, in a forked child and in an exec'd
 * copy (run by the forked child), then the total count. */
static int mode_forkexec(const char *self, long n, int is_child)
{
	char arg[32];
	pid_t pid;
	int st;

	count_thread(&(struct counter_arg){ .n = n });
	if (is_child)
		return 0;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		count_thread(&(struct counter_arg){ .n = n });
		snprintf(arg, sizeof(arg), "%ld", n);
		execl(self, self, "forkexec", arg, "child", (char *)NULL);
		_exit(126);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("count=%llu\n", query_count());
	return 0;
}

static volatile sig_atomic_t trap_code, trap_errno, trap_seen;

static void on_sigsys(int sig, siginfo_t *info, void *uc)
{
	trap_seen = 1;
	trap_code = info->si_code;
	trap_errno = info->si_errno;
}

/* actions: getppid(ACTION_MAGIC, k) for k = 1..7, each answered with the
 * filter's action k (see test_supervisor.c); prints rc and errno. */
static int mode_actions(void)
{
	struct sigaction sa;
	long k, rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	for (k = 1; k <= 7; k++) {
		trap_seen = 0;
		errno = 0;
		rc = syscall(SYS_getppid, ACTION_MAGIC, k);
		printf("action%ld=%d/%d", k, rc < 0 ? -1 : (rc > 0 ? 1 : 0), rc < 0 ? errno : 0);
		if (trap_seen)
			printf(" sigsys code=%d errno=%d", (int)trap_code, (int)trap_errno);
		printf("\n");
	}
	fflush(stdout);
	return 0;
}

/* kill K: print, make getppid(ACTION_MAGIC, K) (a kill), print again. */
static int mode_kill(long k)
{
	printf("before\n");
	fflush(stdout);
	syscall(SYS_getppid, ACTION_MAGIC, k);
	printf("survived\n");
	return 0;
}

/* failclosed: kill the supervisor (our parent), then show that a notified
 * syscall fails with ENOSYS and that installing a listener is refused. */
static int mode_failclosed(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	struct timespec ms = { .tv_sec = 0, .tv_nsec = 1000000 };
	pid_t sup = (pid_t)syscall(SYS_getppid, 0);
	long rc;
	int i;

	rc = syscall(SYS_getpgid, 0);
	printf("before=%ld\n", errno_of(rc));
	fflush(stdout);
	if (kill(sup, SIGKILL))
		return 1;
	for (i = 0; i < 5000 && syscall(SYS_getppid, 0) == sup; i++)
		nanosleep(&ms, NULL);
	if (syscall(SYS_getppid, 0) == sup)
		return 1;
	rc = syscall(SYS_getpgid, 0);
	printf("after=%ld\n", errno_of(rc));
	rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	printf("listener=%ld\n", errno_of(rc));
	if (rc >= 0)
		close((int)rc);
	/* A filter without a listener is still allowed. */
	rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	printf("plain=%ld\n", errno_of(rc));
	return 0;
}

/* ptrace: try to attach to and read the supervisor (our parent). */
static int mode_ptrace(void)
{
	pid_t sup = (pid_t)syscall(SYS_getppid, 0);
	char buf[16], path[64];
	struct iovec local = { buf, sizeof(buf) }, remote = { (void *)&mode_ptrace, sizeof(buf) };
	long rc;
	int fd;

	rc = syscall(SYS_getpgid, 0);
	printf("notified=%ld\n", errno_of(rc));
	rc = ptrace(PTRACE_ATTACH, sup, NULL, NULL);
	printf("attach=%ld\n", errno_of(rc));
	if (rc == 0) {
		/* Privileged: let it go again once it has stopped. */
		waitpid(sup, NULL, __WALL);
		ptrace(PTRACE_DETACH, sup, NULL, NULL);
	}
	rc = process_vm_readv(sup, &local, 1, &remote, 1, 0);
	printf("vm_readv=%ld\n", errno_of(rc));
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)sup);
	fd = open(path, O_RDONLY);
	printf("mem=%ld\n", errno_of(fd));
	if (fd >= 0)
		close(fd);
	return 0;
}

/* run PATH ARGS...: fork, exec, print the errno of the exec ("exec=E"). */
static int mode_run(char **argv)
{
	pid_t pid;
	int st, p[2];
	int e = 0;

	if (pipe(p))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(p[0]);
		execv(argv[0], argv);
		e = errno;
		if (write(p[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(126);
	}
	close(p[1]);
	if (read(p[0], &e, sizeof(e)) != sizeof(e))
		e = 0;
	close(p[0]);
	waitpid(pid, &st, 0);
	printf("exec=%d\n", e);
	return 0;
}

/* marker FD: close(FD) (a filter's announcement), print its errno. */
static int mode_marker(long fd)
{
	printf("marker=%ld\n", errno_of(syscall(SYS_close, fd)));
	return 0;
}

/* burst N NR: N syscalls NR in a row; prints how many failed, and errno. */
static int mode_burst(long n, long nr)
{
	long i, failed = 0, last = 0;

	for (i = 0; i < n; i++)
		if (syscall(nr, 0, 0) < 0) {
			failed++;
			last = errno;
		}
	printf("failed=%ld errno=%ld\n", failed, last);
	return 0;
}

/* call NR...: make each syscall NR(0, 0) in turn; print "NR=RC/ERRNO". */
static int mode_call(int n, char **nrs)
{
	long nr, rc;
	int i;

	for (i = 0; i < n; i++) {
		nr = atol(nrs[i]);
		errno = 0;
		rc = syscall(nr, 0, 0);
		printf("%ld=%ld/%d\n", nr, rc, rc < 0 ? errno : 0);
	}
	return 0;
}

/* open PATH: print the errno of open(PATH, O_RDONLY). */
static int mode_open(const char *path)
{
	int fd = open(path, O_RDONLY);

	printf("open=%ld\n", errno_of(fd));
	if (fd >= 0)
		close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int rc = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "count") && argc == 4)
		rc = mode_count(atoi(argv[2]), atol(argv[3]));
	else if (!strcmp(mode, "forkexec") && argc >= 3)
		rc = mode_forkexec("/proc/self/exe", atol(argv[2]), argc > 3);
	else if (!strcmp(mode, "churn") && argc == 4)
		rc = mode_churn(atoi(argv[2]), atol(argv[3]));
	else if (!strcmp(mode, "threadexec"))
		rc = mode_threadexec("/proc/self/exe");
	else if (!strcmp(mode, "call") && argc >= 3)
		rc = mode_call(argc - 2, argv + 2);
	else if (!strcmp(mode, "actions"))
		rc = mode_actions();
	else if (!strcmp(mode, "kill") && argc == 3)
		rc = mode_kill(atol(argv[2]));
	else if (!strcmp(mode, "failclosed"))
		rc = mode_failclosed();
	else if (!strcmp(mode, "ptrace"))
		rc = mode_ptrace();
	else if (!strcmp(mode, "run") && argc >= 3)
		rc = mode_run(argv + 2);
	else if (!strcmp(mode, "marker") && argc == 3)
		rc = mode_marker(strtol(argv[2], NULL, 0));
	else if (!strcmp(mode, "burst") && argc == 4)
		rc = mode_burst(atol(argv[2]), atol(argv[3]));
	else if (!strcmp(mode, "open") && argc == 3)
		rc = mode_open(argv[2]);
	else
		fprintf(stderr,
			"usage: notify_probe count THREADS N | churn THREADS N | threadexec |"
			" forkexec N | actions | kill K |"
			" failclosed | ptrace | run PATH [ARG]... | marker FD |"
			" burst N NR | open PATH | call NR...\n");
	fflush(stdout);
	return rc;
}
