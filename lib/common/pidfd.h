/* SPDX-License-Identifier: MIT */
/*
 * Pidfds of the processes on the other end of unix sockets: which process
 * connected, named so that a later process reusing its pid is never taken
 * for it (secbpfd's policy answers, the supervisors' control sockets).
 */
#ifndef SECBPF_COMMON_PIDFD_H
#define SECBPF_COMMON_PIDFD_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * A pidfd of the process that connected sock (or made its socket pair),
 * whose pid SO_PEERCRED gave as pid. SO_PEERPIDFD (Linux 6.5+) names
 * exactly that process, and *exact is set. Before 6.5 only pidfd_open(pid)
 * is left: it names whoever holds pid now, which may be a later process
 * if the peer exited before we asked; *exact is false and the caller must
 * tell them apart some other way. Returns the pidfd (close-on-exec) or
 * -errno: -ESRCH when the kernel says the peer is gone.
 */
int pidfd_of_peer(int sock, pid_t pid, bool *exact);

/*
 * Whether the process of pidfd still exists (even as a zombie): while it
 * does, its pid names it and no other, so what was read of /proc/PID
 * before this answered true was about it.
 */
bool pidfd_alive(int pidfd);

#endif
