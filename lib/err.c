// SPDX-License-Identifier: MIT
/*
 * Formatting of library error messages (see err.h).
 */
#include <stdio.h>
#include <string.h>

#include "err.h"

int err_set(struct secbpf_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

void err_prefix(struct secbpf_err *err, const char *fmt, ...)
{
	char old[SECBPF_ERR_MAX];
	char pre[SECBPF_ERR_MAX];
	va_list ap;

	if (!err)
		return;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	snprintf(err->msg, sizeof(err->msg), "%s: %s", pre, old);
}
