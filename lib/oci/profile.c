// SPDX-License-Identifier: MIT
/*
 * Reading an OCI or Docker seccomp profile (json-c) into struct
 * oci_profile: actions, architectures and archMap, rules with their args,
 * includes and excludes, each checked with an error naming its JSON path.
 */
#include <errno.h>
#include <json-c/json.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "oci/profile.h"

/* CAP_* by number (linux/capability.h, up to CAP_LAST_CAP of 6.x). */
static const char *const cap_names[] = {
	"CAP_CHOWN",
	"CAP_DAC_OVERRIDE",
	"CAP_DAC_READ_SEARCH",
	"CAP_FOWNER",
	"CAP_FSETID",
	"CAP_KILL",
	"CAP_SETGID",
	"CAP_SETUID",
	"CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE",
	"CAP_NET_BROADCAST",
	"CAP_NET_ADMIN",
	"CAP_NET_RAW",
	"CAP_IPC_LOCK",
	"CAP_IPC_OWNER",
	"CAP_SYS_MODULE",
	"CAP_SYS_RAWIO",
	"CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE",
	"CAP_SYS_PACCT",
	"CAP_SYS_ADMIN",
	"CAP_SYS_BOOT",
	"CAP_SYS_NICE",
	"CAP_SYS_RESOURCE",
	"CAP_SYS_TIME",
	"CAP_SYS_TTY_CONFIG",
	"CAP_MKNOD",
	"CAP_LEASE",
	"CAP_AUDIT_WRITE",
	"CAP_AUDIT_CONTROL",
	"CAP_SETFCAP",
	"CAP_MAC_OVERRIDE",
	"CAP_MAC_ADMIN",
	"CAP_SYSLOG",
	"CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND",
	"CAP_AUDIT_READ",
	"CAP_PERFMON",
	"CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
};

/* CAP_CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, SETGID, SETUID, SETPCAP,
 * NET_BIND_SERVICE, NET_RAW, SYS_CHROOT, MKNOD, AUDIT_WRITE, SETFCAP. */
const uint64_t oci_docker_default_caps = (1ull << 0) | (1ull << 1) | (1ull << 3) | (1ull << 4) |
					 (1ull << 5) | (1ull << 6) | (1ull << 7) | (1ull << 8) |
					 (1ull << 10) | (1ull << 13) | (1ull << 18) | (1ull << 27) |
					 (1ull << 29) | (1ull << 31);

const char *oci_cap_name(unsigned int cap)
{
	return cap < sizeof(cap_names) / sizeof(cap_names[0]) ? cap_names[cap] : NULL;
}

static const char *const op_names[] = {
	[OCI_NE] = "SCMP_CMP_NE",
	[OCI_LT] = "SCMP_CMP_LT",
	[OCI_LE] = "SCMP_CMP_LE",
	[OCI_EQ] = "SCMP_CMP_EQ",
	[OCI_GE] = "SCMP_CMP_GE",
	[OCI_GT] = "SCMP_CMP_GT",
	[OCI_MASKED_EQ] = "SCMP_CMP_MASKED_EQ",
};

const char *oci_host_arch_name(void)
{
#if defined(__x86_64__)
	return "amd64";
#elif defined(__aarch64__)
	return "arm64";
#elif defined(__i386__)
	return "386";
#else
	return "";
#endif
}

void oci_running_kernel(unsigned int *major, unsigned int *minor)
{
	struct utsname u;

	*major = *minor = 0;
	if (uname(&u) == 0 && sscanf(u.release, "%u.%u", major, minor) != 2)
		*major = *minor = 0;
}

/* A JSON path being read, for messages: "syscalls[3].args[1].op". */
struct jpath {
	char s[128];
};

static int bad(struct secbpf_err *err, const struct jpath *at, const char *fmt, const char *what)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, what);
	return err_set(err, EINVAL, "%s: %s", at->s, msg);
}

static void jpath_sub(struct jpath *out, const struct jpath *at, const char *fmt, const char *key,
		      size_t i)
{
	char tail[96];

	size_t n = strnlen(at->s, sizeof(at->s) - 1);

	if (snprintf(tail, sizeof(tail), fmt, key, i) < 0)
		tail[0] = 0;
	memcpy(out->s, at->s, n);
	if (snprintf(out->s + n, sizeof(out->s) - n, "%s%s", n && tail[0] != '[' ? "." : "", tail) <
	    0)
		out->s[n] = 0;
}

