// SPDX-License-Identifier: MIT
/*
 * Installing compiled filters with seccomp(SECCOMP_SET_MODE_FILTER). Every
 * check the kernel would make that we can make first is made here first, so
 * the user gets a reason instead of a bare EACCES or EINVAL.
 */
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "install/attach.h"

#define NNP_HINT "set no_new_privs with prctl(PR_SET_NO_NEW_PRIVS) or run with CAP_SYS_ADMIN"

/*
 * The kernel's rules for combining flags (seccomp_set_mode_filter), plus
 * ours: one listener per call. Returns 0 or -EINVAL with err set.
 */
static int check_flags(unsigned int flags, size_t n, struct secbpf_err *err)
{
	if (flags & ~(unsigned int)ATTACH_FLAGS_ALLOWED)
		return err_set(err, EINVAL, "unknown seccomp filter flags 0x%x",
			       flags & ~(unsigned int)ATTACH_FLAGS_ALLOWED);
	/* With both, the kernel could not tell a listener fd from the TID of
	 * a thread that failed to synchronize: it asks for TSYNC_ESRCH. */
	if ((flags & SECCOMP_FILTER_FLAG_TSYNC) && (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) &&
	    !(flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH))
		return err_set(err, EINVAL,
			       "SECCOMP_FILTER_FLAG_TSYNC with NEW_LISTENER also needs "
			       "SECCOMP_FILTER_FLAG_TSYNC_ESRCH");
	if ((flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH) && !(flags & SECCOMP_FILTER_FLAG_TSYNC))
		return err_set(err, EINVAL,
			       "SECCOMP_FILTER_FLAG_TSYNC_ESRCH needs SECCOMP_FILTER_FLAG_TSYNC");
	if ((flags & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) &&
	    !(flags & SECCOMP_FILTER_FLAG_NEW_LISTENER))
		return err_set(err, EINVAL,
			       "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs "
			       "SECCOMP_FILTER_FLAG_NEW_LISTENER");
	/* The kernel refuses a second listener in a process (EBUSY) after
	 * the first filter is already in: refuse before installing any. */
	if ((flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) && n > 1)
		return err_set(err, EINVAL,
			       "only one filter can have a listener (NEW_LISTENER), not %zu", n);
	return 0;
}

/* Whether the calling thread has CAP_SYS_ADMIN in its effective set, which
 * is what ns_capable(current_user_ns(), CAP_SYS_ADMIN) tests. */
static int has_cap_sys_admin(bool *yes)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	*yes = data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN);
	return 0;
}

/*
 * The kernel's condition for installing a filter (seccomp_prepare_filter):
 * no_new_privs set, or CAP_SYS_ADMIN. Without one of them a setuid program
 * run under the filter could be made to misbehave with its privileges.
 */
static int check_privileges(struct secbpf_err *err)
{
	bool admin = false;
	int nnp, rc;

	nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (nnp < 0)
		return err_set(err, errno, "cannot read no_new_privs: %s", strerror(errno));
	if (nnp == 1)
		return 0;
	rc = has_cap_sys_admin(&admin);
	if (rc)
		return err_set(err, -rc, "cannot read the capabilities: %s", strerror(-rc));
	if (!admin)
		return err_set(err, EACCES,
			       "no_new_privs is not set and CAP_SYS_ADMIN is missing: " NNP_HINT);
	return 0;
}

/*
 * A RET of SECCOMP_RET_USER_NOTIF from a filter without a listener makes
 * the kernel fail the syscall with ENOSYS: the program's decision would
 * silently never be taken. Only RET K can be checked; RET A is the
 * compiler's responsibility (it never computes USER_NOTIF in A).
 */
static int check_user_notif(const struct sock_filter *insns, size_t len, unsigned int flags,
			    struct secbpf_err *err)
{
	size_t i;

