/* SPDX-License-Identifier: MIT */
/*
 * What the files of lib/cbpf share and callers outside it do not see: the
 * symbolic expressions and residual trees the front end (expr.c,
 * partition.c, explore.c) builds, and the back end that lays them out as
 * cBPF: the label assembler (asm.c), the 64-bit lowering (lower.c,
 * lower_div.c),
 * residuals as word tests (words.c, words_emit.c), the listener guard
 * (guard.c), the layout (layout.c) and the split into stacked filters
 * (split.c).
 */
#ifndef SECBPF_CBPF_INTERNAL_H
#define SECBPF_CBPF_INTERNAL_H

#include "cbpf/cbpf.h"
#include "common/arena.h"
#include "common/hashtab.h"

/* ---- expressions and residual trees (expr.c) ---- */

/* What an expression reads from seccomp_data. */
enum cbpf_dep {
	CBPF_DEP_NR = 1 << 0,
	CBPF_DEP_ARCH = 1 << 1,
	CBPF_DEP_DATA = 1 << 2,		/* instruction_pointer or args */
};

enum cbpf_expr_kind {
	CBPF_X_CONST,		/* imm */
	CBPF_X_FIELD,		/* imm = offset, width bits, zero-extended */
	CBPF_X_ALU,		/* op(a, b): BPF_ADD ... BPF_ARSH, 32- or 64-bit */
	CBPF_X_NEG,		/* -a */
	CBPF_X_TRUNC,		/* a & ((1 << width) - 1) */
	CBPF_X_SEXT,		/* the low width bits of a, sign-extended */
	CBPF_X_BSWAP,		/* byte swap of the low width bits of a */
	CBPF_X_TABLE,		/* a .rodata lookup: the value at key a of the
				 * struct cbpf_table at imm (a pointer) */
};

/*
 * A pure function of seccomp_data, hash-consed: two equal expressions are
 * the same pointer. is32 results are zero-extended from 32 bits, exactly
 * as eBPF's 32-bit ALU defines them.
 */
struct cbpf_expr {
	struct hashtab_entry h;	/* in cbpf_store.exprs; first member */
	const struct cbpf_expr *a, *b;
	uint64_t imm;
	uint32_t size;		/* tree size, saturating: bounds every recursion */
	uint8_t kind;
	uint8_t op;		/* CBPF_X_ALU: BPF_OP() of the instruction */
	uint8_t width;		/* CBPF_X_FIELD, _TRUNC, _SEXT, _BSWAP: bits */
	uint8_t deps;		/* enum cbpf_dep */
	bool is32;
	bool sgn;		/* CBPF_X_ALU DIV/MOD: signed (cpu v4) */
	bool hi_zero;		/* < 2^32 for every input */
};

/*
 * What a .rodata lookup reads, by the value of the key its offset depends
 * on (explore.c): n pairs, keys ascending and below 2^32, covering every
 * value the key may take. In the store's arena; a CBPF_X_TABLE names it.
 */
struct cbpf_table {
	uint32_t n;
	bool hi_zero;		/* every value below 2^32 */
	const uint64_t *keys, *vals;
};

/* Normalized conditions: JNE/JLT/JLE and friends become these, negated. */
enum cbpf_cond_op { CBPF_C_EQ, CBPF_C_GT, CBPF_C_GE, CBPF_C_SET };

enum cbpf_rnode_kind {
	CBPF_R_RET,		/* return the low 32 bits of ret */
	CBPF_R_NOTIF,		/* SECCOMP_RET_USER_NOTIF: the supervisor decides */
	CBPF_R_BRANCH,		/* if (a op b) t else f */
};

/* A node of a residual decision tree; hash-consed like expressions. The
 * fields after "back end scratch" belong to layout.c and words.c. */
