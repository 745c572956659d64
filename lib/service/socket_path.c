// SPDX-License-Identifier: MIT
/*
 * The check of socket_path.h: walk a socket's path from "/" one directory
 * at a time with O_PATH | O_NOFOLLOW, as lib/install/policy_kernel.c walks
 * the policy file's, and vouch for it only when no one but root and the
 * owner can have created, replaced or redirected its last name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "service/socket_path.h"

/* Whether directory fd (named dir) may hold or lead to the socket: see
 * socket_path.h. last: it is the socket's own directory. */
static int dir_trusted(int fd, const char *dir, bool last, uid_t owner, struct secbpf_err *err)
{
	struct stat st;

	if (fstat(fd, &st))
		return err_set(err, errno, "%s: %s", dir, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return err_set(err, ELOOP,
			       "%s is a symbolic link, which is not followed: give the socket's "
			       "path through the directory it points to",
			       dir);
	if (!S_ISDIR(st.st_mode))
		return err_set(err, ENOTDIR, "%s is not a directory", dir);
	if (st.st_uid != 0 && st.st_uid != owner)
		return err_set(err, EPERM,
			       "%s is owned by uid %u: a socket in it could be another user's; "
			       "put the socket in a directory of root's",
			       dir, (unsigned int)st.st_uid);
	if (!(st.st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (!last && (st.st_mode & S_ISVTX) && st.st_uid == 0)
		return 0;
	return err_set(err, EPERM,
		       "%s is writable by %s: another user could bind the socket there first, "
		       "or plant a link to a socket of theirs; use a directory only its owner "
		       "can write (e.g. /run/secbpf, mode 0755)",
		       dir, st.st_mode & S_IWOTH ? "others" : "its group");
}

int svc_socket_path_trusted(const char *path, uid_t owner, struct secbpf_err *err)
{
	char *copy, *comp, *next, *prefix;
	size_t len = strlen(path);
	int dirfd, fd, rc;

	if (path[0] == '@')
		return err_set(err, EPERM,
			       "%s is an abstract socket name, which has no owner or mode: any "
			       "user can bind it first; use a socket path in a directory only "
			       "root can write (e.g. /run/secbpf/agent.sock)",
			       path);
	if (path[0] != '/')
		return err_set(err, EINVAL,
			       "%s is not an absolute path: it would name a socket in whatever "
			       "directory its user runs in",
			       path);
	copy = strdup(path);
	prefix = calloc(1, len + 2);
	if (!copy || !prefix) {
		free(copy);
		free(prefix);
		return err_set(err, ENOMEM, "out of memory");
	}
	/* Drop the socket's own name: the walk is over its directories. */
	*strrchr(copy, '/') = '\0';
	dirfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		rc = err_set(err, errno, "/: %s", strerror(errno));
		goto out;
	}
	rc = dir_trusted(dirfd, "/", copy[strspn(copy, "/")] == '\0', owner, err);
	for (comp = copy; !rc && *comp; comp = next) {
		comp += strspn(comp, "/");
		if (!*comp)
			break;
		next = comp + strcspn(comp, "/");
		if (*next)
			*next++ = '\0';
		strcat(strcat(prefix, "/"), comp);
		fd = openat(dirfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			/* Not made yet: whoever can make it is whoever can
			 * write the directory above, which must then be as
			 * closed as the socket's own. */
			*strrchr(prefix, '/') = '\0';
			rc = dir_trusted(dirfd, prefix[0] ? prefix : "/", true, owner, err);
			break;
		}
		if (fd < 0) {
			rc = err_set(err, errno, "%s: %s", prefix, strerror(errno));
			break;
		}
		close(dirfd);
		dirfd = fd;
		rc = dir_trusted(fd, prefix, next[strspn(next, "/")] == '\0', owner, err);
	}
out:
	if (dirfd >= 0)
		close(dirfd);
	free(copy);
	free(prefix);
	return rc;
}
