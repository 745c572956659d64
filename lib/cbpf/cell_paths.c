// SPDX-License-Identifier: MIT
/*
 * Exploring one (arch, nr) cell of a compiled filter: run it with nr and
 * arch known and the rest of seccomp_data unknown, taking both ways at a
 * test of an unknown value. A value loaded from an argument word, maybe
 * ANDed with a constant, is tracked as such, so that a test of it becomes
 * an atom "(word & mask) == k" or its negation; anything else (ranges,
 * arithmetic, the instruction pointer) makes the path inexpressible.
 * Each path's atoms are then merged per argument, contradictions dropped.
 * A whole word plus a constant (clang's range tests: `x - 38 < 3`, or a
 * signed compare as `x ^ 0x80000000`) is tracked too: a comparison of it
 * with a constant adds the values where its outcome changes to the cell's
 * breaks, from which the caller computes the decision by intervals.
 * Known values go through the simulator's ALU and conditions (cbpf_sim.c),
 * so a division by zero ends a path with 0 as it ends the kernel's run; a
 * division by an unknown divisor is a path of its own where that is zero.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf.h"
#include "cbpf/cell_paths.h"

/* Paths beyond this many: the cell counts as undecided (NOTIFY). */
#define CELL_MAX_PATHS 4096
#define PATH_MAX_ATOMS 32
/* seccomp_data words: 0 nr, 1 arch, 2-3 instruction_pointer, 4.. args
 * (low word first on a little-endian machine). */
#define WORD_ARGS 4
#define NWORDS (sizeof(struct seccomp_data) / 4)

enum val_kind { VAL_KNOWN, VAL_WORD, VAL_UNKNOWN };

/* A register or scratch word: a constant, seccomp_data word `word` ANDed
 * with mask (then off is 0) or plus off (then mask is ~0), or anything. */
struct val {
	enum val_kind kind;
	uint32_t v;    /* VAL_KNOWN */
	uint8_t word;  /* VAL_WORD */
	uint32_t mask; /* VAL_WORD */
	uint32_t off;  /* VAL_WORD */
};

struct atom {
	uint8_t word;
	bool eq; /* (word & mask) == k, else != */
	uint32_t mask, k;
	/* Not 0: the atom is rather "(word + off) code k is taken" (a JGT or
	 * JGE), which holds or not once equalities fix the whole word. */
	uint16_t range_code;
	uint32_t off;
};

/* The atom (word & mask) == k, or != k. */
static struct atom masked_atom(uint8_t word, bool eq, uint32_t mask, uint32_t k)
{
	return (struct atom){ .word = word, .eq = eq, .mask = mask, .k = k };
}

struct walk {
	const struct sock_filter *insns;
	size_t len;
	uint32_t nr, audit;
	struct cbpf_cell_paths *cell;
	size_t cap;
	unsigned int returns;
	bool gave_up, failed;
	struct cbpf_cell_breaks *breaks;
};

static const struct val unknown = { .kind = VAL_UNKNOWN };

/* The known value v. */
static struct val known(uint32_t v)
{
	return (struct val){ .kind = VAL_KNOWN, .v = v };
}

/*
 * A = A op b on tracked values. Constants go through the simulator's ALU
 * (cbpf_sim.c), an argument word ANDed with a constant stays a word, and
 * anything else becomes unknown. Returns false when the filter ends with 0
 * here (a division by a constant zero); the caller handles a division by
 * an unknown, which may be zero.
 */
static bool alu(uint16_t code, struct val *a, struct val b)
{
	uint16_t op = BPF_OP(code);

	if ((op == BPF_DIV || op == BPF_MOD) && b.kind == VAL_KNOWN && b.v == 0)
		return false;
	if (op == BPF_AND && a->kind == VAL_WORD && b.kind == VAL_KNOWN && a->off == 0) {
		a->mask &= b.v;
		return true;
	}
	/* A whole word plus a constant: flipping the top bit is adding it. */
	if (a->kind == VAL_WORD && b.kind == VAL_KNOWN && a->mask == 0xffffffffu &&
	    (op == BPF_ADD || op == BPF_SUB || (op == BPF_XOR && b.v == 0x80000000u))) {
		a->off += op == BPF_SUB ? -b.v : b.v;
		return true;
	}
	if (a->kind != VAL_KNOWN || (op != BPF_NEG && b.kind != VAL_KNOWN)) {
		*a = unknown;
		return true;
	}
	return cbpf_sim_alu(code, &a->v, b.v);
}

/* Merge a path's atoms into per-argument conditions. Returns false when
 * the atoms contradict each other (the path is infeasible). */
