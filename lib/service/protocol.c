// SPDX-License-Identifier: MIT
/*
 * The framing of secbpf's local sockets (see protocol.h): sending and
 * receiving one checked message with at most one fd, and the sealed
 * memfds that carry anything large.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "service/protocol.h"

#define SEALS_REQUIRED (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

int svc_send(int sock, uint16_t type, const void *payload, size_t len, int fd,
	     struct secbpf_err *err)
{
	struct svc_hdr hdr = { .magic = SVC_MAGIC, .version = SVC_VERSION, .type = type };
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov[2];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 1 };
	ssize_t n;

	if (len > SVC_MAX_PAYLOAD)
		return err_set(err, EMSGSIZE, "message of %zu bytes: the most is %u", len,
			       SVC_MAX_PAYLOAD);
	hdr.len = (uint32_t)len;
	iov[0].iov_base = &hdr;
	iov[0].iov_len = sizeof(hdr);
	if (len) {
		iov[1].iov_base = (void *)payload;
		iov[1].iov_len = len;
		mh.msg_iovlen = 2;
	}
	if (fd >= 0) {
		struct cmsghdr *c;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return err_set(err, errno, "send: %s", strerror(errno));
	if ((size_t)n != sizeof(hdr) + len)
		return err_set(err, EPROTO, "send: %zd of %zu bytes went", n, sizeof(hdr) + len);
	return 0;
}

int svc_send_error(int sock, int error, struct secbpf_err *err, const char *fmt, ...)
{
	char buf[sizeof(struct svc_error) + 512];
	struct svc_error *e = (struct svc_error *)buf;
	va_list ap;
	int n;

	e->error = error > 0 ? error : EPROTO;
	va_start(ap, fmt);
	n = vsnprintf(e->msg, sizeof(buf) - sizeof(*e), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf) - sizeof(*e))
		n = (int)(sizeof(buf) - sizeof(*e) - 1);
	return svc_send(sock, SVC_REP_ERROR, buf, sizeof(*e) + (size_t)n, -1, err);
}

/* Close every fd of an SCM_RIGHTS control message. */
static void close_rights(struct cmsghdr *c)
{
	size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int), i;

	for (i = 0; i < n; i++) {
		int fd;

		memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
		close(fd);
	}
}

int svc_recv(int sock, struct svc_msg *m, struct secbpf_err *err)
{
	/* Room for more fds and creds than allowed, so that a sender of too
	 * many is seen (and they are closed), not truncated into leaks. */
	char cbuf[CMSG_SPACE(sizeof(int) * 8) + CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov[2] = {
		{ .iov_base = &m->hdr, .iov_len = sizeof(m->hdr) },
		{ .iov_base = m->payload, .iov_len = SVC_MAX_PAYLOAD + 1 },
	};
	struct msghdr mh = {
		.msg_iov = iov, .msg_iovlen = 2, .msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	const char *bad = NULL;
	int nfds = 0;
	ssize_t n;

	m->fd = -1;
	m->has_creds = false;
	m->pid = 0;
	m->uid = (uid_t)-1;
	m->gid = (gid_t)-1;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return err_set(err, errno, "receive: %s", strerror(errno));
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			if (nfds || k != 1) {
				bad = "more than one fd";
				close_rights(c);
				if (m->fd >= 0) {
					close(m->fd);
					m->fd = -1;
				}
				nfds += (int)k;
				continue;
			}
			memcpy(&m->fd, CMSG_DATA(c), sizeof(int));
			nfds = 1;
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
			   c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
			struct ucred uc;

			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			m->has_creds = true;
			m->pid = uc.pid;
			m->uid = uc.uid;
			m->gid = uc.gid;
		} else {
			bad = "ancillary data of an unknown kind";
		}
	}
	if (mh.msg_flags & MSG_CTRUNC)
		bad = "truncated ancillary data (too many fds)";
	if (n == 0 && !bad) {
		if (m->fd >= 0)
			close(m->fd);
		m->fd = -1;
		return err_set(err, ECONNRESET, "the peer closed the connection");
	}
	if (!bad && (size_t)n < sizeof(m->hdr))
		bad = "shorter than a header";
	else if (!bad && m->hdr.magic != SVC_MAGIC)
		bad = "not a secbpf message (bad magic)";
	else if (!bad && m->hdr.version != SVC_VERSION)
		bad = "protocol version not spoken here";
	else if (!bad && m->hdr.flags)
		bad = "reserved flags set";
	else if (!bad && (m->hdr.len > SVC_MAX_PAYLOAD || (mh.msg_flags & MSG_TRUNC)))
		bad = "payload too long";
	else if (!bad && (size_t)n != sizeof(m->hdr) + m->hdr.len)
		bad = "length field does not match the message";
	if (bad) {
		if (m->fd >= 0)
			close(m->fd);
		m->fd = -1;
		return err_set(err, EBADMSG, "invalid message: %s", bad);
	}
	m->payload[m->hdr.len] = 0;
	return 0;
}

