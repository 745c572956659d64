// SPDX-License-Identifier: MIT
/*
 * From a compiled filter to an OCI seccomp profile. Each (arch, nr) cell
 * is explored with its arguments unknown (both ways at each test of one):
 * a cell whose every path returns one action that runc can install has
 * that action for every call; a name whose cells agree on every arch of
 * the profile becomes a plain rule, any other SCMP_ACT_NOTIFY, which
 * secbpfd answers by running the whole program. Argument rules are not
 * emitted: NOTIFY is exact.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf.h"
#include "common/syscall_name.h"
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

/* What the filter does for one cell, and whether that is the same for
 * every call of it, whatever its arguments and instruction pointer. */
struct cell {
	uint32_t action;
	bool fixed;
};

/* A register or scratch word while exploring: a constant, or unknown
 * (it came from the arguments). */
struct val {
	bool known;
	uint32_t v;
};

struct walk {
	const struct sock_filter *insns;
	size_t len;
	uint32_t nr, audit;
	unsigned int paths; /* returns reached so far */
	bool have, fixed;
	uint32_t action;
};

/* Beyond this many paths a cell counts as deciding on its arguments. */
#define WALK_MAX_PATHS 4096

static struct val alu(uint16_t op, struct val a, struct val b)
{
	struct val r = { .known = a.known && b.known };

	if (op == BPF_NEG) {
		r.known = a.known;
		r.v = -a.v;
		return r;
	}
	if (!r.known)
		return r;
	switch (op) {
	case BPF_ADD:
		r.v = a.v + b.v;
		break;
	case BPF_SUB:
		r.v = a.v - b.v;
		break;
	case BPF_MUL:
		r.v = a.v * b.v;
		break;
	case BPF_DIV:
		r.v = b.v ? a.v / b.v : 0;
		break;
	case BPF_MOD:
		r.v = b.v ? a.v % b.v : 0;
		break;
	case BPF_OR:
		r.v = a.v | b.v;
		break;
	case BPF_AND:
		r.v = a.v & b.v;
		break;
	case BPF_XOR:
		r.v = a.v ^ b.v;
		break;
	case BPF_LSH:
		r.v = b.v < 32 ? a.v << b.v : 0;
		break;
	case BPF_RSH:
		r.v = b.v < 32 ? a.v >> b.v : 0;
		break;
	default:
		r.known = false;
		break;
	}
	return r;
}

static void walk_ret(struct walk *w, struct val r)
{
	w->paths++;
	if (!r.known)
		w->fixed = false;
	else if (!w->have) {
		w->have = true;
		w->action = r.v;
	} else if (w->action != r.v)
		w->fixed = false;
}

/* Run from pc with A, X and M; at a jump on an unknown value, take both
 * ways. The filter was checked: jumps go forward, within it. */
static void walk_from(struct walk *w, size_t pc, struct val a, struct val x, struct val *m)
{
	struct val mem[BPF_MEMWORDS];

	memcpy(mem, m, sizeof(mem));
	while (pc < w->len && w->fixed && w->paths < WALK_MAX_PATHS) {
		const struct sock_filter *in = &w->insns[pc];
		struct val k = { true, in->k }, src;
		bool taken;

		switch (BPF_CLASS(in->code)) {
		case BPF_LD:
		case BPF_LDX: {
			struct val v = { false, 0 };

			if (BPF_MODE(in->code) == BPF_ABS)
				v = in->k == 0	 ? (struct val){ true, w->nr }
				    : in->k == 4 ? (struct val){ true, w->audit }
						 : v;
			else if (BPF_MODE(in->code) == BPF_IMM)
				v = k;
			else if (BPF_MODE(in->code) == BPF_LEN)
				v = (struct val){ true, sizeof(struct seccomp_data) };
			else if (BPF_MODE(in->code) == BPF_MEM && in->k < BPF_MEMWORDS)
				v = mem[in->k];
			if (BPF_CLASS(in->code) == BPF_LD)
				a = v;
			else
				x = v;
			pc++;
			break;
		}
		case BPF_ST:
		case BPF_STX:
			if (in->k < BPF_MEMWORDS)
				mem[in->k] = BPF_CLASS(in->code) == BPF_ST ? a : x;
			pc++;
			break;
		case BPF_ALU:
			a = alu(BPF_OP(in->code), a, BPF_SRC(in->code) == BPF_X ? x : k);
			pc++;
			break;
		case BPF_MISC:
			if (BPF_MISCOP(in->code) == BPF_TAX)
				x = a;
			else
				a = x;
			pc++;
			break;
		case BPF_RET:
			walk_ret(w, BPF_RVAL(in->code) == BPF_A ? a : k);
			return;
		case BPF_JMP:
			if (BPF_OP(in->code) == BPF_JA) {
				pc += 1 + in->k;
				break;
			}
			src = BPF_SRC(in->code) == BPF_X ? x : k;
			if (!a.known || !src.known) {
				walk_from(w, pc + 1 + in->jt, a, x, mem);
				pc += 1 + in->jf;
				break;
			}
			switch (BPF_OP(in->code)) {
			case BPF_JEQ:
				taken = a.v == src.v;
				break;
			case BPF_JGT:
				taken = a.v > src.v;
				break;
			case BPF_JGE:
				taken = a.v >= src.v;
				break;
			default:
				taken = (a.v & src.v) != 0;
				break; /* JSET */
			}
			pc += 1 + (taken ? in->jt : in->jf);
			break;
		default:
			w->fixed = false;
			return;
		}
	}
	if (w->paths >= WALK_MAX_PATHS || pc >= w->len)
		w->fixed = false;
}

