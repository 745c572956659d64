// SPDX-License-Identifier: MIT
/*
 * The filter stack a supervised run installs (see supervisor.h,
 * docs/design.md §1): the filters as given, or their kernel parts and one
 * listener filter after them, which notifies exactly what a stateful
 * filter leaves to its program. The notification loop is in loop.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf.h"
#include "common/syscall_name.h"
#include "supervisor/supervisor.h"

/* ------------------------------------------------------------------ */
/* The filter stack                                                     */
/* ------------------------------------------------------------------ */

static bool is_ret_user_notif(const struct sock_filter *insn)
{
	return insn->code == (BPF_RET | BPF_K) &&
	       (insn->k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF;
}

/*
 * A stateful filter's kernel part: the same program with every RET
 * USER_NOTIF turned into RET ALLOW. The listener filter notifies those
 * syscalls instead; a filter without a listener must never return
 * USER_NOTIF (the kernel would fail the syscall with ENOSYS).
 */
static struct sock_filter *kernel_part(const struct sock_filter *insns, size_t len)
{
	struct sock_filter *out;
	size_t i;

	out = malloc(len * sizeof(*out));
	if (!out)
		return NULL;
	memcpy(out, insns, len * sizeof(*out));
	for (i = 0; i < len; i++)
		if (is_ret_user_notif(&out[i]))
			out[i].k = SECCOMP_RET_ALLOW;
	return out;
}

/*
 * The listener filter for several stateful filters: the listener guard,
 * then their programs one after the other, each RET USER_NOTIF kept, every
 * other RET (K or A) turned into a JA to the start of the next one, and
 * RET ALLOW at the end. So it returns USER_NOTIF iff one of them does (or
 * EPERM for a process installing a listener). Jumps inside a piece keep
 * their targets (all relative); a RET at j of a piece of length len jumps
 * len - j - 1 forward, to the next piece. The guard is lib/cbpf's
 * (cbpf_guard_build(), the one the compiler emits). *len is 0 if it does
 * not fit. The programs are compiled without a guard of their own: their
 * kernel parts are installed before the listener, which a guard would
 * refuse.
 */
static struct sock_filter *listener_filter(const struct sock_filter *guard, size_t at,
					   const struct supervisor_prog *progs, size_t n,
					   size_t *len)
{
	struct sock_filter *out;
	size_t total, i, j;

	total = at + 1;
	for (i = 0; i < n; i++)
		if (progs[i].rt)
			total += progs[i].len;
	*len = 0;
	if (total > CBPF_MAX_INSNS)
		return NULL;
	out = calloc(total, sizeof(*out));
	if (!out)
		return NULL;
	memcpy(out, guard, at * sizeof(*out));
	for (i = 0; i < n; i++) {
		if (!progs[i].rt)
			continue;
		for (j = 0; j < progs[i].len; j++, at++) {
			const struct sock_filter *in = &progs[i].insns[j];

			if (is_ret_user_notif(in))
				out[at] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
								       SECCOMP_RET_USER_NOTIF);
			else if (BPF_CLASS(in->code) == BPF_RET)
				out[at] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
								       progs[i].len - j - 1);
			else
				out[at] = *in;
		}
	}
	out[at] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	*len = total;
	return out;
}

void supervisor_stack_free(struct supervisor_stack *s)
{
	size_t i;

	for (i = 0; s->owned && i < s->n; i++)
		free(s->owned[i]);
	free(s->owned);
	free(s->progs);
	memset(s, 0, sizeof(*s));
}

bool supervisor_stack_single(const struct supervisor_prog *progs, size_t n)
{
	size_t i, nstateful = 0;

	for (i = 0; i < n; i++)
		if (progs[i].rt)
			nstateful++;
	return nstateful == 1 && progs[n - 1].rt;
}

/* Whether a filter denies this process's arch installing a listener. */
static bool guard_denies_native(const struct sock_filter *insns, size_t len)
{
	struct syscall_abi abi = syscall_abi_native();
	struct seccomp_data sd;
	int32_t nr;

	if (syscall_number(&abi, "seccomp", &nr))
		return false;
	memset(&sd, 0, sizeof(sd));
	sd.arch = abi.audit;
	sd.nr = nr;
	sd.args[0] = SECCOMP_SET_MODE_FILTER;
	sd.args[1] = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	return cbpf_sim_run(insns, len, &sd) == (SECCOMP_RET_ERRNO | EPERM);
}