struct cbpf_rnode {
	struct hashtab_entry h;	/* in cbpf_store.rnodes; first member */
	uint8_t kind;
	uint8_t op;		/* enum cbpf_cond_op */
	bool sgn, is32;
	const struct cbpf_expr *a, *b, *ret;
	struct cbpf_rnode *t, *f;
	uint32_t insn;		/* the eBPF jump that first made it (not identity) */
	/* back end scratch */
	uint32_t out_label;	/* where the code of this outcome starts */
	uint32_t code_size;	/* instructions of its own test (an estimate) */
	uint32_t mark;		/* visited in generation cbpf_layout.mark */
	bool unsupported;	/* no cBPF for its test: the supervisor decides */
	bool reaches_notif;	/* a NOTIF is reachable from here */
	uint64_t tested_words;	/* a Bloom set of the words tested under here */
};

/* One merged range of nr for one arch class and its outcome. */
struct cbpf_range {
	uint32_t lo, hi;
	struct cbpf_rnode *out;
};

struct cbpf_arch_class {
	bool other;		/* every arch not listed explicitly */
	uint32_t arch;
	struct cbpf_range *ranges;	/* sorted, covering 0..UINT32_MAX */
	uint32_t nranges;
};

struct cbpf_plan {
	struct cbpf_arch_class *classes;	/* explicit ones, then "other" */
	uint32_t nclasses;
	struct cbpf_rnode *notif;		/* the shared NOTIF leaf */
	uint32_t mark;				/* the last layout's rnode generation */
};

/* Lay plan out as a checked seccomp filter (layout.c), or as several with
 * opts->max_filters > 1 (split.c). May replace outcomes in plan by
 * plan->notif to fit in CBPF_MAX_INSNS. */
int cbpf_layout_plan(struct cbpf_plan *plan, const struct cbpf_compile_opts *opts,
		     struct cbpf_prog *out, struct secbpf_err *err);
/* One checked filter for plan into *insns (malloc'ed), reasons noted in
 * notes. Past CBPF_MAX_INSNS: with shrink, the largest outcomes go to the
 * supervisor; without, -ENOSPC with *len the length it would have. */
int cbpf_layout_filter(struct cbpf_plan *plan, bool guard, bool shrink, struct cbpf_prog *notes,
		       struct sock_filter **insns, uint32_t *len, struct secbpf_err *err);
/* Adds to *cells the ranges of plan (but those whose outcome is skip), to
 * *notif_cells those of them that reach a NOTIF in the last layout. */
void cbpf_layout_count_cells(const struct cbpf_plan *plan, const struct cbpf_rnode *skip,
			     uint32_t *cells, uint32_t *notif_cells);
/* The estimated code of the residual under n, without the nodes marked
 * mark already (which it marks): a layout has sized every node. */
uint64_t cbpf_layout_outcome_size(struct cbpf_plan *plan, uint32_t mark, struct cbpf_rnode *n);
/* Lay plan out as up to max_filters filters that partition its cells
 * (split.c): one when it fits. */
int cbpf_split_plan(struct cbpf_plan *plan, bool guard, uint32_t max_filters,
		    struct cbpf_prog *out, struct secbpf_err *err);

/*
 * Where expressions and residual nodes live: everything in one arena,
 * hash-consed in two tables, so that equal ones are the same pointer.
 * oom: an allocation failed; too_big: an expression would exceed
 * CBPF_MAX_EXPR_SIZE nodes. Builders return NULL after either.
 *
 * Work: what the compiler did so far, in units that do not depend on the
 * machine (an expression built or looked up, an instruction explored, an
 * instruction of a trial lowering), so that a budget of it gives the same
 * filter on every run and every machine. With work_limit nonzero, the
 * builders return NULL (out_of_work) once work passes it; the explorer
 * then hands the cell to the supervisor (explore.c).
 */
#define CBPF_MAX_EXPR_SIZE 4096		/* nodes in one expression tree */