static int get_string(struct json_object *o, const struct jpath *at, const char **out,
		      struct secbpf_err *err)
{
	if (!json_object_is_type(o, json_type_string))
		return bad(err, at, "%s", "expected a string");
	*out = json_object_get_string(o);
	return 0;
}

/* A non-negative integer up to 2^64 - 1 (json-c keeps big ones as uint64). */
static int get_u64(struct json_object *o, const struct jpath *at, uint64_t *out,
		   struct secbpf_err *err)
{
	if (!json_object_is_type(o, json_type_int))
		return bad(err, at, "%s", "expected a non-negative integer");
	errno = 0;
	if (json_object_get_int64(o) < 0) {
		*out = json_object_get_uint64(o);
		if (errno || *out <= INT64_MAX)
			return bad(err, at, "%s", "expected a non-negative integer");
		return 0;
	}
	*out = json_object_get_uint64(o);
	return 0;
}

/* SCMP_ACT_* and its errno (errnoRet, default EPERM as runc) into a
 * SECCOMP_RET_* value. */
static int parse_action(const char *name, bool has_errno, uint64_t errno_ret,
			const struct jpath *at, uint32_t *out, struct secbpf_err *err)
{
	uint32_t data = has_errno ? (uint32_t)(errno_ret & SECCOMP_RET_DATA) : EPERM;

	if (has_errno && errno_ret > 0xffff)
		return bad(err, at, "%s", "errnoRet above 65535: the kernel keeps 16 bits");
	if (!strcmp(name, "SCMP_ACT_ALLOW"))
		*out = SCMP_ACT_ALLOW;
	else if (!strcmp(name, "SCMP_ACT_ERRNO"))
		*out = SCMP_ACT_ERRNO(data);
	else if (!strcmp(name, "SCMP_ACT_TRACE"))
		*out = SCMP_ACT_TRACE(data);
	else if (!strcmp(name, "SCMP_ACT_KILL") || !strcmp(name, "SCMP_ACT_KILL_THREAD"))
		*out = SCMP_ACT_KILL_THREAD;
	else if (!strcmp(name, "SCMP_ACT_KILL_PROCESS"))
		*out = SCMP_ACT_KILL_PROCESS;
	else if (!strcmp(name, "SCMP_ACT_TRAP"))
		*out = SCMP_ACT_TRAP;
	else if (!strcmp(name, "SCMP_ACT_LOG"))
		*out = SCMP_ACT_LOG;
	else if (!strcmp(name, "SCMP_ACT_NOTIFY"))
		*out = SCMP_ACT_NOTIFY;
	else
		return bad(err, at,
			   "unknown action '%s' (SCMP_ACT_ALLOW, ERRNO, KILL, KILL_THREAD, "
			   "KILL_PROCESS, TRAP, TRACE, LOG or NOTIFY)",
			   name);
	if (has_errno && strcmp(name, "SCMP_ACT_ERRNO") && strcmp(name, "SCMP_ACT_TRACE"))
		return bad(err, at, "errnoRet is given but action %s takes no errno", name);
	return 0;
}

static int parse_cap(const char *name, const struct jpath *at, uint64_t *mask,
		     struct secbpf_err *err)
{
	for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++) {
		if (!strcasecmp(name, cap_names[i]) || !strcasecmp(name, cap_names[i] + 4)) {
			*mask |= 1ull << i;
			return 0;
		}
	}
	return bad(err, at, "unknown capability '%s' (CAP_CHOWN ... CAP_CHECKPOINT_RESTORE)", name);
}

