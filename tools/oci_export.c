// SPDX-License-Identifier: MIT
/*
 * From a compiled filter to an OCI seccomp profile, as runc will read it.
 * Each (arch, nr) cell is explored with its arguments unknown
 * (lib/cbpf/cell_paths.c). A name whose cells agree on every arch of the
 * profile becomes a plain rule when every call gets one action runc can
 * install; argument rules when masked equalities of the arguments
 * (SCMP_CMP_MASKED_EQ) say where one action is taken, or when comparisons
 * of one argument with constants decide the cell (SCMP_CMP_LT ... GT, NE,
 * EQ, or aligned blocks as MASKED_EQ); any other name becomes
 * SCMP_ACT_NOTIFY, which secbpfd answers by running the whole program, so
 * that every decision stays the program's own. Numbers without a name get
 * the defaultAction, or, above the last number the profile names on an
 * arch, runc's own ENOSYS stub (runc's patchbpf), which the export marks
 * by naming that number.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf.h"
#include "cbpf/cell_paths.h"
#include "common/syscall_name.h"
#include "oci_export.h"
#include "service/agent_oci.h"

/* The arches a profile can name, with the tokens of the resolver. */
static const struct {
	const char *oci;  /* "architectures" entry */
	const char *abi;  /* syscall_abi_parse name */
	uint32_t nr_base; /* x32: bit 30 */
	bool wide;	  /* libseccomp compares all 64 bits of an argument */
} arches[] = {
	{ "SCMP_ARCH_X86_64", "x86_64", 0, true },
	{ "SCMP_ARCH_X86", "x86", 0, false },
	{ "SCMP_ARCH_X32", "x32", SYSCALL_X32_BIT, false },
	{ "SCMP_ARCH_AARCH64", "aarch64", 0, true },
	{ "SCMP_ARCH_ARM", "arm", 0, false },
};
#define NARCHES (sizeof(arches) / sizeof(arches[0]))

#define ACTION_NOTIFY 0xffffffffu /* not a kernel action: "ask secbpfd" */
#define ACTION_ENOSYS (SECCOMP_RET_ERRNO | ENOSYS)
#define NO_NR (-1L)
/* Argument rules of one name, at most (a name past it notifies). */
#define MAX_ENTRIES 256
/* Aligned blocks for one interval of an argument, at most (any 64-bit
 * interval takes 126 at most). */
#define MAX_BLOCKS 128

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

/* Set o's akey to rule's SCMP_ACT_* name (and ekey to its errno for
 * ERRNO). Returns 0 or -ENOMEM. */
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

/* The OCI comparison operators, in the order of libseccomp's enum. */
enum cond_op { OP_NE, OP_LT, OP_LE, OP_EQ, OP_GE, OP_GT, OP_MASKED_EQ };

static const char *const op_names[] = {
	"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",	    "SCMP_CMP_EQ",
	"SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ",
};

/* One condition of a rule: args[arg] op value (MASKED_EQ: (args[arg] &
 * value) == value_two). */
struct rule_cond {
	uint8_t arg;
	enum cond_op op;
	uint64_t value, value_two;
};

/* One entry of the syscalls array for a name: action where every
 * condition holds. */
struct rule_entry {
	uint32_t action;
	uint8_t n;
	struct rule_cond c[CBPF_CELL_MAX_CONDS];
};

/* What a profile says of one name (or of one cell, before they merge). */
enum rule_kind {
	RULE_UNSET,
	RULE_PLAIN,  /* action for every call */
	RULE_ARGS,   /* entries' actions where their conditions hold, else the default */
	RULE_NOTIFY, /* secbpfd decides */
};

struct rule {
	char name[64];
	enum rule_kind kind;
	uint32_t action;
	struct rule_entry *entries; /* RULE_ARGS */
	size_t nentries;
	char *key;   /* RULE_ARGS: the entries, canonical, to compare arches */
	bool pinned; /* named whatever its rule: runc's stub boundary is its number */
	bool above;  /* some cell of it is above runc's stub boundary */
	uint32_t above_arch, above_nr; /* one such cell, for messages */
};

/* What one cell gives, from a first look at every cell. */
struct cell_sum {
	bool named;
	bool fixed; /* one action runc can install for every call */
	uint32_t action;
};

struct export_state {
	const struct sock_filter *insns;
	size_t len;
	bool included[NARCHES];
	struct syscall_abi abi[NARCHES];
	struct cell_sum *sum; /* [NARCHES * OCI_EXPORT_NR_MAX] */
	struct rule *rules;
	size_t nrules, cap;
	uint32_t default_action;
	/* runc's stub: numbers above last[a] on arch a get ENOSYS */
	bool stub;
	long last[NARCHES];
	FILE *notes;
};

/* The summary of cell (a, nr): nr without x32's bit. */
static struct cell_sum *sum_at(const struct export_state *s, size_t a, uint32_t nr)
{
	return &s->sum[a * OCI_EXPORT_NR_MAX + nr];
}

/* Free r's entries and key; r stays usable. */
static void rule_clear(struct rule *r)
{
	free(r->entries);
	free(r->key);
	r->entries = NULL;
	r->key = NULL;
	r->nentries = 0;
}

/* The rule of name, added (unset) if new; NULL when out of memory. */
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

