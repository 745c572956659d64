// SPDX-License-Identifier: MIT
/*
 * The notification loop (docs/design.md §1): each worker receives while it
 * holds the baton, decides, acts on the target and replies. Invariants,
 * checked line by line below:
 * - a notification is answered with CONTINUE only when every filter of the
 *   stack said ALLOW or LOG for it; any failure replies with an error;
 * - nothing about the target is read or acted on through a TID before the
 *   fds naming it were opened and the notification then found still valid
 *   (SECCOMP_IOCTL_NOTIF_ID_VALID), so a recycled TID is never used.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/syscall_name.h"
#include "install/action.h"
#include "supervisor/supervisor_internal.h"

void supervisor_log(struct supervisor *sv, const char *fmt, ...)
{
	char line[SECBPF_ERR_MAX + 128];
	va_list ap;

	/* One fprintf per line: stdio locks the stream for each call. */
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(sv->log, "secbpf: supervisor: %s\n", line);
	fflush(sv->log);
}

/* runtime_task.still_valid: helpers call it after reading the task. */
struct valid_ctx {
	const struct supervisor *sv;
	uint64_t id;
};

static int task_still_valid(void *arg)
{
	const struct valid_ctx *v = arg;

	return notif_valid(v->sv, v->id) ? 0 : -ESRCH;
}

static void send_reply(struct supervisor *sv, struct seccomp_notif_resp *resp)
{
	if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == 0)
		return;
	/* The kernel refused the reply itself (it cannot happen with the
	 * replies built here): answer ENOSYS rather than leave the thread
	 * waiting for an answer that never comes. */
	if (errno == EINVAL) {
		supervisor_log(sv, "notification %llu: reply refused; failing it with ENOSYS",
			       (unsigned long long)resp->id);
		resp->flags = 0;
		resp->val = 0;
		resp->error = -ENOSYS;
		if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == 0)
			return;
	}
	/* ENOENT: the task died (or was killed by us) meanwhile. */
	if (errno != ENOENT)
		supervisor_log(sv, "cannot reply to notification %llu: %s",
			       (unsigned long long)resp->id, strerror(errno));
}

/* Reply with the error already in resp because the supervisor failed. */
static void fail_reply(struct supervisor *sv, struct seccomp_notif_resp *resp)
{
	__atomic_add_fetch(&sv->failures, 1, __ATOMIC_RELAXED);
	send_reply(sv, resp);
}

/* runtime_task.get_tgid: supervisor_target_track for the notification
 * being handled (a helper may keep state for the process). */
struct tgid_ctx {
	struct supervisor_worker *w;
	const struct seccomp_notif *req;
	struct target *t;
};

static int task_get_tgid(void *arg, pid_t *tgid)
{
	struct tgid_ctx *c = arg;
	int rc;

	rc = supervisor_target_track(c->w, c->req, c->t);
	if (rc)
		return rc;
	*tgid = c->t->tgid;
	return 0;
}

/*
 * The combined action of the stack for the notification w holds, made by
 * thread t, into *ret: helpers act on t, and find its thread group only if
 * they need it. Returns 0, or a negative errno after logging why (the
 * caller then fails the syscall).
 */
static int worker_decide(struct supervisor_worker *w, struct target *t, uint32_t *ret)
{
	struct supervisor *sv = w->sv;
	const struct seccomp_notif *req = w->req;
	struct valid_ctx valid = { .sv = sv, .id = req->id };
	struct tgid_ctx tgid = { .w = w, .req = req, .t = t };
	struct runtime_task task;
	struct secbpf_err err;
	int rc;

	/* Not zeroed whole: 512 bytes per notification for a message that
	 * is only read after err_set wrote it. */
	err.msg[0] = '\0';
	memset(&task, 0, sizeof(task));
	task.tid = t->tid;
	task.tgid = 0; /* found by get_tgid if a helper needs it */
	task.get_tgid = task_get_tgid;
	task.get_tgid_ctx = &tgid;
	task.mem_fd = t->mem_fd;
	task.still_valid = task_still_valid;
	task.still_valid_ctx = &valid;
	task.cpu = w->cpu;
	rc = supervisor_decide(sv, &req->data, &task, ret, &err);
	if (rc && t->over_cap)
		return rc; /* logged once by the cap, not per syscall */
	if (rc) {
		supervisor_baton_release(w);
		supervisor_log(sv, "pid %u: syscall %d: %s: failing it with ENOSYS", req->pid,
			       req->data.nr, err.msg);
	}
	return rc;
}

