// SPDX-License-Identifier: MIT
/*
 * secbpfd's event loop and its client socket (docs/secbpfd.md): accept
 * connections, identify each peer with SO_PEERCRED, answer LIST, HANDLE
 * and POLICY, and hand handle traffic to handles.c. Every socket is
 * non-blocking: a client that does not read its replies, sends garbage or
 * vanishes is dropped, and never holds the loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "service/agent_oci.h"
#include "service/server.h"

int svc_watch(struct svc_server *srv, struct svc_endpoint *ep)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ep };

	return epoll_ctl(srv->epfd, EPOLL_CTL_ADD, ep->fd, &ev) ? -errno : 0;
}

static size_t conns_of(const struct svc_server *srv, uid_t uid)
{
	const struct svc_conn *c;
	size_t n = 0;

	for (c = srv->conns; c; c = c->next)
		n += c->peer.uid == uid;
	return n;
}

static void conn_close(struct svc_server *srv, struct svc_conn *c)
{
	struct svc_conn **pp;

	for (pp = &srv->conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, c->ep.fd, NULL);
	close(c->ep.fd);
	svc_peer_free(&c->peer);
	srv->nconns--;
	free(c);
}

/* Refuse a connection over the limits with one error line, then close. */
static void refuse_conn(int fd, int error, const char *why)
{
	struct secbpf_err err;

	svc_send_error(fd, error, &err, "secbpfd: %s: try later", why);
	close(fd);
}

static void accept_conns(struct svc_server *srv, struct svc_endpoint *ep)
{
	struct secbpf_err err = { { 0 } };
	struct svc_conn *c;
	int i, fd;

	for (i = 0; i < SVC_BURST; i++) {
		fd = accept4(ep->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return; /* EAGAIN, or a connection that died: next time */
		c = calloc(1, sizeof(*c));
		if (!c) {
			refuse_conn(fd, ENOMEM, "out of memory");
			continue;
		}
		c->ep.kind = SVC_EP_CONN;
		c->ep.fd = fd;
		if (svc_peer_read(fd, &c->peer, &err)) {
			refuse_conn(fd, EPROTO, err.msg);
			free(c);
			continue;
		}
		if (srv->nconns >= SVC_MAX_CONNS ||
		    conns_of(srv, c->peer.uid) >= SVC_MAX_CONNS_PER_UID) {
			refuse_conn(fd, EMFILE, "too many connections");
			svc_peer_free(&c->peer);
			free(c);
			continue;
		}
		if (svc_watch(srv, &c->ep)) {
			close(fd);
			svc_peer_free(&c->peer);
			free(c);
			continue;
		}
		c->next = srv->conns;
		srv->conns = c;
		srv->nconns++;
	}
}

static bool admits(const struct svc_program *p, const struct svc_peer *peer)
{
	return svc_config_admits(p->conf, peer->uid, peer->gid, peer->groups, peer->ngroups);
}

/* SVC_REQ_LIST: "NAME TIER stateful|stateless" for each served program the
 * peer may use. A list longer than one message comes as SVC_REP_DATA. */
static int answer_list(struct svc_server *srv, struct svc_conn *c, struct secbpf_err *err)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);
	int rc, fd;

	if (!f)
		return svc_send_error(c->ep.fd, ENOMEM, err, "out of memory");
	for (i = 0; i < srv->cat->n; i++) {
		const struct svc_program *p = &srv->cat->progs[i];

		if (p->served && admits(p, &c->peer))
			fprintf(f, "%s %s %s\n", p->conf->name, secbpf_tier_name(p->tier),
				p->stateful ? "stateful" : "stateless");
	}
	if (fclose(f)) {
		free(text);
		return svc_send_error(c->ep.fd, ENOMEM, err, "out of memory");
	}
	if (len <= SVC_MAX_PAYLOAD) {
		rc = svc_send(c->ep.fd, SVC_REP_TEXT, text, len, -1, err);
		free(text);
		return rc;
	}
	fd = svc_memfd_sealed("secbpfd:list", text, len, err);
	free(text);
	if (fd < 0)
		return svc_send_error(c->ep.fd, -fd, err, "%s", err->msg);
	rc = svc_send(c->ep.fd, SVC_REP_DATA, NULL, 0, fd, err);
	close(fd);
	return rc;
}

/* SVC_REQ_HANDLE: a handle for the program named in the payload, if this
 * peer may use it. */
static int answer_handle(struct svc_server *srv, struct svc_conn *c, const struct svc_msg *m,
			 struct secbpf_err *err)
{
	char info_buf[sizeof(struct svc_handle_info) + SVC_NAME_MAX];
	struct svc_handle_info *info = (struct svc_handle_info *)info_buf;
	const char *name = m->payload;
	struct svc_program *p;
	size_t nlen = m->hdr.len;
	int fd, rc;

