// SPDX-License-Identifier: MIT
/*
 * secbpfd's handles (docs/secbpfd.md): the RFC's loaded program as an fd.
 * A handle is one end of a socketpair; the service keeps the other, bound
 * to one served program. The program and tier come from that binding,
 * never from bytes the holder sends: a handle cannot be forged (only the
 * service's own socketpairs reach this code), retargeted or raised.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/proc_status.h"
#include "service/server.h"

size_t svc_handles_of(const struct svc_server *srv, uid_t uid)
{
	const struct svc_handle *h;
	size_t n = 0;

	for (h = srv->handles; h; h = h->next)
		n += h->owner == uid;
	return n;
}

int svc_handle_mint(struct svc_server *srv, struct svc_program *prog, uid_t uid, int *client_fd,
		    struct secbpf_err *err)
{
	struct svc_handle *h;
	int sv[2], one = 1, flags;

	if (srv->nhandles >= SVC_MAX_HANDLES)
		return err_set(err, EMFILE, "the service holds %d handles, its most: try later",
			       SVC_MAX_HANDLES);
	if (svc_handles_of(srv, uid) >= SVC_MAX_HANDLES_PER_UID)
		return err_set(err, EMFILE,
			       "uid %u holds %d handles, the most one user may: close some",
			       (unsigned int)uid, SVC_MAX_HANDLES_PER_UID);
	h = calloc(1, sizeof(*h));
	if (!h)
		return err_set(err, ENOMEM, "out of memory");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		int e = errno;

		free(h);
		return err_set(err, e, "socketpair: %s", strerror(e));
	}
	/* Our end only: non-blocking, and with the sender's credentials on
	 * every message (who attaches). */
	flags = fcntl(sv[0], F_GETFL);
	if (flags < 0 || fcntl(sv[0], F_SETFL, flags | O_NONBLOCK) ||
	    setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one))) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		free(h);
		return err_set(err, e, "handle socket: %s", strerror(e));
	}
	h->ep.kind = SVC_EP_HANDLE;
	h->ep.fd = sv[0];
	h->id = ++srv->next_handle_id;
	h->prog = prog;
	h->owner = uid;
	if (svc_watch(srv, &h->ep)) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		free(h);
		return err_set(err, e, "epoll: %s", strerror(e));
	}
	h->next = srv->handles;
	srv->handles = h;
	srv->nhandles++;
	svc_catalog_hold(prog);
	*client_fd = sv[1];
	return 0;
}

static void handle_close(struct svc_server *srv, struct svc_handle *h)
{
	struct svc_handle **pp;

	for (pp = &srv->handles; *pp; pp = &(*pp)->next)
		if (*pp == h) {
			*pp = h->next;
			break;
		}
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, h->ep.fd, NULL);
	close(h->ep.fd);
	srv->nhandles--;
	svc_catalog_put(srv, h->prog);
	free(h);
}

void svc_handles_close_all(struct svc_server *srv)
{
	while (srv->handles)
		handle_close(srv, srv->handles);
}

/* SVC_REQ_FILTER: a fresh sealed memfd of the program's image for each
 * request, so that no holder shares a file offset with another. */
static int send_filter(struct svc_handle *h, struct secbpf_err *err)
{
	char name[SVC_NAME_MAX + 16];
	int fd, rc;

	snprintf(name, sizeof(name), "secbpfd:%s", h->prog->conf->name);
	fd = svc_memfd_sealed(name, h->prog->image, h->prog->image_len, err);
	if (fd < 0)
		return svc_send_error(h->ep.fd, -fd, err, "%s: %s", h->prog->conf->name, err->msg);
	rc = svc_send(h->ep.fd, SVC_REP_FILTER, NULL, 0, fd, err);
	close(fd);
	return rc;
}

/* The parent and effective uid of pid, from /proc/PID/status. Returns 0 or
 * -errno. */
static int proc_parent_and_uid(pid_t pid, uint64_t *ppid, uint64_t *uid)
{
	char path[32], status[PROC_STATUS_SIZE];
	uint64_t ids[4] = { 0 };
	ssize_t n;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	n = proc_status_read(AT_FDCWD, path, status, sizeof(status));
	if (n < 0)
		return (int)n;
	rc = proc_status_u64(status, "PPid", 10, ppid);
	if (!rc)
		rc = proc_status_numbers(status, "Uid", 10, UINT32_MAX, ids, 4);
	*uid = ids[1]; /* effective, as SCM_CREDENTIALS gives it */
	return rc;
}