static struct cell run_cell(const struct sock_filter *insns, size_t len, uint32_t audit,
			    uint32_t nr)
{
	struct walk w = { .insns = insns, .len = len, .nr = nr, .audit = audit, .fixed = true };
	struct val zero = { true, 0 }, mem[BPF_MEMWORDS];
	struct cell c;
	size_t i;

	for (i = 0; i < BPF_MEMWORDS; i++)
		mem[i] = zero; /* the kernel zeroes M[] */
	walk_from(&w, 0, zero, zero, mem);
	c.fixed = w.fixed && w.have;
	c.action = w.action;
	return c;
}

/* A fixed action runc can install as such (NOTIFY stands for the rest). */
static bool plain_action(const struct cell *c)
{
	uint32_t a = c->action & SECCOMP_RET_ACTION_FULL;

	if (!c->fixed)
		return false;
	switch (a) {
	case SECCOMP_RET_ALLOW:
	case SECCOMP_RET_LOG:
	case SECCOMP_RET_KILL_PROCESS:
	case SECCOMP_RET_KILL_THREAD:
	case SECCOMP_RET_ERRNO:
		return true;
	case SECCOMP_RET_TRAP:
		return (c->action & SECCOMP_RET_DATA) == 0; /* libseccomp's TRAP has no data */
	default:
		return false; /* USER_NOTIF, TRACE */
	}
}

#define ACTION_NOTIFY 0xffffffffu /* not a kernel action: "ask secbpfd" */

static uint32_t cell_rule(const struct cell *c)
{
	return plain_action(c) ? c->action : ACTION_NOTIFY;
}

/* Add "action" (and errnoRet) for rule to o, under keys action/errno. */
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

/* One rule of the profile: a name and what it gets on every arch. */
struct rule {
	char name[64];
	uint32_t rule;
	bool mixed; /* the arches disagree */
};

struct export_state {
	const struct sock_filter *insns;
	size_t len;
	bool included[NARCHES];
	struct syscall_abi abi[NARCHES];
	struct rule *rules;
	size_t nrules, cap;
	bool have_default;
	uint32_t default_rule;
	uint32_t default_arch, default_nr; /* a witness, for messages */
};

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
	s->rules[s->nrules].rule = 0xfffffffeu; /* unset */
	return &s->rules[s->nrules++];
}

/* Whether action refuses the syscall (what a bad-arch action does). */
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
static void choose_arches(struct export_state *s, FILE *notes)
{
	size_t a;
	uint32_t nr;

	for (a = 0; a < NARCHES; a++) {
		struct cell first;
		bool uniform = true;

		if (syscall_abi_parse(arches[a].abi, &s->abi[a]))
			continue;
		first = run_cell(s->insns, s->len, s->abi[a].audit, arches[a].nr_base);
		for (nr = 0; nr < OCI_EXPORT_NR_MAX && uniform; nr++) {
			struct cell c =
				run_cell(s->insns, s->len, s->abi[a].audit, arches[a].nr_base + nr);

			uniform = c.fixed && first.fixed && c.action == first.action;
		}
		if (uniform && is_deny(first.action)) {
			if (notes)
				fprintf(notes,
					"secbpf: export-oci: %s: the filter denies all of it "
					"(%#x): "
					"left out of architectures, so the runtime's bad-arch "
					"action applies\n",
					arches[a].abi, first.action);
			continue;
		}
		s->included[a] = true;
	}
}