	if (nlen == 0 || strlen(name) != nlen || !svc_config_valid_name(name))
		return svc_send_error(c->ep.fd, EINVAL, err,
				      "handle: the payload is not a program name");
	p = svc_catalog_find(srv->cat, name);
	if (!p)
		return svc_send_error(c->ep.fd, ENOENT, err,
				      "%s: no such program (secbpfd serves what %s approves)", name,
				      SVC_CONFIG_FILE);
	if (!admits(p, &c->peer))
		return svc_send_error(c->ep.fd, EACCES, err,
				      "%s: uid %u may not use this program (no allow line admits "
				      "it)",
				      name, (unsigned int)c->peer.uid);
	if (!p->served)
		return svc_send_error(c->ep.fd, ENOENT, err,
				      "%s: not served: it failed verification (see the service's "
				      "log)",
				      name);
	rc = svc_handle_mint(srv, p, c->peer.uid, &fd, err);
	if (rc)
		return svc_send_error(c->ep.fd, -rc, err, "%s: %s", name, err->msg);
	info->id = srv->next_handle_id;
	info->tier = (uint32_t)p->tier;
	info->stateful = p->stateful;
	memcpy(info->name, name, nlen);
	rc = svc_send(c->ep.fd, SVC_REP_HANDLE, info_buf, sizeof(*info) + nlen, fd, err);
	/* Ours is gone either way: if the reply failed, the handle's end
	 * hangs up and handles.c frees it. */
	close(fd);
	return rc;
}

/* SVC_REQ_POLICY: the tier this peer would get loading itself, and why. */
static int answer_policy(struct svc_server *srv, struct svc_conn *c, struct secbpf_err *err)
{
	char text[SVC_MAX_PAYLOAD];
	int n = svc_peer_policy(c->ep.fd, srv->policy_path, text, sizeof(text), err);

	if (n < 0)
		return svc_send_error(c->ep.fd, -n, err, "policy: %s", err->msg);
	return svc_send(c->ep.fd, SVC_REP_TEXT, text, (size_t)n, -1, err);
}

int svc_recv_request(struct svc_server *srv, int fd, struct svc_msg *m)
{
	struct secbpf_err err = { { 0 } };
	int rc = svc_recv(fd, m, &err);

	if (rc == -EAGAIN || rc == -EWOULDBLOCK)
		return -EAGAIN;
	if (rc == -ECONNRESET)
		return rc;
	srv->requests++;
	if (rc) {
		srv->rejected_requests++;
		svc_send_error(fd, EBADMSG, &err, "%s", err.msg);
	}
	return rc;
}

/*
 * One message on a client connection. Returns 0 to keep the connection, or
 * -errno to drop it: the peer hung up, sent what is not a valid request of
 * this socket (after an error reply naming why), or does not read replies.
 */
static int conn_message(struct svc_server *srv, struct svc_conn *c, struct svc_msg *m)
{
	struct secbpf_err err = { { 0 } };
	int rc = svc_recv_request(srv, c->ep.fd, m);

	if (rc)
		return rc;
	if (m->fd >= 0) {
		close(m->fd);
		m->fd = -1;
		srv->rejected_requests++;
		svc_send_error(c->ep.fd, EBADRQC, &err,
			       "request %u: no request of the client socket takes an fd",
			       m->hdr.type);
		return -EBADRQC;
	}
	switch (m->hdr.type) {
	case SVC_REQ_LIST:
		if (m->hdr.len)
			break;
		return answer_list(srv, c, &err);
	case SVC_REQ_HANDLE:
		return answer_handle(srv, c, m, &err);
	case SVC_REQ_POLICY:
		if (m->hdr.len)
			break;
		return answer_policy(srv, c, &err);
	default:
		break;
	}
	srv->rejected_requests++;
	svc_send_error(c->ep.fd, EBADRQC, &err,
		       "request %u with %u bytes is not one secbpfd's socket answers (list, "
		       "handle, policy)",
		       m->hdr.type, m->hdr.len);
	return -EBADRQC;
}

static void serve_conn(struct svc_server *srv, struct svc_conn *c)
{
	struct svc_msg *m = &srv->msg;
	int i, rc = 0;

	for (i = 0; i < SVC_BURST; i++) {
		rc = conn_message(srv, c, m);
		if (rc)
			break;
	}
	if (rc && rc != -EAGAIN)
		conn_close(srv, c);
}

/* The signals that stop the service (SIGTERM, SIGINT) or reload it (SIGHUP). */
static void service_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
}

