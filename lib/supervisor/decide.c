// SPDX-License-Identifier: MIT
/*
 * The supervisor's decisions (docs/design.md §1): the action of the whole
 * stack for a notified syscall, and the reply and deed for an action. Pure
 * functions of their inputs; the workers (loop.c) carry them out.
 */
#include <errno.h>

#include "cbpf/cbpf.h"
#include "install/action.h"
#include "supervisor/supervisor_internal.h"

enum supervisor_deed supervisor_reply_for(uint32_t ret, struct seccomp_notif_resp *resp)
{
	uint32_t eff = action_effective(ret);
	uint32_t data = eff & SECCOMP_RET_DATA;

	resp->val = 0;
	resp->flags = 0;
	switch (eff & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
		resp->error = 0;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		return SUPERVISOR_CONTINUE;
	case SECCOMP_RET_LOG:
		resp->error = 0;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		return SUPERVISOR_LOG;
	case SECCOMP_RET_ERRNO:
		/* As the kernel does: data above MAX_ERRNO is capped; ERRNO(0)
		 * skips the syscall, which returns 0. */
		resp->error = -(int32_t)(data > ACTION_MAX_ERRNO ? ACTION_MAX_ERRNO : data);
		return SUPERVISOR_FAIL;
	case SECCOMP_RET_TRAP:
		resp->error = -ENOSYS;
		return SUPERVISOR_TRAP;
	case SECCOMP_RET_TRACE:
		/* What the kernel does when no tracer is attached. */
		resp->error = -ENOSYS;
		return SUPERVISOR_FAIL;
	case SECCOMP_RET_USER_NOTIF:
		/* ENOSYS unless the user agent answers (supervisor_agent_ask). */
		resp->error = -ENOSYS;
		return SUPERVISOR_AGENT;
	case SECCOMP_RET_KILL_THREAD:
	case SECCOMP_RET_KILL_PROCESS:
	default:
		/* Seen only if the kill itself failed: never CONTINUE. */
		resp->error = -EPERM;
		return SUPERVISOR_KILL;
	}
}

/* Run one filter's program for a syscall of task (helpers act on it). */
static int run_program(const struct supervisor_prog *p, const struct seccomp_data *sd,
		       const struct runtime_task *task, uint32_t *ret, struct secbpf_err *err)
{
	return runtime_run_task(p->rt, sd, task, ret, err);
}

int supervisor_decide(const struct supervisor *sv, const struct seccomp_data *sd,
		      const struct runtime_task *task, uint32_t *ret, struct secbpf_err *err)
{
	uint32_t combined = 0, r;
	size_t i;
	int rc;

	/* Newest first, as the kernel walks the stack; on a tie the newer
	 * filter's value is kept (action_combine). */
	for (i = sv->nprogs; i-- > 0;) {
		const struct supervisor_prog *p = &sv->progs[i];

		r = cbpf_sim_run(p->insns, p->len, sd);
		if ((r & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF && p->rt) {
			rc = run_program(p, sd, task, &r, err);
			if (rc) {
				err_prefix(err, "%s", p->name);
				return rc;
			}
		}
		combined = i == sv->nprogs - 1 ? r : action_combine(combined, r);
	}
	*ret = combined;
	return 0;
}