/* qsort order of strings. */
static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* r's key: each entry as a line, sorted, joined. Returns 0 or -ENOMEM. */
static int rule_key(struct rule *r)
{
	char **lines = calloc(r->nentries, sizeof(*lines));
	size_t i, j, len = 1;
	int rc = -ENOMEM;

	if (!lines)
		return -ENOMEM;
	for (i = 0; i < r->nentries; i++) {
		const struct rule_entry *e = &r->entries[i];
		char buf[32 + CBPF_CELL_MAX_CONDS * 56];
		size_t off = (size_t)snprintf(buf, sizeof(buf), "%#x:", e->action);

		for (j = 0; j < e->n; j++)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
						"%u:%d:%" PRIx64 ":%" PRIx64 ";", e->c[j].arg,
						(int)e->c[j].op, e->c[j].value, e->c[j].value_two);
		lines[i] = strdup(buf);
		if (!lines[i])
			goto out;
		len += strlen(buf) + 1;
	}
	qsort(lines, r->nentries, sizeof(lines[0]), line_cmp);
	r->key = calloc(1, len);
	if (!r->key)
		goto out;
	for (i = 0; i < r->nentries; i++) {
		strcat(r->key, lines[i]);
		strcat(r->key, "|");
	}
	rc = 0;
out:
	for (i = 0; i < r->nentries; i++)
		free(lines[i]);
	free(lines);
	return rc;
}

/* A new entry of r for action, zeroed; NULL past MAX_ENTRIES or when out
 * of memory. */
static struct rule_entry *entry_add(struct rule *r, uint32_t action)
{
	struct rule_entry *e;

	if (r->nentries == MAX_ENTRIES)
		return NULL;
	if (!r->entries) {
		r->entries = calloc(MAX_ENTRIES, sizeof(*r->entries));
		if (!r->entries)
			return NULL;
	}
	e = &r->entries[r->nentries++];
	memset(e, 0, sizeof(*e));
	e->action = action;
	return e;
}

/*
 * The masked-equality rule of a cell: every path to an action but the
 * default says exactly which calls take it by masked equalities, so that
 * these entries match disjoint sets of calls (the paths') and every other
 * call takes the default. One entry per path. Returns 1 with r filled
 * (RULE_ARGS), 0 when the cell is not of that shape, or -ENOMEM.
 */
static int cell_masked_rule(const struct export_state *s, const struct cbpf_cell_paths *c,
			    struct rule *r)
{
	size_t i, j, n = 0;

	for (i = 0; i < c->npaths; i++) {
		const struct cbpf_cell_path *p = &c->paths[i];

		if (p->action == s->default_action)
			continue;
		if (!installable(p->action) || !p->expressible || !p->nconds || n == MAX_ENTRIES)
			return 0;
		n++;
	}
	if (!n)
		return 0; /* only default paths: fixed, handled by the caller */
	for (i = 0; i < c->npaths; i++) {
		const struct cbpf_cell_path *p = &c->paths[i];
		struct rule_entry *e;

		if (p->action == s->default_action)
			continue;
		e = entry_add(r, p->action);
		if (!e)
			return -ENOMEM;
		for (j = 0; j < p->nconds; j++)
			e->c[e->n++] = (struct rule_cond){ p->conds[j].arg, OP_MASKED_EQ,
							   p->conds[j].mask, p->conds[j].datum };
	}
	return 1;
}

/* An interval of one argument's values with the action the cell takes. */
struct span {
	uint64_t lo, hi;
	uint32_t action;
};

/* The cell's action with args[arg] = v (the other arguments untested). */
static uint32_t action_at(const struct export_state *s, size_t a, uint32_t nr, unsigned arg,
			  uint64_t v)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = s->abi[a].audit };

	sd.args[arg] = v;
	return cbpf_sim_run(s->insns, s->len, &sd);
}

/* Append [lo, hi] with action to sp[0..*n-1], merged into the last span
 * when adjacent with the same action. Returns 0, or -1 past max. */
static int span_add(struct span *sp, size_t *n, size_t max, uint64_t lo, uint64_t hi,
		    uint32_t action)
{
	if (*n && sp[*n - 1].action == action && sp[*n - 1].hi + 1 == lo) {
		sp[*n - 1].hi = hi;
		return 0;
	}
	if (*n == max)
		return -1;
	sp[(*n)++] = (struct span){ lo, hi, action };
	return 0;
}

/*
 * The cell's decision as intervals of args[arg] (in order, adjacent ones
 * merged), from the breaks of its tests: on a wide arch the high word's
 * breaks, within which the decision either does not depend on the low
 * word or the high word has one value. Returns the number of spans, or 0
 * when the decision is not such a list.
 */
