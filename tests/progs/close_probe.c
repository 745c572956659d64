// SPDX-License-Identifier: MIT
/*
 * A probe the run tests start under filters: it calls close(999) and
 * close(111) and prints the errnos, itself and in a forked or exec'd copy,
 * to show the filters reach every descendant.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Print "LABEL close(999)=E close(111)=E" with E the errno, 0 on success. */
static void probe(const char *label)
{
	int e999, e111;

	e999 = close(999) ? errno : 0;
	e111 = close(111) ? errno : 0;
	printf("%s close(999)=%d close(111)=%d\n", label, e999, e111);
	fflush(stdout);
}

static int wait_child(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return 1;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/*
 * close_probe [MODE [LABEL]]: MODE is "self" (the default: probe here),
 * "fork" (probe in a forked child, then here), "exec" (exec a copy of
 * this program that probes) or "fork-exec" (a forked child execs it).
 * Exits with the status of a child that failed, else 0.
 */
int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "self";
	const char *label = argc > 2 ? argv[2] : "main";
	pid_t pid;
	int rc;

	if (!strcmp(mode, "self")) {
		probe(label);
		return 0;
	}
	if (!strcmp(mode, "exec")) {
		execl("/proc/self/exe", argv[0], "self", "exec", (char *)NULL);
		perror("close_probe: execl");
		return 126;
	}
	if (!strcmp(mode, "fork") || !strcmp(mode, "fork-exec")) {
		pid = fork();
		if (pid < 0) {
			perror("close_probe: fork");
			return 1;
		}
		if (pid == 0) {
			if (!strcmp(mode, "fork-exec")) {
				execl("/proc/self/exe", argv[0], "self", "fork-exec", (char *)NULL);
				perror("close_probe: execl");
				_exit(126);
			}
			probe("child");
			_exit(0);
		}
		rc = wait_child(pid);
		probe(label);
		return rc;
	}
	fprintf(stderr, "usage: close_probe [self|fork|exec|fork-exec] [LABEL]\n");
	return 2;
}
