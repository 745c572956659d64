// SPDX-License-Identifier: MIT
/*
 * The loading policy (see policy.h): the tier ceiling from the policy file
 * and the Yama-like mode, and the capability check for the privileged tier,
 * done in the initial user namespace only.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/proc_status.h"
#include "install/policy.h"

struct policy_file {
	enum secbpf_tier max_tier;
	bool follow_yama;
	bool from_file; /* max_tier was set by the file */
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

/* Parse the policy file; an absent file gives the defaults. */
static int policy_file_read(const char *path, struct policy_file *pf, struct secbpf_err *err)
{
	char line[512];
	unsigned lineno = 0;
	FILE *f;

	pf->max_tier = SECBPF_TIER_UNPRIVILEGED;
	pf->follow_yama = true;
	pf->from_file = false;
	if (!path)
		return 0;
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		return err_set(err, errno, "%s: %s", path, strerror(errno));
	}
	while (fgets(line, sizeof(line), f)) {
		char *key, *val, *eq, *hash;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			fclose(f);
			return err_set(err, EINVAL, "%s:%u: line too long", path, lineno);
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		key = trim(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			fclose(f);
			return err_set(err, EINVAL, "%s:%u: expected \"key = value\"", path,
				       lineno);
		}
		*eq = 0;
		val = trim(eq + 1);
		key = trim(key);
		if (!strcmp(key, "max_tier")) {
			if (secbpf_tier_parse(val, &pf->max_tier)) {
				fclose(f);
				return err_set(err, EINVAL,
					       "%s:%u: max_tier must be "
					       "restricted, unprivileged or privileged",
					       path, lineno);
			}
			pf->from_file = true;
		} else if (!strcmp(key, "yama")) {
			if (!strcmp(val, "follow")) {
				pf->follow_yama = true;
			} else if (!strcmp(val, "ignore")) {
				pf->follow_yama = false;
			} else {
				fclose(f);
				return err_set(err, EINVAL,
					       "%s:%u: yama must be follow "
					       "or ignore",
					       path, lineno);
			}
		} else {
			fclose(f);
			return err_set(err, EINVAL, "%s:%u: unknown key \"%s\"", path, lineno, key);
		}
	}
	fclose(f);
	return 0;
}

static bool has_cap(const struct policy_inputs *in, int cap)
{
	/* Capabilities held in a child user namespace say nothing about the
	 * system: anyone can get them with unshare(CLONE_NEWUSER). */
	return in->in_init_userns && (in->cap_effective & (1ULL << cap));
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
	d->tier = requested;
	d->may_read_nondumpable = has_cap(in, POLICY_CAP_SYS_PTRACE);

	/* 1. The privileged tier needs CAP_BPF and CAP_PERFMON, or
	 *    CAP_SYS_ADMIN which implies both, in the initial namespace. */
	if (d->tier == SECBPF_TIER_PRIVILEGED && !has_cap(in, POLICY_CAP_SYS_ADMIN) &&
	    !(has_cap(in, POLICY_CAP_BPF) && has_cap(in, POLICY_CAP_PERFMON))) {
		d->tier = SECBPF_TIER_UNPRIVILEGED;
		snprintf(d->reason, sizeof(d->reason),
			 "the loader lacks CAP_BPF and "
			 "CAP_PERFMON in the initial user namespace");
	}
	/* 2. The administrator's ceiling (unprivileged unless the file says
	 *    otherwise). */
	if (d->tier > pf.max_tier) {
		d->tier = pf.max_tier;
		if (pf.from_file)
			snprintf(d->reason, sizeof(d->reason), "capped to %s by %s",
				 secbpf_tier_name(pf.max_tier), in->config_path);
		else
			snprintf(d->reason, sizeof(d->reason),
				 "capped to %s by the "
				 "default policy (no policy file sets max_tier = "
				 "privileged)",
				 secbpf_tier_name(pf.max_tier));
	}
	/* 3. Yama (seed 008): 0 and 1 add nothing; 2 restricts loaders
	 *    without CAP_SYS_PTRACE; 3 (and any unknown mode) restricts all. */
	if (pf.follow_yama && in->ptrace_scope >= 0 && d->tier > SECBPF_TIER_RESTRICTED) {
		bool restrict_it;

		switch (in->ptrace_scope) {
		case 0:
		case 1:
			restrict_it = false;
			break;
		case 2:
			restrict_it = !has_cap(in, POLICY_CAP_SYS_PTRACE);
			break;
		default:
			restrict_it = true;
			break;
		}
		if (restrict_it) {
			d->tier = SECBPF_TIER_RESTRICTED;
			snprintf(d->reason, sizeof(d->reason),
				 "capped to restricted by "
				 "Yama ptrace_scope=%d%s",
				 in->ptrace_scope,
				 in->ptrace_scope == 2 ? " (the loader lacks "
							 "CAP_SYS_PTRACE)"
						       : "");
		}
	}
	return 0;
}

bool policy_in_init_userns(void)
{
	struct stat self, init;
	unsigned long a, b, c;
	FILE *f;
	bool ok = false;

	if (!stat("/proc/self/ns/user", &self) && !stat("/proc/1/ns/user", &init))
		return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
	/* /proc/1 may be hidden from us: the initial namespace maps every id
	 * to itself, "0 0 4294967295", and nothing else. */
	f = fopen("/proc/self/uid_map", "re");
	if (!f) {
		/* No uid_map at all: a kernel without user namespaces
		 * (CONFIG_USER_NS=n), where every process is in the initial
		 * one. Any other failure fails closed. */
		int e = errno;

		return e == ENOENT && stat("/proc/self/status", &self) == 0;
	}
	if (fscanf(f, "%lu %lu %lu", &a, &b, &c) == 3)
		ok = a == 0 && b == 0 && c == 4294967295UL;
	if (ok && fscanf(f, "%lu", &a) == 1)
		ok = false;
	fclose(f);
	return ok;
}

static int read_cap_effective(uint64_t *caps)
{
	int ret = proc_status_self_u64("CapEff", 16, caps);

	if (ret)
		*caps = 0;
	return ret;
}

int policy_read_system(struct policy_inputs *in, const char *config_path, struct secbpf_err *err)
{
	FILE *f;
	int ret;

	memset(in, 0, sizeof(*in));
	in->config_path = config_path ? config_path : POLICY_DEFAULT_PATH;
	in->ptrace_scope = -1;
	f = fopen(POLICY_YAMA_PATH, "re");
	if (f) {
		if (fscanf(f, "%d", &in->ptrace_scope) != 1)
			in->ptrace_scope = 3; /* unreadable mode: most restrictive */
		fclose(f);
	}
	ret = read_cap_effective(&in->cap_effective);
	if (ret)
		return err_set(err, -ret, "reading capabilities from /proc/self/status");
	in->in_init_userns = policy_in_init_userns();
	return 0;
}
