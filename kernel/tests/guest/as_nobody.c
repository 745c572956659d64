// SPDX-License-Identifier: MIT
/*
 * as_nobody CMD [ARG]...: run CMD as uid/gid 65534 with no supplementary
 * groups and no capabilities, for the unprivileged-loader cases of
 * kernel/tests/native_fidelity.sh (busybox has no setuidgid).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: as_nobody CMD [ARG]...\n");
		return 2;
	}
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534)) {
		fprintf(stderr, "as_nobody: %s\n", strerror(errno));
		return 125;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "as_nobody: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