static size_t cell_spans(const struct export_state *s, size_t a, uint32_t nr,
			 const struct cbpf_cell_breaks *b, unsigned arg, struct span *sp,
			 size_t max)
{
	static const uint32_t zero = 0;
	const uint32_t *lo_at = &zero, *hi_at = &zero;
	size_t nlo = 1, nhi = 1, h, l, n = 0;

	if (b->words & (1u << (2 * arg))) {
		lo_at = b->at[2 * arg];
		nlo = b->n[2 * arg];
	}
	if (b->words & (2u << (2 * arg))) {
		if (!arches[a].wide)
			return 0; /* libseccomp compares the low half alone there */
		hi_at = b->at[2 * arg + 1];
		nhi = b->n[2 * arg + 1];
	}
	for (h = 0; h < nhi; h++) {
		uint64_t h0 = hi_at[h], h1 = h + 1 < nhi ? hi_at[h + 1] - 1ull : 0xffffffffull;
		uint32_t first = action_at(s, a, nr, arg, h0 << 32 | lo_at[0]);
		bool flat = true;

		for (l = 1; l < nlo && flat; l++)
			flat = action_at(s, a, nr, arg, h0 << 32 | lo_at[l]) == first;
		if (flat) {
			if (span_add(sp, &n, max, h0 << 32,
				     arches[a].wide ? h1 << 32 | 0xffffffffull : 0xffffffffull,
				     first))
				return 0;
			continue;
		}
		if (h0 != h1 && arches[a].wide)
			return 0; /* the low word decides for many high words */
		for (l = 0; l < nlo; l++) {
			uint64_t l1 = l + 1 < nlo ? lo_at[l + 1] - 1ull : 0xffffffffull;

			if (span_add(sp, &n, max, h0 << 32 | lo_at[l], h0 << 32 | l1,
				     action_at(s, a, nr, arg, h0 << 32 | lo_at[l])))
				return 0;
		}
	}
	return n;
}

/* Add the entries that say "args[arg] in [lo, hi]" for action, on a
 * domain ending at top. Returns 0, or -1 when it takes too many. */
static int interval_entries(struct rule *r, unsigned arg, uint64_t lo, uint64_t hi, uint64_t top,
			    uint32_t action)
{
	struct rule_entry *e;
	int blocks = 0;

	if (lo == 0 || hi == top || lo == hi) {
		e = entry_add(r, action);
		if (!e)
			return -1;
		e->n = 1;
		e->c[0].arg = (uint8_t)arg;
		if (lo == hi)
			e->c[0] = (struct rule_cond){ (uint8_t)arg, OP_EQ, lo, 0 };
		else if (lo == 0)
			e->c[0] = (struct rule_cond){ (uint8_t)arg, OP_LT, hi + 1, 0 };
		else
			e->c[0] = (struct rule_cond){ (uint8_t)arg, OP_GT, lo - 1, 0 };
		return 0;
	}
	/* Inside the domain: the aligned blocks that tile it, each one
	 * (x & ~(size - 1)) == start. */
	while (lo <= hi) {
		uint64_t size = lo ? lo & -lo : 1ull << 63;

		while (size > 1 && lo + (size - 1) > hi)
			size >>= 1;
		if (++blocks > MAX_BLOCKS || !(e = entry_add(r, action)))
			return -1;
		e->n = 1;
		e->c[0] = size == 1 ? (struct rule_cond){ (uint8_t)arg, OP_EQ, lo, 0 }
				    : (struct rule_cond){ (uint8_t)arg, OP_MASKED_EQ, ~(size - 1),
							  lo };
		if (lo + (size - 1) == hi)
			break;
		lo += size;
	}
	return 0;
}

/* Pieces of one argument's values, for cells that compare several. */
#define GRID_MAX_PIECES 64
#define GRID_MAX_SAMPLES 256
#define GRID_MAX_CELLS 4096
#define GRID_MAX_ARGS 3

/*
 * The values of args[arg] cut into pieces on which every test of the cell
 * keeps its outcome, whatever the other arguments: an interval of the low
 * word under one high word (or on a 32-bit arch), or a range of high words
 * whose calls the tests tell apart by the low word nowhere, which the
 * samples (one per low-word interval) check.
 */
struct arg_pieces {
	unsigned arg;
	size_t n;
	uint64_t lo[GRID_MAX_PIECES], hi[GRID_MAX_PIECES];
	size_t first[GRID_MAX_PIECES], count[GRID_MAX_PIECES]; /* into sample */
	size_t nsamples;
	uint64_t sample[GRID_MAX_SAMPLES];
};

/* Add piece [lo, hi] of ap with samples v[0..n-1]. Returns 0, or -1
 * past the limits. */
static int piece_add(struct arg_pieces *ap, uint64_t lo, uint64_t hi, const uint64_t *v, size_t n)
{
	if (ap->n == GRID_MAX_PIECES || ap->nsamples + n > GRID_MAX_SAMPLES)
		return -1;
	ap->lo[ap->n] = lo;
	ap->hi[ap->n] = hi;
	ap->first[ap->n] = ap->nsamples;
	ap->count[ap->n++] = n;
	memcpy(&ap->sample[ap->nsamples], v, n * sizeof(*v));
	ap->nsamples += n;
	return 0;
}

/* The pieces of args[arg] from the cell's breaks (struct arg_pieces).
 * Returns 0, or -1 when there are too many or a 32-bit arch's cell tests
 * the high word. */
static int arg_pieces(size_t a, const struct cbpf_cell_breaks *b, unsigned arg,
		      struct arg_pieces *ap)
{
	static const uint32_t zero = 0;
	const uint32_t *lo_at = &zero, *hi_at = &zero;
	size_t nlo = 1, nhi = 1, h, l;
	uint64_t v[CBPF_CELL_MAX_BREAKS];

