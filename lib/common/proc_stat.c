// SPDX-License-Identifier: MIT
/*
 * Reading a process's start time from /proc/PID/stat. The command name
 * (field 2) is in parentheses and may hold spaces and parentheses itself,
 * so the fields are counted from the last ')'.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proc_stat.h"

/* Field 22 is the 20th after the command name's closing parenthesis. */
#define START_TIME_AFTER_COMM 20

int proc_stat_start_time(pid_t pid, uint64_t *start)
{
	char path[64], buf[1024], *p, *end;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -errno;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p++;
	for (i = 0; i < START_TIME_AFTER_COMM; i++) {
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
		p++;
	}
	errno = 0;
	*start = strtoull(p, &end, 10);
	if (errno || end == p || (*end != ' ' && *end != '\n' && *end))
		return -EINVAL;
	return 0;
}
