// SPDX-License-Identifier: MIT
/*
 * A peer's identity from the kernel (see peer.h), and the tier it would
 * get: the policy engine's decision fed with the peer's credentials rather
 * than ours, so that a user namespace or a policy file the peer controls
 * gains it nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/proc_status.h"
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

/* Whether the files dirfd/a and /proc/self/b are the same namespace. */
static bool same_ns(int dirfd, const char *a, const char *b)
{
	struct stat sa, sb;

	return fstatat(dirfd, a, &sa, 0) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * The peer's effective capabilities and user namespace, read through one
 * /proc/PID directory fd. The uid in its status must still be the one
 * SO_PEERCRED gave: else the PID was reused (or the peer changed
 * credentials) and we know nothing, which counts as no capability.
 * TODO(policy): replaced by policy_read_peer() from branch s5-policy.
 */
static void peer_inputs(const struct svc_peer *peer, struct policy_inputs *in)
{
	char path[32], status[PROC_STATUS_SIZE];
	uint64_t ids[4], caps;
	int dirfd;

	in->cap_effective = 0;
	in->in_init_userns = false;
	if (peer->pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d", (int)peer->pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return;
	if (proc_status_read(dirfd, "status", status, sizeof(status)) > 0 &&
	    proc_status_numbers(status, "Uid", 10, UINT32_MAX, ids, 4) == 0 &&
	    ids[1] == peer->uid && proc_status_u64(status, "CapEff", 16, &caps) == 0) {
		in->cap_effective = caps;
		in->in_init_userns =
			policy_in_init_userns() && same_ns(dirfd, "ns/user", "/proc/self/ns/user");
	}
	close(dirfd);
}

int svc_peer_policy(const struct svc_peer *peer, const char *policy_path, char *text, size_t size,
		    struct secbpf_err *err)
{
	struct policy_decision d;
	struct policy_inputs in;
	int rc, n;

	rc = policy_read_system(&in, policy_path, err);
	if (rc)
		return rc;
	peer_inputs(peer, &in);
	rc = policy_decide(&in, SECBPF_TIER_PRIVILEGED, &d, err);
	if (rc)
		return rc;
	n = snprintf(text, size, "tier: %s\nreason: %s\nuid: %u\n", secbpf_tier_name(d.tier),
		     d.reason[0] ? d.reason : "granted", (unsigned int)peer->uid);
	if (n < 0 || (size_t)n >= size)
		return err_set(err, EOVERFLOW, "the policy answer does not fit");
	return n;
}
