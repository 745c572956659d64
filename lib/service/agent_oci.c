// SPDX-License-Identifier: MIT
/*
 * The runtime door of secbpfd (docs/containers.md): accept a connection
 * from crun or runc on the agent socket, read the container's state and
 * its seccomp listener (SCM_RIGHTS), find the program the state names and
 * supervise the listener with it, at the tier the configuration granted.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/epoll.h>
#include <time.h>
#include <sys/un.h>
#include <unistd.h>

#include "service/agent_oci.h"
#include "service/server.h"
#include "service/socket_path.h"

#define AGENT_MAX_FDS 16

int svc_agent_open(const char *path, struct secbpf_err *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t plen = strlen(path);
	socklen_t alen;
	struct stat st;
	int fd, rc;

	if (!plen || plen >= sizeof(sa.sun_path))
		return err_set(err, ENAMETOOLONG, "%s: not a usable socket path (1 to %zu bytes)",
			       path, sizeof(sa.sun_path) - 1);
	/* Root's runtimes hand their containers' listeners to whatever
	 * answers at this path: it must be a name only we can have bound. */
	rc = svc_socket_path_trusted(path, geteuid(), err);
	if (rc)
		return rc;
	memcpy(sa.sun_path, path, plen);
	if (!lstat(path, &st) && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
		/* Ours from a secbpfd that is gone (the client socket's own
		 * bind tells a live one apart first); anything else there is
		 * left for bind to refuse. */
		unlink(path);
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_set(err, errno, "agent socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, alen) || chmod(path, 0600) || listen(fd, 128)) {
		int e = errno;

		close(fd);
		return err_set(err, e, "%s: %s (another secbpfd serving it? else remove it)", path,
			       strerror(e));
	}
	return fd;
}

/* What a runtime sent: the state's bytes and the fds that came with them. */
struct agent_msg {
	char *buf;
	size_t len, cap;
	int fds[AGENT_MAX_FDS];
	size_t nfds;
	bool too_many_fds;
};

static void agent_msg_free(struct agent_msg *m)
{
	size_t i;

	for (i = 0; i < m->nfds; i++)
		if (m->fds[i] >= 0)
			close(m->fds[i]);
	free(m->buf);
}

static void take_fds(struct agent_msg *m, struct msghdr *mh)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t n, i;
		int *fds = (int *)CMSG_DATA(c);

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			if (m->nfds < AGENT_MAX_FDS)
				m->fds[m->nfds++] = fds[i];
			else {
				close(fds[i]);
				m->too_many_fds = true;
			}
		}
	}
}

/* A runtime's connection while its state comes in. */
struct svc_agent_conn {
	struct svc_endpoint ep; /* first: what epoll points to */
	struct svc_peer peer;
	struct agent_msg m;
	struct json_tokener *tok;
	struct json_object *state; /* once whole */
	struct timespec deadline;
	struct svc_agent_conn *next;
};

/*
 * Read what is there, never blocking. Returns 1 once the state is a whole
 * JSON object (in c->state), 0 to wait for more, or -errno with err set
 * (the runtime hung up early, sent what is not JSON, or too much).
 */
static int conn_read(struct svc_agent_conn *c, struct secbpf_err *err)
{
	struct agent_msg *m = &c->m;

	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(int) * AGENT_MAX_FDS)];
		struct iovec iov;
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		ssize_t n;

		if (m->len == m->cap) {
			size_t cap = m->cap ? 2 * m->cap : 4096;
			char *buf;

			if (cap > SVC_AGENT_STATE_MAX)
				return err_set(err, EMSGSIZE, "the state is larger than %d bytes",
					       SVC_AGENT_STATE_MAX);
			buf = realloc(m->buf, cap);
			if (!buf)
				return err_set(err, ENOMEM, "out of memory");
			m->buf = buf;
			m->cap = cap;
		}
		iov.iov_base = m->buf + m->len;
		iov.iov_len = m->cap - m->len;
		n = recvmsg(c->ep.fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return err_set(err, errno, "reading the state: %s", strerror(errno));
		take_fds(m, &mh);
		if (mh.msg_flags & MSG_CTRUNC)
			m->too_many_fds = true;
		if (n == 0)
			return err_set(
				err, EBADMSG,
				"the runtime closed before a whole JSON state came (%zu bytes)",
				m->len);
		c->state = json_tokener_parse_ex(c->tok, m->buf + m->len, (int)n);
		m->len += (size_t)n;
		if (c->state)
			return 1;
		if (json_tokener_get_error(c->tok) != json_tokener_continue)
			return err_set(err, EBADMSG, "the state is not JSON: %s",
				       json_tokener_error_desc(json_tokener_get_error(c->tok)));
	}
}