int svc_block_signals(void)
{
	sigset_t set;

	service_signals(&set);
	return sigprocmask(SIG_BLOCK, &set, NULL) ? -errno : 0;
}

/* The service's signals, taken from a signalfd: no handler runs, the loop
 * acts on them. */
static int open_signals(struct svc_server *srv)
{
	sigset_t set;
	int rc = svc_block_signals();

	if (rc)
		return rc;
	service_signals(&set);
	srv->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return srv->sigfd < 0 ? -errno : 0;
}

/* A listening socket, non-blocking, into srv->listen (closed at exit). */
static int watch_listening(struct svc_server *srv, int fd, enum svc_endpoint_kind kind)
{
	int flags = fcntl(fd, F_GETFL);
	struct svc_endpoint *ep = &srv->listen[srv->nlisten];

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK))
		return -errno;
	ep->kind = kind;
	ep->fd = fd;
	srv->nlisten++;
	return svc_watch(srv, ep);
}

static int serve_setup(struct svc_server *srv, const int *listen_fds, size_t n)
{
	size_t i;
	int rc;

	srv->epfd = epoll_create1(EPOLL_CLOEXEC);
	srv->donefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (srv->epfd < 0 || srv->donefd < 0)
		return -errno;
	rc = open_signals(srv);
	if (rc)
		return rc;
	srv->signal_ep.kind = SVC_EP_SIGNAL;
	srv->signal_ep.fd = srv->sigfd;
	srv->done_ep.kind = SVC_EP_DONE;
	srv->done_ep.fd = srv->donefd;
	if ((rc = svc_watch(srv, &srv->signal_ep)) || (rc = svc_watch(srv, &srv->done_ep)))
		return rc;
	if (srv->has_agent) {
		srv->agent_ep.kind = SVC_EP_AGENT;
		rc = svc_watch(srv, &srv->agent_ep);
		if (rc)
			return rc;
	}
	for (i = 0; i < n && i < SVC_MAX_LISTEN; i++) {
		rc = watch_listening(srv, listen_fds[i], SVC_EP_LISTEN);
		if (rc)
			return rc;
	}
	return 0;
}

static void serve_teardown(struct svc_server *srv)
{
	size_t i;

	while (srv->conns)
		conn_close(srv, srv->conns);
	svc_handles_close_all(srv);
	for (i = 0; i < srv->nlisten; i++)
		close(srv->listen[i].fd);
	srv->nlisten = 0;
	svc_agent_close_all(srv);
	if (srv->has_agent)
		close(srv->agent_ep.fd);
	srv->has_agent = false;
	if (srv->sigfd >= 0)
		close(srv->sigfd);
	if (srv->epfd >= 0)
		close(srv->epfd);
	if (srv->donefd >= 0 && !srv->attachments)
		close(srv->donefd);
	svc_catalogs_free(srv);
}

/* The signal that came, or 0 if none. */
static int next_signal(struct svc_server *srv)
{
	struct signalfd_siginfo si;

	if (read(srv->sigfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	return (int)si.ssi_signo;
}

int svc_serve(struct svc_server *srv, const int *listen_fds, size_t n)
{
	struct epoll_event ev[32];
	int rc, k, i, sig;

	srv->epfd = srv->sigfd = srv->donefd = -1;
	rc = serve_setup(srv, listen_fds, n);
	if (rc) {
		fprintf(srv->log, "secbpfd: cannot serve: %s\n", strerror(-rc));
		goto out;
	}
	while (!srv->stopping) {
		k = epoll_wait(srv->epfd, ev, 32, -1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = -errno;
			fprintf(srv->log, "secbpfd: epoll: %s\n", strerror(errno));
			break;
		}
		for (i = 0; i < k && !srv->stopping; i++) {
			struct svc_endpoint *ep = ev[i].data.ptr;

			switch (ep->kind) {
			case SVC_EP_LISTEN:
				accept_conns(srv, ep);
				break;
			case SVC_EP_CONN:
				serve_conn(srv, (struct svc_conn *)ep);
				break;
			case SVC_EP_HANDLE:
				svc_handle_serve(srv, (struct svc_handle *)ep);
				break;
			case SVC_EP_AGENT:
				svc_agent_accept(srv, ep);
				break;
			case SVC_EP_DONE:
				svc_attachments_reap(srv);
				break;
			case SVC_EP_SIGNAL:
				sig = next_signal(srv);
				if (sig == SIGHUP) {
					svc_reload(srv);
				} else if (sig) {
					fprintf(srv->log, "secbpfd: %s: stopping\n",
						strsignal(sig));
					srv->stopping = true;
				}
				break;
			}
		}
	}
out:
	serve_teardown(srv);
	return rc;
}
