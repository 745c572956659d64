/* SPDX-License-Identifier: MIT */
/*
 * secbpfd's door for container runtimes (docs/containers.md): crun
 * (run.oci.seccomp.receiver) and runc (linux.seccomp.listenerPath) connect
 * to the agent socket and send the container's seccomp listener with a
 * JSON state; secbpfd supervises it with the program the state names.
 */
#ifndef SECBPF_SERVICE_AGENT_OCI_H
#define SECBPF_SERVICE_AGENT_OCI_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"

/* The annotation naming the program a container runs under. */
#define SVC_OCI_PROGRAM_ANNOTATION "io.secbpf.program"
/* The agent socket's name, next to the client socket. */
#define SVC_AGENT_SOCKET_NAME "agent.sock"
/* The largest state a runtime may send (runc's and crun's are < 4 KiB;
 * annotations can make them larger). */
#define SVC_AGENT_STATE_MAX (256 * 1024)

/*
 * The agent socket that goes with the client socket sock_path: agent.sock
 * in the same directory ("@NAME" abstract sockets: "@NAME.agent", which
 * svc_agent_open and the oci tools refuse, as any abstract name). Writes
 * it to buf; returns 0 or -ENAMETOOLONG.
 */
static inline int svc_agent_socket_for(const char *sock_path, char *buf, size_t size)
{
	const char *slash = strrchr(sock_path, '/');
	int n;

	if (sock_path[0] == '@')
		n = snprintf(buf, size, "%s.agent", sock_path);
	else if (!slash)
		n = snprintf(buf, size, "%s", SVC_AGENT_SOCKET_NAME);
	else
		n = snprintf(buf, size, "%.*s/%s", (int)(slash - sock_path), sock_path,
			     SVC_AGENT_SOCKET_NAME);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

struct svc_server;
struct svc_endpoint;

/*
 * The agent socket at path: SOCK_STREAM (what crun and runc dial), mode
 * 0600, so only root can connect; a stale socket of a dead secbpfd (a
 * socket of our uid) is replaced. path must pass svc_socket_path_trusted
 * for our uid: never an abstract name, and in a directory only we can
 * write, so that no other user can receive what a runtime sends there.
 * Returns the listening fd (close-on-exec) or -errno with err set.
 */
int svc_agent_open(const char *path, struct secbpf_err *err);

/*
 * An event on ep, the agent socket or a runtime's connection: accept
 * connections from root; read what came (never blocking); once a whole
 * state is in, supervise its listener, or log why not and drop it.
 * Connections that send nothing for SVC_AGENT_TIMEOUT_MS are dropped.
 */
void svc_agent_accept(struct svc_server *srv, struct svc_endpoint *ep);
/* Drop every connection still sending (at exit). */
void svc_agent_close_all(struct svc_server *srv);

#define SVC_AGENT_TIMEOUT_MS 2000
#define SVC_AGENT_MAX_PENDING 64 /* runtimes connected and still sending */

#endif