/* Say why the supervisor killed a process: its exit status (137, SIGKILL)
 * does not tell a filter's KILL from any other SIGKILL. */
static void log_kill(struct supervisor *sv, const struct seccomp_notif *req, const struct target *t,
		     uint32_t ret)
{
	const char *abi = syscall_abi_name(req->data.arch, req->data.nr);
	char name[64], action[32];

	syscall_name(req->data.arch, req->data.nr, name, sizeof(name));
	supervisor_log(
		sv, "killed process %d (SIGKILL): a filter returned %s for its %s syscall %s%s%d%s",
		(int)t->tgid, action_format(ret, action, sizeof(action)),
		abi ? abi : "unknown-arch", name, name[0] ? " (" : "", req->data.nr,
		name[0] ? ")" : "");
}

/*
 * Carry out deed for the notification w holds (its thread t, the combined
 * action ret), then send the reply supervisor_reply_for() put in w->resp
 * (or the agent's). Nothing is sent once the notification is found gone.
 */
static void worker_act(struct supervisor_worker *w, struct target *t, enum supervisor_deed deed,
		       uint32_t ret)
{
	struct supervisor *sv = w->sv;
	const struct seccomp_notif *req = w->req;
	struct seccomp_notif_resp *resp = w->resp;
	int rc;

	/* Logging, killing, trapping and asking the agent may block: let
	 * another worker receive meanwhile. */
	if (deed != SUPERVISOR_CONTINUE && deed != SUPERVISOR_FAIL) {
		supervisor_baton_release(w);
		/* Each needs the thread group; without it the reply stays
		 * the error reply_for put there (or CONTINUE for LOG). */
		rc = supervisor_target_tgid(w, req, t);
		if (rc == -ESRCH)
			return; /* the task is gone: nothing to answer */
		if (rc && deed != SUPERVISOR_LOG) {
			supervisor_log(
				sv,
				"pid %u: cannot find its process (%s): syscall %d fails with %s",
				req->pid, strerror(-rc), req->data.nr, strerror(-resp->error));
			send_reply(sv, resp);
			return;
		}
	}
	switch (deed) {
	case SUPERVISOR_CONTINUE:
	case SUPERVISOR_FAIL:
		break;
	case SUPERVISOR_LOG:
		supervisor_log(sv, "LOG: pid %u (tgid %d) syscall %d arch 0x%x", req->pid,
			       (int)t->tgid, req->data.nr, req->data.arch);
		break;
	case SUPERVISOR_KILL:
		rc = supervisor_target_kill(sv, req->id, t);
		if (rc == 0)
			log_kill(sv, req, t, ret);
		if (rc && rc != -ESRCH)
			supervisor_log(
				sv,
				"pid %u: cannot kill process %d (%s): syscall %d fails with EPERM",
				req->pid, (int)t->tgid, strerror(-rc), req->data.nr);
		break;
	case SUPERVISOR_TRAP:
		rc = supervisor_target_trap(sv, req->id, t, ret);
		if (rc && rc != -ESRCH)
			supervisor_log(
				sv, "pid %u: cannot send SIGSYS (%s): syscall %d fails with ENOSYS",
				req->pid, strerror(-rc), req->data.nr);
		break;
	case SUPERVISOR_AGENT:
		/* resp says ENOSYS unless the agent answers well. */
		rc = supervisor_agent_ask(sv, req, t, ret, resp);
		if (rc == -ESRCH)
			return;
		break;
	}
	send_reply(sv, resp);
}