struct cbpf_store {
	struct arena arena;
	struct hashtab exprs, rnodes;
	struct hashtab costs; /* lowering lengths (keys.c) */
	bool oom;
	bool too_big;
	bool out_of_work;
	uint64_t work, work_limit;
};

/* Counts n units of work; false (and out_of_work) once past the limit. */
static inline bool cbpf_store_work(struct cbpf_store *s, uint64_t n)
{
	s->work += n;
	if (s->work_limit && s->work > s->work_limit)
		s->out_of_work = true;
	return !s->out_of_work;
}

void cbpf_store_free(struct cbpf_store *s);

/* The canonical node equal to t; NULL on oom, too_big or out_of_work. */
const struct cbpf_expr *cbpf_expr_intern(struct cbpf_store *s, const struct cbpf_expr *t);
const struct cbpf_expr *cbpf_expr_const(struct cbpf_store *s, uint64_t v);
/* The low width bits of a (a NULL a gives NULL, as for every builder). */
const struct cbpf_expr *cbpf_expr_trunc(struct cbpf_store *s, const struct cbpf_expr *a,
					unsigned width);
/* kind CBPF_X_NEG, _SEXT or _BSWAP of a, constants folded. */
/* The lookup of t at key (constant keys fold). NULL when out of memory,
 * or when a constant key has no entry (s->too_big: never for a key whose
 * every value t lists). */
const struct cbpf_expr *cbpf_expr_table(struct cbpf_store *s, const struct cbpf_table *t,
					const struct cbpf_expr *key);
/* t's value at key v, in *val; false if t has none. */
bool cbpf_table_find(const struct cbpf_table *t, uint64_t v, uint64_t *val);
const struct cbpf_expr *cbpf_expr_unary(struct cbpf_store *s, unsigned kind, bool is32,
					unsigned width, const struct cbpf_expr *a);
/* op(a, b) with constant folding and the rewrites the partitioning needs. */
const struct cbpf_expr *cbpf_expr_alu(struct cbpf_store *s, unsigned op, bool is32, bool sgn,
				      const struct cbpf_expr *a, const struct cbpf_expr *b);
uint64_t cbpf_expr_eval(const struct cbpf_expr *e, const struct seccomp_data *sd);
/* eBPF ALU semantics on values (expr.c). */
uint64_t cbpf_alu_eval(unsigned op, bool is32, bool sgn, uint64_t d, uint64_t s);
uint64_t cbpf_width_mask(unsigned width);		/* the low width bits set */
uint64_t cbpf_sign_extend(uint64_t v, unsigned width);	/* the low width bits, signed */
uint64_t cbpf_byte_swap(uint64_t v, unsigned width);	/* width 16, 32 or 64 */
/* The bits of the 64-bit seccomp_data field at off (an argument) that the
 * bits demanded of e's value depend on (field_bits.c). */
uint64_t cbpf_expr_field_bits(const struct cbpf_expr *e, uint32_t off, uint64_t demanded);

struct cbpf_rnode *cbpf_rnode_intern(struct cbpf_store *s, const struct cbpf_rnode *t);
/* A CBPF_R_RET of v (NULL for a NULL v). */
struct cbpf_rnode *cbpf_rnode_ret(struct cbpf_store *s, const struct cbpf_expr *v);

/* Whether outcome n is decided without code of its own (RET K in place). */
static inline bool cbpf_outcome_is_const(const struct cbpf_rnode *n)
{
	return n->kind == CBPF_R_NOTIF || (n->kind == CBPF_R_RET && n->ret->kind == CBPF_X_CONST);
}

/* The RET K of a constant (or unsupported) outcome. */
static inline uint32_t cbpf_outcome_value(const struct cbpf_rnode *n)
{
	if (n->kind == CBPF_R_NOTIF || n->unsupported)
		return SECCOMP_RET_USER_NOTIF;
	return (uint32_t)n->ret->imm;
}

/* ---- conditions on nr (partition.c) ---- */

