/* SPDX-License-Identifier: MIT */
/*
 * The messages of secbpf's local sockets (docs/design.md §6): secbpfd's
 * client socket, its handles, and the control socket every supervisor
 * answers. One framing for all of them, on SOCK_SEQPACKET unix sockets:
 * a header, a small payload, and at most one fd (SCM_RIGHTS). Anything
 * large (a filter stack, a map, a checkpoint) travels as a sealed memfd.
 */
#ifndef SECBPF_SERVICE_PROTOCOL_H
#define SECBPF_SERVICE_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

#define SVC_MAGIC 0x44504253u /* "SBPD" in memory order */
#define SVC_VERSION 1
/* The largest payload of one message; larger data goes in a memfd. */
#define SVC_MAX_PAYLOAD 4096

#define SVC_DEFAULT_SOCKET "/run/secbpf/secbpfd.sock"
#define SVC_DEFAULT_CONFIG "/etc/secbpf"

/*
 * Requests (the first message of an exchange) and replies (exactly one per
 * request, on the same socket). Where each request is valid is part of
 * the protocol: a request on the wrong kind of socket gets SVC_REP_ERROR
 * (EBADRQC), never a guess. secbpfd answers an invalid message (bad
 * framing, a request of another socket, an unexpected fd or payload) with
 * SVC_REP_ERROR and then closes that connection or handle; refusals of
 * valid requests (EACCES, ENOENT, EALREADY, ...) keep it open.
 */
enum svc_type {
	/* secbpfd's client socket. */
	SVC_REQ_LIST = 1,   /* -> SVC_REP_TEXT: one line per program this caller may use,
			     *    "NAME TIER stateful|stateless"; a list longer than
			     *    SVC_MAX_PAYLOAD comes as SVC_REP_DATA (memfd) */
	SVC_REQ_HANDLE = 2, /* payload: program name -> SVC_REP_HANDLE, fd: the handle */
	SVC_REQ_POLICY = 3, /* -> SVC_REP_TEXT: the tier the caller would get, and why */

	/* A handle (the socket that SVC_REP_HANDLE passed). Any number of
	 * FILTER requests; ATTACH succeeds once per handle (EALREADY after:
	 * ask for another handle), and only for a stateful program (EINVAL).
	 * The handle lives until every copy of it is closed; supervision of
	 * an attached listener does not need it. */
	SVC_REQ_FILTER = 16, /* -> SVC_REP_FILTER, fd: sealed memfd (struct svc_filter_image) */
	SVC_REQ_ATTACH = 17, /* fd: a listener; payload struct svc_attach -> SVC_REP_OK */

	/* A supervisor's control socket (docs/introspection.md). */
	SVC_REQ_CTL_INFO = 32,	     /* -> SVC_REP_TEXT: JSON; SVC_REP_DATA (JSON in the
				      *    memfd) when it exceeds SVC_MAX_PAYLOAD */
	SVC_REQ_CTL_MAP_DUMP = 33,   /* payload: "PROG\0MAP" (PROG empty: any program)
				      * -> SVC_REP_DATA, fd: memfd, JSON */
	SVC_REQ_CTL_CHECKPOINT = 34, /* -> SVC_REP_DATA, fd: memfd, struct svc_checkpoint */

	SVC_REP_OK = 64,     /* payload: optional text */
	SVC_REP_TEXT = 65,   /* payload: text (no NUL) */
	SVC_REP_HANDLE = 66, /* fd: the handle; payload struct svc_handle_info */
	SVC_REP_FILTER = 67, /* fd: sealed memfd */
	SVC_REP_DATA = 68,   /* fd: sealed memfd; payload: optional text */
	SVC_REP_ERROR = 127, /* payload struct svc_error */
};

struct svc_hdr {
	uint32_t magic;	  /* SVC_MAGIC */
	uint16_t version; /* SVC_VERSION */
	uint16_t type;	  /* enum svc_type */
	uint32_t len;	  /* payload bytes after the header, <= SVC_MAX_PAYLOAD */
	uint32_t flags;	  /* 0 (reserved; nonzero is refused) */
};

/* SVC_REP_ERROR: a positive errno and one line a user can act on. */
struct svc_error {
	int32_t error;
	char msg[]; /* up to the payload's end, no NUL */
};

/* SVC_REP_HANDLE: what the handle is for (informational: the handle's
 * authority is the fd, never these bytes). */
struct svc_handle_info {
	uint64_t id;	   /* unique for the service's lifetime */
	uint32_t tier;	   /* enum secbpf_tier the program was verified at */
	uint32_t stateful; /* 1: attaching hands a listener to the service */
	char name[];	   /* the program's name, up to the payload's end */
};

/* SVC_REQ_ATTACH: who attaches. The service believes pid only if it is
 * the parent of the process that sent the message (SCM_CREDENTIALS). */
struct svc_attach {
	int32_t pid;	   /* the process that installed the filters */
	uint32_t reserved; /* 0 */
};

