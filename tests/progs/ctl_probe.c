// SPDX-License-Identifier: MIT
/*
 * A probe the control tests (tests/test_control.c) run under a counting
 * filter: it prints "ready PID", then for each line N on stdin makes N
 * close(-1) calls and prints "done N", and exits at end of input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	char line[64];
	long n, i;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		n = strtol(line, NULL, 10);
		for (i = 0; i < n; i++)
			close(-1);
		printf("done %ld\n", n);
		fflush(stdout);
	}
	return 0;
}
