/* SPDX-License-Identifier: MIT */
/*
 * How the public API reads a caller's options struct (include/secbpf.h,
 * "Options structs"): the struct's own sz says which fields the caller
 * has, and a field this library does not know must be zero.
 */
#ifndef SECBPF_API_OPTS_H
#define SECBPF_API_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/* The offset of the first byte past field in type. */
#define OPTS_END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* True if opts is not NULL and its sz covers all of field. */
#define OPTS_HAS(opts, field) ((opts) && (opts)->sz >= OPTS_END(__typeof__(*(opts)), field))

/* The caller's field if its sz covers it, else fallback (also for NULL opts). */
#define OPTS_GET(opts, field, fallback) (OPTS_HAS(opts, field) ? (opts)->field : (fallback))

/*
 * 0 if opts (a struct named name whose last field known to this library
 * ends at known_end) may be used: NULL, or sz at least sizeof(size_t)
 * and every byte from known_end to sz zero. Otherwise -EINVAL with the
 * reason in err: a caller built against a newer header asked for
 * something this library cannot do, and ignoring it could weaken a filter.
 */
int opts_check(const void *opts, size_t sz, size_t known_end, const char *name,
	       struct secbpf_err *err);

/* opts_check() of opts, a pointer to type whose last field is last_field. */
#define OPTS_VALID(opts, type, last_field, err)                                                    \
	opts_check((opts), (opts) ? (opts)->sz : 0, OPTS_END(type, last_field), #type, (err))

#endif