static const char *json_string_at(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/*
 * The program named by the state: state.annotations["io.secbpf.program"]
 * (crun, and runc with the annotation), else runc's metadata
 * "io.secbpf.program=NAME" (an exported profile's listenerMetadata). Both
 * present must agree. Returns the name or NULL with err set.
 */
static const char *state_program(struct json_object *root, struct secbpf_err *err)
{
	static const char prefix[] = SVC_OCI_PROGRAM_ANNOTATION "=";
	struct json_object *st = NULL, *ann = NULL;
	const char *from_ann = NULL, *meta;

	if (json_object_object_get_ex(root, "state", &st) &&
	    json_object_object_get_ex(st, "annotations", &ann))
		from_ann = json_string_at(ann, SVC_OCI_PROGRAM_ANNOTATION);
	meta = json_string_at(root, "metadata");
	if (meta && !strncmp(meta, prefix, sizeof(prefix) - 1)) {
		meta += sizeof(prefix) - 1;
		if (from_ann && strcmp(from_ann, meta)) {
			err_set(err, EINVAL,
				"the annotation names program %s and the metadata %s: which one?",
				from_ann, meta);
			return NULL;
		}
		return meta;
	}
	if (!from_ann)
		err_set(err, ENOENT,
			"the state names no program (annotation " SVC_OCI_PROGRAM_ANNOTATION
			" or metadata " SVC_OCI_PROGRAM_ANNOTATION "=NAME)");
	return from_ann;
}

/* Check the state's shape and find the listener among m's fds: the
 * index of "seccompFd" in "fds", whose length must be the fds' count. */
static int state_listener(struct json_object *root, struct agent_msg *m, pid_t *pid,
			  struct secbpf_err *err)
{
	struct json_object *fds, *v;
	size_t i, n;
	int at = -1;

	if (!json_object_is_type(root, json_type_object) || !json_string_at(root, "ociVersion"))
		return err_set(err, EBADMSG,
			       "the state is not an OCI container process state "
			       "(no ociVersion)");
	if (!json_object_object_get_ex(root, "fds", &fds) ||
	    !json_object_is_type(fds, json_type_array))
		return err_set(err, EBADMSG, "the state has no fds array");
	if (!json_object_object_get_ex(root, "pid", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) <= 0 || json_object_get_int64(v) > 0x7fffffff)
		return err_set(err, EBADMSG, "the state has no valid pid");
	*pid = (pid_t)json_object_get_int64(v);
	n = json_object_array_length(fds);
	if (m->too_many_fds || n != m->nfds)
		return err_set(err, EBADMSG, "the state lists %zu fds and %s%zu came", n,
			       m->too_many_fds ? "more than " : "", m->nfds);
	for (i = 0; i < n; i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(fds, i));

		if (name && !strcmp(name, "seccompFd")) {
			if (at >= 0)
				return err_set(err, EBADMSG, "two fds are called seccompFd");
			at = (int)i;
		}
	}
	if (at < 0)
		return err_set(err, EBADMSG, "no fd is called seccompFd");
	return at;
}

/* Supervise the listener of c's whole state. Returns 0 or -errno with
 * err set; the listener is closed on failure (with c). */
static int conn_serve(struct svc_server *srv, struct svc_agent_conn *c, char *name_out,
		      size_t name_size, struct secbpf_err *err)
{
	struct svc_program *p;
	const char *name;
	pid_t pid = 0;
	int at, listener;

	at = state_listener(c->state, &c->m, &pid, err);
	if (at < 0)
		return at;
	name = state_program(c->state, err);
	if (!name)
		return -ENOENT;
	snprintf(name_out, name_size, "%s", name);
	p = svc_config_valid_name(name) ? svc_catalog_find(srv->cat, name) : NULL;
	if (!p)
		return err_set(err, ENOENT, "%s: no such program", name);
	if (!p->served)
		return err_set(err, ENOENT, "%s: not served: it failed verification", name);
	if (!svc_config_admits(p->conf, c->peer.uid, c->peer.gid, c->peer.groups, c->peer.ngroups))
		return err_set(err, EACCES, "%s: no allow line admits the runtime (uid %u)", name,
			       (unsigned int)c->peer.uid);
	if (srv->nattachments >= SVC_MAX_ATTACHMENTS ||
	    svc_attachments_of(srv, c->peer.uid) >= SVC_MAX_ATTACH_PER_UID)
		return err_set(err, EMFILE, "%s: too many supervised listeners", name);
	listener = c->m.fds[at];
	c->m.fds[at] = -1;
	/* A handle of the service's own making: the program from the
	 * catalog, the tier it was verified at; nothing the runtime sent
	 * chooses either but the name the configuration admits. */
	return svc_attach(srv, p, 0, listener, c->peer.uid, pid, err);
}

