/* SPDX-License-Identifier: MIT */
/*
 * The loading policy (seeds 005, 007, 008): which tier a loader may get. A
 * system policy file and a Yama-like mode cap the tier; capabilities in the
 * initial user namespace decide whether the privileged tier is possible.
 */
#ifndef SECBPF_POLICY_H
#define SECBPF_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "common/err.h"
#include "verifier/verifier.h"

/*
 * The system policy file. Format: one "key = value" per line, '#' starts a
 * comment, blank lines ignored. Keys:
 *   max_tier = restricted | unprivileged | privileged
 *       the highest tier any loader gets. Default (and with no file):
 *       unprivileged, so the tracing helpers of the privileged tier need
 *       both the administrator's "max_tier = privileged" and the loader's
 *       CAP_BPF + CAP_PERFMON
 *   yama = follow | ignore
 *       follow (default): apply the Yama mode below when Yama is present
 * An absent file means the defaults. A malformed file is an error: the
 * administrator's intent is unknown, so nothing is loaded.
 *
 * A file is trusted (may raise the ceiling above the default or set
 * yama = ignore) only when the process reading it is in the initial user
 * namespace and no one but root can have written it: given as an absolute
 * path with no symbolic link, owned by root and not writable by group or
 * others, in directories owned by root that are not writable by group or
 * others (unless sticky, as /tmp). An untrusted file can only lower: its
 * settings are combined with the defaults, the most restrictive winning.
 * Example:
 *   # /etc/secbpf/policy.conf
 *   max_tier = privileged   # let CAP_BPF+CAP_PERFMON loaders use tracing helpers
 *   yama = follow
 */
#define POLICY_DEFAULT_PATH "/etc/secbpf/policy.conf"
#define POLICY_YAMA_PATH "/proc/sys/kernel/yama/ptrace_scope"
/* The ceiling without a (trusted) file. */
#define POLICY_DEFAULT_MAX_TIER SECBPF_TIER_UNPRIVILEGED

/* Capability bits (linux/capability.h numbers). */
#define POLICY_CAP_SYS_PTRACE 19
#define POLICY_CAP_SYS_ADMIN 21
#define POLICY_CAP_PERFMON 38
#define POLICY_CAP_BPF 39

/* The inode number of the initial user namespace in nsfs (the kernel's
 * PROC_USER_INIT_INO, fixed since Linux 3.8). */
#define POLICY_INIT_USERNS_INO 0xEFFFFFFDu

/* Where the loader's user namespace was learned (for the explanation). */
enum policy_userns_source {
	POLICY_USERNS_UNKNOWN = 0, /* not looked up: decided by the caller */
	POLICY_USERNS_PIDFD,	   /* ioctl PIDFD_GET_USER_NAMESPACE (Linux 6.11+) */
	POLICY_USERNS_PROC,	   /* /proc/PID/ns/user (older kernels: see policy_kernel.c) */
	POLICY_USERNS_NONE,	   /* a kernel without user namespaces */
};

/*
 * Everything the decision depends on, so tests can give any system. A
 * zeroed struct is the most restrictive one: no capabilities, not in the
 * initial user namespace, an untrusted file.
 */
struct policy_inputs {
	const char *config_path; /* NULL: no policy file (not copied: keep it alive) */
	int ptrace_scope;	 /* -1: Yama not present */
	uint64_t cap_effective;	 /* 1ULL << CAP_*, of the loader */
	bool in_init_userns;	 /* caps only count in the initial userns */
	bool config_trusted;	 /* config_path may raise (see above), not only lower */

	/* What the facts above were read from, for policy_describe(); the
	 * decision does not depend on them. */
	pid_t pid; /* the loader (0: unknown) */
	uid_t uid;
	gid_t gid;
	uint64_t userns_ino; /* nsfs inode of its user namespace (0: unknown) */
	enum policy_userns_source userns_source;
	char config_distrust[160]; /* why config_path is not trusted, "" if it is */
	char caps_distrust[160];   /* why cap_effective was zeroed, "" if it was not */
};

/* What decided the tier (the last rule that lowered it, or the grant). */
enum policy_decider {
	POLICY_BY_REQUEST = 0, /* granted as asked */
	POLICY_BY_CAPABILITIES,
	POLICY_BY_FILE,	   /* a max_tier line of the policy file */
	POLICY_BY_DEFAULT, /* the default ceiling (no trusted max_tier) */
	POLICY_BY_YAMA,
};

