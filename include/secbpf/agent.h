/* SPDX-License-Identifier: MIT */
/*
 * The user-agent protocol (docs/agent.md), version 1: what `secbpf run
 * --agent SOCKET` sends to an agent for each syscall whose filters decide
 * SECCOMP_RET_USER_NOTIF, and what the agent answers. Fixed-layout binary
 * messages in the host's byte order, one per SOCK_SEQPACKET packet, each
 * starting with the same header. Include it from a C or C++ agent.
 */
#ifndef SECBPF_AGENT_H
#define SECBPF_AGENT_H

#include <linux/seccomp.h>
#include <linux/types.h>

#define SECBPF_AGENT_MAGIC 0x41504253u /* "SBPA" in little-endian bytes */
#define SECBPF_AGENT_VERSION 1

enum secbpf_agent_type {
	SECBPF_AGENT_REQUEST = 1, /* supervisor -> agent */
	SECBPF_AGENT_REPLY = 2,	  /* agent -> supervisor */
};

/* The first 16 bytes of every message. size is the whole message's. */
struct secbpf_agent_hdr {
	__u32 magic;	/* SECBPF_AGENT_MAGIC */
	__u16 version;	/* SECBPF_AGENT_VERSION */
	__u16 size;	/* sizeof the whole message, header included */
	__u32 type;	/* enum secbpf_agent_type */
	__u32 reserved; /* 0 */
};

/*
 * A notified syscall (104 bytes). id, pid, flags and data are the kernel's
 * struct seccomp_notif; pid and tgid are in the supervisor's pid namespace
 * (tgid was checked while the notification was valid); action is the
 * filters' combined return value, SECCOMP_RET_USER_NOTIF with the 16 data
 * bits the program put in it.
 */
struct secbpf_agent_request {
	struct secbpf_agent_hdr hdr; /* type SECBPF_AGENT_REQUEST */
	__u64 id;
	__u32 pid;
	__u32 tgid;
	__u32 flags;
	__u32 action;
	struct seccomp_data data;
};

/*
 * The answer (40 bytes), as struct seccomp_notif_resp: id echoes the
 * request's; flags is 0 or SECCOMP_USER_NOTIF_FLAG_CONTINUE (the syscall
 * runs; then val and error must be 0); otherwise the syscall does not run
 * and returns error (-4095..-1: it fails with errno -error) or, when error
 * is 0, val. Anything else fails the syscall with ENOSYS.
 */
struct secbpf_agent_reply {
	struct secbpf_agent_hdr hdr; /* type SECBPF_AGENT_REPLY */
	__u64 id;
	__s64 val;
	__s32 error;
	__u32 flags;
};

/* The layout is the protocol: checked by the compiler, C or C++. */
#ifdef __cplusplus
#define SECBPF_AGENT_LAYOUT(cond) static_assert(cond, "fixed layout")
#else
#define SECBPF_AGENT_LAYOUT(cond) _Static_assert(cond, "fixed layout")
#endif
SECBPF_AGENT_LAYOUT(sizeof(struct secbpf_agent_hdr) == 16);
SECBPF_AGENT_LAYOUT(sizeof(struct secbpf_agent_request) == 104);
SECBPF_AGENT_LAYOUT(sizeof(struct secbpf_agent_reply) == 40);
#undef SECBPF_AGENT_LAYOUT

#endif