/*
 * The filter image a handle gives (SVC_REP_FILTER's memfd): a header, then
 * nfilters entries in installation order, each a struct
 * svc_filter_entry followed by len struct sock_filter. The entry with
 * SVC_FILTER_LISTENER (at most one, the last) is installed with
 * SUPERVISOR_LISTENER_FLAGS and its listener is sent back with
 * SVC_REQ_ATTACH.
 */
#define SVC_FILTER_MAGIC 0x53424649u
#define SVC_FILTER_MAX 64
#define SVC_FILTER_LISTENER 1u

struct svc_filter_image {
	uint32_t magic; /* SVC_FILTER_MAGIC */
	uint32_t nfilters;
	uint64_t digest; /* stack_plan_digest() of the stack */
};

struct svc_filter_entry {
	uint32_t len;	/* instructions, 1..BPF_MAXINSNS */
	uint32_t flags; /* SVC_FILTER_* */
};

/*
 * The control socket of every supervisor: an abstract SOCK_SEQPACKET
 * socket named SVC_CTL_PREFIX "PID/TAG" (PID: the supervising process;
 * TAG: 16 random hex digits, so no one can bind the name first), listed
 * in /proc/net/unix. A client checks that SO_PEERCRED's pid is PID before
 * believing an answer. The memfds it sends are at most SVC_CTL_MAX_DATA.
 */
#define SVC_CTL_PREFIX "@secbpf/ctl/"
#define SVC_CTL_MAX_DATA (256u << 20)

/*
 * SVC_REQ_CTL_CHECKPOINT's memfd: a header, then nobjects entries in the
 * stack's installation order, each a struct svc_checkpoint_entry, its
 * name (name_len bytes) and its ELF object (size bytes), each padded to a
 * multiple of 8. An object is the program's own with its maps' contents
 * in a ".secbpf.state" section; name is the program's function name.
 */
#define SVC_CHECKPOINT_MAGIC 0x4b434253u /* "SBCK" in memory order */

struct svc_checkpoint {
	uint32_t magic;
	uint32_t nobjects;
};

struct svc_checkpoint_entry {
	uint32_t name_len;
	uint32_t reserved; /* 0 */
	uint64_t size;
};

/* A received message: the payload is NUL-terminated for convenience (the
 * NUL is not counted in len). */
struct svc_msg {
	struct svc_hdr hdr;
	char payload[SVC_MAX_PAYLOAD + 1];
	int fd;		     /* -1 when none came */
	bool has_creds;	     /* SCM_CREDENTIALS came (the socket has SO_PASSCRED) */
	pid_t pid;	     /* from SCM_CREDENTIALS */
	uid_t uid;
	gid_t gid;
};

/*
 * Send one message of type with payload[0..len-1] and fd (-1: none).
 * Returns 0 or a negative errno (-EMSGSIZE for len > SVC_MAX_PAYLOAD)
 * with err set. Never raises SIGPIPE.
 */
int svc_send(int sock, uint16_t type, const void *payload, size_t len, int fd,
	     struct secbpf_err *err);

/* svc_send of SVC_REP_ERROR with error (positive) and a formatted line. */
int svc_send_error(int sock, int error, struct secbpf_err *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Receive one message into *m (blocking). Returns 0, -ECONNRESET when the
 * peer closed, or another negative errno with err set for a message that
 * is not a valid one of this protocol (bad magic, version, length, flags,
 * truncated, more than one fd, ancillary data of another kind): every fd
 * that came with an invalid message is closed. A valid message's fd is
 * the caller's (O_CLOEXEC).
 */
int svc_recv(int sock, struct svc_msg *m, struct secbpf_err *err);

/*
 * A request and its reply: send, then receive. An SVC_REP_ERROR reply
 * becomes its negative errno, with err set to its message. Returns 0
 * with *reply set (reply->hdr.type is the caller's to check).
 */
int svc_call(int sock, uint16_t type, const void *payload, size_t len, int fd,
	     struct svc_msg *reply, struct secbpf_err *err);

/* Connect a SOCK_SEQPACKET socket (close-on-exec) to the unix socket at
 * path ('@' first: the abstract namespace). Returns the fd or -errno. */
int svc_connect(const char *path, struct secbpf_err *err);

/*
 * A sealed memfd (F_SEAL_WRITE, SHRINK, GROW, SEAL) holding data[0..len-1],
 * named name. Returns the fd or -errno.
 */
int svc_memfd_sealed(const char *name, const void *data, size_t len, struct secbpf_err *err);

/*
 * Map a memfd that came in a message, read-only, after checking that it is
 * a sealed memfd (so the sender cannot change it under us) no larger than
 * max. Returns the mapping with *len set (NULL and -errno in *error with
 * err set otherwise); munmap it when done. A zero-length memfd gives an
 * error.
 */
void *svc_memfd_map(int fd, size_t max, size_t *len, int *error, struct secbpf_err *err);

#endif
