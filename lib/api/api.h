/* SPDX-License-Identifier: MIT */
/*
 * What the public handles of include/secbpf.h are, shared by the files
 * that implement the public API (api.c, api_attach.c).
 */
#ifndef SECBPF_API_H
#define SECBPF_API_H

#include <stddef.h>

#include "common/err.h"
#include "object/object.h"
#include "secbpf.h"

struct secbpf_program {
	struct secbpf_object *obj;
	struct object_prog *prog;
};

struct secbpf_object {
	struct object *obj;
	struct secbpf_program *progs;
	struct secbpf_err err;
	/* "VAR=VALUE" as given to secbpf_object__set_var, in order. */
	char **sets;
	size_t nsets;
};

/* api_attach.c: the public SECBPF_ATTACH_* flags as seccomp() flags into
 * *out; -EINVAL with err set for unknown bits. SECBPF_ATTACH_NATIVE is
 * known and maps to no seccomp() flag. */
int api_seccomp_flags(unsigned int flags, unsigned int *out, struct secbpf_err *err);

#endif
