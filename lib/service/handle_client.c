// SPDX-License-Identifier: MIT
/*
 * The client side of a secbpfd handle (handle_client.h): the checks on the
 * fd and on the filter image it gives. The service is trusted, but the fd
 * may come from anyone: it is believed to be the service's only when the
 * kernel says root of the initial user namespace made it, and nothing it
 * sends is installed unchecked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "install/policy.h"
#include "service/handle_client.h"
#include "service/protocol.h"

_Static_assert(sizeof(((struct handle_stack *)0)->progs) / sizeof(struct sock_fprog) ==
		       SVC_FILTER_MAX,
	       "a handle stack holds SVC_FILTER_MAX filters");

int handle_check(int fd, struct secbpf_err *err)
{
	struct ucred peer;
	socklen_t len;
	struct stat st;
	int type, domain;

	if (fd < 0 || fstat(fd, &st))
		return err_set(err, EBADF, "fd %d is not open", fd);
	if (!S_ISSOCK(st.st_mode))
		return err_set(err, ENOTSOCK,
			       "fd %d is not a handle: it is not a socket (a handle is the socket "
			       "secbpfd gives, see docs/handles.md)",
			       fd);
	len = sizeof(domain);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) || domain != AF_UNIX)
		return err_set(err, EPROTOTYPE, "fd %d is not a handle: not a unix socket", fd);
	len = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) || type != SOCK_SEQPACKET)
		return err_set(err, EPROTOTYPE,
			       "fd %d is not a handle: not a SOCK_SEQPACKET socket", fd);
	len = sizeof(peer);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) || len != sizeof(peer) ||
	    peer.pid <= 0)
		return err_set(err, ENOTCONN, "fd %d is not a handle: it has no peer", fd);
	/* Only the service's uid may answer for a program: a socket pair
	 * made by anyone else would serve a filter of its own choosing. */
	if (peer.uid != 0)
		return err_set(err, EPERM,
			       "fd %d is not a handle of secbpfd: its peer is uid %u (pid %d), "
			       "the service runs as root",
			       fd, (unsigned int)peer.uid, (int)peer.pid);
	/* That uid 0 is root's only where we read it in the initial user
	 * namespace: in another, it is whoever made the namespace, and a
	 * socket pair made there reads as root's too. Nothing we can ask
	 * about the peer from in there tells the two apart (its namespace
	 * is not ours to inspect), so a handle is used from the initial
	 * namespace only. */
	if (!policy_in_init_userns())
		return err_set(err, EPERM,
			       "fd %d cannot be told to be a handle of secbpfd: this process is "
			       "in a user namespace other than the initial one, where uid 0 is "
			       "whoever made the namespace and a socket pair made there reads as "
			       "root's; use the handle from the initial user namespace",
			       fd);
	return 0;
}

int handle_parse_image(const void *image, size_t len, struct handle_stack *out,
		       struct secbpf_err *err)
{
	const unsigned char *p = image;
	struct svc_filter_image hdr;
	size_t off, i;

