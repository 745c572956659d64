/* SPDX-License-Identifier: MIT */
/*
 * Error reporting inside the library: every fallible internal function takes
 * a struct secbpf_err and fills it with one line a user can act on.
 */
#ifndef SECBPF_ERR_H
#define SECBPF_ERR_H

#include <stdarg.h>
#include <stddef.h>

#define SECBPF_ERR_MAX 512

struct secbpf_err {
	char msg[SECBPF_ERR_MAX];
};

/* Set err->msg (if err is not NULL) and return -errnum (errnum > 0). */
int err_set(struct secbpf_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix an existing message: "<prefix>: <old message>". */
void err_prefix(struct secbpf_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