static int scan_cells(struct export_state *s, struct secbpf_err *err)
{
	char name[64];
	size_t a;
	uint32_t nr;

	for (a = 0; a < NARCHES; a++) {
		if (!s->included[a])
			continue;
		for (nr = 0; nr < OCI_EXPORT_NR_MAX; nr++) {
			uint32_t full = arches[a].nr_base + nr;
			struct cell c = run_cell(s->insns, s->len, s->abi[a].audit, full);
			uint32_t r = cell_rule(&c);
			struct rule *ru;

			syscall_abi_syscall_name(&s->abi[a], (int32_t)full, name, sizeof(name));
			if (!name[0]) {
				/* No name: only the default action can reach it. */
				if (!s->have_default) {
					s->have_default = true;
					s->default_rule = r;
					s->default_arch = (uint32_t)a;
					s->default_nr = full;
				} else if (s->default_rule != r)
					return err_set(err, EINVAL,
						       "%s nr %u and %s nr %u have no syscall name "
						       "and get different actions: a profile gives "
						       "both its defaultAction",
						       arches[s->default_arch].abi, s->default_nr,
						       arches[a].abi, full);
				continue;
			}
			ru = rule_for(s, name);
			if (!ru)
				return err_set(err, ENOMEM, "out of memory");
			if (ru->rule == 0xfffffffeu)
				ru->rule = r;
			else if (ru->rule != r)
				ru->mixed = true;
		}
	}
	if (!s->have_default)
		return err_set(err, EINVAL, "the filter denies every arch: nothing to export");
	if (s->default_rule == ACTION_NOTIFY)
		return err_set(err, EINVAL,
			       "%s nr %u has no syscall name and needs secbpfd to decide: runc "
			       "refuses SCMP_ACT_NOTIFY as the default action",
			       arches[s->default_arch].abi, s->default_nr);
	return 0;
}

/* The syscalls array: one entry per distinct rule, names in order. */
static int emit_rules(struct export_state *s, struct json_object *syscalls, bool *notify,
		      struct secbpf_err *err)
{
	size_t i, j;

	for (i = 0; i < s->nrules; i++)
		if (s->rules[i].mixed)
			s->rules[i].rule = ACTION_NOTIFY;
	for (i = 0; i < s->nrules; i++) {
		struct json_object *entry, *names;
		uint32_t r = s->rules[i].rule;
		bool seen = false;

		if (r == s->default_rule)
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = s->rules[j].rule == r;
		if (seen)
			continue; /* this rule's entry is out already */
		if (r == ACTION_NOTIFY)
			*notify = true;
		entry = json_object_new_object();
		names = json_object_new_array();
		if (!entry || !names || json_object_object_add(entry, "names", names)) {
			json_object_put(entry);
			json_object_put(names);
			return err_set(err, ENOMEM, "out of memory");
		}
		for (j = i; j < s->nrules; j++) {
			if (s->rules[j].rule != r)
				continue;
			if (r == ACTION_NOTIFY && !strcmp(s->rules[j].name, "write")) {
				json_object_put(entry);
				return err_set(err, EINVAL,
					       "write needs secbpfd to decide, and runc refuses "
					       "SCMP_ACT_NOTIFY for write (it writes after the "
					       "filter is in place)");
			}
			json_object_array_add(names, json_object_new_string(s->rules[j].name));
		}
		if (put_action(entry, "action", "errnoRet", r) ||
		    json_object_array_add(syscalls, entry)) {
			json_object_put(entry);
			return err_set(err, ENOMEM, "out of memory");
		}
	}
	return 0;
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
	choose_arches(&s, notes);
	if (scan_cells(&s, err) || emit_rules(&s, syscalls, &notify, err))
		goto fail;
	for (a = 0; a < NARCHES; a++)
		if (s.included[a])
			json_object_array_add(archs, json_object_new_string(arches[a].oci));
	snprintf(meta, sizeof(meta), "%s=%s", SVC_OCI_PROGRAM_ANNOTATION, name);
	if (put_action(root, "defaultAction", "defaultErrnoRet", s.default_rule) ||
	    json_object_object_add(root, "architectures", archs))
		goto nomem;
	archs = NULL;
	if (notify &&
	    (json_object_object_add(root, "listenerPath", json_object_new_string(listener)) ||
	     json_object_object_add(root, "listenerMetadata", json_object_new_string(meta))))
		goto nomem;
	if (json_object_object_add(root, "syscalls", syscalls))
		goto nomem;
	free(s.rules);
	return root;
nomem:
	err_set(err, ENOMEM, "out of memory");
fail:
	free(s.rules);
	json_object_put(archs);
	json_object_put(syscalls);
	json_object_put(root);
	return NULL;
}