	ap->arg = arg;
	ap->n = ap->nsamples = 0;
	if (b->words & (1u << (2 * arg))) {
		lo_at = b->at[2 * arg];
		nlo = b->n[2 * arg];
	}
	if (b->words & (2u << (2 * arg))) {
		if (!arches[a].wide)
			return -1;
		hi_at = b->at[2 * arg + 1];
		nhi = b->n[2 * arg + 1];
	}
	for (h = 0; h < nhi; h++) {
		uint64_t h0 = hi_at[h], h1 = h + 1 < nhi ? hi_at[h + 1] - 1ull : 0xffffffffull;

		if (!arches[a].wide)
			h1 = 0; /* libseccomp compares the low half alone there */
		if (h0 == h1) {
			for (l = 0; l < nlo; l++) {
				uint64_t l1 = l + 1 < nlo ? lo_at[l + 1] - 1ull : 0xffffffffull;

				v[0] = h0 << 32 | lo_at[l];
				if (piece_add(ap, v[0], h0 << 32 | l1, v, 1))
					return -1;
			}
			continue;
		}
		for (l = 0; l < nlo; l++)
			v[l] = h0 << 32 | lo_at[l];
		if (piece_add(ap, h0 << 32, h1 << 32 | 0xffffffffull, v, nlo))
			return -1;
	}
	return 0;
}

/* A grid cell's index from its pieces (mixed radix, argument 0 first). */
static size_t grid_index(const struct arg_pieces *ap, size_t k, const size_t *at)
{
	size_t i, idx = 0;

	for (i = k; i-- > 0;)
		idx = idx * ap[i].n + at[i];
	return idx;
}

/* The cell's action on the pieces at[], the same at every sample of them;
 * ACTION_NOTIFY when the samples disagree. */
static uint32_t grid_action(const struct export_state *s, size_t a, uint32_t nr,
			    const struct arg_pieces *ap, size_t k, const size_t *at)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = s->abi[a].audit };
	size_t j[GRID_MAX_ARGS] = { 0 }, i;
	uint32_t first = 0, r;
	bool have = false;

	for (;;) {
		for (i = 0; i < k; i++)
			sd.args[ap[i].arg] = ap[i].sample[ap[i].first[at[i]] + j[i]];
		r = cbpf_sim_run(s->insns, s->len, &sd);
		if (have && r != first)
			return ACTION_NOTIFY;
		first = r;
		have = true;
		for (i = 0; i < k && ++j[i] == ap[i].count[at[i]]; i++)
			j[i] = 0;
		if (i == k)
			return first;
	}
}

/* Whether every grid cell in the box lo[]..hi[] has action x. */
static bool box_is(const uint32_t *grid, const struct arg_pieces *ap, size_t k, const size_t *lo,
		   const size_t *hi, uint32_t x)
{
	size_t at[GRID_MAX_ARGS], i;

	memcpy(at, lo, k * sizeof(*at));
	for (;;) {
		if (grid[grid_index(ap, k, at)] != x)
			return false;
		for (i = 0; i < k && at[i]++ == hi[i]; i++)
			at[i] = lo[i];
		if (i == k)
			return true;
	}
}

/* The one condition that says args[ap->arg] is in pieces lo..hi, on a
 * domain ending at top: false when none does (a range inside). *none:
 * every value (no condition). */
static bool range_cond(const struct arg_pieces *ap, size_t lo, size_t hi, uint64_t top,
		       struct rule_cond *c, bool *none)
{
	uint64_t v0 = ap->lo[lo], v1 = ap->hi[hi];

	*none = lo == 0 && hi == ap->n - 1;
	if (*none)
		return true;
	if (v0 == v1)
		*c = (struct rule_cond){ (uint8_t)ap->arg, OP_EQ, v0, 0 };
	else if (lo == 0)
		*c = (struct rule_cond){ (uint8_t)ap->arg, OP_LT, v1 + 1, 0 };
	else if (v1 == top)
		*c = (struct rule_cond){ (uint8_t)ap->arg, OP_GT, v0 - 1, 0 };
	else
		return false;
	return true;
}

/*
 * The comparison rule of a cell whose tests compare two or three arguments
 * with constants: the cell's action on every combination of the
 * arguments' pieces, then for each combination with an action other than
 * the default a box of them, grown one argument at a time over the pieces
 * with that action, each argument's range one condition (EQ, LT, GT or
 * none). The boxes of one action may overlap; boxes of two never do.
 * Returns 1 with r filled, 0 when the cell is not of that shape, or
 * -ENOMEM.
 */
