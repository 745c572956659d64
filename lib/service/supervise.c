// SPDX-License-Identifier: MIT
/*
 * Supervision as a service: one supervisor (lib/supervisor, the same one
 * `secbpf run` uses) per attached listener, running the handle's program
 * with the runtime the catalog made for it, so that every attachment of a
 * program shares its maps (or, maps per user, every attachment by one uid). A waiter thread per
 * attachment tells the event loop when the last filtered process is gone.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "service/server.h"
#include "supervisor/supervisor.h"

void svc_raise_fd_limit(FILE *log)
{
	long n = supervisor_raise_fd_limit();

	if (n < 0)
		fprintf(log, "secbpfd: cannot raise the open files limit: %s\n", strerror((int)-n));
	else if (n < SVC_NOFILE)
		fprintf(log,
			"secbpfd: the open files limit is %ld: the service's limits need up to %d "
			"(docs/secbpfd.md); past it, requests and new supervised processes fail "
			"(raise the hard limit: LimitNOFILE=, ulimit -Hn)\n",
			n, SVC_NOFILE);
}

size_t svc_attachments_of(const struct svc_server *srv, uid_t uid)
{
	const struct svc_attachment *a;
	size_t n = 0;

	for (a = srv->attachments; a; a = a->next)
		n += a->uid == uid;
	return n;
}

/*
 * The quota of processes uid's attachments track, made on its first
 * attachment, with one more reference; NULL without memory. Its parent is
 * the quota of all users, set up here on first use.
 */
static struct svc_uid_procs *uid_procs_get(struct svc_server *srv, uid_t uid)
{
	struct svc_uid_procs *u;

	if (!srv->all_procs.max) {
		srv->all_procs.max = SVC_MAX_PROCS;
		snprintf(srv->all_procs.name, sizeof(srv->all_procs.name), "all users");
	}
	for (u = srv->uid_procs; u; u = u->next)
		if (u->uid == uid)
			break;
	if (!u) {
		u = calloc(1, sizeof(*u));
		if (!u)
			return NULL;
		u->uid = uid;
		u->quota.max = SVC_MAX_PROCS_PER_UID;
		u->quota.parent = &srv->all_procs;
		snprintf(u->quota.name, sizeof(u->quota.name), "uid %u", (unsigned int)uid);
		u->next = srv->uid_procs;
		srv->uid_procs = u;
	}
	u->refs++;
	return u;
}

/* Drop a reference to u (after the supervisor charging it is freed). */
static void uid_procs_put(struct svc_server *srv, struct svc_uid_procs *u)
{
	struct svc_uid_procs **pp;

	if (!u || --u->refs)
		return;
	for (pp = &srv->uid_procs; *pp; pp = &(*pp)->next)
		if (*pp == u) {
			*pp = u->next;
			break;
		}
	free(u);
}

/* Whether fd is a seccomp user-notification listener: anything else
 * (a pipe, a socket, a file) has nothing to supervise. */
static bool is_seccomp_listener(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return !strcmp(target, "anon_inode:seccomp notify");
}

static void *attachment_waiter(void *arg)
{
	struct svc_attachment *a = arg;
	uint64_t one = 1;
	ssize_t n;

	supervisor_wait(a->sv);
	/* The runtime outlives this supervisor: the state of its processes
	 * (all gone now) must not stay for a later process with their PID. */
	supervisor_release_tasks(a->sv);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	do
		n = write(a->srv->donefd, &one, sizeof(one));
	while (n < 0 && errno == EINTR);
	return NULL;
}

