// SPDX-License-Identifier: MIT
/*
 * The loading policy's decision (see policy.h): the tier ceiling from the
 * policy file (only lowered by an untrusted one) and the Yama-like mode,
 * and the capability check for the privileged tier, in the initial user
 * namespace only. What the inputs are is policy_kernel.c's concern.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "install/policy.h"

struct policy_file {
	enum secbpf_tier max_tier;
	bool follow_yama;
	unsigned int max_tier_line; /* 0: max_tier not set by the file */
	unsigned int yama_line;	    /* 0: yama not set by the file */
	enum secbpf_tier file_max_tier;
	bool file_yama_ignore;
	bool present;	 /* the file exists */
	bool restrained; /* an untrusted file asked for more than the defaults */
};

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* One "key = value" line (comment and blanks removed) into pf. */
static int policy_file_line(struct policy_file *pf, char *line, const char *path,
			    unsigned int lineno, struct secbpf_err *err)
{
	char *key, *val, *eq;

	eq = strchr(line, '=');
	if (!eq)
		return err_set(err, EINVAL, "%s:%u: expected \"key = value\"", path, lineno);
	*eq = 0;
	val = trim(eq + 1);
	key = trim(line);
	if (!strcmp(key, "max_tier")) {
		if (secbpf_tier_parse(val, &pf->max_tier))
			return err_set(
				err, EINVAL,
				"%s:%u: max_tier must be restricted, unprivileged or privileged",
				path, lineno);
		pf->max_tier_line = lineno;
		pf->file_max_tier = pf->max_tier;
		return 0;
	}
	if (!strcmp(key, "yama")) {
		if (!strcmp(val, "follow"))
			pf->follow_yama = true;
		else if (!strcmp(val, "ignore"))
			pf->follow_yama = false;
		else
			return err_set(err, EINVAL, "%s:%u: yama must be follow or ignore", path,
				       lineno);
		pf->yama_line = lineno;
		pf->file_yama_ignore = !pf->follow_yama;
		return 0;
	}
	return err_set(err, EINVAL, "%s:%u: unknown key \"%s\"", path, lineno, key);
}

/* Parse the policy file; an absent file gives the defaults. */
static int policy_file_read(const char *path, struct policy_file *pf, struct secbpf_err *err)
{
	char line[512];
	unsigned int lineno = 0;
	char *hash;
	FILE *f;
	int ret = 0;

	memset(pf, 0, sizeof(*pf));
	pf->max_tier = POLICY_DEFAULT_MAX_TIER;
	pf->follow_yama = true;
	if (!path)
		return 0;
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		return err_set(err, errno, "%s: %s", path, strerror(errno));
	}
	pf->present = true;
	while (!ret && fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			ret = err_set(err, EINVAL, "%s:%u: line too long", path, lineno);
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		if (!*trim(line))
			continue;
		ret = policy_file_line(pf, line, path, lineno, err);
	}
	if (!ret && ferror(f))
		ret = err_set(err, EIO, "%s: read error", path);
	fclose(f);
	return ret;
}

/*
 * An untrusted file (the caller may have written it) only lowers: take the
 * most restrictive of it and the defaults.
 */
static void policy_file_restrain(struct policy_file *pf)
{
	if (pf->max_tier > POLICY_DEFAULT_MAX_TIER) {
		pf->max_tier = POLICY_DEFAULT_MAX_TIER;
		pf->restrained = true;
	}
	if (!pf->follow_yama) {
		pf->follow_yama = true;
		pf->restrained = true;
	}
}

static bool has_cap(const struct policy_inputs *in, int cap)
{
	/* Capabilities held in a child user namespace say nothing about the
	 * system: anyone can get them with unshare(CLONE_NEWUSER). */
	if (!in->in_init_userns)
		return false;
	return (in->cap_effective & (1ULL << cap)) != 0;
}

static bool has_privileged_caps(const struct policy_inputs *in)
{
	if (has_cap(in, POLICY_CAP_SYS_ADMIN))
		return true;
	return has_cap(in, POLICY_CAP_BPF) && has_cap(in, POLICY_CAP_PERFMON);
}