static int parse_when(struct json_object *o, const struct jpath *at, struct oci_when *w,
		      struct secbpf_err *err)
{
	struct json_object *v;
	struct jpath sub, item;
	const char *s = NULL;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return bad(err, at, "%s", "expected an object");
	if (json_object_object_get_ex(o, "caps", &v) && !json_object_is_type(v, json_type_null)) {
		jpath_sub(&sub, at, "%s", "caps", 0);
		if (!json_object_is_type(v, json_type_array))
			return bad(err, &sub, "%s", "expected an array of capability names");
		w->has_caps = json_object_array_length(v) > 0;
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			jpath_sub(&item, &sub, "[%.0s%zu]", "", i);
			if ((rc = get_string(json_object_array_get_idx(v, i), &item, &s, err)) ||
			    (rc = parse_cap(s, &item, &w->caps, err)))
				return rc;
		}
	}
	if (json_object_object_get_ex(o, "arches", &v) && !json_object_is_type(v, json_type_null)) {
		jpath_sub(&sub, at, "%s", "arches", 0);
		if (!json_object_is_type(v, json_type_array))
			return bad(err, &sub, "%s",
				   "expected an array of arch names (amd64, x32...)");
		w->has_arches = json_object_array_length(v) > 0;
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			jpath_sub(&item, &sub, "[%.0s%zu]", "", i);
			if ((rc = get_string(json_object_array_get_idx(v, i), &item, &s, err)))
				return rc;
			if (!strcmp(s, oci_host_arch_name()))
				w->host_in_arches = true;
		}
	}
	if (json_object_object_get_ex(o, "minKernel", &v) &&
	    !json_object_is_type(v, json_type_null)) {
		char tail;

		jpath_sub(&sub, at, "%s", "minKernel", 0);
		if ((rc = get_string(v, &sub, &s, err)))
			return rc;
		if (sscanf(s, "%u.%u%c", &w->kmajor, &w->kminor, &tail) != 2)
			return bad(err, &sub, "'%s' is not a kernel version MAJOR.MINOR", s);
		w->has_kernel = true;
	}
	return 0;
}

static int parse_arg(struct json_object *o, const struct jpath *at, struct oci_cond *c,
		     struct secbpf_err *err)
{
	struct json_object *v;
	struct jpath sub;
	const char *s = NULL;
	uint64_t n;
	size_t i;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return bad(err, at, "%s", "expected an object {index, value, op}");
	jpath_sub(&sub, at, "%s", "index", 0);
	if (!json_object_object_get_ex(o, "index", &v))
		return bad(err, &sub, "%s", "missing");
	if ((rc = get_u64(v, &sub, &n, err)))
		return rc;
	if (n >= OCI_MAX_ARGS)
		return bad(err, &sub, "%s", "a syscall has arguments 0 to 5");
	c->index = (unsigned int)n;
	jpath_sub(&sub, at, "%s", "value", 0);
	if (!json_object_object_get_ex(o, "value", &v))
		return bad(err, &sub, "%s", "missing");
	if ((rc = get_u64(v, &sub, &c->value, err)))
		return rc;
	c->value_two = 0;
	jpath_sub(&sub, at, "%s", "valueTwo", 0);
	if (json_object_object_get_ex(o, "valueTwo", &v) &&
	    (rc = get_u64(v, &sub, &c->value_two, err)))
		return rc;
	jpath_sub(&sub, at, "%s", "op", 0);
	if (!json_object_object_get_ex(o, "op", &v))
		return bad(err, &sub, "%s", "missing");
	if ((rc = get_string(v, &sub, &s, err)))
		return rc;
	for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (!strcmp(s, op_names[i]))
			break;
	if (i == sizeof(op_names) / sizeof(op_names[0]))
		return bad(err, &sub,
			   "unknown op '%s' (SCMP_CMP_NE, LT, LE, EQ, GE, GT or MASKED_EQ)", s);
	c->op = (enum oci_op)i;
	return 0;
}

