// SPDX-License-Identifier: MIT
/*
 * secbpf_attach(): a process filters itself. Verify with the tier the
 * policy grants, compile, and install in the kernel; a stateful stack gets
 * a supervisor process first (lib/supervisor/supervisor_spawn.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "api/api.h"
#include "api/opts.h"
#include "install/attach.h"
#include "install/native.h"
#include "install/policy.h"
#include "install/stack_plan.h"
#include "supervisor/supervisor.h"
#include "supervisor/supervisor_spawn.h"
#include "verifier/verifier.h"

#define ATTACH_MAX_PROGS 64

int api_seccomp_flags(unsigned int flags, unsigned int *out, struct secbpf_err *err)
{
	const unsigned int known = SECBPF_ATTACH_TSYNC | SECBPF_ATTACH_LOG |
				   SECBPF_ATTACH_SPEC_ALLOW | SECBPF_ATTACH_NATIVE;

	if (flags & ~known)
		return err_set(err, EINVAL, "unknown attach flags 0x%x", flags & ~known);
	*out = 0;
	if (flags & SECBPF_ATTACH_TSYNC)
		*out |= SECCOMP_FILTER_FLAG_TSYNC;
	if (flags & SECBPF_ATTACH_LOG)
		*out |= SECCOMP_FILTER_FLAG_LOG;
	if (flags & SECBPF_ATTACH_SPEC_ALLOW)
		*out |= SECCOMP_FILTER_FLAG_SPEC_ALLOW;
	return 0;
}

/* As in the kernel, nothing is installed that the verifier rejects. The
 * tier asked for is the highest; the system policy caps it. */
static int verify_all(struct secbpf_program *const *progs, size_t n, bool strict,
		      struct policy_decision *d, struct secbpf_err *err)
{
	struct verifier_opts vo = { .sz = sizeof(vo), .strict = strict };
	struct policy_inputs in;
	size_t i;
	int rc;

	rc = policy_read_system(&in, NULL, err);
	if (!rc)
		rc = policy_decide(&in, SECBPF_TIER_PRIVILEGED, d, err);
	if (rc) {
		err_prefix(err, "policy");
		return rc;
	}
	vo.tier = d->tier;
	vo.tier_reason = d->reason[0] ? d->reason : NULL;
	for (i = 0; i < n; i++) {
		const struct object *obj = progs[i]->obj->obj;
		const struct object_prog *p = progs[i]->prog;

		rc = verifier_check(obj, p, &vo, NULL, err);
		if (rc) {
			err_prefix(err, "%s: %s: rejected", obj->path, p->name);
			return rc;
		}
	}
	return 0;
}

/* Hand the stateful stack to a spawned supervisor. */
static int attach_supervised(struct secbpf_program *const *progs, size_t n,
			     const struct stack_plan *plan, const struct secbpf_attach_opts *o,
			     unsigned int sflags, const struct policy_decision *d,
			     unsigned int workers, struct secbpf_err *err)
{
	struct spawn_opts so = {
		.sz = sizeof(so),
		.exe = OPTS_GET(o, supervisor, NULL),
		.seccomp_flags = sflags,
		.workers = workers,
		.tier = d->tier,
		.loader_cap_sys_ptrace = d->may_read_nondumpable,
	};
	struct spawn_target *st;
	size_t i;
	int rc;

	st = calloc(n, sizeof(*st));
	if (!st)
		return err_set(err, ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		st[i].obj = progs[i]->obj->obj;
		st[i].prog = progs[i]->prog->name;
		st[i].sets = (const char *const *)progs[i]->obj->sets;
		st[i].nsets = progs[i]->obj->nsets;
	}
	rc = supervisor_spawn_attach(plan, st, n, &so, err);
	free(st);
	return rc;
}

/*
 * The native backend: the kernel with the seed patch set loads, verifies
 * and runs the programs; each is one seccomp() call, the first given
 * first. The library never sets no_new_privs, so it must be set already
 * (native_attach would otherwise set it).
 */
