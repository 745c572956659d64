// SPDX-License-Identifier: MIT
/*
 * A probe that makes one native syscall, `syscall_probe NR [ARG]...` (up to
 * six 64-bit arguments, decimal or 0x hex), and prints "errno=N" (0 if the
 * call succeeded), so that a test sees what a filter made of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long a[6] = { 0 };
	long r;
	int i;

	if (argc < 2 || argc > 8) {
		fprintf(stderr, "usage: syscall_probe NR [ARG]...\n");
		return 2;
	}
	for (i = 2; i < argc; i++)
		a[i - 2] = (long)strtoull(argv[i], NULL, 0);
	errno = 0;
	r = syscall(strtol(argv[1], NULL, 0), a[0], a[1], a[2], a[3], a[4], a[5]);
	printf("errno=%d\n", r < 0 ? errno : 0);
	return 0;
}
