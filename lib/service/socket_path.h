/* SPDX-License-Identifier: MIT */
/*
 * Whether a unix socket's path can only name a socket of its owner: the
 * rule for secbpfd's sockets and for the agent socket path that `secbpf
 * oci` and `secbpf export-oci` hand to root's container runtimes
 * (docs/secbpfd.md, "Who can own the sockets").
 */
#ifndef SECBPF_SERVICE_SOCKET_PATH_H
#define SECBPF_SERVICE_SOCKET_PATH_H

#include <sys/types.h>

#include "common/err.h"

/*
 * Whether only root or owner can have put what is at path, now or later:
 *   - path is a filesystem path, absolute: an abstract name (@NAME) has no
 *     owner and no mode, and any user may bind it first; a relative path
 *     means whatever directory its user runs in;
 *   - every directory from "/" to the socket's own is a real directory
 *     (no symbolic link is followed) owned by root or owner;
 *   - the socket's own directory is writable by its owner only (no group
 *     or other write bit: an ACL granting anyone else write shows there as
 *     the group bits' mask);
 *   - each directory above it is too, or is sticky and root's (/tmp):
 *     others may add names there but not rename or remove root's.
 * A directory that does not exist yet (a profile made for another host)
 * is vouched for when the one above it is writable by its owner only:
 * then only root or owner can make it. Returns 0, or -errno with err
 * naming the directory and what to do.
 */
int svc_socket_path_trusted(const char *path, uid_t owner, struct secbpf_err *err);

#endif
