// SPDX-License-Identifier: MIT
/*
 * From a compiled filter to an OCI seccomp profile. Each (arch, nr) cell
 * is explored with its arguments unknown (lib/cbpf/cell_paths.c). A name whose cells
 * agree on every arch of the profile becomes a plain rule when every call
 * gets one action runc can install, or argument rules when one action is
 * taken exactly where masked equalities of the arguments hold (libseccomp's
 * SCMP_CMP_MASKED_EQ) and the rest gets the default action; any other name
 * becomes SCMP_ACT_NOTIFY, which secbpfd answers by running the whole
 * program, so that every decision stays the program's own.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/syscall_name.h"
#include "cbpf/cell_paths.h"
#include "oci_export.h"
#include "service/agent_oci.h"

/* The arches a profile can name, with the tokens of the resolver. */
static const struct {
	const char *oci;  /* "architectures" entry */
	const char *abi;  /* syscall_abi_parse name */
	uint32_t nr_base; /* x32: bit 30 */
} arches[] = {
	{ "SCMP_ARCH_X86_64", "x86_64", 0 },
	{ "SCMP_ARCH_X86", "x86", 0 },
	{ "SCMP_ARCH_X32", "x32", SYSCALL_X32_BIT },
	{ "SCMP_ARCH_AARCH64", "aarch64", 0 },
	{ "SCMP_ARCH_ARM", "arm", 0 },
};
#define NARCHES (sizeof(arches) / sizeof(arches[0]))

#define ACTION_NOTIFY 0xffffffffu /* not a kernel action: "ask secbpfd" */

/* An action runc can install as such (NOTIFY stands for the rest). */
static bool installable(uint32_t action)
{
	switch (action & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
	case SECCOMP_RET_LOG:
	case SECCOMP_RET_KILL_PROCESS:
	case SECCOMP_RET_KILL_THREAD:
	case SECCOMP_RET_ERRNO:
		return true;
	case SECCOMP_RET_TRAP:
		return (action & SECCOMP_RET_DATA) == 0; /* libseccomp's TRAP has no data */
	default:
		return false; /* USER_NOTIF, TRACE */
	}
}

static int put_action(struct json_object *o, const char *akey, const char *ekey, uint32_t rule)
{
	const char *name;

	switch (rule == ACTION_NOTIFY ? ACTION_NOTIFY : rule & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
		name = "SCMP_ACT_ALLOW";
		break;
	case SECCOMP_RET_LOG:
		name = "SCMP_ACT_LOG";
		break;
	case SECCOMP_RET_KILL_PROCESS:
		name = "SCMP_ACT_KILL_PROCESS";
		break;
	case SECCOMP_RET_KILL_THREAD:
		name = "SCMP_ACT_KILL_THREAD";
		break;
	case SECCOMP_RET_TRAP:
		name = "SCMP_ACT_TRAP";
		break;
	case SECCOMP_RET_ERRNO:
		name = "SCMP_ACT_ERRNO";
		if (json_object_object_add(o, ekey,
					   json_object_new_int((int)(rule & SECCOMP_RET_DATA))))
			return -ENOMEM;
		break;
	default:
		name = "SCMP_ACT_NOTIFY";
		break;
	}
	return json_object_object_add(o, akey, json_object_new_string(name)) ? -ENOMEM : 0;
}

/* What a profile says of one name (or of one cell, before they merge). */
enum rule_kind {
	RULE_UNSET,
	RULE_PLAIN,  /* action for every call */
	RULE_ARGS,   /* action where one of paths' conditions holds, else the default */
	RULE_NOTIFY, /* secbpfd decides */
};

struct rule {
	char name[64];
	enum rule_kind kind;
	uint32_t action;
	struct cbpf_cell_path *paths; /* RULE_ARGS: the paths taking action */
	size_t npaths;
	char *key; /* RULE_ARGS: the conditions, canonical, to compare arches */
};

struct export_state {
	const struct sock_filter *insns;
	size_t len;
	bool included[NARCHES];
	struct syscall_abi abi[NARCHES];
	struct rule *rules;
	size_t nrules, cap;
	bool have_default;
	uint32_t default_action;
	uint32_t default_arch, default_nr; /* a witness, for messages */
};

static void rule_clear(struct rule *r)
{
	free(r->paths);
	free(r->key);
	r->paths = NULL;
	r->key = NULL;
	r->npaths = 0;
}