static void conn_close(struct svc_server *srv, struct svc_agent_conn *c)
{
	struct svc_agent_conn **pp;

	for (pp = &srv->agent_conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			srv->nagent_conns--;
			break;
		}
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, c->ep.fd, NULL);
	close(c->ep.fd);
	if (c->state)
		json_object_put(c->state);
	if (c->tok)
		json_tokener_free(c->tok);
	agent_msg_free(&c->m);
	svc_peer_free(&c->peer);
	free(c);
}

static void log_drop(struct svc_server *srv, const struct svc_peer *peer, const char *name,
		     const char *why)
{
	if (srv->log)
		fprintf(srv->log,
			"secbpfd: agent: runtime pid %d, program %s: %s: listener closed (the "
			"container's notified syscalls fail)\n",
			(int)peer->pid, name, why);
}

static bool past(const struct timespec *now, const struct timespec *t)
{
	return now->tv_sec > t->tv_sec || (now->tv_sec == t->tv_sec && now->tv_nsec >= t->tv_nsec);
}

/* Wake the connections that have sent no whole state in time: shut down,
 * each gets an event of its own and is dropped there (freeing it here
 * could free one whose event is later in the loop's batch). */
static void reap_stale(struct svc_server *srv)
{
	struct svc_agent_conn *c;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (c = srv->agent_conns; c; c = c->next)
		if (past(&now, &c->deadline))
			shutdown(c->ep.fd, SHUT_RDWR);
}

/* A new connection on the agent socket: root only, then watched. */
static void conn_open(struct svc_server *srv, int fd)
{
	struct secbpf_err err = { { 0 } };
	struct svc_agent_conn *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		return;
	}
	c->ep.kind = SVC_EP_AGENT;
	c->ep.fd = fd;
	if (svc_peer_read(fd, &c->peer, &err))
		;
	else if (c->peer.uid != 0)
		/* The socket is 0600: only a root in another user namespace
		 * gets here, and is no root of ours. */
		err_set(&err, EACCES,
			"uid %u is not root: only runtimes running as root may send "
			"listeners",
			(unsigned int)c->peer.uid);
	else if (srv->nagent_conns >= SVC_AGENT_MAX_PENDING)
		err_set(&err, EMFILE, "%d runtimes are still sending: try later",
			SVC_AGENT_MAX_PENDING);
	else if (!(c->tok = json_tokener_new()))
		err_set(&err, ENOMEM, "out of memory");
	else if (svc_watch(srv, &c->ep))
		err_set(&err, errno, "cannot watch the connection");
	if (err.msg[0]) {
		log_drop(srv, &c->peer, "?", err.msg);
		if (c->tok)
			json_tokener_free(c->tok);
		svc_peer_free(&c->peer);
		close(fd);
		free(c);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &c->deadline);
	c->deadline.tv_sec += SVC_AGENT_TIMEOUT_MS / 1000;
	c->next = srv->agent_conns;
	srv->agent_conns = c;
	srv->nagent_conns++;
}

void svc_agent_accept(struct svc_server *srv, struct svc_endpoint *ep)
{
	struct svc_agent_conn *c;
	struct secbpf_err err = { { 0 } };
	char name[SVC_NAME_MAX + 1] = "?";
	struct timespec now;
	int i, fd, rc;

	if (ep == &srv->agent_ep) {
		reap_stale(srv);
		for (i = 0; i < SVC_BURST; i++) {
			fd = accept4(ep->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
			if (fd < 0)
				return;
			conn_open(srv, fd);
		}
		return;
	}
	c = (struct svc_agent_conn *)ep;
	clock_gettime(CLOCK_MONOTONIC, &now);
	rc = past(&now, &c->deadline) ? err_set(&err, ETIMEDOUT, "no whole state came in time")
				      : conn_read(c, &err);
	if (rc == 0)
		return;
	if (rc > 0)
		conn_serve(srv, c, name, sizeof(name), &err);
	if (err.msg[0])
		log_drop(srv, &c->peer, name, err.msg);
	conn_close(srv, c);
}

void svc_agent_close_all(struct svc_server *srv)
{
	while (srv->agent_conns)
		conn_close(srv, srv->agent_conns);
}
