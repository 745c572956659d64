/* SPDX-License-Identifier: MIT */
/*
 * A compiled filter as an OCI seccomp profile for runc's linux.seccomp
 * (docs/containers.md): what the filter decides from (arch, nr) alone
 * becomes plain rules by name, the rest SCMP_ACT_NOTIFY to secbpfd's
 * agent socket, where the whole program decides.
 */
#ifndef SECBPF_OCI_EXPORT_H
#define SECBPF_OCI_EXPORT_H

#include <json-c/json.h>
#include <linux/filter.h>
#include <stddef.h>
#include <stdio.h>

#include "common/err.h"

/* The syscall numbers looked at per arch (every one of today's kernels
 * is below; x32's are these with bit 30 set). */
#define OCI_EXPORT_NR_MAX 1024

/*
 * The profile for insns[0..len-1] (a checked filter), whose notified
 * syscalls go to listener, naming program name in listenerMetadata.
 * What the profile cannot say exactly is noted on notes (one line each).
 * Returns the object, or NULL with err set when no exact profile exists
 * (runc refuses NOTIFY as the default action and for write).
 */
struct json_object *oci_export(const struct sock_filter *insns, size_t len, const char *listener,
			       const char *name, FILE *notes, struct secbpf_err *err);

#endif