int svc_call(int sock, uint16_t type, const void *payload, size_t len, int fd,
	     struct svc_msg *reply, struct secbpf_err *err)
{
	int r = svc_send(sock, type, payload, len, fd, err);

	if (r)
		return r;
	r = svc_recv(sock, reply, err);
	if (r)
		return r;
	if (reply->hdr.type == SVC_REP_ERROR) {
		const struct svc_error *e = (const struct svc_error *)reply->payload;
		int error;

		if (reply->fd >= 0) {
			close(reply->fd);
			reply->fd = -1;
		}
		if (reply->hdr.len < sizeof(*e))
			return err_set(err, EBADMSG, "invalid error reply");
		error = e->error > 0 && e->error < 4096 ? e->error : EPROTO;
		return err_set(err, error, "%.*s", (int)(reply->hdr.len - sizeof(*e)), e->msg);
	}
	return 0;
}

int svc_connect(const char *path, struct secbpf_err *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t plen = strlen(path);
	socklen_t alen;
	int fd;

	if (!plen || plen >= sizeof(sa.sun_path))
		return err_set(err, ENAMETOOLONG, "%s: not a usable socket path", path);
	memcpy(sa.sun_path, path, plen);
	if (path[0] == '@')
		sa.sun_path[0] = 0;
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen + (path[0] != '@'));
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(err, errno, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, alen)) {
		int e = errno;

		close(fd);
		return err_set(err, e, "%s: %s", path, strerror(e));
	}
	return fd;
}

int svc_memfd_sealed(const char *name, const void *data, size_t len, struct secbpf_err *err)
{
	const char *p = data;
	size_t done = 0;
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return err_set(err, errno, "memfd_create: %s", strerror(errno));
	while (done < len) {
		ssize_t n = write(fd, p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			close(fd);
			return err_set(err, e, "memfd write: %s", strerror(e));
		}
		done += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, SEALS_REQUIRED)) {
		int e = errno;

		close(fd);
		return err_set(err, e, "memfd seal: %s", strerror(e));
	}
	return fd;
}

void *svc_memfd_map(int fd, size_t max, size_t *len, int *error, struct secbpf_err *err)
{
	struct stat st;
	void *p;
	int seals = fcntl(fd, F_GET_SEALS);

	if (seals < 0 || (seals & SEALS_REQUIRED) != SEALS_REQUIRED) {
		*error = err_set(err, EBADF, "the fd received is not a sealed memfd");
		return NULL;
	}
	if (fstat(fd, &st)) {
		*error = err_set(err, errno, "fstat: %s", strerror(errno));
		return NULL;
	}
	if (st.st_size <= 0 || (uint64_t)st.st_size > max) {
		*error = err_set(err, EMSGSIZE, "memfd of %lld bytes (1 to %zu allowed)",
				  (long long)st.st_size, max);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		*error = err_set(err, errno, "mmap: %s", strerror(errno));
		return NULL;
	}
	*len = (size_t)st.st_size;
	*error = 0;
	return p;
}
