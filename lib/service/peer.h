/* SPDX-License-Identifier: MIT */
/*
 * Who is on the other end of one of secbpfd's sockets, as the kernel says
 * it (SO_PEERCRED and SO_PEERGROUPS, taken when the peer connected): never
 * from what the peer sends. And the tier such a peer would get if it
 * loaded a program itself (SVC_REQ_POLICY).
 */
#ifndef SECBPF_SERVICE_PEER_H
#define SECBPF_SERVICE_PEER_H

#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"

struct svc_peer {
	pid_t pid; /* in our pid namespace; 0 when not visible from it */
	uid_t uid;
	gid_t gid;
	gid_t *groups; /* supplementary groups */
	size_t ngroups;
};

/* Read the credentials of sock's peer. Returns 0 or -errno (err set);
 * free with svc_peer_free. */
int svc_peer_read(int sock, struct svc_peer *peer, struct secbpf_err *err);
void svc_peer_free(struct svc_peer *peer);

/*
 * The answer to SVC_REQ_POLICY on sock: the tier its peer would be
 * granted if it loaded a program itself, and why, as `secbpf policy`
 * prints it (policy_describe: "tier: T\n" first), decided from what the
 * kernel says of the peer (policy_read_peer) and the policy file at
 * policy_path (NULL: the system's). Returns the text's length, or -errno
 * with err set.
 */
int svc_peer_policy(int sock, const char *policy_path, char *text, size_t size,
		    struct secbpf_err *err);

#endif