static struct rule *rule_for(struct export_state *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nrules; i++)
		if (!strcmp(s->rules[i].name, name))
			return &s->rules[i];
	if (s->nrules == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 512;
		struct rule *r = realloc(s->rules, cap * sizeof(*r));

		if (!r)
			return NULL;
		s->rules = r;
		s->cap = cap;
	}
	memset(&s->rules[s->nrules], 0, sizeof(s->rules[0]));
	snprintf(s->rules[s->nrules].name, sizeof(s->rules[0].name), "%s", name);
	return &s->rules[s->nrules++];
}

static int cond_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The rule of one cell: plain, argument rules against the default action,
 * or NOTIFY. Fills r (r->paths and r->key malloc'ed for RULE_ARGS).
 * Returns 0 or -ENOMEM.
 */
static int cell_rule(const struct export_state *s, const struct cbpf_cell_paths *c, struct rule *r)
{
	char *lines[64], *key = NULL;
	size_t i, n = 0, len = 0;
	uint32_t x = ACTION_NOTIFY;
	int rc = 0;

	r->kind = RULE_NOTIFY;
	r->action = ACTION_NOTIFY;
	if (c->fixed && installable(c->action)) {
		r->kind = RULE_PLAIN;
		r->action = c->action;
		return 0;
	}
	if (!c->npaths)
		return 0;
	/* One action besides the default, on expressible paths with
	 * conditions, and few enough of them to list. */
	for (i = 0; i < c->npaths; i++) {
		const struct cbpf_cell_path *p = &c->paths[i];

		if (p->action == s->default_action)
			continue;
		if (!installable(p->action) || !p->expressible || !p->nconds ||
		    (x != ACTION_NOTIFY && x != p->action) || n == 64)
			return 0;
		x = p->action;
		n++;
	}
	if (x == ACTION_NOTIFY)
		return 0; /* only default paths: fixed, handled above */
	r->paths = malloc(n * sizeof(*r->paths));
	if (!r->paths)
		return -ENOMEM;
	r->npaths = 0;
	for (i = 0; i < c->npaths; i++)
		if (c->paths[i].action == x)
			r->paths[r->npaths++] = c->paths[i];
	/* The key: each path's conditions as a line, sorted, joined. */
	for (i = 0; i < n; i++) {
		const struct cbpf_cell_path *p = &r->paths[i];
		char buf[CBPF_CELL_MAX_CONDS * 48] = "";
		size_t off = 0, j;

		for (j = 0; j < p->nconds; j++)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
						"%u:%" PRIx64 ":%" PRIx64 ";", p->conds[j].arg,
						p->conds[j].mask, p->conds[j].datum);
		lines[i] = strdup(buf);
		if (!lines[i]) {
			n = i;
			rc = -ENOMEM;
			goto out;
		}
		len += strlen(buf) + 1;
	}
	qsort(lines, n, sizeof(lines[0]), cond_cmp);
	key = calloc(1, len + 1);
	if (!key) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		strcat(key, lines[i]);
		strcat(key, "|");
	}
	r->key = key;
	r->kind = RULE_ARGS;
	r->action = x;
out:
	for (i = 0; i < n; i++)
		free(lines[i]);
	if (rc)
		rule_clear(r);
	return rc;
}

/* Merge a cell's rule c into the name's rule r: any disagreement between
 * arches makes the name NOTIFY. Takes c's allocations. */
static void rule_merge(struct rule *r, struct rule *c)
{
	if (r->kind == RULE_UNSET) {
		r->kind = c->kind;
		r->action = c->action;
		r->paths = c->paths;
		r->npaths = c->npaths;
		r->key = c->key;
		c->paths = NULL;
		c->key = NULL;
		return;
	}
	if (r->kind != c->kind || r->action != c->action ||
	    (r->kind == RULE_ARGS && strcmp(r->key, c->key))) {
		rule_clear(r);
		r->kind = RULE_NOTIFY;
		r->action = ACTION_NOTIFY;
	}
	rule_clear(c);
}

static bool is_deny(uint32_t action)
{
	switch (action & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ERRNO:
	case SECCOMP_RET_TRAP:
	case SECCOMP_RET_KILL_PROCESS:
	case SECCOMP_RET_KILL_THREAD:
		return true;
	default:
		return false;
	}
}

/* Leave out an arch whose every cell gets one deny: runc's answer for an
 * arch outside the profile (libseccomp's bad-arch action) denies too. */