static int parse_rule(struct json_object *o, const struct jpath *at, struct oci_rule *r,
		      struct secbpf_err *err)
{
	struct json_object *v, *names = NULL, *errno_ret = NULL;
	struct jpath sub, item;
	uint64_t eret = 0;
	const char *s = NULL;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return bad(err, at, "%s", "expected an object {names, action, ...}");
	jpath_sub(&sub, at, "%s", "names", 0);
	if (json_object_object_get_ex(o, "names", &names)) {
		if (!json_object_is_type(names, json_type_array))
			return bad(err, &sub, "%s", "expected an array of syscall names");
		r->nnames = json_object_array_length(names);
	} else if (json_object_object_get_ex(o, "name", &v)) {
		r->nnames = 1; /* Docker's older single "name" */
	} else {
		return bad(err, &sub, "%s", "missing (the syscalls this rule is for)");
	}
	r->names = calloc(r->nnames ? r->nnames : 1, sizeof(*r->names));
	if (!r->names)
		return err_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < r->nnames; i++) {
		struct json_object *n = names ? json_object_array_get_idx(names, i) : v;

		jpath_sub(&item, &sub, "[%.0s%zu]", "", i);
		if ((rc = get_string(n, &item, &s, err)))
			return rc;
		if (!s[0] || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(s))
			return bad(err, &item, "'%s' is not a syscall name", s);
		if (!(r->names[i] = strdup(s)))
			return err_set(err, ENOMEM, "out of memory");
	}
	jpath_sub(&sub, at, "%s", "errnoRet", 0);
	if (json_object_object_get_ex(o, "errnoRet", &errno_ret) &&
	    !json_object_is_type(errno_ret, json_type_null) &&
	    (rc = get_u64(errno_ret, &sub, &eret, err)))
		return rc;
	if (errno_ret && json_object_is_type(errno_ret, json_type_null))
		errno_ret = NULL;
	jpath_sub(&sub, at, "%s", "action", 0);
	if (!json_object_object_get_ex(o, "action", &v))
		return bad(err, &sub, "%s", "missing");
	if ((rc = get_string(v, &sub, &s, err)) ||
	    (rc = parse_action(s, errno_ret != NULL, eret, &sub, &r->action, err)))
		return rc;
	if (json_object_object_get_ex(o, "args", &v) && !json_object_is_type(v, json_type_null)) {
		jpath_sub(&sub, at, "%s", "args", 0);
		if (!json_object_is_type(v, json_type_array))
			return bad(err, &sub, "%s", "expected an array of {index, value, op}");
		if (json_object_array_length(v) > sizeof(r->args) / sizeof(r->args[0]))
			return bad(err, &sub, "%s", "more than 24 conditions");
		r->nargs = json_object_array_length(v);
		for (size_t i = 0; i < r->nargs; i++) {
			jpath_sub(&item, &sub, "[%.0s%zu]", "", i);
			if ((rc = parse_arg(json_object_array_get_idx(v, i), &item, &r->args[i],
					    err)))
				return rc;
		}
	}
	if (json_object_object_get_ex(o, "includes", &v) &&
	    !json_object_is_type(v, json_type_null)) {
		jpath_sub(&sub, at, "%s", "includes", 0);
		if ((rc = parse_when(v, &sub, &r->includes, err)))
			return rc;
	}
	if (json_object_object_get_ex(o, "excludes", &v) &&
	    !json_object_is_type(v, json_type_null)) {
		jpath_sub(&sub, at, "%s", "excludes", 0);
		if ((rc = parse_when(v, &sub, &r->excludes, err)))
			return rc;
	}
	return 0;
}

/* "SCMP_ARCH_X86_64" into libseccomp's token. */
static int parse_arch(struct json_object *o, const struct jpath *at, uint32_t *token,
		      struct secbpf_err *err)
{
	char lower[32];
	const char *s = NULL;
	size_t i;
	int rc;

	if ((rc = get_string(o, at, &s, err)))
		return rc;
	if (strncmp(s, "SCMP_ARCH_", 10) || strlen(s + 10) >= sizeof(lower))
		return bad(err, at, "'%s' is not an arch (SCMP_ARCH_X86_64, SCMP_ARCH_X86...)", s);
	for (i = 0; s[10 + i]; i++)
		lower[i] =
			(char)(s[10 + i] >= 'A' && s[10 + i] <= 'Z' ? s[10 + i] + 32 : s[10 + i]);
	lower[i] = 0;
	*token = seccomp_arch_resolve_name(lower);
	if (!*token)
		return bad(err, at, "unknown arch '%s' (libseccomp has no such arch)", s);
	return 0;
}

static int add_arch(struct oci_profile *p, uint32_t token, const struct jpath *at,
		    struct secbpf_err *err)
{
	for (size_t i = 0; i < p->narches; i++)
		if (p->arches[i] == token)
			return 0;
	if (p->narches == OCI_MAX_ARCHES)
		return bad(err, at, "%s", "more than 16 architectures");
	p->arches[p->narches++] = token;
	return 0;
}

