// SPDX-License-Identifier: MIT
/*
 * secbpf_handle_attach(): a process attaches a program that secbpfd loaded
 * (docs/handles.md). The service verified and compiled it; this side only
 * checks what the handle gives, installs it, and hands the listener of a
 * stateful stack back to the service, which supervises it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "api/api.h"
#include "api/opts.h"
#include "install/attach.h"
#include "service/handle_client.h"
#include "supervisor/supervisor_spawn.h"

/* The public flags a handle accepts, as seccomp() flags. */
static int handle_seccomp_flags(unsigned int flags, unsigned int *out, struct secbpf_err *err)
{
	if (flags & SECBPF_ATTACH_NATIVE)
		return err_set(err, EINVAL,
			       "SECBPF_ATTACH_NATIVE: a handle's program is the service's, "
			       "compiled to cBPF; it has no native form to attach");
	return api_seccomp_flags(flags, out, err);
}

static int handle_attach(int fd, const struct secbpf_handle_attach_opts *o, struct secbpf_err *err)
{
	struct handle_stack stack;
	unsigned int sflags, timeout_ms;
	int rc;

	rc = OPTS_VALID(o, struct secbpf_handle_attach_opts, errbuf_sz, err);
	if (rc)
		return rc;
	rc = handle_seccomp_flags(OPTS_GET(o, flags, 0), &sflags, err);
	if (rc)
		return rc;
	timeout_ms = OPTS_GET(o, timeout_ms, 0);
	rc = handle_fetch_stack(fd, timeout_ms, &stack, err);
	if (rc)
		return rc;
	/* As seccomp() requires of an unprivileged caller; set for everyone,
	 * so that no setuid program gains privileges under the filter. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		rc = err_set(err, errno, "cannot set no_new_privs: %s", strerror(errno));
		goto out;
	}
	if (stack.listener)
		rc = supervisor_service_attach(stack.progs, stack.n, sflags, fd, timeout_ms, err);
	else
		rc = attach_cbpf_many(stack.progs, stack.n, sflags, err);
	rc = rc < 0 ? rc : 0;
out:
	handle_stack_free(&stack);
	return rc;
}

int secbpf_handle_attach(int fd, const struct secbpf_handle_attach_opts *opts)
{
	struct secbpf_err err = { { 0 } };
	int rc;

	rc = handle_attach(fd, opts, &err);
	if (rc) {
		/* errbuf is only read when the options are valid. */
		if (!OPTS_VALID(opts, struct secbpf_handle_attach_opts, errbuf_sz, NULL) &&
		    OPTS_GET(opts, errbuf, NULL) && OPTS_GET(opts, errbuf_sz, 0))
			snprintf(opts->errbuf, opts->errbuf_sz, "%s", err.msg);
		errno = -rc;
	}
	return rc;
}
