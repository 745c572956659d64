// SPDX-License-Identifier: MIT
/*
 * A peer's identity from the kernel (see peer.h), and the tier it would
 * get: the policy engine's decision fed with the peer's credentials rather
 * than ours, so that a user namespace or a policy file the peer controls
 * gains it nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "install/policy.h"
#include "service/peer.h"

#define MAX_GROUPS 65536

int svc_peer_read(int sock, struct svc_peer *peer, struct secbpf_err *err)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	gid_t *groups;

	memset(peer, 0, sizeof(*peer));
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &uc, &len) || len != sizeof(uc))
		return err_set(err, errno ? errno : EPROTO, "SO_PEERCRED: %s", strerror(errno));
	peer->pid = uc.pid;
	peer->uid = uc.uid;
	peer->gid = uc.gid;
	len = 64 * sizeof(gid_t);
	for (;;) {
		groups = malloc(len ? len : sizeof(gid_t));
		if (!groups)
			return err_set(err, ENOMEM, "out of memory");
		if (getsockopt(sock, SOL_SOCKET, SO_PEERGROUPS, groups, &len) == 0)
			break;
		free(groups);
		if (errno != ERANGE || len > MAX_GROUPS * sizeof(gid_t))
			return err_set(err, errno, "SO_PEERGROUPS: %s", strerror(errno));
	}
	peer->groups = groups;
	peer->ngroups = len / sizeof(gid_t);
	return 0;
}

void svc_peer_free(struct svc_peer *peer)
{
	free(peer->groups);
	peer->groups = NULL;
	peer->ngroups = 0;
}

int svc_peer_policy(int sock, const char *policy_path, char *text, size_t size,
		    struct secbpf_err *err)
{
	struct policy_decision d;
	struct policy_inputs in;
	int rc;

	rc = policy_read_peer(&in, sock, policy_path, NULL, err);
	if (rc)
		return rc;
	rc = policy_decide(&in, SECBPF_TIER_PRIVILEGED, &d, err);
	if (rc)
		return rc;
	rc = policy_describe(&in, &d, text, size);
	if (rc < 0)
		return err_set(err, -rc, "the policy answer does not fit");
	return rc;
}