/* Handle one notification: decide, act, reply (see the file comment). */
static void worker_handle(struct supervisor_worker *w)
{
	struct supervisor *sv = w->sv;
	const struct seccomp_notif *req = w->req;
	struct seccomp_notif_resp *resp = w->resp;
	struct target t;
	uint32_t ret;
	int rc;

	memset(resp, 0, sv->resp_size);
	resp->id = req->id;
	resp->error = -ENOSYS; /* until decided: what a dead supervisor gives */

	rc = supervisor_target_open(w, req, &t);
	if (rc == -ESRCH)
		goto out; /* the task is gone: nothing to answer */
	if (rc) {
		supervisor_baton_release(w);
		supervisor_log(
			sv,
			"pid %u: cannot look at the thread (%s): failing syscall %d with ENOSYS",
			req->pid, strerror(-rc), req->data.nr);
		fail_reply(sv, resp);
		goto out;
	}
	if (worker_decide(w, &t, &ret)) {
		if (t.over_cap) {
			/* A cap of the service, not a failure of ours: the
			 * syscall fails as a fork does at RLIMIT_NPROC. */
			resp->error = -EAGAIN;
			send_reply(sv, resp);
			goto out;
		}
		fail_reply(sv, resp);
		goto out;
	}
	worker_act(w, &t, supervisor_reply_for(ret, resp), ret);
out:
	supervisor_target_close(&t);
}

/* Whether the listener reports that no task uses the filter any more. */
static bool listener_hung_up(const struct supervisor *sv)
{
	struct pollfd p = { .fd = sv->listener, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

/*
 * Kernels before 6.6 never wake a SECCOMP_IOCTL_NOTIF_RECV blocked when the
 * filter loses its last task (only poll() reports that, with POLLHUP, since
 * 5.8): a receiver blocked there would wait forever and `run` would never
 * exit. There the baton holder polls first and calls RECV only when a
 * notification is pending; only the holder receives, so no other worker
 * can take it in between (and if its task dies, RECV fails with ENOENT
 * rather than blocking). Returns 0 to receive, 1 when the listener hung
 * up, or -errno.
 */
static int wait_pending(const struct supervisor *sv)
{
	struct pollfd p = { .fd = sv->listener, .events = POLLIN };

	if (sv->recv_wakes_on_hangup)
		return 0;
	for (;;) {
		p.revents = 0;
		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p.revents & POLLIN)
			return 0;
		if (p.revents & POLLHUP)
			return 1;
		if (p.revents & (POLLERR | POLLNVAL))
			return -EBADF;
	}
}

void *supervisor_worker_main(void *arg)
{
	struct supervisor_worker *w = arg;
	struct supervisor *sv = w->sv;
	int rc;

	for (;;) {
		/* Only the holder of the baton receives (see supervisor_baton_take). */
		if (!supervisor_baton_take(w))
			return NULL;
		rc = wait_pending(sv);
		if (rc > 0) {
			supervisor_baton_stop(w);
			return NULL;
		}
		if (rc < 0) {
			errno = -rc;
			goto fatal;
		}
		/* The kernel wants a zeroed buffer. */
		memset(w->req, 0, sv->req_size);
		if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_RECV, w->req) == 0) {
			/* One writer: a plain store, read by the control thread. */
			__atomic_store_n(&w->notifications, w->notifications + 1, __ATOMIC_RELAXED);
			worker_handle(w);
			continue;
		}
		if (errno == EINTR)
			continue;
		/* ENOENT: the task was killed before we got its notification,
		 * or no task uses the filter any more (RECV then wakes every
		 * waiter with ENOENT): only the latter ends the workers. */
		if (errno == ENOENT) {
			if (listener_hung_up(sv)) {
				supervisor_baton_stop(w);
				return NULL;
			}
			continue;
		}
	fatal:
		supervisor_baton_release(w);
		/* Nothing else is expected. Fail closed: once this process is
		 * gone the kernel answers every notified syscall with ENOSYS,
		 * whereas a worker that stopped would leave them hanging. */
		supervisor_log(sv, "cannot receive notifications: %s; aborting", strerror(errno));
		abort();
	}
}