static int attach_native(struct secbpf_program *const *progs, size_t n, unsigned int sflags,
			 struct secbpf_err *err)
{
	struct native_prog np;
	struct native_abi abi;
	char *log = NULL;
	size_t i;
	int rc;

	rc = native_detect(&abi, err);
	if (rc)
		return rc;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return err_set(err, EACCES,
			       "no_new_privs is not set: set it with prctl(PR_SET_NO_NEW_PRIVS) "
			       "before attaching");
	for (i = 0; i < n; i++) {
		const struct object *obj = progs[i]->obj->obj;
		const struct object_prog *p = progs[i]->prog;

		memset(&np, 0, sizeof(np));
		rc = native_load(&abi, obj, p, &np, &log, err);
		free(log);
		log = NULL;
		if (!rc)
			rc = native_attach(&abi, np.prog_fd, sflags, err);
		/* An attached filter holds the program and its maps. */
		native_prog_close(&np);
		if (rc) {
			err_prefix(err, "%s: %s%s", obj->path, p->name,
				   i > 0 ? " (the programs before it stay attached)" : "");
			return rc;
		}
	}
	return 0;
}

static int attach(struct secbpf_program *const *progs, size_t n, const struct secbpf_attach_opts *o,
		  struct secbpf_err *err)
{
	struct stack_plan_target targets[ATTACH_MAX_PROGS];
	char labels[ATTACH_MAX_PROGS][256];
	struct stack_plan_opts po = { .sz = sizeof(po) };
	struct policy_decision d;
	struct stack_plan plan;
	unsigned int sflags = 0, workers;
	unsigned int flags;
	size_t i;
	int rc;

	/* Each field is read only if the caller's sz covers it (opts.h). */
	rc = OPTS_VALID(o, struct secbpf_attach_opts, strict, err);
	if (rc)
		return rc;
	flags = OPTS_GET(o, flags, 0);
	rc = api_seccomp_flags(flags, &sflags, err);
	if (rc)
		return rc;
	if (flags & SECBPF_ATTACH_NATIVE)
		return attach_native(progs, n, sflags, err);
	workers = OPTS_GET(o, workers, 0);
	if (!workers)
		workers = supervisor_default_workers();
	if (workers > SUPERVISOR_MAX_WORKERS)
		return err_set(err, EINVAL, "%u supervisor workers asked for, at most %d", workers,
			       SUPERVISOR_MAX_WORKERS);
	rc = verify_all(progs, n, OPTS_GET(o, strict, false), &d, err);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		snprintf(labels[i], sizeof(labels[i]), "%s:%s", progs[i]->obj->obj->path,
			 progs[i]->prog->name);
		targets[i].obj = progs[i]->obj->obj;
		targets[i].prog = progs[i]->prog;
		targets[i].name = labels[i];
	}
	po.ncpus = workers;
	po.loader_cap_sys_ptrace = d.may_read_nondumpable;
	rc = stack_plan_build(&plan, targets, n, &po, err);
	if (rc)
		return rc;
	if (plan.stateful)
		rc = attach_supervised(progs, n, &plan, o, sflags, &d, workers, err);
	else
		rc = attach_cbpf_many(plan.install, plan.ninstall, sflags, err);
	stack_plan_free(&plan);
	return rc < 0 ? rc : 0;
}

int secbpf_attach(struct secbpf_program *const *progs, size_t n,
		  const struct secbpf_attach_opts *opts)
{
	struct secbpf_err err = { { 0 } };
	size_t i;
	int rc;

	if (!progs || n == 0 || n > ATTACH_MAX_PROGS) {
		errno = EINVAL;
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		if (!progs[i]) {
			errno = EINVAL;
			return -EINVAL;
		}
	rc = attach(progs, n, opts, &err);
	if (rc) {
		/* Every object involved carries the reason. */
		for (i = 0; i < n; i++)
			progs[i]->obj->err = err;
		errno = -rc;
	}
	return rc;
}

int secbpf_program__attach(struct secbpf_program *prog, const struct secbpf_attach_opts *opts)
{
	return secbpf_attach(&prog, 1, opts);
}
