/* SPDX-License-Identifier: MIT */
/*
 * The client side of the supervisors' control sockets (docs/introspection.md)
 * for `secbpf ps`, `map dump` and `dump`: finding the sockets in
 * /proc/net/unix, asking them, and finding the supervisor of a process.
 */
#ifndef SECBPF_CLI_CTL_CLIENT_H
#define SECBPF_CLI_CTL_CLIENT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Internal headers: service/protocol.h (the framing the supervisors speak)
 * and common/err.h; the public API has no introspection. */
#include "common/err.h"
#include "service/protocol.h"

/* A supervisor found through its control socket. */
struct ctl_supervisor {
	char name[108];		  /* "@secbpf/ctl/PID/TAG" */
	pid_t pid;		  /* the supervising process, from the name */
	struct json_object *info; /* its SVC_REQ_CTL_INFO answer, or NULL */
	int error;		  /* why info is NULL (positive errno) */
	char why[SECBPF_ERR_MAX]; /* and its message */
};

/* Every control socket listening in this network namespace, each asked
 * for its info. Returns the count (0 or more) with *out set, or -errno. */
int ctl_discover(struct ctl_supervisor **out);
void ctl_free(struct ctl_supervisor *s, size_t n);

/* Connect to s, checking that the peer is the process its name says.
 * Returns the fd or a negative errno with err set. */
int ctl_connect(const struct ctl_supervisor *s, struct secbpf_err *err);

/*
 * One request on s whose answer is text or a memfd: the answer's bytes in
 * *data (malloc'ed, NUL-terminated, *len bytes). Returns 0 or a negative
 * errno with err set (the supervisor's own message for its errors).
 */
int ctl_request(const struct ctl_supervisor *s, uint16_t type, const void *payload, size_t plen,
		char **data, size_t *len, struct secbpf_err *err);

/* The parent of each process, for ctl_is_descendant: a table read once. */
struct ctl_ptable {
	pid_t *pid, *ppid;
	size_t n;
};
int ctl_ptable_read(struct ctl_ptable *t);
void ctl_ptable_free(struct ctl_ptable *t);
/* Whether pid is ancestor or one of its descendants. */
bool ctl_is_descendant(const struct ctl_ptable *t, pid_t pid, pid_t ancestor);

/*
 * The supervisor of process pid among sup[0..n-1] (its target or a
 * descendant of it), or NULL. *refused is set when some supervisor would
 * not answer us and might be the one.
 */
struct ctl_supervisor *ctl_supervisor_of(struct ctl_supervisor *sup, size_t n,
					 const struct ctl_ptable *t, pid_t pid,
					 struct ctl_supervisor **refused);

/*
 * For `map dump PID` and `dump PID -o`: find pid's supervisor, printing
 * the error as `secbpf: CMD: ...` when there is none (no such process, not
 * supervised, not permitted). Returns the supervisor (in *sup, *n, to be
 * freed with ctl_free), or NULL.
 */
struct ctl_supervisor *ctl_find_for_pid(const char *cmd, pid_t pid, struct ctl_supervisor **sup,
					size_t *n);

/* The mode of seccomp of process pid ("Seccomp:"), or -1 if unreadable. */
int ctl_seccomp_mode(pid_t pid);

#endif
