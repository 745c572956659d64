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

#include <seccomp.h>

#include "cbpf/cbpf.h"
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

/* The low 32 bits of args[i]: the kernel reads seccomp()'s op and flags
 * as unsigned int. seccomp_data is in the host's byte order. */
#define ARG_LO(i)                                                                                  \
	(offsetof(struct seccomp_data, args[i]) + (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 4 : 0))

#define GUARD_BLOCK 8	   /* instructions per (arch, nr) pair */
#define GUARD_MAX_PAIRS 30 /* keeps every jump within 8 bits */

/*
 * The listener guard of a combined listener filter (docs/design.md §1; the
 * compiler adds the same guard to a single stateful filter): deny
 * seccomp(SECCOMP_SET_MODE_FILTER, flags with NEW_LISTENER) with EPERM on
 * every arch libseccomp knows, then fall through to what follows. One
 * block per (arch, nr) pair:
 *	0: ld arch		4: ld args[0].lo
 *	1: jeq ARCH, 0, 6	5: jeq SET_MODE_FILTER, 0, 2
 *	2: ld nr		6: ld args[1].lo
 *	3: jeq NR, 0, 4		7: jset NEW_LISTENER, to deny, 0
 * then "ja 1; ret ERRNO(EPERM)". The args are loaded only for the seccomp
 * syscall, so other syscalls stay provable by the kernel's action cache.
 * Writes at most GUARD_MAX_PAIRS * GUARD_BLOCK + 2 instructions to out and
 * returns their number.
 */
static size_t listener_guard(struct sock_filter *out)
{
	struct cbpf_guard_target pairs[GUARD_MAX_PAIRS];
	size_t npairs = cbpf_guard_targets(pairs, GUARD_MAX_PAIRS), i, n = 0;

	for (i = 0; i < npairs; i++) {
		/* From insn 7 of block i to the deny RET: the blocks after
		 * this one, then the JA. */
		uint8_t to_deny = (uint8_t)((npairs - i - 1) * GUARD_BLOCK + 1);

		out[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							offsetof(struct seccomp_data, arch));
		out[n++] =
			(struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, pairs[i].arch, 0, 6);
		out[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							offsetof(struct seccomp_data, nr));
		out[n++] =
			(struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, pairs[i].nr, 0, 4);
		out[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
		out[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							SECCOMP_SET_MODE_FILTER, 0, 2);
		out[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1));
		out[n++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JSET | BPF_K, SECCOMP_FILTER_FLAG_NEW_LISTENER, to_deny, 0);
	}
	out[n++] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 1);
	out[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
	return n;
}

/*
 * The listener filter for several stateful filters: the listener guard,
 * then their programs one after the other, each RET USER_NOTIF kept, every
 * other RET (K or A) turned into a JA to the start of the next one, and
 * RET ALLOW at the end. So it returns USER_NOTIF iff one of them does (or
 * EPERM for a process installing a listener). Jumps inside a piece keep
 * their targets (all relative); a RET at j of a piece of length len jumps
 * len - j - 1 forward, to the next piece. *len is 0 if it does not fit.
 * The programs are compiled without a guard of their own: their kernel
 * parts are installed before the listener, which a guard would refuse.
 */
static struct sock_filter *listener_filter(const struct supervisor_prog *progs, size_t n,
					   size_t *len)
{
	struct sock_filter guard[GUARD_MAX_PAIRS * GUARD_BLOCK + 2];
	struct sock_filter *out;
	size_t total, i, j, at;

	at = listener_guard(guard);
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
	struct seccomp_data sd;
	uint32_t arch = seccomp_arch_native();
	int nr = seccomp_syscall_resolve_name_arch(arch, "seccomp");

	if (nr < 0)
		return false;
	memset(&sd, 0, sizeof(sd));
	sd.arch = arch;
	sd.nr = nr;
	sd.args[0] = SECCOMP_SET_MODE_FILTER;
	sd.args[1] = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	return cbpf_sim_run(insns, len, &sd) == (SECCOMP_RET_ERRNO | EPERM);
}

int supervisor_stack_build(const struct supervisor_prog *progs, size_t n,
			   struct supervisor_stack *out, struct secbpf_err *err)
{
	size_t i, nstateful = 0, len;
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
	out->owned[n] = listener_filter(progs, n, &len);
	if (!out->owned[n] && len == 0) {
		/* Too long to concatenate (or no memory): the guard, then
		 * notify every syscall. The supervisor still combines every
		 * filter's action exactly; only speed is lost. */
		out->owned[n] = calloc(GUARD_MAX_PAIRS * GUARD_BLOCK + 3, sizeof(**out->owned));
		if (!out->owned[n])
			goto nomem;
		len = listener_guard(out->owned[n]);
		out->owned[n][len++] =
			(struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
		out->listener_notifies_all = true;
		out->progs[n].filter = out->owned[n];
		out->progs[n].len = (unsigned short)len;
	} else {
		out->progs[n].filter = out->owned[n];
		out->progs[n].len = (unsigned short)len;
	}
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