static bool path_finish(const struct atom *atoms_in, size_t n, bool expressible, uint32_t action,
			struct cbpf_cell_path *p)
{
	uint32_t mask[NWORDS] = { 0 }, k[NWORDS] = { 0 };
	struct atom atoms[PATH_MAX_ATOMS];
	size_t i, w;

	memset(p, 0, sizeof(*p));
	p->action = action;
	/* One bit differing from k is that bit equal to the other value:
	 * (x & FLAG) != 0 is (x & FLAG) == FLAG. */
	for (i = 0; i < n; i++) {
		atoms[i] = atoms_in[i];
		if (!atoms[i].range_code && !atoms[i].eq &&
		    __builtin_popcount(atoms[i].mask) == 1 && !(atoms[i].k & ~atoms[i].mask)) {
			atoms[i].eq = true;
			atoms[i].k ^= atoms[i].mask;
		}
	}
	for (i = 0; i < n; i++) {
		const struct atom *a = &atoms[i];

		if (!a->eq || a->range_code)
			continue;
		if (a->k & ~a->mask)
			return false; /* (x & m) == k with bits of k outside m */
		if ((k[a->word] ^ a->k) & mask[a->word] & a->mask)
			return false;
		mask[a->word] |= a->mask;
		k[a->word] |= a->k;
	}
	for (i = 0; i < n; i++) {
		const struct atom *a = &atoms[i];

		if (a->range_code) {
			/* Decided once the equalities fix the whole word. */
			if (mask[a->word] != 0xffffffffu) {
				expressible = false;
				continue;
			}
			if (cbpf_sim_cond(a->range_code, k[a->word] + a->off, a->k) != a->eq)
				return false;
			continue;
		}
		if (a->eq)
			continue;
		/* First: (x & m) != k always holds when k has bits outside m
		 * (m may be 0, which the equalities below cover vacuously). */
		if (a->k & ~a->mask)
			continue;
		if ((a->mask & mask[a->word]) == a->mask) {
			/* Decided by the equalities: true, or a contradiction. */
			if (((k[a->word] ^ a->k) & a->mask) == 0)
				return false;
			continue;
		}
		/* A bit both fix differently: it always holds. */
		if ((k[a->word] ^ a->k) & a->mask & mask[a->word])
			continue;
		expressible = false;
	}
	p->expressible = expressible;
	for (w = 0; w < NWORDS; w++) {
		if (!mask[w])
			continue;
		if (w < WORD_ARGS) {
			p->expressible = false; /* the instruction pointer */
			continue;
		}
		if (!p->nconds || p->conds[p->nconds - 1].arg != (w - WORD_ARGS) / 2) {
			p->conds[p->nconds].arg = (uint8_t)((w - WORD_ARGS) / 2);
			p->nconds++;
		}
		if ((w - WORD_ARGS) % 2) {
			p->conds[p->nconds - 1].mask |= (uint64_t)mask[w] << 32;
			p->conds[p->nconds - 1].datum |= (uint64_t)k[w] << 32;
		} else {
			p->conds[p->nconds - 1].mask |= mask[w];
			p->conds[p->nconds - 1].datum |= k[w];
		}
	}
	return true;
}

/* Record that a test changes its outcome where word (a seccomp_data word
 * index) reaches value v; an argument word only, else no exact breaks. */
static void add_break(struct walk *w, uint8_t word, uint32_t v)
{
	struct cbpf_cell_breaks *b = w->breaks;
	size_t i, aw;

	if (word < WORD_ARGS || word - WORD_ARGS >= CBPF_CELL_ARG_WORDS) {
		b->exact = false;
		return;
	}
	aw = word - WORD_ARGS;
	b->words |= (uint16_t)(1u << aw);
	for (i = 0; i < b->n[aw]; i++)
		if (b->at[aw][i] == v)
			return;
	if (b->n[aw] == CBPF_CELL_MAX_BREAKS) {
		b->exact = false;
		return;
	}
	b->at[aw][b->n[aw]++] = v;
}

/* The breaks of a test of a against src (both ways are explored): where
 * (word + off) compared with k changes outcome, as a word's value. */