#define CBPF_MAX_PIECES 300	/* pieces one condition may split a cell into */

/* A normalized condition: the eBPF condition is (neg ? !c : c). */
struct cbpf_cond {
	uint8_t op;		/* enum cbpf_cond_op */
	bool sgn, is32, neg;
	const struct cbpf_expr *a, *b;
};

struct cbpf_nr_split {
	bool arch;		/* split off arch == arch_value */
	uint32_t arch_value;
	uint32_t n;		/* nr pieces: [start[i], start[i + 1] - 1] */
	uint32_t start[CBPF_MAX_PIECES];
	bool truth[CBPF_MAX_PIECES];
};

/* c (without neg) on the values a and b of its operands. */
bool cbpf_cond_holds_for(const struct cbpf_cond *c, uint64_t a, uint64_t b);
/* Pieces of nr in [lo, hi] on which c, a condition on nr alone (nr_field
 * is the expression of nr), is constant, into *sp. false when they cannot
 * be found within CBPF_MAX_PIECES (test c as a residual then). */
bool cbpf_split_nr(const struct cbpf_expr *nr_field, const struct cbpf_cond *c, uint32_t lo,
		   uint32_t hi, struct cbpf_nr_split *sp);

/* ---- keys: sub-expressions with few values (keys.c) ---- */

#define CBPF_KEY_MAX_VALUES 256

/* A residual's sub-expression with at most CBPF_KEY_MAX_VALUES values:
 * node itself (replaced by each value), or the count of the shifts by
 * shift_count (eBPF masks it: key = shift_count & 63). */
struct cbpf_key {
	const struct cbpf_expr *key;	/* what the search tree tests; lowers */
	const struct cbpf_expr *node;
	const struct cbpf_expr *shift_count;
	uint64_t vals[CBPF_KEY_MAX_VALUES];	/* every value key may take, sorted */
	uint32_t n;
};

/* Keys of a and b (either may be NULL) with at most max_values values,
 * fewest values first, into out (room for 8). Returns how many. */
uint32_t cbpf_keys_find(struct cbpf_store *s, const struct cbpf_expr *a, const struct cbpf_expr *b,
			uint32_t max_values, struct cbpf_key *out);
/* e where k's key is v, folded. */
const struct cbpf_expr *cbpf_key_subst(struct cbpf_store *s, const struct cbpf_key *k,
				       const struct cbpf_expr *e, uint64_t v);
/* A search tree on k's key that reaches leaf[i] where it is vals[i]. */
struct cbpf_rnode *cbpf_key_dispatch(struct cbpf_store *s, const struct cbpf_key *k,
				     struct cbpf_rnode **leaf);
/* The residual branch "if c then t else f" (c's neg applied); when c has no
 * cBPF lowering, split on a key so that it needs none. NULL on oom. */
struct cbpf_rnode *cbpf_key_branch(struct cbpf_store *s, const struct cbpf_cond *c,
				   struct cbpf_rnode *t, struct cbpf_rnode *f, uint32_t insn);

/* A return of v (its low 32 bits), split on a key when it has no cBPF
 * lowering. NULL on oom. */
struct cbpf_rnode *cbpf_key_ret(struct cbpf_store *s, const struct cbpf_expr *v, uint32_t insn);

/* ---- why the supervisor decides (explore.c, lower.c) ---- */

/* Note in p that insn needs the supervisor because of why (each pair
 * once, at most CBPF_PUNT_MAX). 0 or -ENOMEM. */
int cbpf_punt_note(struct cbpf_prog *p, uint32_t insn, const char *why);
/* The same for a path that needs state (a map, global data, a helper). */
int cbpf_punt_note_state(struct cbpf_prog *p, uint32_t insn, const char *why);
/* The operation of n's test that has no cBPF lowering, in words. */
const char *cbpf_lower_why(const struct cbpf_rnode *n);

