// SPDX-License-Identifier: MIT
/*
 * secbpfd as the seccomp agent of container runtimes (docs/secbpfd.md):
 * crun's run.oci.seccomp.receiver and runc's linux.seccomp.listenerPath
 * connect to a SOCK_STREAM socket and send the container's state as JSON
 * with its seccomp listener (SCM_RIGHTS). The state's annotation
 * "secbpf.program" names the program; the runtime's user (SO_PEERCRED)
 * must be admitted to it by an allow line, as a client asking for a handle
 * would be. The listener is then supervised exactly as a handle's.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "service/server.h"

#define STATE_MAX 65536 /* the most JSON a runtime may send */
#define PROGRAM_ANNOTATION "secbpf.program"

static void runtime_close(struct svc_server *srv, struct svc_runtime_conn *r)
{
	struct svc_runtime_conn **pp;

	for (pp = &srv->runtime_conns; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, r->ep.fd, NULL);
	close(r->ep.fd);
	if (r->listener >= 0)
		close(r->listener);
	svc_peer_free(&r->peer);
	free(r->buf);
	srv->nconns--;
	free(r);
}

static size_t runtime_conns_of(const struct svc_server *srv, uid_t uid)
{
	const struct svc_runtime_conn *r;
	size_t n = 0;

	for (r = srv->runtime_conns; r; r = r->next)
		n += r->peer.uid == uid;
	return n;
}

void svc_runtime_accept(struct svc_server *srv, struct svc_endpoint *ep)
{
	struct secbpf_err err = { { 0 } };
	struct svc_runtime_conn *r;
	int i, fd;

	for (i = 0; i < SVC_BURST; i++) {
		fd = accept4(ep->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		r = calloc(1, sizeof(*r));
		if (!r || srv->nconns >= SVC_MAX_CONNS) {
			free(r);
			close(fd);
			continue;
		}
		r->ep.kind = SVC_EP_RUNTIME_CONN;
		r->ep.fd = fd;
		r->listener = -1;
		/* A runtime that connects and says nothing holds a slot: at
		 * most SVC_MAX_CONNS_PER_UID of them per user. */
		if (svc_peer_read(fd, &r->peer, &err) ||
		    runtime_conns_of(srv, r->peer.uid) >= SVC_MAX_CONNS_PER_UID ||
		    svc_watch(srv, &r->ep)) {
			svc_peer_free(&r->peer);
			close(fd);
			free(r);
			continue;
		}
		r->next = srv->runtime_conns;
		srv->runtime_conns = r;
		srv->nconns++;
	}
}

/* Read what is there: bytes into r->buf, the first fd into r->listener
 * (any other fd is closed). Returns 1 at end of stream, 0 when it would
 * block, or -errno. */
static int runtime_read(struct svc_runtime_conn *r)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 8)];
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t n;
	size_t k, i;

	if (!r->buf) {
		r->buf = malloc(STATE_MAX + 1);
		if (!r->buf)
			return -ENOMEM;
	}
	for (;;) {
		if (r->len == STATE_MAX)
			return -EMSGSIZE;
		iov.iov_base = r->buf + r->len;
		iov.iov_len = STATE_MAX - r->len;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		n = recvmsg(r->ep.fd, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (i = 0; i < k; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				if (r->listener < 0)
					r->listener = fd;
				else
					close(fd);
			}
		}
		if (n == 0)
			return 1;
		r->len += (size_t)n;
	}
}

/* The string at obj.key, or NULL. */
static const char *json_string_at(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/*
 * The container's state is complete: find the program and supervise the
 * listener with it. Returns 0 or -errno with err set (then logged).
 */
static int runtime_attach(struct svc_server *srv, struct svc_runtime_conn *r,
			  struct json_object *state, struct secbpf_err *err)
{
	struct json_object *inner = NULL, *annotations = NULL, *fds = NULL, *pid = NULL;
	const char *name;
	struct svc_program *p;
	int listener;

	json_object_object_get_ex(state, "state", &inner);
	json_object_object_get_ex(inner, "annotations", &annotations);
	name = json_string_at(annotations, PROGRAM_ANNOTATION);
	if (!name)
		return err_set(err, EINVAL,
			       "the container has no '" PROGRAM_ANNOTATION
			       "' annotation naming the program");
	p = svc_catalog_find(srv->cat, name);
	if (!p || !p->served)
		return err_set(err, ENOENT, "%s: %s", name,
			       p ? "not served: it failed verification" : "no such program");
	if (!svc_config_admits(p->conf, r->peer.uid, r->peer.gid, r->peer.groups, r->peer.ngroups))
		return err_set(err, EACCES, "%s: uid %u (the runtime) may not use this program",
			       name, (unsigned int)r->peer.uid);
	if (!json_object_object_get_ex(state, "fds", &fds) ||
	    !json_object_is_type(fds, json_type_array) || json_object_array_length(fds) != 1 ||
	    strcmp(json_object_get_string(json_object_array_get_idx(fds, 0)) ?: "", "seccompFd"))
		return err_set(err, EINVAL, "the state's fds is not [\"seccompFd\"]");
	if (r->listener < 0)
		return err_set(err, EBADF, "no listener came with the state");
	if (!p->stateful)
		return err_set(err, EINVAL, "%s: stateless: nothing to supervise", name);
	if (svc_attachments_of(srv, r->peer.uid) >= SVC_MAX_ATTACH_PER_UID ||
	    srv->nattachments >= SVC_MAX_ATTACHMENTS)
		return err_set(err, EMFILE, "%s: too many supervised filters", name);
	json_object_object_get_ex(state, "pid", &pid);
	listener = r->listener;
	r->listener = -1;
	/* The pid is the runtime's word: it only names the container in the
	 * log and for `secbpf ps` (the runtime is trusted with its container). */
	return svc_attach(
		srv, p, 0, listener, r->peer.uid,
		pid && json_object_is_type(pid, json_type_int) ? json_object_get_int(pid) : 0, err);
}

void svc_runtime_serve(struct svc_server *srv, struct svc_runtime_conn *r)
{
	struct secbpf_err err = { { 0 } };
	struct json_tokener *tok;
	struct json_object *state;
	int rc = runtime_read(r);

	if (rc == 0 && r->len == 0)
		return;
	if (rc < 0) {
		fprintf(srv->log, "secbpfd: runtime (uid %u): %s\n", (unsigned int)r->peer.uid,
			strerror(-rc));
		runtime_close(srv, r);
		return;
	}
	/* Complete JSON (the runtimes send it at once), or the end of stream. */
	tok = json_tokener_new();
	state = tok ? json_tokener_parse_ex(tok, r->buf, (int)r->len) : NULL;
	if (tok && !state && json_tokener_get_error(tok) == json_tokener_continue && rc == 0) {
		json_tokener_free(tok);
		return;
	}
	json_tokener_free(tok);
	if (!state)
		rc = err_set(&err, EINVAL, "the state is not JSON");
	else
		rc = runtime_attach(srv, r, state, &err);
	json_object_put(state);
	if (rc)
		fprintf(srv->log, "secbpfd: runtime (uid %u): %s\n", (unsigned int)r->peer.uid,
			err.msg);
	runtime_close(srv, r);
}

void svc_runtime_close_all(struct svc_server *srv)
{
	while (srv->runtime_conns)
		runtime_close(srv, srv->runtime_conns);
}