static int parse_arches(struct json_object *root, struct oci_profile *p, struct secbpf_err *err)
{
	struct json_object *archs = NULL, *map = NULL, *v;
	struct jpath at = { "architectures" }, item;
	uint32_t token = 0;
	int rc;

	json_object_object_get_ex(root, "architectures", &archs);
	json_object_object_get_ex(root, "archMap", &map);
	if (archs && json_object_is_type(archs, json_type_null))
		archs = NULL;
	if (map && json_object_is_type(map, json_type_null))
		map = NULL;
	if (archs && map && json_object_array_length(archs) && json_object_array_length(map))
		return bad(
			err, &at, "%s",
			"both architectures and archMap are given (Docker refuses it): keep one");
	if (archs) {
		if (!json_object_is_type(archs, json_type_array))
			return bad(err, &at, "%s", "expected an array of SCMP_ARCH_* names");
		for (size_t i = 0; i < json_object_array_length(archs); i++) {
			jpath_sub(&item, &at, "[%.0s%zu]", "", i);
			if ((rc = parse_arch(json_object_array_get_idx(archs, i), &item, &token,
					     err)) ||
			    (rc = add_arch(p, token, &item, err)))
				return rc;
		}
	}
	if (map) {
		strcpy(at.s, "archMap");
		if (!json_object_is_type(map, json_type_array))
			return bad(err, &at, "%s",
				   "expected an array of {architecture, subArchitectures}");
		for (size_t i = 0; i < json_object_array_length(map); i++) {
			struct json_object *e = json_object_array_get_idx(map, i), *subs;
			struct jpath sub;

			jpath_sub(&item, &at, "[%.0s%zu]", "", i);
			if (!json_object_is_type(e, json_type_object))
				return bad(err, &item, "%s", "expected an object");
			jpath_sub(&sub, &item, "%s", "architecture", 0);
			if (!json_object_object_get_ex(e, "architecture", &v))
				return bad(err, &sub, "%s", "missing");
			token = 0; /* an arch libseccomp does not know is not the host's */
			if (parse_arch(v, &sub, &token, NULL) &&
			    !json_object_is_type(v, json_type_string))
				return parse_arch(v, &sub, &token, err);
			if (!token || token != seccomp_arch_native())
				continue;
			if ((rc = add_arch(p, token, &sub, err)))
				return rc;
			jpath_sub(&sub, &item, "%s", "subArchitectures", 0);
			if (!json_object_object_get_ex(e, "subArchitectures", &subs) ||
			    json_object_is_type(subs, json_type_null))
				continue;
			if (!json_object_is_type(subs, json_type_array))
				return bad(err, &sub, "%s",
					   "expected an array of SCMP_ARCH_* names");
			for (size_t j = 0; j < json_object_array_length(subs); j++) {
				struct jpath si;

				jpath_sub(&si, &sub, "[%.0s%zu]", "", j);
				if ((rc = parse_arch(json_object_array_get_idx(subs, j), &si,
						     &token, err)) ||
				    (rc = add_arch(p, token, &si, err)))
					return rc;
			}
		}
	}
	if (!p->narches)
		p->arches[p->narches++] = seccomp_arch_native();
	return 0;
}

