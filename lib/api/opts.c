// SPDX-License-Identifier: MIT
/*
 * The size check of the public options structs (opts.h): what a caller's
 * sz may be, and that no option unknown to this library is set.
 */
#include <errno.h>
#include <stdint.h>

#include "api/opts.h"

int opts_check(const void *opts, size_t sz, size_t known_end, const char *name,
	       struct secbpf_err *err)
{
	const uint8_t *bytes = opts;
	size_t i;

	if (!opts)
		return 0;
	if (sz < sizeof(size_t))
		return err_set(err, EINVAL, "%s.sz is %zu: set it to sizeof(%s)", name, sz, name);
	for (i = known_end; i < sz; i++)
		if (bytes[i])
			return err_set(err, EINVAL,
				       "%s: byte %zu of %zu is set, past the fields this library "
				       "knows (%zu bytes): zero-initialise the struct, or "
				       "the caller was built for a newer libsecbpf",
				       name, i, sz, known_end);
	return 0;
}