	if (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)
		return 0;
	for (i = 0; i < len; i++) {
		if (insns[i].code != (BPF_RET | BPF_K))
			continue;
		if ((insns[i].k & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_USER_NOTIF)
			continue;
		return err_set(err, EINVAL,
			       "instruction %zu returns SECCOMP_RET_USER_NOTIF but no listener is "
			       "created: those syscalls would fail with ENOSYS (they need the "
			       "supervisor, and a user agent: secbpf run --agent SOCKET)",
			       i);
	}
	return 0;
}

/* The seccomp filter flags by the Linux version that added them, newest
 * first: an older kernel answers EINVAL for any of them. */
static const struct {
	unsigned int flag;
	const char *name;
	const char *linux_version;
} flag_versions[] = {
	{ SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV",
	  "5.19" },
	{ SECCOMP_FILTER_FLAG_TSYNC_ESRCH, "SECCOMP_FILTER_FLAG_TSYNC_ESRCH", "5.7" },
	{ SECCOMP_FILTER_FLAG_NEW_LISTENER, "SECCOMP_FILTER_FLAG_NEW_LISTENER", "5.0" },
	{ SECCOMP_FILTER_FLAG_SPEC_ALLOW, "SECCOMP_FILTER_FLAG_SPEC_ALLOW", "4.17" },
	{ SECCOMP_FILTER_FLAG_LOG, "SECCOMP_FILTER_FLAG_LOG", "4.14" },
};

/*
 * EINVAL from seccomp() for a filter cbpf_check() accepted and flags that
 * check_flags() accepted: the kernel does not know a flag, so it is older
 * than the newest flag asked for, which the message names with the Linux
 * version it needs. Makes no syscall (between two installs a filter
 * already installed may kill on any other).
 */
static int explain_einval(unsigned int flags, struct secbpf_err *err)
{
	size_t i;

	for (i = 0; i < sizeof(flag_versions) / sizeof(flag_versions[0]); i++) {
		if (!(flags & flag_versions[i].flag))
			continue;
		return err_set(err, EINVAL,
			       "the kernel rejected the filter flags 0x%x (EINVAL): %s needs "
			       "Linux %s or later, and this kernel does not know it (uname -r "
			       "shows its version; docs/kernels.md lists what each version "
			       "supports)",
			       flags, flag_versions[i].name, flag_versions[i].linux_version);
	}
	return err_set(err, EINVAL,
		       "the kernel rejected the filter or its flags 0x%x (EINVAL): a flag "
		       "this kernel does not know, or seccomp filtering is not built in",
		       flags);
}

/* Turn a seccomp(SECCOMP_SET_MODE_FILTER) failure into its meaning. */
static int explain_kernel_error(int e, unsigned int flags, struct secbpf_err *err)
{
	/* seccomp() itself is not denied by the kernel with EPERM: a filter
	 * already in force did it. For a listener, that is the guard of a
	 * stateful filter already installed (docs/design.md §1), which stands where
	 * the kernel would say EBUSY. */
	if (e == EPERM && (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER))
		return err_set(err, EBUSY,
			       "a filter already in force refuses a new listener (EPERM): this "
			       "process tree already has a stateful filter with its supervisor, "
			       "and the kernel allows one listener per filter chain (EBUSY); "
			       "stateless filters can still be stacked");
	switch (e) {
	case EACCES:
		return err_set(err, e, "the kernel refused the filter (EACCES): " NNP_HINT);
	case EINVAL:
		return explain_einval(flags, err);
	case ENOMEM:
		return err_set(err, e,
			       "the kernel refused the filter (ENOMEM): out of memory, or the "
			       "filters stacked on this thread would exceed 32768 instructions on "
			       "one path (4 more are counted per filter)");
	case EBUSY:
		return err_set(err, e,
			       "the kernel refused the listener (EBUSY): a filter with a listener "
			       "is already installed in this process");
	case ESRCH:
		return err_set(err, e,
			       "the kernel could not synchronize another thread (TSYNC, ESRCH): a "
			       "thread has filters that this one does not share");
	case EFAULT:
		return err_set(err, e, "the kernel could not read the filter (EFAULT)");
	case ENOSYS:
		return err_set(err, e, "this kernel has no seccomp(2) system call (ENOSYS)");
	default:
		return err_set(err, e, "the kernel refused the filter: %s", strerror(e));
	}
}

/*
 * Install one checked filter. Returns 0, the listener fd, or a negative
 * errno with err set; makes exactly one syscall.
 */
static int install_one(const struct sock_fprog *prog, unsigned int flags, struct secbpf_err *err)
{
	long rc;

	rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
	if (rc < 0)
		return explain_kernel_error(errno, flags, err);
	/* Without TSYNC_ESRCH, a TSYNC failure returns the TID of the thread
	 * that could not be synchronized, and nothing was installed. */
	if ((flags & SECCOMP_FILTER_FLAG_TSYNC) && !(flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) &&
	    rc > 0)
		return err_set(err, ESRCH,
			       "thread %ld cannot be synchronized (TSYNC): it has filters that "
			       "this thread does not share",
			       rc);
	if (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)
		return (int)rc;
	return 0;
}

/* Everything about one filter that can be checked without installing it. */
static int check_filter(const struct sock_fprog *prog, unsigned int flags, struct secbpf_err *err)
{
	int rc;

	rc = cbpf_check(prog->filter, prog->len, err);
	if (rc)
		return rc;
	rc = check_user_notif(prog->filter, prog->len, flags, err);
	if (rc)
		return rc;
	return 0;
}

/*
 * Install progs[0..n-1] in order, progs[n-1] with last_flags and the others
 * with flags. Everything is checked before the first install; from then on
 * the only syscall is seccomp() itself.
 */
static int install_stack(const struct sock_fprog *progs, size_t n, unsigned int flags,
			 unsigned int last_flags, struct secbpf_err *err)
{
	unsigned int f;
	size_t i;
	int rc, fd = 0;

	if (n == 0)
		return err_set(err, EINVAL, "no filter to install");
	if (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER && n > 1)
		return check_flags(flags, n, err);
	rc = check_flags(flags, 1, err);
	if (!rc)
		rc = check_flags(last_flags, 1, err);
	if (rc)
		return rc;
	rc = check_privileges(err);
	if (rc)
		return rc;
	/* All of them before the first install: a refused filter must not
	 * leave the ones before it installed. */
	for (i = 0; i < n; i++) {
		rc = check_filter(&progs[i], i == n - 1 ? last_flags : flags, err);
		if (rc) {
			if (n > 1)
				err_prefix(err, "filter %zu of %zu", i + 1, n);
			return rc;
		}
	}
	/* From here on, no syscall but seccomp() itself: a caller that
	 * installs the filters right before execve relies on it (attach.h). */
	for (i = 0; i < n; i++) {
		f = i == n - 1 ? last_flags : flags;
		rc = install_one(&progs[i], f, err);
		if (rc < 0 && i > 0) {
			err_prefix(err, "filter %zu of %zu (the %zu before it stay installed)",
				   i + 1, n, i);
			return rc;
		}
		if (rc < 0 && n > 1) {
			err_prefix(err, "filter 1 of %zu", n);
			return rc;
		}
		if (rc < 0)
			return rc;
		/* The listener fd, when the last one asked for it. */
		fd = rc;
	}
	return fd;
}

int attach_cbpf_many(const struct sock_fprog *progs, size_t n, unsigned int flags,
		     struct secbpf_err *err)
{
	return install_stack(progs, n, flags, flags, err);
}

int attach_cbpf_stack(const struct sock_fprog *progs, size_t n, unsigned int flags,
		      unsigned int last_flags, struct secbpf_err *err)
{
	if (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)
		return err_set(err, EINVAL, "only the last filter of a stack may have a listener");
	return install_stack(progs, n, flags, last_flags, err);
}

int attach_cbpf(const struct sock_filter *insns, size_t len, unsigned int flags,
		struct secbpf_err *err)
{
	struct sock_fprog prog;