int supervisor_stack_build(const struct supervisor_prog *progs, size_t n,
			   struct supervisor_stack *out, struct secbpf_err *err)
{
	struct sock_filter *guard;
	size_t i, nstateful = 0, len, guard_len;
	int rc;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		if (progs[i].len == 0 || progs[i].len > CBPF_MAX_INSNS)
			return err_set(err, EINVAL,
				       "%s: a filter has 1 to %d instructions, not %zu",
				       progs[i].name, CBPF_MAX_INSNS, progs[i].len);
		if (progs[i].rt)
			nstateful++;
	}
	if (nstateful == 0)
		return err_set(err, EINVAL, "no filter needs the supervisor");

	/* The common case: one stateful filter, given last, is itself the
	 * listener filter; no rewriting at all. Its guard comes from the
	 * compiler: check it is there, at least for the native arch. */
	if (supervisor_stack_single(progs, n)) {
		if (!guard_denies_native(progs[n - 1].insns, progs[n - 1].len))
			return err_set(err, EINVAL,
				       "%s: the listener filter was compiled without the listener "
				       "guard (cbpf_compile_opts.listener_guard)",
				       progs[n - 1].name);
		out->n = n;
		out->progs = calloc(n, sizeof(*out->progs));
		out->owned = calloc(n, sizeof(*out->owned));
		if (!out->progs || !out->owned)
			goto nomem;
		for (i = 0; i < n; i++) {
			out->progs[i].len = (unsigned short)progs[i].len;
			out->progs[i].filter = (struct sock_filter *)progs[i].insns;
		}
		return 0;
	}

	out->n = n + 1;
	out->progs = calloc(n + 1, sizeof(*out->progs));
	out->owned = calloc(n + 1, sizeof(*out->owned));
	if (!out->progs || !out->owned)
		goto nomem;
	for (i = 0; i < n; i++) {
		out->progs[i].len = (unsigned short)progs[i].len;
		if (!progs[i].rt) {
			out->progs[i].filter = (struct sock_filter *)progs[i].insns;
			continue;
		}
		out->owned[i] = kernel_part(progs[i].insns, progs[i].len);
		if (!out->owned[i])
			goto nomem;
		out->progs[i].filter = out->owned[i];
	}
	rc = cbpf_guard_build(&guard, &guard_len, err);
	if (rc) {
		supervisor_stack_free(out);
		return rc;
	}
	out->owned[n] = listener_filter(guard, guard_len, progs, n, &len);
	if (!out->owned[n] && len == 0) {
		/* Too long to concatenate (or no memory): the guard, then
		 * notify every syscall. The supervisor still combines every
		 * filter's action exactly; only speed is lost. */
		out->owned[n] = calloc(guard_len + 1, sizeof(**out->owned));
		if (!out->owned[n]) {
			free(guard);
			goto nomem;
		}
		memcpy(out->owned[n], guard, guard_len * sizeof(*guard));
		len = guard_len;
		out->owned[n][len++] =
			(struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
		out->listener_notifies_all = true;
		out->progs[n].filter = out->owned[n];
		out->progs[n].len = (unsigned short)len;
	} else {
		out->progs[n].filter = out->owned[n];
		out->progs[n].len = (unsigned short)len;
	}
	free(guard);
	/* What is built here must pass the kernel's rules like anything
	 * the compiler emits. */
	for (i = 0; i <= n; i++) {
		if (!out->owned[i])
			continue;
		rc = cbpf_check(out->progs[i].filter, out->progs[i].len, err);
		if (rc) {
			err_prefix(err, "internal error: supervised stack, filter %zu", i + 1);
			supervisor_stack_free(out);
			return -EFAULT;
		}
	}
	return 0;
nomem:
	supervisor_stack_free(out);
	return err_set(err, ENOMEM, "out of memory");
}

bool supervisor_filter_may_notify(const struct sock_filter *insns, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (is_ret_user_notif(&insns[i]))
			return true;
	return false;
}
