// SPDX-License-Identifier: MIT
/*
 * A probe for what a filter cannot promise (docs/divergences.md): a
 * notified syscall interrupted by a handler without SA_RESTART, and the
 * syscalls recent kernels run without consulting seccomp at all.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * eintr: print our pid, wait for SIGUSR2 ("go"), then call getppid once
 * and print "getppid=E" (E its errno, 0 when it ran). SIGUSR1 has a
 * handler without SA_RESTART.
 */
static int eintr(void)
{
	struct sigaction sa;
	sigset_t go, old;
	long r;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1; /* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&go);
	sigaddset(&go, SIGUSR2);
	sigprocmask(SIG_BLOCK, &go, &old);
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	if (sigwait(&go, &sig))
		return 1;
	r = syscall(SYS_getppid);
	printf("getppid=%d\n", r < 0 ? errno : 0);
	return 0;
}

/* One syscall by number with no arguments that matter: "nr=E". */
static int bare(long nr)
{
	long r = syscall(nr, 0, 0, 0, 0, 0, 0);

	printf("%ld=%d\n", nr, r < 0 ? errno : 0);
	return 0;
}

/* edge_probe eintr | edge_probe NR (uretprobe is 335, uprobe 336 on x86_64) */
int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "eintr"))
		return eintr();
	if (argc == 2)
		return bare(strtol(argv[1], NULL, 0));
	return 2;
}
