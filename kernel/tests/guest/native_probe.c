// SPDX-License-Identifier: MIT
/*
 * native_probe NR [ARG]...: make one raw syscall and print what it returned,
 * as `errno=N` or `ret=ok` (a success; the value itself varies from run to
 * run). kernel/tests/native_cli.sh runs it under secbpf's filters to
 * compare the user-space and the native decisions. A filter's KILL shows
 * as the probe dying of SIGSYS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long a[6] = { 0 };
	long nr, r;
	int i;

	if (argc < 2 || argc > 8) {
		fprintf(stderr, "usage: native_probe NR [ARG]... (at most 6 args)\n");
		return 2;
	}
	nr = strtol(argv[1], NULL, 0);
	for (i = 2; i < argc; i++)
		a[i - 2] = strtoull(argv[i], NULL, 0);
	r = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r == -1)
		printf("errno=%d\n", errno);
	else
		printf("ret=ok\n");
	return 0;
}