/* Whether Yama's mode (seed 008) restricts this loader: 0 and 1 add
 * nothing; 2 restricts loaders without CAP_SYS_PTRACE; 3 (and any unknown
 * mode) restricts all. */
static bool yama_restricts(const struct policy_inputs *in)
{
	switch (in->ptrace_scope) {
	case 0:
	case 1:
		return false;
	case 2:
		return !has_cap(in, POLICY_CAP_SYS_PTRACE);
	default:
		return true;
	}
}

/* The ceiling's reason (d->tier was lowered to pf->max_tier). */
static void reason_for_ceiling(const struct policy_inputs *in, const struct policy_file *pf,
			       struct policy_decision *d)
{
	if (pf->max_tier_line && !pf->restrained) {
		d->decided_by = POLICY_BY_FILE;
		snprintf(d->reason, sizeof(d->reason), "capped to %s by %s:%u",
			 secbpf_tier_name(pf->max_tier), in->config_path, pf->max_tier_line);
		return;
	}
	d->decided_by = POLICY_BY_DEFAULT;
	if (pf->restrained && pf->max_tier_line) {
		snprintf(d->reason, sizeof(d->reason),
			 "capped to %s by the default policy: %s:%u asks for %s, but the file is "
			 "not trusted (%s)",
			 secbpf_tier_name(pf->max_tier), in->config_path, pf->max_tier_line,
			 secbpf_tier_name(pf->file_max_tier), in->config_distrust);
		return;
	}
	snprintf(d->reason, sizeof(d->reason),
		 "capped to %s by the default policy (no policy file sets max_tier = privileged)",
		 secbpf_tier_name(pf->max_tier));
}

int policy_decide(const struct policy_inputs *in, enum secbpf_tier requested,
		  struct policy_decision *d, struct secbpf_err *err)
{
	struct policy_file pf;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = policy_file_read(in->config_path, &pf, err);
	if (ret)
		return ret;
	if (!in->config_trusted)
		policy_file_restrain(&pf);
	d->tier = requested;
	d->decided_by = POLICY_BY_REQUEST;
	d->ceiling = pf.max_tier;
	d->max_tier_line = pf.max_tier_line;
	d->yama_line = pf.yama_line;
	d->file_max_tier = pf.file_max_tier;
	d->file_restrained = pf.restrained;
	d->file_yama_ignore = pf.file_yama_ignore;
	d->file_present = pf.present;
	d->yama_followed = pf.follow_yama;
	d->may_read_nondumpable = has_cap(in, POLICY_CAP_SYS_PTRACE);

	/* 1. The privileged tier needs CAP_BPF and CAP_PERFMON, or
	 *    CAP_SYS_ADMIN which implies both, in the initial namespace. */
	if (d->tier == SECBPF_TIER_PRIVILEGED && !has_privileged_caps(in)) {
		d->tier = SECBPF_TIER_UNPRIVILEGED;
		d->decided_by = POLICY_BY_CAPABILITIES;
		if (!in->in_init_userns)
			snprintf(d->reason, sizeof(d->reason),
				 "the loader is not in the initial user namespace (capabilities "
				 "count only there)");
		else
			snprintf(d->reason, sizeof(d->reason),
				 "the loader lacks CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) in "
				 "the initial user namespace");
	}
	/* 2. The administrator's ceiling (the default unless a trusted file
	 *    says otherwise). */
	if (d->tier > pf.max_tier) {
		d->tier = pf.max_tier;
		reason_for_ceiling(in, &pf, d);
	}
	/* 3. Yama (seed 008), unless a trusted file says to ignore it. */
	if (!pf.follow_yama || in->ptrace_scope < 0)
		return 0;
	if (d->tier == SECBPF_TIER_RESTRICTED || !yama_restricts(in))
		return 0;
	d->tier = SECBPF_TIER_RESTRICTED;
	d->decided_by = POLICY_BY_YAMA;
	snprintf(d->reason, sizeof(d->reason), "capped to restricted by Yama ptrace_scope=%d%s",
		 in->ptrace_scope,
		 in->ptrace_scope == 2 ? " (the loader lacks CAP_SYS_PTRACE)" : "");
	return 0;
}
