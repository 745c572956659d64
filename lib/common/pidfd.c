// SPDX-License-Identifier: MIT
/*
 * Pidfds of socket peers (pidfd.h): SO_PEERPIDFD where the kernel has it,
 * pidfd_open(pid) before, and the liveness check both rely on.
 */
#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/pidfd.h"

/* Not in Debian 12's headers (asm-generic/socket.h of Linux 6.5). */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

int pidfd_of_peer(int sock, pid_t pid, bool *exact)
{
	socklen_t len = sizeof(int);
	int pidfd = -1;

	*exact = false;
	if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0 && pidfd >= 0) {
		*exact = true;
		return pidfd;
	}
	/* EINVAL (6.5 to 6.15): the peer has been reaped; ENODATA: no
	 * process made this socket. Only a kernel without the option
	 * (ENOPROTOOPT) leaves the pid to go by. */
	if (errno == EINVAL)
		return -ESRCH;
	if (errno != ENOPROTOOPT)
		return -errno;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return pidfd >= 0 ? pidfd : -errno;
}

bool pidfd_alive(int pidfd)
{
	/* Signal 0 checks permission too: EPERM says the process is there
	 * but not ours to signal; only ESRCH says it is gone. */
	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0 || errno == EPERM;
}
