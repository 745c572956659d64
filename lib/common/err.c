// SPDX-License-Identifier: MIT
/*
 * Formatting of library error messages (see err.h).
 */
#include <stdio.h>
#include <string.h>

#include "common/err.h"

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
	char pre[SECBPF_ERR_MAX];
	/* Large enough for both parts, so nothing is cut before the copy. */
	char joined[2 * SECBPF_ERR_MAX + 2];
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	snprintf(joined, sizeof(joined), "%s: %s", pre, err->msg);
	memcpy(err->msg, joined, sizeof(err->msg) - 1);
	err->msg[sizeof(err->msg) - 1] = '\0';
}