/* ---- postorder walks of the back end's DAGs (dag.c) ---- */

/* Nodes in postorder: every node after the nodes it reaches. */
struct cbpf_postorder {
	void **v;
	uint32_t n, cap;
};

struct cbpf_dag_ops {
	/* Child i (0, then 1) of node, NULL when it has no such child;
	 * called once per (node, i). */
	void *(*child)(void *node, unsigned i, void *ctx);
	/* Marks node seen; false when it was seen already. */
	bool (*first_visit)(void *node, void *ctx);
	/* Optional: node's children are all in the order, node is next. */
	void (*done)(void *node, void *ctx);
};

/* Appends to o, in postorder, the nodes reachable from root that
 * first_visit() has not seen. 0 or -ENOMEM. */
int cbpf_postorder_add(struct cbpf_postorder *o, void *root, const struct cbpf_dag_ops *ops,
		       void *ctx);
void cbpf_postorder_free(struct cbpf_postorder *o);

/* ---- the label assembler (asm.c) ---- */

#define CBPF_ASM_NO_LABEL UINT32_MAX
#define CBPF_OFF_NR 0		/* offsetof(struct seccomp_data, nr) */
#define CBPF_OFF_ARCH 4		/* offsetof(struct seccomp_data, arch) */

/* An instruction before layout: jumps name labels, not offsets. */
struct cbpf_asm_insn {
	uint16_t code;
	uint32_t k;
	uint32_t lt, lf;	/* labels: JA uses lt; conditionals both */
};

/*
 * A word of an expression that the code so far has left in M[slot] on
 * every path to the next instruction: the ST that made it is at
 * `created`. Stores to the slot, and labels that a jump from before
 * `created` reaches, forget it.
 */
struct cbpf_asm_memo {
	const void *expr;
	bool hi;
	uint8_t slot;
	uint32_t created;
};

struct cbpf_asm {
	struct cbpf_asm_insn *v;
	uint32_t n, cap;
	uint32_t *lab;		/* label -> index of the instruction it names */
	uint32_t *lab_from;	/* label -> index of its first jump, or NO_LABEL */
	uint32_t nlab, labcap;
	struct cbpf_asm_memo *memo;
	uint32_t nmemo, memocap;
	bool oom;
};

/* A new label, placed later with cbpf_asm_place(). Failures set m->oom
 * (every function here is then a no-op), checked once at the end. */
uint32_t cbpf_asm_label(struct cbpf_asm *m);
/* The next instruction appended is where label points. */
void cbpf_asm_place(struct cbpf_asm *m, uint32_t label);
/* A non-jump instruction. */
void cbpf_asm_stmt(struct cbpf_asm *m, uint16_t code, uint32_t k);
void cbpf_asm_ja(struct cbpf_asm *m, uint32_t label);
/* A conditional jump to labels lt/lf (a JA when they are the same). */
void cbpf_asm_jump(struct cbpf_asm *m, uint16_t code, uint32_t k, uint32_t lt, uint32_t lf);
/* Remember that M[slot] holds the hi or low word of expr, stored by the
 * instruction just appended. */
void cbpf_asm_memo_add(struct cbpf_asm *m, const void *expr, bool hi, unsigned slot);
/* The highest slot from sp up that holds no memo (sp if all do). */
unsigned cbpf_asm_memo_free_slot(const struct cbpf_asm *m, unsigned sp);
/* The slot holding that word here, or -1. */
int cbpf_asm_memo_find(const struct cbpf_asm *m, const void *expr, bool hi);
/* Every label used is placed after its user (cBPF jumps forward only). */
bool cbpf_asm_labels_forward(const struct cbpf_asm *m);
/* Labels to offsets, with JA trampolines where a jump is beyond 8 bits;
 * *outp is malloc'ed. 0 or -ENOMEM. */