/*
 * The pid an SVC_REQ_ATTACH names is believed only when the kernel vouches
 * for it: it is the sender itself (SCM_CREDENTIALS), or the sender's
 * parent (a helper child sends the listener for the process that installed
 * the filters) running as the sender's uid. Else the sender's pid is
 * recorded. It decides nothing about what the program answers
 * (notifications come only from tasks under the filter); it names the
 * supervised process in the log.
 */
static pid_t attaching_pid(const struct svc_msg *m, const struct svc_attach *a)
{
	uint64_t ppid = 0, uid = 0, puid = 0, pppid;

	if (!m->has_creds || m->pid <= 0)
		return 0;
	if (a->pid == m->pid || a->pid <= 0)
		return m->pid;
	if (proc_parent_and_uid(m->pid, &ppid, &uid) == 0 && ppid == (uint64_t)a->pid &&
	    uid == m->uid && proc_parent_and_uid(a->pid, &pppid, &puid) == 0 && puid == m->uid)
		return a->pid;
	return m->pid;
}

/* SVC_REQ_ATTACH: supervise the listener that came with it. Returns 0
 * (answered, keep the handle) or -errno (drop it). */
static int attach_listener(struct svc_server *srv, struct svc_handle *h, struct svc_msg *m,
			   struct secbpf_err *err)
{
	const char *name = h->prog->conf->name;
	struct svc_attach a;
	uid_t uid = m->has_creds ? m->uid : h->owner;
	int listener = m->fd, rc;

	m->fd = -1;
	if (m->hdr.len != sizeof(a)) {
		close(listener);
		svc_send_error(h->ep.fd, EINVAL, err,
			       "attach: the payload is not a struct svc_attach");
		return -EINVAL;
	}
	memcpy(&a, m->payload, sizeof(a));
	if (a.reserved || listener < 0) {
		if (listener >= 0)
			close(listener);
		svc_send_error(h->ep.fd, EINVAL, err, "attach: %s",
			       listener < 0 ? "no listener fd came with the request"
					    : "reserved field set");
		return -EINVAL;
	}
	if (!h->prog->stateful) {
		close(listener);
		return svc_send_error(h->ep.fd, EINVAL, err,
				      "%s: stateless: the kernel runs all of it, there is nothing "
				      "to supervise (install its filters without a listener)",
				      name);
	}
	if (h->spent) {
		close(listener);
		return svc_send_error(h->ep.fd, EALREADY, err,
				      "%s: handle %llu has attached already: a handle attaches "
				      "once (ask the service for another)",
				      name, (unsigned long long)h->id);
	}
	if (srv->nattachments >= SVC_MAX_ATTACHMENTS ||
	    svc_attachments_of(srv, uid) >= SVC_MAX_ATTACH_PER_UID) {
		close(listener);
		return svc_send_error(h->ep.fd, EMFILE, err,
				      "%s: too many supervised filters (%zu in all, at most %d per "
				      "user and %d in all)",
				      name, srv->nattachments, SVC_MAX_ATTACH_PER_UID,
				      SVC_MAX_ATTACHMENTS);
	}
	rc = svc_attach(srv, h->prog, h->id, listener, uid, attaching_pid(m, &a), err);
	if (rc)
		return svc_send_error(h->ep.fd, -rc, err, "%s: %s", name, err->msg);
	h->spent = true;
	return svc_send(h->ep.fd, SVC_REP_OK, NULL, 0, -1, err);
}

/* One message on h. Returns 0 to keep the handle, or -errno to drop it
 * (its holder sent what is not a request of a handle, or hung up). */
static int handle_message(struct svc_server *srv, struct svc_handle *h, struct svc_msg *m)
{
	struct secbpf_err err = { { 0 } };
	int rc = svc_recv_request(srv, h->ep.fd, m);

	if (rc)
		return rc;
	switch (m->hdr.type) {
	case SVC_REQ_FILTER:
		if (m->fd >= 0 || m->hdr.len)
			break;
		return send_filter(h, &err);
	case SVC_REQ_ATTACH:
		return attach_listener(srv, h, m, &err);
	default:
		break;
	}
	srv->rejected_requests++;
	if (m->fd >= 0)
		close(m->fd);
	svc_send_error(h->ep.fd, EBADRQC, &err,
		       "request %u with %u bytes%s is not one a handle answers (filter, attach)",
		       m->hdr.type, m->hdr.len, m->fd >= 0 ? " and an fd" : "");
	return -EBADRQC;
}

void svc_handle_serve(struct svc_server *srv, struct svc_handle *h)
{
	int i, rc = 0;

	for (i = 0; i < SVC_BURST; i++) {
		rc = handle_message(srv, h, &srv->msg);
		if (rc)
			break;
	}
	if (rc && rc != -EAGAIN)
		handle_close(srv, h);
}
