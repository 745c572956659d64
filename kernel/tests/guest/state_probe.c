// SPDX-License-Identifier: MIT
/*
 * state_probe OP...: a scripted workload for the stateful fidelity test
 * (kernel/tests/native_fidelity.sh). Each OP makes syscalls and prints one
 * line "OP=RESULT", where RESULT is the errno, or "ok" on success (the
 * values themselves vary from run to run, so they are never printed):
 *
 *   close N        close(N)
 *   listen         listen(-1, 0)
 *   call NR COUNT  COUNT raw syscalls NR without arguments: "callNR=r,r,..."
 *   openat PATH    openat(AT_FDCWD, PATH, O_RDONLY)
 *   exec OP...     execve itself with OP... (on failure it goes on)
 *   fork OP... end run OP... in a child process (no exec), wait, go on
 *                  after 'end'
 *   thread         a 'task' op in a new thread
 *   nodump         prctl(PR_SET_DUMPABLE, 0)
 * and the helper probes of kernel/tests/helper_values.bpf.c, which answer
 * through the errno of close(0x5ecb00OP, ...): 201 the helper saw what we
 * pass, 202 it saw something else, 203 the helper failed; 300+N the N-th
 * count of the process's task storage:
 *   uidgid pidtgid read readstr task
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define HV_OP(n) (0x5ecb0000ul | (n))

static const char prefix_str[] = "the string helper_values reads";
static volatile uint64_t prefix_u64 = 0x1122334455667788ull;

/* A syscall's result as printed: "ok" or the errno. */
static void result(const char *what, long r)
{
	if (r < 0)
		printf("%s=%d\n", what, errno);
	else
		printf("%s=ok\n", what);
	fflush(stdout);
}

static long helper_op(int op, uint64_t a1, uint64_t a2)
{
	return syscall(SYS_close, HV_OP(op), a1, a2);
}

static void *thread_task(void *arg)
{
	result("thread task", helper_op(5, 0, 0));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int i, j, st;
	pid_t pid;

	for (i = 1; i < argc; i++) {
		const char *op = argv[i];

		if (!strcmp(op, "close") && i + 1 < argc) {
			result("close", syscall(SYS_close, strtoul(argv[++i], NULL, 0)));
		} else if (!strcmp(op, "listen")) {
			result("listen", listen(-1, 0));
		} else if (!strcmp(op, "call") && i + 2 < argc) {
			long nr = strtol(argv[i + 1], NULL, 0),
			     count = strtol(argv[i + 2], NULL, 0);

			printf("call%ld=", nr);
			for (j = 0; j < count; j++) {
				long r = syscall(nr);

				if (r < 0)
					printf("%s%d", j ? "," : "", errno);
				else
					printf("%sok", j ? "," : "");
			}
			printf("\n");
			fflush(stdout);
			i += 2;
		} else if (!strcmp(op, "openat") && i + 1 < argc) {
			int fd = openat(AT_FDCWD, argv[++i], O_RDONLY);

			result("openat", fd);
			if (fd >= 0)
				close(fd);
		} else if (!strcmp(op, "exec")) {
			argv[i] = argv[0];
			fflush(stdout);
			execv("/proc/self/exe", argv + i);
			result("exec", -1);
		} else if (!strcmp(op, "fork")) {
			fflush(stdout);
			pid = fork();
			if (pid < 0) {
				result("fork", -1);
				return 1;
			}
			if (pid == 0) {
				/* the child: OP... up to 'end', then exit */
				for (j = i + 1; j < argc && strcmp(argv[j], "end"); j++)
					;
				argv[j] = NULL;
				argc = j;
				printf("child:\n");
				fflush(stdout);
				continue;
			}
			waitpid(pid, &st, 0);
			for (i++; i < argc && strcmp(argv[i], "end"); i++)
				;
			printf("parent:\n");
			fflush(stdout);
		} else if (!strcmp(op, "thread")) {
			if (pthread_create(&th, NULL, thread_task, NULL) == 0)
				pthread_join(th, NULL);
			else
				printf("thread=failed\n");
		} else if (!strcmp(op, "nodump")) {
			result("nodump", prctl(PR_SET_DUMPABLE, 0, 0, 0, 0));
		} else if (!strcmp(op, "uidgid")) {
			result("uidgid", helper_op(1, (uint64_t)getgid() << 32 | getuid(), 0));
		} else if (!strcmp(op, "pidtgid")) {
			result("pidtgid",
			       helper_op(2, (uint64_t)getpid() << 32 | (uint32_t)gettid(), 0));
		} else if (!strcmp(op, "read")) {
			result("read", helper_op(3, (uintptr_t)&prefix_u64, prefix_u64));
		} else if (!strcmp(op, "readstr")) {
			result("readstr", helper_op(4, (uintptr_t)prefix_str, sizeof(prefix_str)));
		} else if (!strcmp(op, "task")) {
			result("task", helper_op(5, 0, 0));
		} else {
			fprintf(stderr, "state_probe: bad op '%s'\n", op);
			return 2;
		}
	}
	return 0;
}
