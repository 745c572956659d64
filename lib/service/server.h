/* SPDX-License-Identifier: MIT */
/*
 * secbpfd's serving state (docs/secbpfd.md), one struct passed around:
 * the sockets it listens on, the client connections, the handles it
 * minted and the attachments it supervises. serve.c runs the event loop
 * and answers clients, handles.c answers handles, supervise.c runs one
 * supervisor per attachment.
 *
 * Threads: the event loop is the only thread that touches these lists.
 * Each attachment also has its supervisor's workers and a waiter thread,
 * which only sets the attachment's done flag and wakes the loop.
 */
#ifndef SECBPF_SERVICE_SERVER_H
#define SECBPF_SERVICE_SERVER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/err.h"
#include "service/catalog.h"
#include "service/peer.h"
#include "service/protocol.h"
#include "supervisor/supervisor.h"

/* Limits: a local user can hold at most this much of the service. */
#define SVC_MAX_CONNS 1024	 /* client connections, all users */
#define SVC_MAX_HANDLES 4096	 /* handles, all users */
#define SVC_MAX_ATTACHMENTS 1024 /* supervised listeners, all users */
#define SVC_MAX_CONNS_PER_UID 64 /* per uid (root too: a bug must not starve others) */
#define SVC_MAX_HANDLES_PER_UID 256
#define SVC_MAX_ATTACH_PER_UID 128
/* Processes tracked (one pidfd each while they live, lib/supervisor
 * tracking.c): per attachment, per uid, all users. docs/secbpfd.md, "The
 * file descriptor budget", shows that every limit fits in SVC_NOFILE. */
#define SVC_MAX_PROCS_PER_ATTACHMENT 1024
#define SVC_MAX_PROCS_PER_UID 4096
#define SVC_MAX_PROCS 65536
/* The fds the limits above need together at most (the budget's total,
 * rounded up): the unit's LimitNOFILE= is at least this. */
#define SVC_NOFILE 360000
/* Messages read from one socket per wake-up, so that one client cannot
 * hold the loop. */
#define SVC_BURST 32
#define SVC_MAX_LISTEN 8

enum svc_endpoint_kind {
	SVC_EP_LISTEN, /* a listening client socket */
	SVC_EP_CONN,   /* a client connection */
	SVC_EP_HANDLE, /* the service's end of a handle */
	SVC_EP_SIGNAL, /* the signalfd: SIGTERM, SIGINT, SIGHUP */
	SVC_EP_DONE,   /* the eventfd the attachment waiters write */
	SVC_EP_AGENT,  /* the agent socket, or a runtime's connection (agent_oci.c) */
};

/* What an epoll event points to; embedded first in conns and handles. */
struct svc_endpoint {
	enum svc_endpoint_kind kind;
	int fd;
};

struct svc_agent_conn;

struct svc_conn {
	struct svc_endpoint ep;
	struct svc_peer peer;
	struct svc_conn *next;
};

/*
 * A handle: the service's end of a socketpair whose other end went to a
 * client. Its authority is the fd: whoever holds the other end may get
 * the program's filters and attach once; nothing it sends names the
 * program or the tier.
 */
struct svc_handle {
	struct svc_endpoint ep;
	uint64_t id;
	struct svc_program *prog; /* served, never changes (a reload keeps it) */
	uid_t owner;		  /* who asked for it: counted against that uid */
	bool spent;		  /* it attached (a handle attaches once) */
	struct svc_handle *next;
};

/* The processes one uid's attachments track together (a quota whose
 * parent is svc_server.all_procs), alive while refs attachments use it. */
struct svc_uid_procs {
	uid_t uid;
	size_t refs;
	struct supervisor_quota quota;
	struct svc_uid_procs *next;
};

/* A listener the service supervises with one program. */
struct svc_attachment {
	struct svc_server *srv;
	struct svc_program *prog;
	struct supervisor *sv;
	uint64_t handle_id;
	uid_t uid;	  /* who attached (SCM_CREDENTIALS) */
	pid_t pid;	  /* the filtered process, as far as we could tell */
	pthread_t waiter; /* supervisor_wait, then sets done */
	int done;	  /* atomic: the supervisor has finished */
	struct svc_attachment *next;

	/* Its uid's quota of tracked processes. */
	struct svc_uid_procs *procs;
};