int oci_profile_parse(const char *text, struct oci_profile *p, struct secbpf_err *err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root, *v;
	struct jpath at = { "defaultAction" }, item;
	uint64_t derr = 0;
	const char *s = NULL;
	int rc;

	memset(p, 0, sizeof(*p));
	if (!tok)
		return err_set(err, ENOMEM, "out of memory");
	root = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (!root || json_tokener_get_error(tok) != json_tokener_success) {
		rc = err_set(err, EINVAL, "not JSON: %s at offset %zu",
			     json_tokener_error_desc(json_tokener_get_error(tok)),
			     json_tokener_get_parse_end(tok));
		json_tokener_free(tok);
		json_object_put(root);
		return rc;
	}
	json_tokener_free(tok);
	if (!json_object_is_type(root, json_type_object)) {
		rc = err_set(err, EINVAL, "the profile is not a JSON object");
		goto out;
	}
	if (json_object_object_get_ex(root, "defaultErrnoRet", &v) &&
	    !json_object_is_type(v, json_type_null)) {
		strcpy(at.s, "defaultErrnoRet");
		if ((rc = get_u64(v, &at, &derr, err)))
			goto out;
		p->default_errno_set = true;
		p->default_errno = (uint32_t)derr;
		strcpy(at.s, "defaultAction");
	}
	if (!json_object_object_get_ex(root, "defaultAction", &v)) {
		rc = bad(err, &at, "%s", "missing (e.g. \"SCMP_ACT_ERRNO\")");
		goto out;
	}
	if ((rc = get_string(v, &at, &s, err)))
		goto out;
	if (p->default_errno_set && strcmp(s, "SCMP_ACT_ERRNO") && strcmp(s, "SCMP_ACT_TRACE")) {
		strcpy(at.s, "defaultErrnoRet");
		rc = bad(err, &at, "given but defaultAction %s takes no errno", s);
		goto out;
	}
	if ((rc = parse_action(s, p->default_errno_set, derr, &at, &p->default_action, err)) ||
	    (rc = parse_arches(root, p, err)))
		goto out;
	if (json_object_object_get_ex(root, "syscalls", &v) &&
	    !json_object_is_type(v, json_type_null)) {
		strcpy(at.s, "syscalls");
		if (!json_object_is_type(v, json_type_array)) {
			rc = bad(err, &at, "%s", "expected an array of rules");
			goto out;
		}
		p->nrules = json_object_array_length(v);
		p->rules = calloc(p->nrules ? p->nrules : 1, sizeof(*p->rules));
		if (!p->rules) {
			rc = err_set(err, ENOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < p->nrules; i++) {
			jpath_sub(&item, &at, "[%.0s%zu]", "", i);
			p->rules[i].index = i;
			if ((rc = parse_rule(json_object_array_get_idx(v, i), &item, &p->rules[i],
					     err)))
				goto out;
		}
	}
	rc = 0;
out:
	json_object_put(root);
	if (rc)
		oci_profile_free(p);
	return rc;
}

int oci_profile_load(const char *path, struct oci_profile *p, struct secbpf_err *err)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (!f)
		return err_set(err, errno, "%s: %s", path, strerror(errno));
	for (;;) {
		char *t = realloc(text, len + 65536 + 1);
		size_t n;

		if (!t) {
			free(text);
			fclose(f);
			return err_set(err, ENOMEM, "out of memory");
		}
		text = t;
		n = fread(text + len, 1, 65536, f);
		len += n;
		if (n < 65536)
			break;
	}
	text[len] = 0;
	if (ferror(f) || memchr(text, 0, len)) {
		rc = err_set(err, EINVAL, "%s: cannot read it as text", path);
	} else {
		rc = oci_profile_parse(text, p, err);
		if (rc)
			err_prefix(err, "%s", path);
	}
	free(text);
	fclose(f);
	return rc;
}

void oci_profile_free(struct oci_profile *p)
{
	for (size_t i = 0; i < p->nrules; i++) {
		for (size_t j = 0; p->rules[i].names && j < p->rules[i].nnames; j++)
			free(p->rules[i].names[j]);
		free(p->rules[i].names);
	}
	free(p->rules);
	memset(p, 0, sizeof(*p));
}

static bool kernel_at_least(unsigned int major, unsigned int minor, const struct oci_when *w)
{
	return major > w->kmajor || (major == w->kmajor && minor >= w->kminor);
}

bool oci_rule_applies(const struct oci_rule *r, uint64_t caps, unsigned int kmajor,
		      unsigned int kminor)
{
	if (r->excludes.has_arches && r->excludes.host_in_arches)
		return false;
	if (r->excludes.has_caps && (caps & r->excludes.caps))
		return false;
	if (r->excludes.has_kernel && kernel_at_least(kmajor, kminor, &r->excludes))
		return false;
	if (r->includes.has_arches && !r->includes.host_in_arches)
		return false;
	if (r->includes.has_caps && (caps & r->includes.caps) != r->includes.caps)
		return false;
	if (r->includes.has_kernel && !kernel_at_least(kmajor, kminor, &r->includes))
		return false;
	return true;
}
