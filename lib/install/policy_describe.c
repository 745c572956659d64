// SPDX-License-Identifier: MIT
/*
 * The explanation of a loading-policy decision (see policy.h): the lines
 * `secbpf policy` prints and secbpfd sends for SVC_REQ_POLICY, so that the
 * local and the service's answers read the same.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "install/policy.h"

struct text {
	char *buf;
	size_t size;
	size_t len;
	bool overflow;
};

static void __attribute__((format(printf, 2, 3))) text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= t->size - t->len) {
		t->overflow = true;
		t->len = t->size - 1;
		return;
	}
	t->len += (size_t)n;
}

static const char *decider_name(enum policy_decider by)
{
	switch (by) {
	case POLICY_BY_REQUEST:
		return "request";
	case POLICY_BY_CAPABILITIES:
		return "capabilities";
	case POLICY_BY_FILE:
		return "policy-file";
	case POLICY_BY_DEFAULT:
		return "default-policy";
	case POLICY_BY_YAMA:
		return "yama";
	}
	return "unknown";
}

static const struct {
	int bit;
	const char *name;
} policy_caps[] = {
	{ POLICY_CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	{ POLICY_CAP_BPF, "CAP_BPF" },
	{ POLICY_CAP_PERFMON, "CAP_PERFMON" },
	{ POLICY_CAP_SYS_PTRACE, "CAP_SYS_PTRACE" },
};

#define NCAPS (sizeof(policy_caps) / sizeof(policy_caps[0]))

/* The capabilities the policy looks at that the loader holds, by name. */
static void describe_caps(struct text *t, const struct policy_inputs *in)
{
	bool any = false;
	size_t i;

	text_add(t, "capabilities:");
	for (i = 0; i < NCAPS; i++) {
		if (!(in->cap_effective & (1ULL << policy_caps[i].bit)))
			continue;
		text_add(t, " %s", policy_caps[i].name);
		any = true;
	}
	if (!any)
		text_add(t, " none of CAP_SYS_ADMIN, CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE");
	if (in->caps_distrust[0])
		text_add(t, " (%s)", in->caps_distrust);
	else if (any && !in->in_init_userns)
		text_add(t, " (held in a child user namespace: they do not count)");
	text_add(t, "\n");
}

static void describe_userns(struct text *t, const struct policy_inputs *in)
{
	text_add(t, "user-namespace: %s", in->in_init_userns ? "initial" : "not the initial one");
	switch (in->userns_source) {
	case POLICY_USERNS_PIDFD:
		text_add(t, " (inode %llu, from the kernel: PIDFD_GET_USER_NAMESPACE)",
			 (unsigned long long)in->userns_ino);
		break;
	case POLICY_USERNS_PROC:
		text_add(t, " (inode %llu, from /proc/%d/ns/user: a kernel before 6.11)",
			 (unsigned long long)in->userns_ino, (int)in->pid);
		break;
	case POLICY_USERNS_NONE:
		text_add(t, " (the kernel has no user namespaces)");
		break;
	case POLICY_USERNS_UNKNOWN:
		break;
	}
	text_add(t, "\n");
}

static void describe_file(struct text *t, const struct policy_inputs *in,
			  const struct policy_decision *d)
{
	if (!in->config_path) {
		text_add(t, "policy-file: none\n");
		return;
	}
	text_add(t, "policy-file: %s", in->config_path);
	if (in->config_trusted)
		text_add(t, " (trusted)");
	else
		text_add(t, " (not trusted, it can only lower: %s)", in->config_distrust);
	if (d->max_tier_line)
		text_add(t, "; line %u: max_tier = %s%s", d->max_tier_line,
			 secbpf_tier_name(d->file_max_tier),
			 d->ceiling < d->file_max_tier ? " (ignored)" : "");
	else
		text_add(t, "; max_tier: default %s", secbpf_tier_name(POLICY_DEFAULT_MAX_TIER));
	if (d->yama_line)
		text_add(t, "; line %u: yama = %s", d->yama_line,
			 d->yama_followed ? "follow" : "ignore");
	if (d->file_restrained)
		text_add(t, " (a setting that would raise was ignored)");
	text_add(t, "\n");
}

static void describe_yama(struct text *t, const struct policy_inputs *in,
			  const struct policy_decision *d)
{
	if (in->ptrace_scope < 0) {
		text_add(t, "yama: not present\n");
		return;
	}
	text_add(t, "yama: ptrace_scope=%d, %s\n", in->ptrace_scope,
		 d->yama_followed ? "followed" : "ignored by the policy file");
}

/* The reason line: why the tier is not higher, or what granted it. */
static void describe_reason(struct text *t, const struct policy_inputs *in,
			    const struct policy_decision *d)
{
	if (d->reason[0]) {
		text_add(t, "reason: %s\n", d->reason);
		return;
	}
	text_add(t, "reason: granted as asked");
	if (d->tier == SECBPF_TIER_PRIVILEGED)
		text_add(t, ": %s in the initial user namespace, and %s:%u sets max_tier = %s",
			 (in->cap_effective & (1ULL << POLICY_CAP_SYS_ADMIN))
				 ? "CAP_SYS_ADMIN"
				 : "CAP_BPF and CAP_PERFMON",
			 in->config_path, d->max_tier_line, secbpf_tier_name(d->ceiling));
	text_add(t, "\n");
}

int policy_describe(const struct policy_inputs *in, const struct policy_decision *d, char *buf,
		    size_t size)
{
	struct text t = { .buf = buf, .size = size };

	if (size == 0)
		return -ENOSPC;
	buf[0] = '\0';
	text_add(&t, "tier: %s\n", secbpf_tier_name(d->tier));
	describe_reason(&t, in, d);
	text_add(&t, "decided-by: %s\n", decider_name(d->decided_by));
	if (in->pid)
		text_add(&t, "loader: pid %d, uid %u, gid %u\n", (int)in->pid, (unsigned)in->uid,
			 (unsigned)in->gid);
	describe_userns(&t, in);
	describe_caps(&t, in);
	describe_file(&t, in, d);
	describe_yama(&t, in, d);
	if (t.overflow)
		return -ENOSPC;
	return (int)t.len;
}
