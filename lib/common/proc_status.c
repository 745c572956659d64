// SPDX-License-Identifier: MIT
/*
 * /proc/PID/status parsing (see proc_status.h): a field is a line that
 * starts with its key and a colon, ended by a newline, found exactly once;
 * a number is all digits, checked for overflow. Anything else fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/proc_status.h"

ssize_t proc_status_read(int dirfd, const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd, e;

	if (size == 0)
		return -EINVAL;
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

int proc_status_field(const char *status, const char *key, const char **value, size_t *len)
{
	size_t klen = strlen(key);
	const char *line = status, *end, *found = NULL;
	size_t found_len = 0;

	while (*line) {
		end = strchr(line, '\n');
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			if (!end || found)
				return -EIO; /* cut off, or a second one */
			found = line + klen + 1;
			found_len = (size_t)(end - found);
		}
		if (!end)
			break;
		line = end + 1;
	}
	if (!found)
		return -ENOENT;
	*value = found;
	*len = found_len;
	return 0;
}

static int digit_value(char c, int base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One number at the start of [*p, end): digits up to a space, tab or end. */
static int parse_number(const char **p, const char *end, int base, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d;

	if (s == end)
		return -EIO;
	for (; s < end && *s != ' ' && *s != '\t'; s++) {
		d = digit_value(*s, base);
		if (d < 0)
			return -EIO;
		if ((uint64_t)d > max || v > (max - (uint64_t)d) / (uint64_t)base)
			return -ERANGE;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*p = s;
	*out = v;
	return 0;
}

int proc_status_numbers(const char *status, const char *key, int base, uint64_t max, uint64_t *out,
			size_t n)
{
	const char *p, *end;
	size_t len, i;
	int rc;

	if (base != 10 && base != 16)
		return -EINVAL;
	rc = proc_status_field(status, key, &p, &len);
	if (rc)
		return rc;
	end = p + len;
	for (i = 0; i < n; i++) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		rc = parse_number(&p, end, base, max, &out[i]);
		if (rc)
			return rc;
	}
	return 0;
}

int proc_status_u64(const char *status, const char *key, int base, uint64_t *out)
{
	return proc_status_numbers(status, key, base, UINT64_MAX, out, 1);
}

int proc_status_self_u64(const char *key, int base, uint64_t *out)
{
	char buf[PROC_STATUS_SIZE];
	ssize_t n;

	n = proc_status_read(AT_FDCWD, "/proc/self/status", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return proc_status_u64(buf, key, base, out);
}