static int choose_arches(struct export_state *s, FILE *notes)
{
	struct cbpf_cell_paths c;
	uint32_t nr, first = 0;
	size_t a;

	for (a = 0; a < NARCHES; a++) {
		bool uniform = true;

		if (syscall_abi_parse(arches[a].abi, &s->abi[a]))
			continue;
		for (nr = 0; nr < OCI_EXPORT_NR_MAX && uniform; nr++) {
			if (cbpf_cell_explore(s->insns, s->len, s->abi[a].audit,
					     arches[a].nr_base + nr, &c))
				return -ENOMEM;
			if (nr == 0)
				first = c.action;
			uniform = c.fixed && c.action == first;
			cbpf_cell_paths_free(&c);
		}
		if (uniform && is_deny(first)) {
			if (notes)
				fprintf(notes,
					"secbpf: export-oci: %s: the filter denies all of it "
					"(%#x): "
					"left out of architectures, so the runtime's bad-arch "
					"action applies\n",
					arches[a].abi, first);
			continue;
		}
		s->included[a] = true;
	}
	return 0;
}

/* The default action: what every number without a name gets. */
static int find_default(struct export_state *s, struct secbpf_err *err)
{
	struct cbpf_cell_paths c;
	char name[64];
	size_t a;
	uint32_t nr;

	for (a = 0; a < NARCHES; a++) {
		if (!s->included[a])
			continue;
		for (nr = 0; nr < OCI_EXPORT_NR_MAX; nr++) {
			uint32_t full = arches[a].nr_base + nr, r;

			syscall_abi_syscall_name(&s->abi[a], (int32_t)full, name, sizeof(name));
			if (name[0])
				continue;
			if (cbpf_cell_explore(s->insns, s->len, s->abi[a].audit, full, &c))
				return err_set(err, ENOMEM, "out of memory");
			r = c.fixed && installable(c.action) ? c.action : ACTION_NOTIFY;
			cbpf_cell_paths_free(&c);
			if (r == ACTION_NOTIFY)
				return err_set(
					err, EINVAL,
					"%s nr %u has no syscall name and needs secbpfd to "
					"decide: runc refuses SCMP_ACT_NOTIFY as the default "
					"action",
					arches[a].abi, full);
			if (!s->have_default) {
				s->have_default = true;
				s->default_action = r;
				s->default_arch = (uint32_t)a;
				s->default_nr = full;
			} else if (s->default_action != r)
				return err_set(err, EINVAL,
					       "%s nr %u and %s nr %u have no syscall name and get "
					       "different actions: a profile gives both its "
					       "defaultAction",
					       arches[s->default_arch].abi, s->default_nr,
					       arches[a].abi, full);
		}
	}
	if (!s->have_default)
		return err_set(err, EINVAL, "the filter denies every arch: nothing to export");
	return 0;
}

static int scan_names(struct export_state *s, struct secbpf_err *err)
{
	struct cbpf_cell_paths c;
	char name[64];
	size_t a;
	uint32_t nr;

	for (a = 0; a < NARCHES; a++) {
		if (!s->included[a])
			continue;
		for (nr = 0; nr < OCI_EXPORT_NR_MAX; nr++) {
			uint32_t full = arches[a].nr_base + nr;
			struct rule cr = { .kind = RULE_UNSET }, *r;
			int rc;

			syscall_abi_syscall_name(&s->abi[a], (int32_t)full, name, sizeof(name));
			if (!name[0])
				continue;
			if (cbpf_cell_explore(s->insns, s->len, s->abi[a].audit, full, &c))
				return err_set(err, ENOMEM, "out of memory");
			rc = cell_rule(s, &c, &cr);
			cbpf_cell_paths_free(&c);
			r = rc ? NULL : rule_for(s, name);
			if (!r) {
				rule_clear(&cr);
				return err_set(err, ENOMEM, "out of memory");
			}
			rule_merge(r, &cr);
		}
	}
	return 0;
}

static struct json_object *names_entry(struct json_object **names)
{
	struct json_object *entry = json_object_new_object();

	*names = json_object_new_array();
	if (!entry || !*names || json_object_object_add(entry, "names", *names)) {
		json_object_put(entry);
		json_object_put(*names);
		return NULL;
	}
	return entry;
}

