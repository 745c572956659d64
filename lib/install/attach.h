/* SPDX-License-Identifier: MIT */
/*
 * Installing compiled filters on the calling thread with the stock
 * seccomp(SECCOMP_SET_MODE_FILTER): the user-space side of seed 001's
 * seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_EXTENDED, &prog_fd).
 */
#ifndef SECBPF_ATTACH_H
#define SECBPF_ATTACH_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>

#include "cbpf/cbpf.h"
#include "common/err.h"
#include "object/object.h"

/* The seccomp filter flags attach accepts; anything else is -EINVAL. */
#define ATTACH_FLAGS_ALLOWED                                                                       \
	(SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW |    \
	 SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_TSYNC_ESRCH |                      \
	 SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)

/*
 * Install one cBPF filter on the calling thread (on every thread of the
 * process with SECCOMP_FILTER_FLAG_TSYNC) with the given SECCOMP_FILTER_FLAG_*
 * flags. Before calling the kernel it checks, in order: the flags (the
 * kernel's combination rules), no_new_privs or CAP_SYS_ADMIN (the caller
 * decides; the library never sets no_new_privs), cbpf_check(), and that no
 * RET K returns SECCOMP_RET_USER_NOTIF without a listener being created.
 * Returns 0, the listener fd (close-on-exec) with NEW_LISTENER, or a
 * negative errno with err saying what failed and what to change.
 */
int attach_cbpf(const struct sock_filter *insns, size_t len, unsigned int flags,
		struct secbpf_err *err);

/*
 * Install n filters in order, as n seccomp() calls (the first installed
 * first, so the last one wins ties). Everything is checked before the first
 * one is installed, and between two installs the only syscall made is
 * seccomp() itself, so a caller about to execve can rely on that. flags
 * apply to each filter; NEW_LISTENER is refused for n > 1 (one listener per
 * process). On failure after k filters the first k stay installed (seccomp
 * filters cannot be removed) and err says so. Same returns as attach_cbpf.
 */
int attach_cbpf_many(const struct sock_fprog *progs, size_t n, unsigned int flags,
		     struct secbpf_err *err);

/*
 * attach_cbpf_many, except that the last filter gets last_flags (typically
 * with SECCOMP_FILTER_FLAG_NEW_LISTENER: the listener of a supervised
 * stack) and the others flags, which may not ask for a listener. Returns
 * what the last install returned (the listener fd with NEW_LISTENER).
 */
int attach_cbpf_stack(const struct sock_fprog *progs, size_t n, unsigned int flags,
		      unsigned int last_flags, struct secbpf_err *err);

/*
 * Compile prog for attaching with flags (with the listener guard when flags
 * ask for NEW_LISTENER). Refuses with -EOPNOTSUPP a program whose compiled
 * form needs the supervisor: with no listener, its USER_NOTIF paths would
 * fail with ENOSYS instead of running the program, a silent divergence.
 * On success out holds the filter; free it with cbpf_prog_free().
 */
int attach_prepare(const struct object *obj, const struct object_prog *prog, unsigned int flags,
		   struct cbpf_prog *out, struct secbpf_err *err);

/* attach_prepare() then attach_cbpf(): same returns as attach_cbpf. */
int attach_program(const struct object *obj, const struct object_prog *prog, unsigned int flags,
		   struct secbpf_err *err);

#endif