	/* sock_fprog.len is an unsigned short: never let it truncate. */
	if (len == 0 || len > CBPF_MAX_INSNS)
		return err_set(err, EINVAL, "a filter has 1 to %d instructions, not %zu",
			       CBPF_MAX_INSNS, len);
	prog.len = (unsigned short)len;
	prog.filter = (struct sock_filter *)insns;
	return attach_cbpf_many(&prog, 1, flags, err);
}

int attach_prepare(const struct object *obj, const struct object_prog *prog, unsigned int flags,
		   struct cbpf_prog *out, struct secbpf_err *err)
{
	struct cbpf_compile_opts opts = {
		.sz = sizeof(opts),
		/* A listener filter must keep the process from installing a
		 * listener of its own once ours is gone (docs/design.md §1). */
		.listener_guard = flags & SECCOMP_FILTER_FLAG_NEW_LISTENER,
	};
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cbpf_compile(obj, prog, &opts, out, err);
	if (rc)
		return rc;
	if (out->needs_supervisor) {
		cbpf_prog_free(out);
		memset(out, 0, sizeof(*out));
		return err_set(err, EOPNOTSUPP,
			       "this filter has stateful paths (maps or helpers); they need a "
			       "supervisor: use secbpf_attach(), which starts one");
	}
	return 0;
}

int attach_program(const struct object *obj, const struct object_prog *prog, unsigned int flags,
		   struct secbpf_err *err)
{
	struct cbpf_prog cp;
	int rc;

	rc = attach_prepare(obj, prog, flags, &cp, err);
	if (rc)
		return rc;
	rc = attach_cbpf(cp.insns, cp.len, flags, err);
	cbpf_prog_free(&cp);
	return rc;
}