/* One entry per argument path of r: its action where its conditions hold. */
static int emit_args(const struct rule *r, struct json_object *syscalls)
{
	size_t i, j;

	for (i = 0; i < r->npaths; i++) {
		struct json_object *names, *entry = names_entry(&names), *args;

		if (!entry)
			return -ENOMEM;
		args = json_object_new_array();
		if (!args || json_object_array_add(names, json_object_new_string(r->name)) ||
		    put_action(entry, "action", "errnoRet", r->action) ||
		    json_object_object_add(entry, "args", args)) {
			json_object_put(args);
			json_object_put(entry);
			return -ENOMEM;
		}
		for (j = 0; j < r->paths[i].nconds; j++) {
			const struct cbpf_cell_cond *c = &r->paths[i].conds[j];
			struct json_object *arg = json_object_new_object();

			/* SCMP_CMP_MASKED_EQ: value is the mask, valueTwo the datum. */
			if (!arg || json_object_array_add(args, arg) ||
			    json_object_object_add(arg, "index", json_object_new_int(c->arg)) ||
			    json_object_object_add(arg, "value", json_object_new_uint64(c->mask)) ||
			    json_object_object_add(arg, "valueTwo",
						   json_object_new_uint64(c->datum)) ||
			    json_object_object_add(arg, "op",
						   json_object_new_string("SCMP_CMP_MASKED_EQ"))) {
				json_object_put(entry);
				return -ENOMEM;
			}
		}
		if (json_object_array_add(syscalls, entry)) {
			json_object_put(entry);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The syscalls array: argument rules per name, then one entry per
 * distinct plain or NOTIFY action with its names in order. */
static int emit_rules(struct export_state *s, struct json_object *syscalls, bool *notify,
		      struct secbpf_err *err)
{
	size_t i, j;

	for (i = 0; i < s->nrules; i++) {
		const struct rule *r = &s->rules[i];

		if (r->kind == RULE_ARGS && emit_args(r, syscalls))
			return err_set(err, ENOMEM, "out of memory");
		if (r->kind == RULE_NOTIFY && !strcmp(r->name, "write"))
			return err_set(
				err, EINVAL,
				"write needs secbpfd to decide, and runc refuses "
				"SCMP_ACT_NOTIFY for write (it writes after the filter is in "
				"place)");
	}
	for (i = 0; i < s->nrules; i++) {
		struct json_object *entry, *names;
		uint32_t a = s->rules[i].action;
		bool seen = false;

		if (s->rules[i].kind == RULE_ARGS ||
		    (s->rules[i].kind == RULE_PLAIN && a == s->default_action))
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = s->rules[j].kind == s->rules[i].kind && s->rules[j].action == a;
		if (seen)
			continue; /* this action's entry is out already */
		if (a == ACTION_NOTIFY)
			*notify = true;
		entry = names_entry(&names);
		if (!entry)
			return err_set(err, ENOMEM, "out of memory");
		for (j = i; j < s->nrules; j++)
			if (s->rules[j].kind == s->rules[i].kind && s->rules[j].action == a)
				json_object_array_add(names,
						      json_object_new_string(s->rules[j].name));
		if (put_action(entry, "action", "errnoRet", a) ||
		    json_object_array_add(syscalls, entry)) {
			json_object_put(entry);
			return err_set(err, ENOMEM, "out of memory");
		}
	}
	return 0;
}

static void state_free(struct export_state *s)
{
	size_t i;

	for (i = 0; i < s->nrules; i++)
		rule_clear(&s->rules[i]);
	free(s->rules);
}

struct json_object *oci_export(const struct sock_filter *insns, size_t len, const char *listener,
			       const char *name, FILE *notes, struct secbpf_err *err)
{
	struct export_state s = { .insns = insns, .len = len };
	struct json_object *root = json_object_new_object(), *archs = json_object_new_array(),
			   *syscalls = json_object_new_array();
	bool notify = false;
	char meta[128];
	size_t a;

	if (!root || !archs || !syscalls) {
		err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	if (choose_arches(&s, notes)) {
		err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	if (find_default(&s, err) || scan_names(&s, err) || emit_rules(&s, syscalls, &notify, err))
		goto fail;
	for (a = 0; a < NARCHES; a++)
		if (s.included[a])
			json_object_array_add(archs, json_object_new_string(arches[a].oci));
	snprintf(meta, sizeof(meta), "%s=%s", SVC_OCI_PROGRAM_ANNOTATION, name);
	if (put_action(root, "defaultAction", "defaultErrnoRet", s.default_action) ||
	    json_object_object_add(root, "architectures", archs))
		goto nomem;
	archs = NULL;
	if (notify &&
	    (json_object_object_add(root, "listenerPath", json_object_new_string(listener)) ||
	     json_object_object_add(root, "listenerMetadata", json_object_new_string(meta))))
		goto nomem;
	if (json_object_object_add(root, "syscalls", syscalls))
		goto nomem;
	state_free(&s);
	return root;
nomem:
	err_set(err, ENOMEM, "out of memory");
fail:
	state_free(&s);
	json_object_put(archs);
	json_object_put(syscalls);
	json_object_put(root);
	return NULL;
}
