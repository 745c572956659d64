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
 * Example:
 *   # /etc/secbpf/policy.conf
 *   max_tier = privileged   # let CAP_BPF+CAP_PERFMON loaders use tracing helpers
 *   yama = follow
 */
#define POLICY_DEFAULT_PATH "/etc/secbpf/policy.conf"
#define POLICY_YAMA_PATH "/proc/sys/kernel/yama/ptrace_scope"

/* Capability bits (linux/capability.h numbers). */
#define POLICY_CAP_SYS_PTRACE 19
#define POLICY_CAP_SYS_ADMIN 21
#define POLICY_CAP_PERFMON 38
#define POLICY_CAP_BPF 39

/* Everything the decision depends on, so tests can give any system. */
struct policy_inputs {
	const char *config_path; /* NULL: no policy file */
	int ptrace_scope;	 /* -1: Yama not present */
	uint64_t cap_effective;	 /* 1ULL << CAP_* */
	bool in_init_userns;	 /* caps only count in the initial userns */
};

/* The outcome: the tier granted and, when lower than asked, why. */
struct policy_decision {
	enum secbpf_tier tier;
	bool may_read_nondumpable; /* CAP_SYS_PTRACE (seed 009) */
	char reason[256];	   /* "" when the request was granted */
};

/*
 * Decide the tier for a loader asking for requested. The policy never
 * refuses a load: it caps the tier, and the verifier then rejects a program
 * that needs more (with decision->reason in the message). Returns 0, or a
 * negative errno when the policy file cannot be read or parsed (err set).
 */
int policy_decide(const struct policy_inputs *in, enum secbpf_tier requested,
		  struct policy_decision *decision, struct secbpf_err *err);

/*
 * Fill inputs from the running system: POLICY_DEFAULT_PATH (or config_path
 * if not NULL), the Yama sysctl, the effective capabilities of this process
 * and whether it is in the initial user namespace. Returns 0 or -errno.
 */
int policy_read_system(struct policy_inputs *in, const char *config_path, struct secbpf_err *err);

/* Whether this process is in the initial user namespace (exposed for
 * tests): compares /proc/self/ns/user with /proc/1/ns/user, and falls back
 * to /proc/self/uid_map spanning all ids when /proc/1 is not readable. */
bool policy_in_init_userns(void);

#endif