int cbpf_asm_resolve(const struct cbpf_asm *m, struct sock_filter **outp, uint32_t *lenp);
void cbpf_asm_free(struct cbpf_asm *m);

/* ---- 64-bit values on 32-bit A, X and M[] (lower.c) ---- */

/* A = the low (high) 32 bits of e, M[sp..15] free for temporaries.
 * 0, -ENOSPC (out of M[] slots) or -ENOTSUP (no cBPF for it). */
int cbpf_lower_lo_word(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp);
int cbpf_lower_hi_word(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp);
typedef int (*cbpf_lower_half_fn)(struct cbpf_asm *m, const struct cbpf_expr *e, unsigned sp);
/* M[slot] = A; -ENOSPC past the 16 slots. */
int cbpf_lower_store_temp(struct cbpf_asm *m, unsigned slot);
/* M[slot] = half(e), temporaries above slot. */
int cbpf_lower_word_to(struct cbpf_asm *m, cbpf_lower_half_fn half, const struct cbpf_expr *e,
		       unsigned slot);
#define CBPF_LIMB 0x10000u	/* the base of 16-bit limbs */
/* A = the low (hi16: high) 16 bits of M[slot]. */
void cbpf_lower_limb(struct cbpf_asm *m, unsigned slot, bool hi16);
/* A = the high 32 bits of the 64-bit product of M[s] and M[s + 1];
 * M[s + 2] and M[s + 3] are scratch. */
int cbpf_lower_mulhi32(struct cbpf_asm *m, unsigned s);
/* A = the low (hi: high) word of e, an unsigned or signed division or
 * modulo (lower_div.c). */
int cbpf_lower_divmod(struct cbpf_asm *m, const struct cbpf_expr *e, bool hi, unsigned sp);
/* The BPF_JMP opcode (without K/X) of an enum cbpf_cond_op. */
uint16_t cbpf_lower_jump_op(unsigned op);
/* if (n->a op n->b) goto lt else lf, for 64-bit or 32-bit operands. */
int cbpf_lower_cond(struct cbpf_asm *m, const struct cbpf_rnode *n, uint32_t lt, uint32_t lf);

/* ---- residuals as tests of 32-bit words (words.c, words_emit.c) ---- */

/*
 * A residual condition on 64-bit values is lowered to tests of 32-bit
 * words (the high or low half of an expression) against a constant (K)
 * or another word (X). Lowering carries down each path what the tests
 * above it proved about the words (a set of intervals): a test that this
 * decides is not emitted, and a test whose two ways end the same is
 * dropped. A chain of 64-bit compares with constants thus tests the high
 * word once and then only the low word. Word tests are hash-consed; a
 * residual lowered twice under the same knowledge is lowered once.
 */
#define CBPF_WORD_IV_MAX 4	/* intervals known per word (over-approximated) */
#define CBPF_WORD_KNOWN_MAX 4	/* words known on one path */

struct cbpf_word_iv {
	uint32_t lo, hi;
};

/* The values a word may still hold: sorted disjoint intervals. */
struct cbpf_word_set {
	uint32_t n;
	struct cbpf_word_iv iv[CBPF_WORD_IV_MAX];
};

struct cbpf_word_known {
	const struct cbpf_expr *e;
	bool hi;
	struct cbpf_word_set s;
};

/* What a path has proven: words sorted by (e, hi), so that equal
 * knowledge has one representation. */
struct cbpf_word_knowledge {
	uint32_t n;
	struct cbpf_word_known k[CBPF_WORD_KNOWN_MAX];
};

/* What a register or M[] slot holds: the word (e, hi) xor flip. */
struct cbpf_word_val {
	const struct cbpf_expr *e;
	uint32_t flip;
	bool hi, valid;
};

struct cbpf_word_regs {
	struct cbpf_word_val a, x, mem[BPF_MEMWORDS];
};

