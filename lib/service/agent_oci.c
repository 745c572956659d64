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
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "service/agent_oci.h"
#include "service/server.h"

/* How long a runtime has to send its state once connected: the loop
 * waits on it, and only root can connect. */
#define AGENT_RECV_TIMEOUT_MS 2000
#define AGENT_MAX_FDS 16

int svc_agent_open(const char *path, struct secbpf_err *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t plen = strlen(path);
	socklen_t alen;
	struct stat st;
	int fd;

	if (!plen || plen >= sizeof(sa.sun_path))
		return err_set(err, ENAMETOOLONG, "%s: not a usable socket path (1 to %zu bytes)",
			       path, sizeof(sa.sun_path) - 1);
	memcpy(sa.sun_path, path, plen);
	if (path[0] == '@')
		sa.sun_path[0] = 0;
	else if (!lstat(path, &st) && S_ISSOCK(st.st_mode))
		/* Ours from a secbpfd that is gone (the client socket's own
		 * bind tells a live one apart first). */
		unlink(path);
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen + (path[0] != '@'));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_set(err, errno, "agent socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, alen) || (path[0] != '@' && chmod(path, 0600)) ||
	    listen(fd, 128)) {
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
	size_t len;
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

/*
 * Read the state: one JSON object, with the fds, until the object is
 * complete or the runtime closes. Returns the parsed object or NULL with
 * err set.
 */
static struct json_object *agent_read_state(int fd, struct agent_msg *m, struct secbpf_err *err)
{
	struct timeval tv = { .tv_sec = AGENT_RECV_TIMEOUT_MS / 1000,
			      .tv_usec = (AGENT_RECV_TIMEOUT_MS % 1000) * 1000 };
	struct json_tokener *tok = json_tokener_new();
	struct json_object *state = NULL;
	int flags = fcntl(fd, F_GETFL);

	m->buf = malloc(SVC_AGENT_STATE_MAX);
	if (!tok || !m->buf) {
		err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		err_set(err, errno, "agent connection: %s", strerror(errno));
		goto out;
	}
	while (!state) {
		char cbuf[CMSG_SPACE(sizeof(int) * AGENT_MAX_FDS)];
		struct iovec iov = { m->buf + m->len, SVC_AGENT_STATE_MAX - m->len };
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		ssize_t n;

		if (iov.iov_len == 0) {
			err_set(err, EMSGSIZE, "the state is larger than %d bytes",
				SVC_AGENT_STATE_MAX);
			goto out;
		}
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_set(err, errno, "reading the state: %s",
				errno == EAGAIN ? "nothing came in time" : strerror(errno));
			goto out;
		}
		take_fds(m, &mh);
		if (mh.msg_flags & MSG_CTRUNC)
			m->too_many_fds = true;
		if (n == 0) {
			err_set(err, EBADMSG,
				"the runtime closed before a whole JSON state came "
				"(%zu bytes)",
				m->len);
			goto out;
		}
		state = json_tokener_parse_ex(tok, m->buf + m->len, (int)n);
		m->len += (size_t)n;
		if (!state && json_tokener_get_error(tok) != json_tokener_continue) {
			err_set(err, EBADMSG, "the state is not JSON: %s",
				json_tokener_error_desc(json_tokener_get_error(tok)));
			goto out;
		}
	}
out:
	if (tok)
		json_tokener_free(tok);
	return state;
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

/* Supervise what one runtime connection sent. Returns 0 or -errno with
 * err set; the listener is closed on failure. */
static int agent_serve_conn(struct svc_server *srv, int fd, const struct svc_peer *peer,
			    char *name_out, size_t name_size, struct secbpf_err *err)
{
	struct agent_msg m = { 0 };
	struct json_object *root;
	struct svc_program *p;
	struct svc_handle h = { .id = 0 };
	const char *name;
	pid_t pid = 0;
	int at, listener, rc;

	root = agent_read_state(fd, &m, err);
	if (!root) {
		rc = -EBADMSG;
		goto out;
	}
	at = state_listener(root, &m, &pid, err);
	if (at < 0) {
		rc = at;
		goto out;
	}
	name = state_program(root, err);
	rc = -ENOENT;
	if (!name)
		goto out;
	snprintf(name_out, name_size, "%s", name);
	p = svc_config_valid_name(name) ? svc_catalog_find(srv->cat, name) : NULL;
	if (!p) {
		rc = err_set(err, ENOENT, "%s: no such program", name);
		goto out;
	}
	if (!p->served) {
		rc = err_set(err, ENOENT, "%s: not served: it failed verification", name);
		goto out;
	}
	if (!svc_config_admits(p->conf, peer->uid, peer->gid, peer->groups, peer->ngroups)) {
		rc = err_set(err, EACCES, "%s: no allow line admits the runtime (uid %u)", name,
			     (unsigned int)peer->uid);
		goto out;
	}
	if (srv->nattachments >= SVC_MAX_ATTACHMENTS ||
	    svc_attachments_of(srv, peer->uid) >= SVC_MAX_ATTACH_PER_UID) {
		rc = err_set(err, EMFILE, "%s: too many supervised listeners", name);
		goto out;
	}
	listener = m.fds[at];
	m.fds[at] = -1;
	/* A handle of the service's own making: the program from the
	 * catalog, the tier it was verified at; nothing the runtime sent
	 * chooses either but the name the configuration admits. */
	h.prog = p;
	rc = svc_attach(srv, &h, listener, peer->uid, pid, err);
out:
	if (root)
		json_object_put(root);
	agent_msg_free(&m);
	return rc;
}

void svc_agent_accept(struct svc_server *srv, struct svc_endpoint *ep)
{
	int i, fd;

	for (i = 0; i < SVC_BURST; i++) {
		struct secbpf_err err = { { 0 } };
		struct svc_peer peer = { 0 };
		char name[SVC_NAME_MAX + 1] = "?";

		fd = accept4(ep->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		if (svc_peer_read(fd, &peer, &err))
			;
		else if (peer.uid != 0)
			/* The socket is 0600: only a root in another user
			 * namespace gets here, and is no root of ours. */
			err_set(&err, EACCES,
				"uid %u is not root: only runtimes running as root "
				"may send listeners",
				(unsigned int)peer.uid);
		else
			agent_serve_conn(srv, fd, &peer, name, sizeof(name), &err);
		if (err.msg[0] && srv->log)
			fprintf(srv->log,
				"secbpfd: agent: runtime pid %d, program %s: %s: listener closed "
				"(the container's notified syscalls fail)\n",
				(int)peer.pid, name, err.msg);
		svc_peer_free(&peer);
		close(fd);
	}
}