struct svc_server {
	struct svc_catalog *cat;     /* what new handles and runtimes get */
	struct svc_catalog *retired; /* replaced by a reload, still in use */
	const char *config_dir;	     /* reread on SIGHUP; NULL: no reload */
	const char *policy_path;     /* for SVC_REQ_POLICY; NULL: the system's */
	FILE *log;
	int epfd, sigfd, donefd;
	struct svc_endpoint listen[SVC_MAX_LISTEN];
	size_t nlisten;
	struct svc_endpoint signal_ep, done_ep;
	/* The agent socket (agent_oci.c), when has_agent: set before
	 * svc_serve, which watches it and closes it at exit. */
	bool has_agent;
	struct svc_endpoint agent_ep;
	struct svc_agent_conn *agent_conns; /* runtimes still sending */
	size_t nagent_conns;
	struct svc_conn *conns;
	struct svc_handle *handles;
	struct svc_attachment *attachments;
	size_t nconns, nhandles, nattachments;
	/* Tracked processes: all users' quota, and each uid's (supervise.c). */
	struct supervisor_quota all_procs;
	struct svc_uid_procs *uid_procs;
	uint64_t next_handle_id;
	bool stopping;
	struct svc_msg msg; /* the message being answered (one at a time) */
	/* Counters for the log and the tests. */
	unsigned long requests, rejected_requests;
};

/* serve.c: start watching ep (EPOLLIN). Returns 0 or -errno. */
int svc_watch(struct svc_server *srv, struct svc_endpoint *ep);
/* serve.c: receive one request on fd into m, counted in srv's statistics.
 * Returns 0; -EAGAIN when none is waiting; -ECONNRESET when the peer hung
 * up; another -errno after replying with the error (drop the peer). */
int svc_recv_request(struct svc_server *srv, int fd, struct svc_msg *m);

/* handles.c: a new handle for prog, for a caller of uid; its client end
 * (close-on-exec) in *client_fd. Returns 0 or -errno with err set. */
int svc_handle_mint(struct svc_server *srv, struct svc_program *prog, uid_t uid, int *client_fd,
		    struct secbpf_err *err);
/* handles.c: answer what came on handle h (received into srv->msg);
 * closes it when it is done. */
void svc_handle_serve(struct svc_server *srv, struct svc_handle *h);
/* handles.c: close every handle (at exit). */
void svc_handles_close_all(struct svc_server *srv);
/* handles.c: how many handles uid holds. */
size_t svc_handles_of(const struct svc_server *srv, uid_t uid);

/* supervise.c: supervise listener (owned from now on, even on failure)
 * with program p, for a handle (its id) or a container runtime (0).
 * Returns 0 or -errno with err set. */
int svc_attach(struct svc_server *srv, struct svc_program *p, uint64_t handle_id, int listener,
	       uid_t uid, pid_t pid, struct secbpf_err *err);
/* supervise.c: free the attachments whose supervisor has finished. */
void svc_attachments_reap(struct svc_server *srv);
/* supervise.c: raise the open files limit to the hard limit (at start),
 * saying on log when it cannot be or stays below SVC_NOFILE. */
void svc_raise_fd_limit(FILE *log);
/* supervise.c: how many attachments uid has. */
size_t svc_attachments_of(const struct svc_server *srv, uid_t uid);

/* reload.c: a handle or an attachment now uses p's catalog. */
void svc_catalog_hold(struct svc_program *p);
/* reload.c: one less user of p's catalog: a catalog a reload replaced is
 * freed with its last. */
void svc_catalog_put(struct svc_server *srv, struct svc_program *p);
/*
 * reload.c: reread srv->config_dir and the policy, load and verify every
 * program, and serve that catalog to new requests; handles and
 * attachments keep theirs. All or nothing: a configuration that cannot be
 * read or has a program that is not served changes nothing. Logs either
 * way; returns 0 or -errno.
 */
int svc_reload(struct svc_server *srv);
/* reload.c: at exit, with no attachment left: free every catalog the
 * service made (not the one it was given). */
void svc_catalogs_free(struct svc_server *srv);

/* serve.c: block the signals svc_serve takes from its signalfd (SIGTERM,
 * SIGINT, SIGHUP), so that one sent before it watches them waits for it
 * instead of killing the service. Returns 0 or -errno. */
int svc_block_signals(void);

/*
 * serve.c: serve until SIGTERM or SIGINT, rereading the configuration on
 * SIGHUP (svc_reload). listen_fds are bound, listening
 * SOCK_SEQPACKET unix sockets (taken over). Returns 0, or -errno after
 * logging why. At exit live attachments are not waited for: their
 * processes fail closed (ENOSYS) once the service is gone.
 */
int svc_serve(struct svc_server *srv, const int *listen_fds, size_t n);

#endif