enum cbpf_word_kind {
	CBPF_W_RET,	/* RET K */
	CBPF_W_RET_A,	/* RET A, A = lo(a) */
	CBPF_W_TEST,	/* if ((word(a, hi) ^ flip) op ((K or word(b, bhi)) ^ flip)) */
};

struct cbpf_word_node {
	struct hashtab_entry h;	/* in cbpf_words.nodes; first member */
	uint8_t kind, op;
	bool hi, bx, bhi;
	uint32_t flip, k;
	const struct cbpf_expr *a, *b;
	struct cbpf_word_node *t, *f;
	/* layout */
	uint32_t label, mark, umark;
	uint32_t npred;		/* jumps to it, the dispatch's counting as one */
	bool ulost, has_in;
	struct cbpf_word_regs in;	/* meet of what the predecessors leave */
};

struct cbpf_word_memo {
	struct hashtab_entry h;	/* in cbpf_words.memo; first member */
	const struct cbpf_rnode *n;
	struct cbpf_word_knowledge kc;
	struct cbpf_word_node *res;
};

struct cbpf_words {
	struct arena arena;		/* nodes and memo entries */
	struct hashtab nodes;		/* hash-consed word tests */
	struct hashtab memo;		/* (residual, knowledge) -> word tests */
	uint32_t lowered, budget;
	uint32_t mark, umark;
	bool knowledge;		/* use what paths proved (off: over budget) */
	bool over, oom;
	struct cbpf_postorder order;	/* word tests, parents last */
};

struct cbpf_layout;

/* n lowered to word tests under what kc proves; NULL when out of memory
 * or over budget (words.over). */
struct cbpf_word_node *cbpf_words_lower(struct cbpf_layout *c, struct cbpf_rnode *n,
					const struct cbpf_word_knowledge *kc);
/* Lower every residual outcome of the plan and label the word tests. */
int cbpf_words_lower_plan(struct cbpf_layout *c);
/* Emit the word tests, parents first; -EFAULT if one does not compile. */
int cbpf_words_emit(struct cbpf_layout *c);
void cbpf_words_free(struct cbpf_words *w);

/* ---- the listener guard (guard.c) ---- */

/*
 * Where the listener guard looks (docs/design.md §1): the seccomp() syscall on
 * every arch libseccomp knows, as (AUDIT_ARCH, nr) pairs, x32's under
 * AUDIT_ARCH_X86_64 with bit 30 in nr, without repeats. Writes at most max
 * pairs to out and returns their number.
 */
struct cbpf_guard_target {
	uint32_t arch;
	uint32_t nr;
};
size_t cbpf_guard_targets(struct cbpf_guard_target *out, size_t max);

/* The guard's shape: an arch test per arch, then up to CBPF_GUARD_MAX_NRS
 * numbers each (x86_64 has two: its own and x32's). */
#define CBPF_GUARD_MAX_TARGETS 64
#define CBPF_GUARD_MAX_ARCHES 32
#define CBPF_GUARD_MAX_NRS 2

/* Emits the guard for cbpf_guard_targets(); a syscall it does not deny
 * jumps to pass_label. 0, or -E2BIG with err set when the targets do not
 * fit the guard's shape (never a guard that misses one). */
int cbpf_guard_emit(struct cbpf_asm *m, uint32_t pass_label, struct secbpf_err *err);
/* The same for the nt targets t (tests give their own). */
int cbpf_guard_emit_targets(struct cbpf_asm *m, const struct cbpf_guard_target *t, size_t nt,
			    uint32_t pass_label, struct secbpf_err *err);

/* ---- the layout (layout.c) ---- */

struct cbpf_layout {
	struct cbpf_asm m;
	struct cbpf_prog *out;		/* punts are noted in it */
	struct cbpf_plan *plan;
	struct cbpf_postorder order;	/* residual nodes, parents last */
	uint32_t mark;			/* generation for rnode mark */
	struct cbpf_words words;	/* the residuals as word tests */
};

#endif