static int cell_grid_rule(const struct export_state *s, size_t a, uint32_t nr,
			  const struct cbpf_cell_breaks *b, struct rule *r)
{
	uint64_t top = arches[a].wide ? ~0ull : 0xffffffffull;
	struct arg_pieces *ap = calloc(GRID_MAX_ARGS, sizeof(*ap));
	uint32_t *grid = calloc(GRID_MAX_CELLS, sizeof(*grid));
	bool *covered = calloc(GRID_MAX_CELLS, sizeof(*covered));
	size_t k = 0, cells = 1, at[GRID_MAX_ARGS] = { 0 }, idx, i, rest;
	unsigned arg;
	int rc = 0;

	if (!ap || !grid || !covered) {
		rc = -ENOMEM;
		goto out;
	}
	for (arg = 0; arg < CBPF_CELL_MAX_CONDS; arg++) {
		if (!(b->words & (3u << (2 * arg))))
			continue;
		if (k == GRID_MAX_ARGS || arg_pieces(a, b, arg, &ap[k]))
			goto out;
		cells *= ap[k++].n;
		if (cells > GRID_MAX_CELLS)
			goto out;
	}
	for (idx = 0; idx < cells; idx++) {
		for (i = 0, rest = idx; i < k; i++) {
			at[i] = rest % ap[i].n;
			rest /= ap[i].n;
		}
		grid[idx] = grid_action(s, a, nr, ap, k, at);
		if (!installable(grid[idx]))
			goto out;
	}
	for (idx = 0; idx < cells; idx++) {
		size_t lo[GRID_MAX_ARGS], hi[GRID_MAX_ARGS];
		uint32_t x = grid[idx];
		struct rule_entry *e;

		if (x == s->default_action || covered[idx])
			continue;
		for (i = 0, rest = idx; i < k; i++) {
			lo[i] = hi[i] = rest % ap[i].n;
			rest /= ap[i].n;
		}
		e = entry_add(r, x);
		if (!e) {
			rc = -ENOMEM;
			goto out;
		}
		for (i = 0; i < k; i++) {
			size_t cell_at = lo[i];
			bool none;

			/* As far as every cell of the box keeps action x. */
			while (lo[i] > 0) {
				lo[i]--;
				if (!box_is(grid, ap, k, lo, hi, x)) {
					lo[i]++;
					break;
				}
			}
			while (hi[i] + 1 < ap[i].n) {
				hi[i]++;
				if (!box_is(grid, ap, k, lo, hi, x)) {
					hi[i]--;
					break;
				}
			}
			if (!range_cond(&ap[i], lo[i], hi[i], top, &e->c[e->n], &none)) {
				/* Inside the range: this piece alone, if one value. */
				lo[i] = hi[i] = cell_at;
				if (!range_cond(&ap[i], lo[i], hi[i], top, &e->c[e->n], &none))
					goto out;
			}
			if (!none)
				e->n++;
		}
		if (!e->n)
			goto out; /* one action everywhere: not a grid */
		/* Mark the box covered. */
		memcpy(at, lo, k * sizeof(*at));
		for (;;) {
			covered[grid_index(ap, k, at)] = true;
			for (i = 0; i < k && at[i]++ == hi[i]; i++)
				at[i] = lo[i];
			if (i == k)
				break;
		}
	}
	rc = 1;
out:
	if (rc != 1)
		rule_clear(r);
	free(ap);
	free(grid);
	free(covered);
	return rc;
}

/*
 * The comparison rule of a cell decided by one argument compared with
 * constants: the intervals of each action but the default become entries
 * (NE for all but one value; LT, GT, EQ at the ends and for one value;
 * aligned MASKED_EQ blocks inside). On a 32-bit arch the domain is the low
 * half, as libseccomp compares there. Returns 1 with r filled, 2 when one
 * action is taken for every value (r->action), 0 when the cell is not of
 * that shape, or -ENOMEM.
 */
static int cell_compare_rule(const struct export_state *s, size_t a, uint32_t nr,
			     const struct cbpf_cell_paths *c, struct rule *r)
{
	const struct cbpf_cell_breaks *b = &c->breaks;
	uint64_t top = arches[a].wide ? ~0ull : 0xffffffffull;
	struct span sp[MAX_ENTRIES];
	unsigned arg;
	size_t n, i;

	if (!b->exact || !b->words)
		return 0;
	arg = (unsigned)__builtin_ctz(b->words) / 2;
	if (b->words & ~(3u << (2 * arg)))
		return cell_grid_rule(s, a, nr, b, r); /* more than one argument */
	n = cell_spans(s, a, nr, b, arg, sp, MAX_ENTRIES);
	for (i = 0; i < n; i++)
		if (!installable(sp[i].action))
			return 0;
	if (n == 1) {
		r->action = sp[0].action; /* the tests never change the action */
		return 2;
	}
	if (n == 0)
		return 0;
	/* All values but one, which gets the default: NE. */
	if (n == 3 && sp[0].action == sp[2].action && sp[0].action != s->default_action &&
	    sp[1].lo == sp[1].hi && sp[1].action == s->default_action) {
		struct rule_entry *e = entry_add(r, sp[0].action);

		if (!e)
			return -ENOMEM;
		e->n = 1;
		e->c[0] = (struct rule_cond){ (uint8_t)arg, OP_NE, sp[1].lo, 0 };
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (sp[i].action == s->default_action)
			continue;
		if (interval_entries(r, arg, sp[i].lo, sp[i].hi, top, sp[i].action)) {
			rule_clear(r);
			return 0;
		}
	}
	return 1;
}

/*
 * The rule of one cell: plain, argument rules against the default action,
 * or NOTIFY. Fills r (r->entries and r->key malloc'ed for RULE_ARGS).
 * Returns 0 or -ENOMEM.
 */
static int cell_rule(const struct export_state *s, size_t a, uint32_t nr,
		     const struct cbpf_cell_paths *c, struct rule *r)
{
	int rc;

	r->kind = RULE_NOTIFY;
	r->action = ACTION_NOTIFY;
	if (c->fixed && installable(c->action)) {
		r->kind = RULE_PLAIN;
		r->action = c->action;
		return 0;
	}
	if (!c->npaths)
		return 0;
	/* Comparisons first: they read alike on 32- and 64-bit arches. */
	rc = cell_compare_rule(s, a, nr, c, r);
	if (rc == 0) {
		rule_clear(r);
		rc = cell_masked_rule(s, c, r);
	}
	if (rc == 2) {
		r->kind = RULE_PLAIN;
		return 0;
	}
	if (rc <= 0) {
		rule_clear(r);
		return rc;
	}
	if (rule_key(r)) {
		rule_clear(r);
		return -ENOMEM;
	}
	r->kind = RULE_ARGS;
	r->action = ACTION_NOTIFY; /* per entry */
	return 0;
}

