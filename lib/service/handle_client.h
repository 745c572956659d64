/* SPDX-License-Identifier: MIT */
/*
 * The client side of a secbpfd handle (docs/handles.md): check that an fd
 * is a handle of a root service, fetch the filter image it gives and check
 * every byte of it before anything is installed.
 */
#ifndef SECBPF_SERVICE_HANDLE_CLIENT_H
#define SECBPF_SERVICE_HANDLE_CLIENT_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "service/protocol.h"

/* The largest filter image a handle may give. */
#define HANDLE_IMAGE_MAX                                                                           \
	(sizeof(struct svc_filter_image) +                                                         \
	 SVC_FILTER_MAX *                                                                          \
		 (sizeof(struct svc_filter_entry) + BPF_MAXINSNS * sizeof(struct sock_filter)))

/* A handle's filter stack, ready for attach_cbpf_stack/_many. */
struct handle_stack {
	struct sock_fprog progs[64]; /* SVC_FILTER_MAX, in installation order */
	size_t n;
	bool listener;	 /* the last one gets the listener, for the service */
	uint64_t digest; /* as the service gave it */
	void *image;	 /* the mapping progs[].filter point into */
	size_t image_len;
};

/*
 * Whether fd can be a handle: a connected AF_UNIX SOCK_SEQPACKET socket
 * whose peer (SO_PEERCRED: who created the pair) is root of the initial
 * user namespace, as secbpfd is. SO_PEERCRED's uid is translated into the
 * reader's user namespace, where uid 0 is whoever made that namespace: so
 * the calling process must itself be in the initial one
 * (policy_in_init_userns), and a handle used from any other is refused.
 * Returns 0, or -EBADF / -ENOTSOCK / -EPROTOTYPE / -ENOTCONN / -EPERM with
 * err saying what fd is instead.
 */
int handle_check(int fd, struct secbpf_err *err);

/*
 * Check a filter image (protocol.h) of len bytes and point out->progs into
 * it: the magic, 1..SVC_FILTER_MAX entries, each of 1..BPF_MAXINSNS
 * instructions, no unknown flag, the listener (if any) on the last entry
 * only, and nothing past the last. Returns 0 or -EBADMSG with err set.
 */
int handle_parse_image(const void *image, size_t len, struct handle_stack *out,
		       struct secbpf_err *err);

/*
 * handle_check, then ask the handle for its filter image (SVC_REQ_FILTER),
 * waiting at most timeout_ms (0: 30 s) for the answer, and parse it into
 * out (free with handle_stack_free). Returns 0 or a negative errno with
 * err set (the service's own message when it refused).
 */
int handle_fetch_stack(int fd, unsigned int timeout_ms, struct handle_stack *out,
		       struct secbpf_err *err);

void handle_stack_free(struct handle_stack *s);

#endif