/* The outcome: the tier granted and, when lower than asked, why. */
struct policy_decision {
	enum secbpf_tier tier;
	bool may_read_nondumpable; /* CAP_SYS_PTRACE (seed 009) */
	char reason[256];	   /* "" when the request was granted */

	/* How it was reached (policy_describe prints it). */
	enum policy_decider decided_by;
	enum secbpf_tier ceiling;	/* the policy's ceiling after trust is applied */
	unsigned int max_tier_line;	/* line of max_tier in config_path, 0: none */
	unsigned int yama_line;		/* line of yama, 0: none */
	bool yama_followed;		/* Yama's mode was applied (if present) */
	bool file_restrained;		/* an untrusted file asked to raise: refused */
	enum secbpf_tier file_max_tier; /* what the file's line said (if max_tier_line) */
};

/*
 * Decide the tier for a loader asking for requested. The policy never
 * refuses a load: it caps the tier, and the verifier then rejects a program
 * that needs more (with decision->reason in the message). Returns 0, or a
 * negative errno when the policy file cannot be read or parsed (err set,
 * naming file:line).
 */
int policy_decide(const struct policy_inputs *in, enum secbpf_tier requested,
		  struct policy_decision *decision, struct secbpf_err *err);

/*
 * Fill inputs for this process, from the kernel: POLICY_DEFAULT_PATH (or
 * config_path if not NULL; trusted only as said above), the Yama sysctl,
 * the effective capabilities of this process and whether it is in the
 * initial user namespace (policy_in_init_userns). Returns 0 or -errno.
 */
int policy_read_system(struct policy_inputs *in, const char *config_path, struct secbpf_err *err);

/*
 * Fill inputs for the peer of sock, a connected unix socket, as the kernel
 * sees it: for secbpfd, which decides for its clients. Nothing the peer
 * sends is used.
 *   - who: SO_PEERCRED (pid, uid, gid when it connected, or when the
 *     socketpair was made), copied to *cred (may be NULL) and to in;
 *   - which process: SO_PEERPIDFD (Linux 6.5+), else pidfd_open(pid); the
 *     pidfd is checked alive after everything below was read, so a pid
 *     reused meanwhile is detected (-ESRCH);
 *   - its capabilities: CapEff of /proc/PID/status in this process's
 *     /proc; they count only if its effective uid and gid there are still
 *     those of SO_PEERCRED (a peer that executed a set-user-ID program
 *     since it connected gets none, and caps_distrust says so);
 *   - its user namespace: PIDFD_GET_USER_NAMESPACE on the pidfd (else
 *     /proc/PID/ns/user), checked to be nsfs and compared with the initial
 *     namespace's inode; and its uid_map must then be the identity map;
 *   - Yama and config_path (NULL: POLICY_DEFAULT_PATH) as this process sees
 *     them: the service's files, never the peer's. config_path must stay
 *     valid as long as in is used.
 * Returns 0; -ESRCH if the peer is gone, -ENOTCONN/-EINVAL for a socket
 * with no peer process (err set). The caller needs to be allowed to read
 * the peer's /proc entries (root, or the same user).
 */
int policy_read_peer(struct policy_inputs *in, int sock, const char *config_path,
		     struct ucred *cred, struct secbpf_err *err);

/*
 * Whether this process is in the initial user namespace, asked of the
 * kernel: its user namespace from PIDFD_GET_USER_NAMESPACE on a pidfd of
 * itself (Linux 6.11+), else /proc/self/ns/user; either must be an nsfs
 * file whose inode is POLICY_INIT_USERNS_INO. Only the /proc fallback can
 * be fooled (by a /proc the caller mounted); anything unexpected is false.
 */
bool policy_in_init_userns(void);

/*
 * Whether the policy file at path may raise (see above) when read by a
 * process in the initial user namespace. When not, why is set (why may be
 * NULL).
 */
bool policy_config_trusted(const char *path, char *why, size_t size);

/*
 * The explanation of a decision made for in, as `secbpf policy` prints it
 * and secbpfd answers SVC_REQ_POLICY (SVC_REP_TEXT): lines "key: value",
 * the first "tier: restricted|unprivileged|privileged", then "reason",
 * "decided-by", "loader", "user-namespace", "capabilities",
 * "policy-file", "yama". Returns the length written (truncated to fit
 * size, NUL-terminated) or -ENOSPC when it did not fit.
 */
int policy_describe(const struct policy_inputs *in, const struct policy_decision *d, char *buf,
		    size_t size);

#endif