/* Merge a cell's rule c into the name's rule r: any disagreement between
 * arches makes the name NOTIFY. Takes c's allocations. */
static void rule_merge(struct rule *r, struct rule *c)
{
	if (r->kind == RULE_UNSET) {
		r->kind = c->kind;
		r->action = c->action;
		r->entries = c->entries;
		r->nentries = c->nentries;
		r->key = c->key;
		c->entries = NULL;
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

/* Whether action refuses the call (ERRNO, TRAP, KILL). */
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
 * arch outside the profile (libseccomp's bad-arch action) denies too.
 * Fills s->sum for the arches kept. */
static int choose_arches(struct export_state *s)
{
	struct cbpf_cell_paths c;
	uint32_t nr, first = 0;
	char name[64];
	size_t a;

	for (a = 0; a < NARCHES; a++) {
		bool uniform = true;

		if (syscall_abi_parse(arches[a].abi, &s->abi[a]))
			continue;
		for (nr = 0; nr < OCI_EXPORT_NR_MAX; nr++) {
			struct cell_sum *m = sum_at(s, a, nr);

			if (cbpf_cell_explore(s->insns, s->len, s->abi[a].audit,
					      arches[a].nr_base + nr, &c))
				return -ENOMEM;
			syscall_abi_syscall_name(&s->abi[a], (int32_t)(arches[a].nr_base + nr),
						 name, sizeof(name));
			m->named = name[0] != '\0';
			m->fixed = c.fixed && installable(c.action);
			m->action = m->fixed ? c.action : ACTION_NOTIFY;
			if (nr == 0)
				first = c.action;
			uniform = uniform && c.fixed && c.action == first;
			cbpf_cell_paths_free(&c);
		}
		if (uniform && is_deny(first)) {
			if (s->notes)
				fprintf(s->notes,
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

/* Whether runc puts its ENOSYS stub in front for this default action
 * (runc's patchbpf: not for ALLOW, LOG, TRACE, nor when the default's
 * errno is ENOSYS already). */
static bool runc_adds_stub(uint32_t def)
{
	uint32_t act = def & SECCOMP_RET_ACTION_FULL;

	return act != SECCOMP_RET_ALLOW && act != SECCOMP_RET_LOG && act != SECCOMP_RET_TRACE &&
	       def != ACTION_ENOSYS;
}

/*
 * The default action: what every number without a name gets, but for
 * runc's stub, which gives ENOSYS to those above the last number the
 * profile names (so a filter imported from a profile with a deny default
 * has both). Sets s->default_action and s->stub.
 */
static int find_default(struct export_state *s, struct secbpf_err *err)
{
	uint32_t seen[2] = { 0 }, at_arch[2] = { 0 }, at_nr[2] = { 0 }, nr;
	size_t a, nseen = 0, i;

	for (a = 0; a < NARCHES; a++) {
		if (!s->included[a])
			continue;
		for (nr = 0; nr < OCI_EXPORT_NR_MAX; nr++) {
			const struct cell_sum *m = sum_at(s, a, nr);
			uint32_t full = arches[a].nr_base + nr;

			if (m->named)
				continue;
			if (!m->fixed)
				return err_set(
					err, EINVAL,
					"%s nr %u has no syscall name and needs secbpfd to "
					"decide: runc refuses SCMP_ACT_NOTIFY as the default "
					"action",
					arches[a].abi, full);
			for (i = 0; i < nseen && seen[i] != m->action; i++)
				;
			if (i < nseen)
				continue;
			if (nseen == 2)
				return err_set(err, EINVAL,
					       "%s nr %u, %s nr %u and %s nr %u have no syscall "
					       "name and get three different actions: a profile "
					       "gives them its defaultAction (and runc's stub "
					       "ENOSYS above the last number named)",
					       arches[at_arch[0]].abi, at_nr[0],
					       arches[at_arch[1]].abi, at_nr[1], arches[a].abi,
					       full);
			seen[nseen] = m->action;
			at_arch[nseen] = (uint32_t)a;
			at_nr[nseen++] = full;
		}
	}
	if (!nseen)
		return err_set(err, EINVAL, "the filter denies every arch: nothing to export");
	/* Two: the default, and runc's stub's ENOSYS above the last name. */
	i = nseen == 2 && seen[0] == ACTION_ENOSYS;
	s->default_action = seen[i];
	if (nseen == 2 && (seen[!i] != ACTION_ENOSYS || !runc_adds_stub(seen[i])))
		return err_set(err, EINVAL,
			       "%s nr %u and %s nr %u have no syscall name and get different "
			       "actions: a profile gives both its defaultAction (runc's stub "
			       "gives ENOSYS above the last number named only when the default "
			       "denies otherwise)",
			       arches[at_arch[0]].abi, at_nr[0], arches[at_arch[1]].abi, at_nr[1]);
	s->stub = runc_adds_stub(s->default_action);
	return 0;
}

/* Whether the filter denies numbers past every table on arch a, where
 * runc's stub answers ENOSYS: 0 if so, 1 with *bad set if not, -ENOMEM. */
static int past_tables_deny(const struct export_state *s, size_t a, uint32_t *bad)
{
	static const uint32_t tries[] = { OCI_EXPORT_NR_MAX, 4096, 0x3fffffffu, 0x7fffffffu };
	struct cbpf_cell_paths c;
	size_t i;

	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		uint32_t nr = arches[a].nr_base | tries[i];
		bool ok;

		if (cbpf_cell_explore(s->insns, s->len, s->abi[a].audit, nr, &c))
			return -ENOMEM;
		ok = c.fixed && is_deny(c.action);
		cbpf_cell_paths_free(&c);
		if (!ok) {
			*bad = nr;
			return 1;
		}
	}
	return 0;
}

/*
 * Where runc's stub starts on arch a, as runc computes it (the largest
 * number the profile names there): the filter's ENOSYS above the last
 * number it decides otherwise, and its default below. The number chosen
 * is named in the profile (s->last[a], pinned by emit). A filter that
 * denies with its default up to the end of the table gets its last name
 * pinned: above it runc's stub denies with ENOSYS, which is noted.
 */
static int find_stub_boundary(struct export_state *s, size_t a, struct secbpf_err *err)
{
	long max_default = NO_NR, min_enosys = NO_NR, decided = NO_NR, top = NO_NR, nr, b;

	for (nr = 0; nr < OCI_EXPORT_NR_MAX; nr++) {
		const struct cell_sum *m = sum_at(s, a, (uint32_t)nr);
		bool enosys = m->fixed && m->action == ACTION_ENOSYS;

		if (m->named) {
			top = nr;
			if (!enosys)
				decided = nr;
		} else if (enosys) {
			if (min_enosys == NO_NR)
				min_enosys = nr;
		} else {
			max_default = nr;
		}
	}
	if (min_enosys != NO_NR && max_default > min_enosys)
		return err_set(
			err, EINVAL,
			"%s nr %ld gets ENOSYS and nr %ld, above it, the default %#x (neither "
			"has a syscall name): runc's stub gives ENOSYS only above the last "
			"number a profile names",
			arches[a].abi, arches[a].nr_base + min_enosys,
			arches[a].nr_base + max_default, s->default_action);
	for (b = max_default > decided ? max_default : decided; b >= 0 && b < OCI_EXPORT_NR_MAX;
	     b++) {
		if (min_enosys != NO_NR && b >= min_enosys)
			break;
		if (sum_at(s, a, (uint32_t)b)->named) {
			s->last[a] = b;
			return 0;
		}
	}
	if (min_enosys == NO_NR && top != NO_NR && top >= decided) {
		/* No stub in the filter: runc's denies above the last name. */
		s->last[a] = top;
		if (s->notes && max_default > top)
			fprintf(s->notes,
				"secbpf: export-oci: %s: numbers above %ld have no syscall name: "
				"the filter gives them %#x, runc's stub ENOSYS\n",
				arches[a].abi, arches[a].nr_base + top, s->default_action);
		return 0;
	}
	return err_set(err, EINVAL,
		       "%s: no syscall name between nr %ld (the last the filter gives an "
		       "action other than ENOSYS) and nr %ld (the first without a name that "
		       "gets ENOSYS): runc's stub starts above the last number a profile "
		       "names, and none can say where",
		       arches[a].abi,
		       arches[a].nr_base + (max_default > decided ? max_default : decided),
		       arches[a].nr_base + min_enosys);
}

/* runc's stub boundary of each arch kept, when runc adds a stub for the
 * default action; numbers past the tables must be denied by the filter,
 * as runc's stub denies them. Returns 0 or -errno with err set. */
static int find_stub(struct export_state *s, struct secbpf_err *err)
{
	uint32_t bad;
	size_t a;
	int rc;

	for (a = 0; a < NARCHES; a++) {
		s->last[a] = NO_NR;
		if (!s->included[a] || !s->stub)
			continue;
		rc = find_stub_boundary(s, a, err);
		if (rc)
			return rc;
		rc = past_tables_deny(s, a, &bad);
		if (rc < 0)
			return err_set(err, ENOMEM, "out of memory");
		if (rc)
			return err_set(err, EINVAL,
				       "%s nr %#x is not denied by the filter, but runc's stub "
				       "gives it ENOSYS (it is above the last number named)",
				       arches[a].abi, bad);
	}
	return 0;
}

/* Every named cell's rule, merged per name; cells above runc's stub
 * boundary only mark their name (find_stub_boundary checked they are
 * ENOSYS). Returns 0 or -ENOMEM with err set. */
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

			if (!sum_at(s, a, nr)->named)
				continue;
			syscall_abi_syscall_name(&s->abi[a], (int32_t)full, name, sizeof(name));
			r = rule_for(s, name);
			if (!r)
				return err_set(err, ENOMEM, "out of memory");
			if ((long)nr == s->last[a])
				r->pinned = true;
			if (s->last[a] != NO_NR && (long)nr > s->last[a]) {
				/* runc's stub answers; the filter's ENOSYS was
				 * checked by find_stub_boundary. */
				r->above = true;
				r->above_arch = (uint32_t)a;
				r->above_nr = full;
				continue;
			}
			if (cbpf_cell_explore(s->insns, s->len, s->abi[a].audit, full, &c))
				return err_set(err, ENOMEM, "out of memory");
			rc = cell_rule(s, a, full, &c, &cr);
			cbpf_cell_paths_free(&c);
			if (rc) {
				rule_clear(&cr);
				return err_set(err, ENOMEM, "out of memory");
			}
			rule_merge(r, &cr);
		}
	}
	return 0;
}

/* Whether r is named in the profile. */
static bool rule_emitted(const struct export_state *s, const struct rule *r)
{
	if (r->kind == RULE_UNSET)
		return false;
	return r->pinned || r->kind != RULE_PLAIN || r->action != s->default_action;
}

/* A name above runc's stub boundary on some arch must stay unnamed:
 * naming it would move the boundary. */
static int check_above(const struct export_state *s, struct secbpf_err *err)
{
	size_t i;

	for (i = 0; i < s->nrules; i++) {
		const struct rule *r = &s->rules[i];

		if (r->above && rule_emitted(s, r))
			return err_set(
				err, EINVAL,
				"%s is nr %u on %s, above the last number named there (%ld), "
				"where runc's stub gives ENOSYS, but elsewhere the filter gives "
				"it a rule: naming it would move the stub",
				r->name, r->above_nr, arches[r->above_arch].abi,
				(long)arches[r->above_arch].nr_base + s->last[r->above_arch]);
	}
	return 0;
}

/* A syscalls entry with an empty names array (*names). NULL when out of
 * memory. */
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

/* One syscalls entry per argument entry of r. */
static int emit_args(const struct rule *r, struct json_object *syscalls)
{
	size_t i, j;

	for (i = 0; i < r->nentries; i++) {
		const struct rule_entry *re = &r->entries[i];
		struct json_object *names, *entry = names_entry(&names), *args;

		if (!entry)
			return -ENOMEM;
		args = json_object_new_array();
		if (!args || json_object_array_add(names, json_object_new_string(r->name)) ||
		    put_action(entry, "action", "errnoRet", re->action) ||
		    json_object_object_add(entry, "args", args)) {
			json_object_put(args);
			json_object_put(entry);
			return -ENOMEM;
		}
		for (j = 0; j < re->n; j++) {
			const struct rule_cond *c = &re->c[j];
			struct json_object *arg = json_object_new_object();

			/* MASKED_EQ: value is the mask, valueTwo the datum. */
			if (!arg || json_object_array_add(args, arg) ||
			    json_object_object_add(arg, "index", json_object_new_int(c->arg)) ||
			    json_object_object_add(arg, "value",
						   json_object_new_uint64(c->value)) ||
			    json_object_object_add(arg, "valueTwo",
						   json_object_new_uint64(c->value_two)) ||
			    json_object_object_add(arg, "op",
						   json_object_new_string(op_names[c->op]))) {
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

/* Whether plain or NOTIFY rules a and b go in one entry. */
static bool same_entry(const struct rule *a, const struct rule *b)
{
	return a->kind == b->kind && a->action == b->action;
}

/* The syscalls array: argument rules per name, then one entry per
 * distinct plain or NOTIFY action with its names in order (the pinned
 * names with the default action too, so that runc's stub starts where
 * the filter's does). */
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
		const struct rule *r = &s->rules[i];
		struct json_object *entry, *names;
		bool seen = false;

		if (r->kind == RULE_ARGS || !rule_emitted(s, r))
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = rule_emitted(s, &s->rules[j]) && same_entry(&s->rules[j], r);
		if (seen)
			continue; /* this action's entry is out already */
		if (r->action == ACTION_NOTIFY)
			*notify = true;
		entry = names_entry(&names);
		if (!entry)
			return err_set(err, ENOMEM, "out of memory");
		for (j = i; j < s->nrules; j++)
			if (rule_emitted(s, &s->rules[j]) && same_entry(&s->rules[j], r))
				json_object_array_add(names,
						      json_object_new_string(s->rules[j].name));
		if (put_action(entry, "action", "errnoRet", r->action) ||
		    json_object_array_add(syscalls, entry)) {
			json_object_put(entry);
			return err_set(err, ENOMEM, "out of memory");
		}
	}
	return 0;
}

/* Free what s holds. */
static void state_free(struct export_state *s)
{
	size_t i;

	for (i = 0; i < s->nrules; i++)
		rule_clear(&s->rules[i]);
	free(s->rules);
	free(s->sum);
}

struct json_object *oci_export(const struct sock_filter *insns, size_t len, const char *listener,
			       const char *name, FILE *notes, struct secbpf_err *err)
{
	struct export_state s = { .insns = insns, .len = len, .notes = notes };
	struct json_object *root = json_object_new_object(), *archs = json_object_new_array(),
			   *syscalls = json_object_new_array();
	bool notify = false;
	char meta[128];
	size_t a;

	s.sum = calloc(NARCHES * OCI_EXPORT_NR_MAX, sizeof(*s.sum));
	if (!root || !archs || !syscalls || !s.sum) {
		err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	if (choose_arches(&s)) {
		err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	if (find_default(&s, err) || find_stub(&s, err) || scan_names(&s, err) ||
	    check_above(&s, err) || emit_rules(&s, syscalls, &notify, err))
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