	out->n = 0;
	out->listener = false;
	if (len < sizeof(hdr))
		return err_set(err, EBADMSG, "filter image of %zu bytes: shorter than its header",
			       len);
	memcpy(&hdr, p, sizeof(hdr));
	if (hdr.magic != SVC_FILTER_MAGIC)
		return err_set(err, EBADMSG, "filter image: bad magic 0x%08x", hdr.magic);
	if (hdr.nfilters < 1 || hdr.nfilters > SVC_FILTER_MAX)
		return err_set(err, EBADMSG, "filter image: %u filters (1 to %d allowed)",
			       hdr.nfilters, SVC_FILTER_MAX);
	off = sizeof(hdr);
	for (i = 0; i < hdr.nfilters; i++) {
		struct svc_filter_entry e;

		if (len - off < sizeof(e))
			return err_set(err, EBADMSG, "filter image: filter %zu is cut short", i);
		memcpy(&e, p + off, sizeof(e));
		off += sizeof(e);
		if (e.flags & ~SVC_FILTER_LISTENER)
			return err_set(err, EBADMSG,
				       "filter image: filter %zu has unknown flags 0x%x", i,
				       e.flags & ~SVC_FILTER_LISTENER);
		if ((e.flags & SVC_FILTER_LISTENER) && i + 1 != hdr.nfilters)
			return err_set(err, EBADMSG,
				       "filter image: filter %zu of %u has the listener (only the "
				       "last may)",
				       i, hdr.nfilters);
		if (e.len < 1 || e.len > BPF_MAXINSNS)
			return err_set(err, EBADMSG,
				       "filter image: filter %zu has %u instructions (1 to %d)", i,
				       e.len, BPF_MAXINSNS);
		if ((len - off) / sizeof(struct sock_filter) < e.len)
			return err_set(err, EBADMSG,
				       "filter image: filter %zu is cut short (%u instructions "
				       "announced)",
				       i, e.len);
		out->progs[i].len = (unsigned short)e.len;
		out->progs[i].filter = (struct sock_filter *)(p + off);
		off += e.len * sizeof(struct sock_filter);
		out->listener = e.flags & SVC_FILTER_LISTENER;
	}
	if (off != len)
		return err_set(err, EBADMSG, "filter image: %zu bytes past its last filter",
			       len - off);
	out->n = hdr.nfilters;
	out->digest = hdr.digest;
	return 0;
}

/* svc_call with a receive timeout on fd, put back as it was after. */
static int call_with_timeout(int fd, uint16_t type, unsigned int timeout_ms, struct svc_msg *reply,
			     struct secbpf_err *err)
{
	struct timeval old,
		tv = { .tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000 };
	socklen_t len = sizeof(old);
	int rc;

	if (getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &old, &len) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return err_set(err, errno, "fd %d: cannot set a receive timeout: %s", fd,
			       strerror(errno));
	rc = svc_call(fd, type, NULL, 0, -1, reply, err);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &old, sizeof(old));
	if (rc == -EAGAIN || rc == -EWOULDBLOCK)
		return err_set(err, ETIMEDOUT,
			       "fd %d did not answer in %u ms: is it a handle of secbpfd?", fd,
			       timeout_ms);
	return rc;
}

int handle_fetch_stack(int fd, unsigned int timeout_ms, struct handle_stack *out,
		       struct secbpf_err *err)
{
	struct svc_msg *reply;
	int rc, error;

	memset(out, 0, sizeof(*out));
	rc = handle_check(fd, err);
	if (rc)
		return rc;
	reply = malloc(sizeof(*reply));
	if (!reply)
		return err_set(err, ENOMEM, "out of memory");
	rc = call_with_timeout(fd, SVC_REQ_FILTER, timeout_ms ? timeout_ms : 30000, reply, err);
	if (rc) {
		err_prefix(err, "the handle's filters");
		goto out;
	}
	if (reply->hdr.type != SVC_REP_FILTER || reply->fd < 0) {
		rc = err_set(err, EBADMSG,
			     "the handle's filters: an answer of type %u%s, not a filter image",
			     reply->hdr.type, reply->fd < 0 ? " without an fd" : "");
		goto out;
	}
	out->image = svc_memfd_map(reply->fd, HANDLE_IMAGE_MAX, &out->image_len, &error, err);
	if (!out->image) {
		rc = error;
		err_prefix(err, "the handle's filter image");
		goto out;
	}
	rc = handle_parse_image(out->image, out->image_len, out, err);
out:
	if (reply->fd >= 0)
		close(reply->fd);
	free(reply);
	if (rc)
		handle_stack_free(out);
	return rc;
}

void handle_stack_free(struct handle_stack *s)
{
	if (s->image)
		munmap(s->image, s->image_len);
	memset(s, 0, sizeof(*s));
}