static void test_breaks(struct walk *w, uint16_t code, struct val a, struct val src)
{
	uint32_t k = src.v - a.off;

	if (a.kind != VAL_WORD || src.kind != VAL_KNOWN || a.mask != 0xffffffffu) {
		w->breaks->exact = false;
		return;
	}
	switch (BPF_OP(code)) {
	case BPF_JEQ:
		add_break(w, a.word, k);
		add_break(w, a.word, k + 1);
		break;
	case BPF_JGT:
		add_break(w, a.word, k + 1);
		break;
	case BPF_JGE:
		add_break(w, a.word, k);
		break;
	default: /* JSET: not constant between values */
		w->breaks->exact = false;
		return;
	}
	add_break(w, a.word, 0);
	add_break(w, a.word, -a.off); /* where word + off wraps to 0 */
}

/* A path ends returning r: record its action and conditions (an unknown
 * return value gives up on the cell). */
static void walk_ret(struct walk *w, struct val r, const struct atom *atoms, size_t n,
		     bool expressible)
{
	struct cbpf_cell_paths *c = w->cell;
	struct cbpf_cell_path p;

	w->returns++;
	if (r.kind != VAL_KNOWN) {
		w->gave_up = true;
		return;
	}
	if (!path_finish(atoms, n, expressible, r.v, &p))
		return;
	if (c->npaths == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 4;
		struct cbpf_cell_path *np = realloc(c->paths, cap * sizeof(*np));

		if (!np) {
			w->failed = true;
			return;
		}
		c->paths = np;
		w->cap = cap;
	}
	c->paths[c->npaths++] = p;
}

/* Run from pc; at a test of an unknown value, take both ways (the filter
 * was checked: jumps go forward, within it). */
static void walk_from(struct walk *w, size_t pc, struct val a, struct val x, const struct val *m,
		      const struct atom *atoms_in, size_t natoms, bool expressible)
{
	struct atom atoms[PATH_MAX_ATOMS];
	struct val mem[BPF_MEMWORDS];

	memcpy(mem, m, sizeof(mem));
	if (natoms)
		memcpy(atoms, atoms_in, natoms * sizeof(atoms[0]));
	while (pc < w->len && !w->gave_up && !w->failed) {
		const struct sock_filter *in = &w->insns[pc];
		struct val k = known(in->k), src, v;
		bool taken;

		if (w->returns >= CELL_MAX_PATHS) {
			w->gave_up = true;
			return;
		}
		switch (BPF_CLASS(in->code)) {
		case BPF_LD:
		case BPF_LDX:
			v = unknown;
			if (BPF_MODE(in->code) == BPF_ABS && in->k % 4 == 0 && in->k / 4 < NWORDS)
				v = in->k == 0	 ? known(w->nr)
				    : in->k == 4 ? known(w->audit)
						 : (struct val){ .kind = VAL_WORD,
								 .word = (uint8_t)(in->k / 4),
								 .mask = 0xffffffffu };
			else if (BPF_MODE(in->code) == BPF_IMM)
				v = k;
			else if (BPF_MODE(in->code) == BPF_LEN)
				v = known(sizeof(struct seccomp_data));
			else if (BPF_MODE(in->code) == BPF_MEM && in->k < BPF_MEMWORDS)
				v = mem[in->k];
			if (BPF_CLASS(in->code) == BPF_LD)
				a = v;
			else
				x = v;
			pc++;
			break;
		case BPF_ST:
		case BPF_STX:
			if (in->k < BPF_MEMWORDS)
				mem[in->k] = BPF_CLASS(in->code) == BPF_ST ? a : x;
			pc++;
			break;
		case BPF_ALU:
			src = BPF_SRC(in->code) == BPF_X ? x : k;
			if ((BPF_OP(in->code) == BPF_DIV || BPF_OP(in->code) == BPF_MOD) &&
			    src.kind != VAL_KNOWN) {
				/* By zero the filter ends with 0: that way is a
				 * path of its own, (word & mask) == 0 when the
				 * divisor is an argument word. */
				w->breaks->exact = false;
				if (src.kind == VAL_WORD && src.off == 0 &&
				    natoms < PATH_MAX_ATOMS) {
					atoms[natoms] = masked_atom(src.word, true, src.mask, 0);
					walk_ret(w, known(0), atoms, natoms + 1, expressible);
					atoms[natoms++] = masked_atom(src.word, false, src.mask, 0);
				} else {
					walk_ret(w, known(0), atoms, natoms, false);
					expressible = false;
				}
			}
			if (!alu(in->code, &a, src)) {
				walk_ret(w, known(0), atoms, natoms, expressible);
				return;
			}
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
			walk_ret(w, BPF_RVAL(in->code) == BPF_A ? a : k, atoms, natoms,
				 expressible);
			return;
		case BPF_JMP:
			if (BPF_OP(in->code) == BPF_JA) {
				pc += 1 + in->k;
				break;
			}
			src = BPF_SRC(in->code) == BPF_X ? x : k;
			if (a.kind == VAL_KNOWN && src.kind == VAL_KNOWN) {
				taken = cbpf_sim_cond(in->code, a.v, src.v);
				pc += 1 + (taken ? in->jt : in->jf);
				break;
			}
			/* Both ways: with an atom each where the test is a
			 * masked equality of an argument word. */
			test_breaks(w, in->code, a, src);
			if (a.kind == VAL_WORD && src.kind == VAL_KNOWN &&
			    natoms < PATH_MAX_ATOMS &&
			    (BPF_OP(in->code) == BPF_JEQ ||
			     (BPF_OP(in->code) == BPF_JSET && a.off == 0))) {
				struct atom yes = { .word = a.word }, no = { .word = a.word };

				if (BPF_OP(in->code) == BPF_JEQ) {
					/* (word + off) == k: word == k - off */
					yes = masked_atom(a.word, true, a.mask, src.v - a.off);
					no = masked_atom(a.word, false, a.mask, src.v - a.off);
				} else {
					uint32_t mm = a.mask & src.v;

					/* Some bit of mm set: one bit is an equality;
					 * none (mm 0) can never be, an impossible atom. */
					yes = mm == 0 ? masked_atom(a.word, true, 0, 1)
					      : __builtin_popcount(mm) == 1
						      ? masked_atom(a.word, true, mm, mm)
						      : masked_atom(a.word, false, mm, 0);
					no = masked_atom(a.word, true, mm, 0);
				}
				atoms[natoms] = yes;
				walk_from(w, pc + 1 + in->jt, a, x, mem, atoms, natoms + 1,
					  expressible);
				atoms[natoms++] = no;
			} else if (a.kind == VAL_WORD && src.kind == VAL_KNOWN &&
				   a.mask == 0xffffffffu && natoms < PATH_MAX_ATOMS &&
				   (BPF_OP(in->code) == BPF_JGT || BPF_OP(in->code) == BPF_JGE)) {
				/* A range: exact where equalities fix the word. */
				atoms[natoms] = (struct atom){ .word = a.word,
							       .eq = true,
							       .k = src.v,
							       .range_code = in->code,
							       .off = a.off };
				walk_from(w, pc + 1 + in->jt, a, x, mem, atoms, natoms + 1,
					  expressible);
				atoms[natoms].eq = false;
				natoms++;
			} else {
				walk_from(w, pc + 1 + in->jt, a, x, mem, atoms, natoms, false);
				expressible = false;
			}
			pc += 1 + in->jf;
			break;
		default:
			w->gave_up = true;
			return;
		}
	}
	if (pc >= w->len)
		w->gave_up = true;
}

