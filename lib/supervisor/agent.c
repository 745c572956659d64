// SPDX-License-Identifier: MIT
/*
 * The user agent protocol (docs/agent.md, include/secbpf/agent.h): connect
 * to the agent, check who it is, ask it about a USER_NOTIF and check its
 * reply strictly. Any failure drops the agent for good (fail closed).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <secbpf/agent.h>

#include "install/action.h"
#include "supervisor/supervisor_internal.h"

int supervisor_agent_connect(const char *path, struct secbpf_err *err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, e;

	if (strlen(path) >= sizeof(addr.sun_path))
		return err_set(err, ENAMETOOLONG, "%s: the socket path is too long", path);
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && fd <= 2) {
		/* With stdin closed it could be 0, which supervisor_opts
		 * takes as "no agent": move it out of the way. */
		e = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		close(fd);
		fd = e;
	}
	if (fd < 0)
		return err_set(err, errno, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		e = errno;
		close(fd);
		return err_set(err, e, "%s: cannot connect to the agent: %s", path, strerror(e));
	}
	/* The agent's answers can let syscalls run: only our own user (or
	 * root) may give them, never whoever could bind that path. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		e = errno;
		close(fd);
		return err_set(err, e, "%s: cannot tell who the agent is: %s", path, strerror(e));
	}
	if (cred.uid != geteuid() && cred.uid != 0) {
		close(fd);
		return err_set(err, EPERM, "%s: the agent runs as uid %u, not as %u or root", path,
			       (unsigned)cred.uid, (unsigned)geteuid());
	}
	return fd;
}

/* The agent failed: forget it for good (fail closed). Under agent_lock. */
static void agent_drop(struct supervisor *sv, const char *why)
{
	supervisor_log(sv, "user agent: %s; from now on USER_NOTIF fails with ENOSYS", why);
	close(sv->agent_fd);
	sv->agent_fd = -1;
}

/* Whether r is a well-formed answer to request id (see secbpf/agent.h). */
static bool agent_reply_valid(const struct secbpf_agent_reply *r, uint64_t id)
{
	if (r->hdr.magic != SECBPF_AGENT_MAGIC || r->hdr.version != SECBPF_AGENT_VERSION ||
	    r->hdr.size != sizeof(*r) || r->hdr.type != SECBPF_AGENT_REPLY || r->hdr.reserved)
		return false;
	if (r->id != id)
		return false;
	if (r->flags == SECCOMP_USER_NOTIF_FLAG_CONTINUE)
		return r->error == 0 && r->val == 0; /* as the kernel demands */
	return r->flags == 0 && r->error >= -(int32_t)ACTION_MAX_ERRNO && r->error <= 0;
}

/* Send the request about notification req (its thread t, the combined
 * action ret). Under agent_lock. Returns 0, or -EPIPE with the agent
 * dropped. */
static int agent_send_request(struct supervisor *sv, const struct seccomp_notif *req,
			      const struct target *t, uint32_t ret)
{
	struct secbpf_agent_request q;
	ssize_t n;

	memset(&q, 0, sizeof(q));
	q.hdr.magic = SECBPF_AGENT_MAGIC;
	q.hdr.version = SECBPF_AGENT_VERSION;
	q.hdr.size = sizeof(q);
	q.hdr.type = SECBPF_AGENT_REQUEST;
	q.id = req->id;
	q.pid = req->pid;
	q.tgid = (uint32_t)t->tgid;
	q.flags = req->flags;
	q.action = ret;
	q.data = req->data;
	n = send(sv->agent_fd, &q, sizeof(q), MSG_NOSIGNAL);
	if (n != (ssize_t)sizeof(q)) {
		agent_drop(sv, n < 0 ? strerror(errno) : "short send");
		return -EPIPE;
	}
	return 0;
}

/*
 * Wait up to the timeout for exactly one reply to request id into *a and
 * check it strictly. Under agent_lock. Returns 0, or -ETIMEDOUT or -EPROTO
 * with the agent dropped.
 */
static int agent_receive_reply(struct supervisor *sv, uint64_t id, struct secbpf_agent_reply *a)
{
	struct pollfd p = { .fd = sv->agent_fd, .events = POLLIN };
	struct iovec iov = { .iov_base = a, .iov_len = sizeof(*a) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;
	int rc;

	do
		rc = poll(&p, 1, (int)sv->agent_timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0) {
		agent_drop(sv, rc == 0 ? "no answer in time" : strerror(errno));
		return -ETIMEDOUT;
	}
	/* One packet, exactly the size of a reply: MSG_TRUNC tells a longer
	 * one, the count a shorter one. */
	memset(a, 0, sizeof(*a));
	n = recvmsg(sv->agent_fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n != (ssize_t)sizeof(*a) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    !agent_reply_valid(a, id)) {
		agent_drop(sv, n == 0  ? "the agent closed the connection"
			       : n < 0 ? strerror(errno)
				       : "malformed reply");
		return -EPROTO;
	}
	return 0;
}

/*
 * Ask the agent about notification req (its thread t, the combined action
 * ret) and put its answer in resp. One exchange at a time on the socket:
 * send the request, wait up to the timeout for exactly one reply, check it
 * strictly. Any failure drops the agent. Returns 0 with resp set; -ESRCH
 * if the notification is no longer valid once answered (nothing to reply);
 * another negative errno (resp untouched: ENOSYS) if there is no agent or
 * it failed.
 */
int supervisor_agent_ask(struct supervisor *sv, const struct seccomp_notif *req,
			 const struct target *t, uint32_t ret, struct seccomp_notif_resp *resp)
{
	struct secbpf_agent_reply a;
	int rc;

	pthread_mutex_lock(&sv->agent_lock);
	if (sv->agent_fd < 0) {
		rc = -ENOTCONN;
		/* Once: a filter meant for an agent would otherwise fail
		 * syscalls with ENOSYS and nobody would know why. */
		if (!sv->told_no_agent)
			supervisor_log(
				sv,
				"pid %u: syscall %d: a filter returned USER_NOTIF and no user "
				"agent answers (give one with secbpf run --agent SOCKET, "
				"docs/agent.md): it fails with ENOSYS, as will the next ones",
				req->pid, req->data.nr);
		sv->told_no_agent = true;
	} else
		rc = agent_send_request(sv, req, t, ret);
	if (!rc)
		rc = agent_receive_reply(sv, req->id, &a);
	pthread_mutex_unlock(&sv->agent_lock);
	if (rc)
		return rc;

	/* The agent may have taken long: is the syscall still waiting? */
	if (!notif_valid(sv, req->id))
		return -ESRCH;
	resp->flags = a.flags;
	resp->error = a.error;
	resp->val = a.val;
	return 0;
}