int svc_attach(struct svc_server *srv, struct svc_program *p, uint64_t handle_id, int listener,
	       uid_t uid, pid_t pid, struct secbpf_err *err)
{
	struct supervisor_opts so = {
		.sz = sizeof(so),
		.nworkers = p->cat->workers, /* the runtime's PERCPU slots */
		.log = srv->log,
		/* The control socket (secbpf ps, map dump, dump): shown as the
		 * service's, reachable by the attaching process's owner (and
		 * root), who may read the program's maps, which every user of
		 * the program shares. */
		.kind = "secbpfd",
		.target_pid = pid,
	};
	/* A stateless program (a runtime's NOTIFY rules, agent_oci.c): its
	 * compiled filter alone answers, as the kernel would have. */
	struct supervisor_prog plain = {
		.insns = p->plan.plain ? p->plan.plain[0].filter : NULL,
		.len = p->plan.plain ? p->plan.plain[0].len : 0,
		.name = p->label,
		.obj = p->obj,
		.prog = p->prog,
	};
	const struct stack_plan *plan;
	struct svc_attachment *a;
	int rc;

	if (!p->stateful && !plain.insns) {
		close(listener);
		return err_set(err, EINVAL, "%s: no compiled filter to answer with", p->conf->name);
	}
	if (!is_seccomp_listener(listener)) {
		close(listener);
		return err_set(err, EBADF, "the fd sent is not a seccomp listener");
	}
	rc = svc_program_plan(p, uid, &plan, err);
	if (rc) {
		close(listener);
		return rc;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		close(listener);
		return err_set(err, ENOMEM, "out of memory");
	}
	a->srv = srv;
	a->prog = p;
	a->handle_id = handle_id;
	a->uid = uid;
	a->pid = pid;
	a->procs = uid_procs_get(srv, uid);
	if (!a->procs) {
		close(listener);
		free(a);
		return err_set(err, ENOMEM, "out of memory");
	}
	so.max_tracked = SVC_MAX_PROCS_PER_ATTACHMENT;
	so.quota = &a->procs->quota;
	a->sv = supervisor_new(listener, p->stateful ? plan->sv_progs : &plain,
			       p->stateful ? plan->n : 1, &so, err);
	if (!a->sv) {
		close(listener);
		uid_procs_put(srv, a->procs);
		free(a);
		return -ENOMEM;
	}
	/* From here the attachment exists, even if not every thread could
	 * start: the waiter joins those that did, and once it has, closing
	 * the listener makes the filtered process fail closed. Waiting here
	 * instead could block the loop until that process exits. */
	rc = supervisor_start(a->sv, err);
	if (rc && srv->log)
		fprintf(srv->log, "secbpfd: %s: supervisor: %s\n", p->conf->name, err->msg);
	rc = pthread_create(&a->waiter, NULL, attachment_waiter, a);
	if (rc && srv->log)
		/* Never reaped: a leak, but no hang and no open door. */
		fprintf(srv->log, "secbpfd: %s: cannot start a waiter thread: %s\n", p->conf->name,
			strerror(rc));
	a->next = srv->attachments;
	srv->attachments = a;
	srv->nattachments++;
	svc_catalog_hold(p);
	if (srv->log)
		fprintf(srv->log, "secbpfd: %s: supervising pid %d for uid %u (%s %llu)\n",
			p->conf->name, (int)pid, (unsigned int)uid,
			handle_id ? "handle" : "runtime", (unsigned long long)handle_id);
	return 0;
}

void svc_attachments_reap(struct svc_server *srv)
{
	struct svc_attachment **pp = &srv->attachments, *a;
	uint64_t count;

	/* Reset the eventfd first: a waiter that finishes after this read
	 * wakes the loop again. */
	if (read(srv->donefd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return;
	while ((a = *pp)) {
		if (!__atomic_load_n(&a->done, __ATOMIC_ACQUIRE)) {
			pp = &a->next;
			continue;
		}
		pthread_join(a->waiter, NULL);
		supervisor_free(a->sv);
		uid_procs_put(srv, a->procs);
		if (srv->log)
			fprintf(srv->log, "secbpfd: %s: pid %d is gone, its supervision ended\n",
				a->prog->conf->name, (int)a->pid);
		*pp = a->next;
		srv->nattachments--;
		svc_catalog_put(srv, a->prog);
		free(a);
	}
}