/* qsort order of uint32_t. */
static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int cbpf_cell_explore(const struct sock_filter *insns, size_t len, uint32_t audit, uint32_t nr,
		      struct cbpf_cell_paths *out)
{
	struct walk w = { .insns = insns,
			  .len = len,
			  .nr = nr,
			  .audit = audit,
			  .cell = out,
			  .breaks = &out->breaks };
	struct val mem[BPF_MEMWORDS];
	size_t i;

	memset(out, 0, sizeof(*out));
	out->breaks.exact = true;
	for (i = 0; i < BPF_MEMWORDS; i++)
		mem[i] = known(0); /* the kernel zeroes M[] */
	walk_from(&w, 0, known(0), known(0), mem, NULL, 0, true);
	if (w.failed) {
		cbpf_cell_paths_free(out);
		return -ENOMEM;
	}
	if (w.gave_up || !out->npaths) {
		cbpf_cell_paths_free(out);
		return 0; /* not fixed, no paths: NOTIFY */
	}
	for (i = 0; i < CBPF_CELL_ARG_WORDS; i++)
		qsort(out->breaks.at[i], out->breaks.n[i], sizeof(uint32_t), cmp_u32);
	out->fixed = true;
	out->action = out->paths[0].action;
	for (i = 1; i < out->npaths; i++)
		if (out->paths[i].action != out->action)
			out->fixed = false;
	return 0;
}

void cbpf_cell_paths_free(struct cbpf_cell_paths *c)
{
	free(c->paths);
	c->paths = NULL;
	c->npaths = 0;
}

bool cbpf_cell_path_matches(const struct cbpf_cell_path *p, const struct seccomp_data *sd)
{
	uint8_t i;

	for (i = 0; i < p->nconds; i++)
		if ((sd->args[p->conds[i].arg] & p->conds[i].mask) != p->conds[i].datum)
			return false;
	return true;
}
