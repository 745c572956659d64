// SPDX-License-Identifier: MIT
/*
 * A probe that makes one raw syscall: `syscall_probe NR A0 A1 A2` calls
 * syscall(NR, A0, A1, A2) and prints "errno=E" (0 when it succeeded), for
 * tests that check which filter of a stack denies what.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long a[3] = { 0 };
	long nr, r;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: syscall_probe NR [A0 [A1 [A2]]]\n");
		return 2;
	}
	nr = strtol(argv[1], NULL, 0);
	for (i = 0; i < 3 && i + 2 < argc; i++)
		a[i] = strtoul(argv[i + 2], NULL, 0);
	errno = 0;
	r = syscall(nr, a[0], a[1], a[2]);
	printf("errno=%d\n", r == -1 ? errno : 0);
	return 0;
}
