// SPDX-License-Identifier: MIT
/*
 * The verifier's driver: the exploration of every path, the ALU, jump and
 * ld_imm64 rules, the facts for the cBPF compiler and the messages. The
 * CFG checks are in verifier_cfg.c, states and pruning in verifier_state.c,
 * memory in verifier_mem.c, calls in verifier_call.c, scalar bounds in
 * verifier_scalar.c and verifier_tnum.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/helper_protos.h"
#include "vm/insn.h"
#include "verifier/verifier_internal.h"

/* Offsets of pointers are kept far from overflow (the kernel's BPF_MAX_VAR_OFF). */
#define MAX_PTR_OFF (1 << 29)

const char *secbpf_tier_name(enum secbpf_tier tier)
{
	switch (tier) {
	case SECBPF_TIER_RESTRICTED:
		return "restricted";
	case SECBPF_TIER_UNPRIVILEGED:
		return "unprivileged";
	case SECBPF_TIER_PRIVILEGED:
		return "privileged";
	}
	return "unknown";
}

int secbpf_tier_parse(const char *name, enum secbpf_tier *tier)
{
	if (!strcmp(name, "restricted"))
		*tier = SECBPF_TIER_RESTRICTED;
	else if (!strcmp(name, "unprivileged"))
		*tier = SECBPF_TIER_UNPRIVILEGED;
	else if (!strcmp(name, "privileged"))
		*tier = SECBPF_TIER_PRIVILEGED;
	else
		return -EINVAL;
	return 0;
}

/* Record why the current instruction is rejected; the first reason wins. */
int verr(struct verifier_env *env, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (!env->has_reason) {
		va_start(ap, fmt);
		vsnprintf(env->reason, sizeof(env->reason), fmt, ap);
		va_end(ap);
		env->has_reason = true;
	}
	return -errnum;
}

struct func_state *cur_frame(struct verifier_env *env)
{
	return env->cur->frames[env->cur->curframe];
}

struct reg_state *cur_regs(struct verifier_env *env)
{
	return cur_frame(env)->regs;
}

uint32_t env_new_id(struct verifier_env *env)
{
	return ++env->next_id;
}

const struct object_map *env_map(const struct verifier_env *env, uint32_t idx)
{
	if (!env->obj || idx >= env->obj->map_cnt)
		return NULL;
	return &env->obj->maps[idx];
}

bool map_is_rdonly(const struct object_map *m)
{
	return m->kind == OBJECT_MAP_RODATA || (m->map_flags & BPF_F_RDONLY_PROG);
}

const char *reg_type_name(enum reg_type t)
{
	switch (t) {
	case REG_NOT_INIT:
		return "uninitialized";
	case REG_SCALAR:
		return "scalar";
	case REG_PTR_TO_CTX:
		return "ctx";
	case REG_PTR_TO_STACK:
		return "fp";
	case REG_PTR_TO_MAP_VALUE:
		return "map_value";
	case REG_PTR_TO_MAP_VALUE_OR_NULL:
		return "map_value_or_null";
	case REG_CONST_PTR_TO_MAP:
		return "map_ptr";
	case REG_PTR_TO_MEM:
		return "mem";
	case REG_PTR_TO_MEM_OR_NULL:
		return "mem_or_null";
	case REG_PTR_TO_FUNC:
		return "func";
	}
	return "?";
}

bool reg_is_pointer(const struct reg_state *r)
{
	return r->type != REG_NOT_INIT && r->type != REG_SCALAR;
}

/* ---- formatting ---- */

static void format_bounds(char *buf, size_t len, const struct reg_state *r)
{
	size_t n = 0;

	buf[0] = 0;
	if (tnum_is_const(r->var_off)) {
		snprintf(buf, len, "%" PRId64, (int64_t)r->var_off.value);
		return;
	}
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (n < len)                                                                       \
			n += snprintf(buf + n, len - n, __VA_ARGS__);                              \
	} while (0)
	/* print only what the unsigned range does not already say */
	bool signed_same = r->smin == (int64_t)r->umin && r->smax == (int64_t)r->umax;
	struct tnum from_range = tnum_range(r->umin, r->umax);

	if (r->smin != INT64_MIN && !signed_same)
		ADD("smin=%" PRId64 ",", r->smin);
	if (r->smax != INT64_MAX && !signed_same)
		ADD("smax=%" PRId64 ",", r->smax);
	if (r->umin)
		ADD("umin=%" PRIu64 ",", r->umin);
	if (r->umax != UINT64_MAX)
		ADD("umax=%" PRIu64 ",", r->umax);
	if (r->var_off.mask != ~0ULL &&
	    (r->var_off.value != from_range.value || r->var_off.mask != from_range.mask))
		ADD("var_off=(0x%" PRIx64 "; 0x%" PRIx64 "),", r->var_off.value, r->var_off.mask);
#undef ADD
	if (n && n < len)
		buf[n - 1] = 0;
}

void format_reg(char *buf, size_t len, const struct verifier_env *env, const struct reg_state *r)
{
	const struct object_map *m;
	char b[160];

	switch (r->type) {
	case REG_NOT_INIT:
		snprintf(buf, len, "uninitialized");
		return;
	case REG_SCALAR:
		format_bounds(b, sizeof(b), r);
		if (tnum_is_const(r->var_off))
			snprintf(buf, len, "%s", b);
		else
			snprintf(buf, len, "scalar(%s)", b);
		return;
	case REG_PTR_TO_STACK:
		if (tnum_is_const(r->var_off)) {
			snprintf(buf, len, "fp%+" PRId64 "[frame %u]",
				 (int64_t)r->off + (int64_t)r->var_off.value, r->frameno);
		} else {
			format_bounds(b, sizeof(b), r);
			snprintf(buf, len, "fp%+d(var: %s)[frame %u]", r->off, b, r->frameno);
		}
		return;
	case REG_CONST_PTR_TO_MAP:
		m = env_map(env, r->map);
		snprintf(buf, len, "map_ptr(%s)", m ? m->name : "?");
		return;
	case REG_PTR_TO_FUNC:
		snprintf(buf, len, "func(insn %u)", r->func);
		return;
	default:
		break;
	}
	b[0] = 0;
	if (!tnum_is_const(r->var_off)) {
		char v[120];

		format_bounds(v, sizeof(v), r);
		snprintf(b, sizeof(b), ",var=(%s)", v);
	} else if (r->var_off.value) {
		snprintf(b, sizeof(b), ",var=%" PRId64, (int64_t)r->var_off.value);
	}
	if (r->type == REG_PTR_TO_MAP_VALUE || r->type == REG_PTR_TO_MAP_VALUE_OR_NULL) {
		m = env_map(env, r->map);
		snprintf(buf, len, "%s(map=%s,off=%d%s,value_size=%u%s)", reg_type_name(r->type),
			 m ? m->name : "?", r->off, b, m ? m->value_size : 0,
			 r->rdonly ? ",read-only" : "");
	} else if (r->type == REG_PTR_TO_CTX) {
		snprintf(buf, len, "ctx(off=%d%s)", r->off, b);
	} else {
		snprintf(buf, len, "%s(size=%u,off=%d%s%s)", reg_type_name(r->type), r->mem_size,
			 r->off, b, r->ref_obj_id ? ",ringbuf record" : "");
	}
}

static const char *byte_char = ".mzr"; /* invalid, misc, zero, spilled reg */

static void log_state(struct verifier_env *env, FILE *f)
{
	struct func_state *fr = cur_frame(env);
	char b[256];
	uint32_t i;

	if (env->cur->curframe)
		fprintf(f, " frame%u:", env->cur->curframe);
	for (i = 0; i < MAX_BPF_REG; i++) {
		if (fr->regs[i].type == REG_NOT_INIT)
			continue;
		if (i == BPF_REG_10)
			continue;
		format_reg(b, sizeof(b), env, &fr->regs[i]);
		fprintf(f, " R%u=%s", i, b);
	}
	for (i = 0; i < fr->nslots; i++) {
		const struct stack_slot *s = &fr->slots[i];
		char bytes[9];
		int k, any = 0;

		for (k = 0; k < 8; k++) {
			bytes[7 - k] = byte_char[s->bytes[k] & 3];
			any |= s->bytes[k];
		}
		bytes[8] = 0;
		if (!any)
			continue;
		if (s->bytes[0] == STACK_SPILL) {
			format_reg(b, sizeof(b), env, &s->spilled);
			fprintf(f, " fp-%u=%s", (i + 1) * 8, b);
		} else {
			fprintf(f, " fp-%u=%s", (i + 1) * 8, bytes);
		}
	}
}

/* ---- facts for the cBPF compiler ---- */

static void fact_join_reg(struct verifier_reg_fact *f, const struct reg_state *r, bool first)
{
	enum verifier_fact_type t;

	switch (r->type) {
	case REG_NOT_INIT:
		t = VERIFIER_FACT_NONE;
		break;
	case REG_SCALAR:
		t = VERIFIER_FACT_SCALAR;
		break;
	case REG_PTR_TO_CTX:
		t = VERIFIER_FACT_CTX;
		break;
	default:
		t = VERIFIER_FACT_POINTER;
		break;
	}
	if (first) {
		f->type = t;
		f->value = r->var_off.value;
		f->mask = r->var_off.mask;
		f->umin = r->umin;
		f->umax = r->umax;
		f->smin = r->smin;
		f->smax = r->smax;
		f->ctx_off = r->type == REG_PTR_TO_CTX ? r->off : 0;
		return;
	}
	if (f->type != t) {
		/* NONE joined with anything stays NONE: not usable on some path */
		if (f->type != VERIFIER_FACT_NONE)
			f->type =
				t == VERIFIER_FACT_NONE ? VERIFIER_FACT_NONE : VERIFIER_FACT_MIXED;
		return;
	}
	if (t == VERIFIER_FACT_CTX && f->ctx_off != r->off)
		f->type = VERIFIER_FACT_MIXED;
	{
		struct tnum u = tnum_union((struct tnum){ f->value, f->mask }, r->var_off);

		f->value = u.value;
		f->mask = u.mask;
	}
	if (r->umin < f->umin)
		f->umin = r->umin;
	if (r->umax > f->umax)
		f->umax = r->umax;
	if (r->smin < f->smin)
		f->smin = r->smin;
	if (r->smax > f->smax)
		f->smax = r->smax;
}

/* A fact that holds for any value of its kind: a scalar may be any number,
 * a pointer of either kind (what is pointed to may differ). */
static void fact_widen_reg(struct verifier_reg_fact *f)
{
	if (f->type == VERIFIER_FACT_SCALAR) {
		f->value = 0;
		f->mask = ~0ULL;
		f->umin = 0;
		f->umax = UINT64_MAX;
		f->smin = INT64_MIN;
		f->smax = INT64_MAX;
	} else if (f->type == VERIFIER_FACT_CTX || f->type == VERIFIER_FACT_POINTER) {
		f->type = VERIFIER_FACT_MIXED;
	}
}

static void fact_record(struct verifier_env *env, uint32_t insn)
{
	struct verifier_insn_fact *f;
	bool first;
	int i;

	if (!env->facts)
		return;
	f = &env->facts->insns[insn];
	first = !(f->flags & VERIFIER_INSN_REACHABLE);
	f->flags |= VERIFIER_INSN_REACHABLE;
	if (first || env->cur->curframe > f->frame)
		f->frame = env->cur->curframe;
	{
		uint32_t fi, depth = 0;

		for (fi = 0; fi <= env->cur->curframe; fi++)
			depth += env->cur->frames[fi]->nslots * 8;
		if (depth > env->facts->max_stack_depth)
			env->facts->max_stack_depth = depth;
	}
	for (i = 0; i < MAX_BPF_REG; i++)
		fact_join_reg(&f->regs[i], &cur_regs(env)[i], first);
	for (i = 0; i < MAX_BPF_REG; i++)
		if (env->aux[insn].wide_regs & (1u << i))
			fact_widen_reg(&f->regs[i]);
}

/* The successors of insn i for facts: as it runs, and for a function's end
 * or a callback-running helper, every place control may go on from. */
static unsigned fact_successors(const struct verifier_env *env, uint32_t i, uint32_t *succ)
{
	const struct bpf_insn *in = &env->insns[i];
	uint8_t cls = BPF_CLASS(in->code);
	unsigned n = 0;
	uint32_t k;

	if (vinsn_is_exit(in)) {
		/* The program's end, or a function's: back to any caller, or
		 * to the helper that runs it (main too, should it be called). */
		for (k = 0; k < env->cnt; k++) {
			const struct bpf_insn *c = &env->insns[k];

			if (env->aux[k].flags & AUX_LD_IMM64_HI)
				continue;
			if (c->code == (BPF_JMP | BPF_CALL) && c->src_reg == BPF_PSEUDO_CALL)
				succ[n++] = k + 1;
			else if (env->aux[k].flags & AUX_CALLBACK_CALL)
				succ[n++] = k;
		}
		return n;
	}
	if (vinsn_is_ja(in)) {
		succ[n++] = (uint32_t)vinsn_jump_target(in, i);
		return n;
	}
	succ[n++] = i + (insn_is_ld_imm64(in) ? 2 : 1);
	if ((cls == BPF_JMP || cls == BPF_JMP32) && vinsn_is_cond_jump(BPF_OP(in->code)))
		succ[n++] = (uint32_t)vinsn_jump_target(in, i);
	if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL)
		succ[n++] = (uint32_t)((int64_t)i + in->imm + 1);
	if (env->aux[i].flags & AUX_CALLBACK_CALL)
		/* the callback it runs: any function may be one */
		for (k = 1; k < env->cnt; k++)
			if (env->aux[k].flags & AUX_SUBPROG_START)
				succ[n++] = k;
	return n;
}

/* The registers (bit 11: memory) that may carry a widened value after in,
 * from those before it (t). Conservative: anything a widened value may
 * flow into, or narrow through a branch, is widened. */
#define WIDE_MEM (1u << MAX_BPF_REG)
#define WIDE_ALL ((1u << (MAX_BPF_REG + 1)) - 1)

static uint32_t wide_transfer(const struct bpf_insn *in, uint32_t t)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	uint32_t d = 1u << in->dst_reg, s = 1u << in->src_reg;
	bool is_x = BPF_SRC(in->code) == BPF_X;
	uint32_t args = 0x3e, r;

	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		if (op == BPF_MOV)
			return (t & ~d) | (is_x && (t & s) ? d : 0);
		return t | (is_x && (t & s) ? d : 0);
	case BPF_LD:
		return t & ~d;
	case BPF_LDX:
		return (t & ~d) | ((t & (s | WIDE_MEM)) ? d : 0);
	case BPF_ST:
		return t;
	case BPF_STX:
		if (t & (s | d))
			t |= WIDE_MEM;
		if (BPF_MODE(in->code) == BPF_ATOMIC && (t & WIDE_MEM))
			t |= s | 1u; /* a fetch, or cmpxchg's r0 */
		return t;
	case BPF_JMP:
	case BPF_JMP32:
		if (vinsn_is_exit(in) || vinsn_is_ja(in))
			return t;
		if (op == BPF_CALL) {
			r = (t & (args | WIDE_MEM)) ? 1u : 0;
			return (t & ~0x3fu) | r;
		}
		/* A branch narrows its operands and every copy linked to
		 * them, which may be anywhere. */
		if ((t & d) || (is_x && (t & s)))
			return WIDE_ALL;
		return t;
	default:
		return WIDE_ALL;
	}
}

/*
 * The facts of the registers in regs (and of loads, when mem) are widened at
 * insn and wherever their values may flow from there; a fact recorded later
 * at such an insn is widened too (fact_record). Sound without knowing the
 * pruned path: it widens everything the pruned values may reach.
 */
void facts_widen_from(struct verifier_env *env, uint32_t insn, uint16_t regs, bool mem)
{
	uint32_t *work, *succ, nwork = 0, i, k, n;
	uint32_t t = regs | (mem ? WIDE_MEM : 0);
	int r;

	if (!env->facts)
		return;
	work = malloc(env->cnt * sizeof(*work));
	succ = malloc((env->cnt + 2) * sizeof(*succ));
	if (!work || !succ) {
		/* cannot follow the values: widen every fact */
		for (i = 0; i < env->cnt; i++) {
			env->aux[i].wide_regs = (uint16_t)((1u << MAX_BPF_REG) - 1);
			env->aux[i].wide_mem = true;
			for (r = 0; r < MAX_BPF_REG; r++)
				fact_widen_reg(&env->facts->insns[i].regs[r]);
		}
		free(work);
		free(succ);
		return;
	}
	work[nwork++] = insn;
	env->aux[insn].flags |= AUX_WIDE_QUEUED;
	env->aux[insn].wide_regs |= (uint16_t)(t & ~WIDE_MEM);
	env->aux[insn].wide_mem |= mem;
	/* Each insn is on the list at most once: it is pushed when its set
	 * grows and is not already queued (queued marks that). */
	while (nwork) {
		uint32_t in_t, out;

		i = work[--nwork];
		env->aux[i].flags &= ~AUX_WIDE_QUEUED;
		in_t = env->aux[i].wide_regs | (env->aux[i].wide_mem ? WIDE_MEM : 0);
		for (r = 0; r < MAX_BPF_REG; r++)
			if (in_t & (1u << r))
				fact_widen_reg(&env->facts->insns[i].regs[r]);
		out = wide_transfer(&env->insns[i], in_t);
		n = fact_successors(env, i, succ);
		for (k = 0; k < n; k++) {
			struct insn_aux *a;
			uint32_t have, edge = out;

			if (succ[k] >= env->cnt)
				continue;
			a = &env->aux[succ[k]];
			if (env->insns[i].code == (BPF_JMP | BPF_CALL) &&
			    (a->flags & AUX_SUBPROG_START) && succ[k] != i + 1) {
				/* into a function: its arguments as they are;
				 * a callback's come from the helper's */
				edge = in_t;
				if ((env->aux[i].flags & AUX_CALLBACK_CALL) &&
				    (in_t & (0x3eu | WIDE_MEM)))
					edge |= 0x3eu | WIDE_MEM;
			}
			have = a->wide_regs | (a->wide_mem ? WIDE_MEM : 0);
			if ((edge | have) == have)
				continue;
			a->wide_regs = (uint16_t)((edge | have) & ~WIDE_MEM);
			a->wide_mem = (edge | have) & WIDE_MEM;
			if (!(a->flags & AUX_WIDE_QUEUED)) {
				a->flags |= AUX_WIDE_QUEUED;
				work[nwork++] = succ[k];
			}
		}
	}
	free(work);
	free(succ);
}

void fact_flag(struct verifier_env *env, uint32_t insn, uint32_t flags)
{
	if (env->facts && insn < env->facts->insn_cnt)
		env->facts->insns[insn].flags |= flags;
}

/* ---- register access ---- */

int check_reg_read(struct verifier_env *env, uint32_t regno)
{
	if (cur_regs(env)[regno].type == REG_NOT_INIT)
		return verr(env, EACCES,
			    "R%u is read before it is written "
			    "(uninitialized)",
			    regno);
	return 0;
}

static int check_reg_write(struct verifier_env *env, uint32_t regno)
{
	if (regno == BPF_REG_10)
		return verr(env, EACCES,
			    "r10 is the read-only frame pointer; "
			    "copy it to another register first");
	return 0;
}

/* ---- ALU ---- */

static const char *alu_op_name(uint8_t op)
{
	switch (op) {
	case BPF_ADD:
		return "+=";
	case BPF_SUB:
		return "-=";
	case BPF_MUL:
		return "*=";
	case BPF_DIV:
		return "/=";
	case BPF_OR:
		return "|=";
	case BPF_AND:
		return "&=";
	case BPF_LSH:
		return "<<=";
	case BPF_RSH:
		return ">>=";
	case BPF_NEG:
		return "neg";
	case BPF_MOD:
		return "%=";
	case BPF_XOR:
		return "^=";
	case BPF_ARSH:
		return "s>>=";
	case BPF_END:
		return "byte swap";
	default:
		return "?";
	}
}

/* ptr (dst, in place) += or -= the scalar s. */
static int adjust_ptr(struct verifier_env *env, uint32_t dst_regno, struct reg_state *ptr,
		      const struct reg_state *s, uint8_t op)
{
	struct reg_state var;
	int64_t off;

	switch (ptr->type) {
	case REG_PTR_TO_STACK:
	case REG_PTR_TO_MAP_VALUE:
	case REG_PTR_TO_MEM:
	case REG_PTR_TO_CTX:
		break;
	case REG_PTR_TO_MAP_VALUE_OR_NULL:
	case REG_PTR_TO_MEM_OR_NULL:
		return verr(env, EACCES,
			    "R%u: arithmetic on a pointer that may be "
			    "NULL; check the pointer against NULL first",
			    dst_regno);
	default:
		return verr(env, EACCES,
			    "R%u: arithmetic on a %s pointer is not "
			    "allowed",
			    dst_regno, reg_type_name(ptr->type));
	}
	if (tnum_is_const(s->var_off)) {
		int64_t v = (int64_t)s->var_off.value;

		if (v < -MAX_PTR_OFF || v > MAX_PTR_OFF)
			return verr(env, EACCES, "R%u: pointer offset %" PRId64 " is out of range",
				    dst_regno, v);
		off = (int64_t)ptr->off + (op == BPF_ADD ? v : -v);
		if (off < -MAX_PTR_OFF || off > MAX_PTR_OFF)
			return verr(env, EACCES, "R%u: pointer offset out of range", dst_regno);
		ptr->off = (int32_t)off;
		return 0;
	}
	if (ptr->type == REG_PTR_TO_CTX)
		return verr(env, EACCES,
			    "R%u: variable offset on the context "
			    "pointer; read fields at constant offsets",
			    dst_regno);
	if (s->smin < -MAX_PTR_OFF || s->smax > MAX_PTR_OFF)
		return verr(env, EACCES,
			    "R%u: pointer arithmetic with an unbounded "
			    "value; check the index against the size first (e.g. "
			    "if (i >= N) return ...)",
			    dst_regno);
	var = *ptr;
	var.type = REG_SCALAR;
	scalar_alu(&var, s, op, true, false);
	if (var.smin < -MAX_PTR_OFF || var.smax > MAX_PTR_OFF)
		return verr(env, EACCES,
			    "R%u: pointer offset unbounded after "
			    "arithmetic; bound the index first",
			    dst_regno);
	ptr->var_off = var.var_off;
	ptr->smin = var.smin;
	ptr->smax = var.smax;
	ptr->umin = var.umin;
	ptr->umax = var.umax;
	ptr->s32_min = var.s32_min;
	ptr->s32_max = var.s32_max;
	ptr->u32_min = var.u32_min;
	ptr->u32_max = var.u32_max;
	return 0;
}

static bool same_region(const struct reg_state *a, const struct reg_state *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case REG_PTR_TO_STACK:
		return a->frameno == b->frameno;
	case REG_PTR_TO_MAP_VALUE:
		return a->map == b->map;
	case REG_PTR_TO_MEM:
		return a->ref_obj_id == b->ref_obj_id && a->ref_obj_id;
	case REG_PTR_TO_CTX:
		return true;
	default:
		return false;
	}
}

static int check_alu(struct verifier_env *env, const struct bpf_insn *in)
{
	struct reg_state *regs = cur_regs(env);
	uint8_t op = BPF_OP(in->code);
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	bool is_x = BPF_SRC(in->code) == BPF_X;
	struct reg_state *dst = &regs[in->dst_reg];
	struct reg_state src;
	int ret;

	ret = check_reg_write(env, in->dst_reg);
	if (ret)
		return ret;

	if (op == BPF_MOV) {
		if (!is_x) {
			if (is64)
				reg_mark_const(dst, (uint64_t)(int64_t)in->imm);
			else
				reg_mark_const(dst, (uint32_t)in->imm);
			return 0;
		}
		ret = check_reg_read(env, in->src_reg);
		if (ret)
			return ret;
		src = regs[in->src_reg];
		if (in->off) {
			if (src.type != REG_SCALAR)
				return verr(env, EACCES,
					    "R%u: sign-extending move of a "
					    "pointer is not allowed",
					    in->src_reg);
			*dst = src;
			scalar_movsx(dst, (unsigned)in->off, is64);
			return 0;
		}
		if (!is64 && src.type != REG_SCALAR)
			return verr(env, EACCES,
				    "R%u: 32-bit move of a pointer would "
				    "leak part of its address",
				    in->src_reg);
		if (is64 && src.type == REG_SCALAR && !tnum_is_const(src.var_off)) {
			/* Link the copies: a later check of one bounds both
			 * (clang tests a copy and uses the original). */
			if (!regs[in->src_reg].id)
				regs[in->src_reg].id = env_new_id(env);
			src = regs[in->src_reg];
		}
		*dst = src;
		if (!is64)
			scalar_zext32(dst);
		return 0;
	}

	ret = check_reg_read(env, in->dst_reg);
	if (ret)
		return ret;

	if (op == BPF_NEG || op == BPF_END) {
		if (dst->type != REG_SCALAR)
			return verr(env, EACCES, "R%u: %s on a pointer is not allowed", in->dst_reg,
				    alu_op_name(op));
		if (op == BPF_NEG) {
			struct reg_state zero;

			reg_mark_const(&zero, 0);
			scalar_alu(&zero, dst, BPF_SUB, is64, false);
			*dst = zero;
		} else {
			scalar_end(dst, (unsigned)in->imm, is64 || BPF_SRC(in->code) == BPF_TO_BE);
		}
		return 0;
	}

	if (is_x) {
		ret = check_reg_read(env, in->src_reg);
		if (ret)
			return ret;
		src = regs[in->src_reg];
	} else {
		reg_mark_const(&src, (uint64_t)(int64_t)in->imm);
	}

	if (dst->type == REG_SCALAR && src.type == REG_SCALAR) {
		scalar_alu(dst, &src, op, is64, in->off == 1);
		return 0;
	}

	/* From here on at least one operand is a pointer. */
	if (!is64)
		return verr(env, EACCES,
			    "R%u: 32-bit arithmetic on a pointer is not "
			    "allowed",
			    reg_is_pointer(dst) ? in->dst_reg : in->src_reg);
	if (op == BPF_ADD) {
		if (reg_is_pointer(dst) && reg_is_pointer(&src))
			return verr(env, EACCES,
				    "R%u: adding two pointers is not "
				    "allowed",
				    in->dst_reg);
		if (reg_is_pointer(dst))
			return adjust_ptr(env, in->dst_reg, dst, &src, BPF_ADD);
		/* scalar + pointer: the result is the pointer moved */
		{
			struct reg_state p = src, s = *dst;

			ret = adjust_ptr(env, in->dst_reg, &p, &s, BPF_ADD);
			if (ret)
				return ret;
			*dst = p;
			return 0;
		}
	}
	if (op == BPF_SUB) {
		if (reg_is_pointer(dst) && src.type == REG_SCALAR)
			return adjust_ptr(env, in->dst_reg, dst, &src, BPF_SUB);
		if (reg_is_pointer(dst) && reg_is_pointer(&src)) {
			/* The distance between two pointers into one region
			 * reveals no address; only the privileged tier gets it. */
			if (!same_region(dst, &src) || env->opts.tier < SECBPF_TIER_PRIVILEGED)
				return verr(env, EACCES,
					    "R%u: subtracting pointers is "
					    "not allowed (it may leak an address)",
					    in->dst_reg);
			reg_mark_unknown(dst);
			return 0;
		}
		return verr(env, EACCES,
			    "R%u: subtracting a pointer from a scalar "
			    "is not allowed",
			    in->dst_reg);
	}
	return verr(env, EACCES,
		    "R%u: pointer arithmetic with %s is not allowed "
		    "(only adding or subtracting a scalar)",
		    reg_is_pointer(dst) ? in->dst_reg : in->src_reg, alu_op_name(op));
}

/* ---- jumps ---- */

/* After "if (p == NULL)": in st, every copy of the maybe-NULL pointer id is
 * either the number 0 (is_null) or a valid pointer. */
static int mark_ptr_or_null(struct verifier_env *env, struct vstate *st, uint32_t id, bool is_null)
{
	uint32_t fi, r, spi, ref = 0;

	for (fi = 0; fi <= st->curframe; fi++) {
		struct func_state *f = st->frames[fi];

		for (r = 0; r < MAX_BPF_REG + f->nslots; r++) {
			struct reg_state *reg;

			if (r < MAX_BPF_REG) {
				reg = &f->regs[r];
			} else {
				spi = r - MAX_BPF_REG;
				if (spi >= f->nslots || f->slots[spi].bytes[0] != STACK_SPILL)
					continue;
				reg = &f->slots[spi].spilled;
			}
			if (reg->id != id || (reg->type != REG_PTR_TO_MAP_VALUE_OR_NULL &&
					      reg->type != REG_PTR_TO_MEM_OR_NULL))
				continue;
			if (is_null) {
				if (reg->ref_obj_id)
					ref = reg->ref_obj_id;
				reg_mark_const(reg, 0);
				continue;
			}
			reg->type = reg->type == REG_PTR_TO_MAP_VALUE_OR_NULL ? REG_PTR_TO_MAP_VALUE
									      : REG_PTR_TO_MEM;
			reg->id = 0;
		}
	}
	/* A NULL record was never reserved: nothing to submit. */
	if (ref)
		return release_reference(env, st, ref);
	return 0;
}

/* Give every scalar linked to known (a copy of the same value, same id)
 * the bounds a branch just proved for known. */
static void sync_linked_scalars(struct vstate *st, const struct reg_state *proved)
{
	struct reg_state known = *proved;
	uint32_t fi, r, spi;

	if (known.type != REG_SCALAR || !known.id)
		return;
	for (fi = 0; fi <= st->curframe; fi++) {
		struct func_state *f = st->frames[fi];
		struct reg_state *reg;

		for (r = 0; r < MAX_BPF_REG + f->nslots; r++) {
			if (r < MAX_BPF_REG) {
				reg = &f->regs[r];
			} else {
				spi = r - MAX_BPF_REG;
				if (f->slots[spi].bytes[0] != STACK_SPILL)
					continue;
				reg = &f->slots[spi].spilled;
			}
			if (reg->type == REG_SCALAR && reg->id == known.id)
				*reg = known;
		}
	}
}

static bool reg_is_const_zero(const struct reg_state *r)
{
	return r->type == REG_SCALAR && tnum_is_const(r->var_off) && r->var_off.value == 0;
}

static int check_cond_jump(struct verifier_env *env, const struct bpf_insn *in, uint32_t idx)
{
	struct reg_state *regs = cur_regs(env);
	uint8_t op = BPF_OP(in->code);
	bool is64 = BPF_CLASS(in->code) == BPF_JMP;
	bool is_x = BPF_SRC(in->code) == BPF_X;
	uint32_t target = (uint32_t)vinsn_jump_target(in, idx);
	struct reg_state *dst = &regs[in->dst_reg], srcv, *src;
	struct vstate *other;
	int taken, ret;

	ret = check_reg_read(env, in->dst_reg);
	if (ret)
		return ret;
	if (is_x) {
		ret = check_reg_read(env, in->src_reg);
		if (ret)
			return ret;
		src = &regs[in->src_reg];
	} else {
		reg_mark_const(&srcv, (uint64_t)(int64_t)in->imm);
		if (!is64)
			reg_mark_const(&srcv, (uint32_t)in->imm);
		src = &srcv;
	}

	/* Null checks: "if (p == 0)" on a maybe-NULL pointer. */
	if ((op == BPF_JEQ || op == BPF_JNE) && is64 &&
	    (dst->type == REG_PTR_TO_MAP_VALUE_OR_NULL || dst->type == REG_PTR_TO_MEM_OR_NULL) &&
	    reg_is_const_zero(src)) {
		uint32_t id = dst->id;

		if (dst->off || !tnum_is_const(dst->var_off) || dst->var_off.value)
			return verr(env, EACCES, "R%u: NULL check of a moved pointer", in->dst_reg);
		other = state_clone(env->cur);
		if (!other)
			return -ENOMEM;
		/* current state: fall through; other: jump taken */
		env->cur->insn = idx + 1;
		other->insn = target;
		other->last_insn = idx;
		ret = mark_ptr_or_null(env, env->cur, id, op == BPF_JNE);
		if (!ret)
			ret = mark_ptr_or_null(env, other, id, op == BPF_JEQ);
		if (ret) {
			state_free(other);
			return ret;
		}
		return push_pending(env, other);
	}

	if (reg_is_pointer(dst) || reg_is_pointer(src)) {
		/* Comparing two pointers into one region compares offsets;
		 * anything else would let the result reveal an address. */
		if (!(reg_is_pointer(dst) && reg_is_pointer(src) && same_region(dst, src)))
			return verr(env, EACCES,
				    "comparison involving a %s pointer "
				    "would leak its address%s",
				    reg_type_name(reg_is_pointer(dst) ? dst->type : src->type),
				    (dst->type == REG_PTR_TO_MAP_VALUE_OR_NULL ||
				     dst->type == REG_PTR_TO_MEM_OR_NULL)
					    ? "; compare the pointer itself with 0 (NULL)"
					    : "");
		if (!is64)
			return verr(env, EACCES,
				    "32-bit comparison of pointers is not "
				    "allowed");
		taken = -1;
	} else {
		taken = scalar_branch_taken(dst, src, op, is64);
	}

	if (taken == 1) {
		env->cur->insn = target;
		return 0;
	}
	if (taken == 0) {
		env->cur->insn = idx + 1;
		return 0;
	}
	other = state_clone(env->cur);
	if (!other)
		return -ENOMEM;
	other->insn = target;
	other->last_insn = idx;
	env->cur->insn = idx + 1;
	if (dst->type == REG_SCALAR && src->type == REG_SCALAR) {
		struct reg_state *odst = &other->frames[other->curframe]->regs[in->dst_reg];
		struct reg_state *osrc =
			is_x ? &other->frames[other->curframe]->regs[in->src_reg] : &srcv;
		struct reg_state tmp;
		bool ok_taken, ok_fall;

		if (!is_x) {
			tmp = srcv;
			osrc = &tmp;
		}
		ok_taken = scalar_branch_refine(odst, osrc, op, is64, true);
		ok_fall = scalar_branch_refine(dst, src, op, is64, false);
		if (!ok_taken && !ok_fall) {
			state_free(other);
			return verr(env, EFAULT,
				    "internal error: neither branch "
				    "possible");
		}
		/* copies of a tested register learn the same bounds */
		if (ok_taken) {
			sync_linked_scalars(other, odst);
			if (is_x)
				sync_linked_scalars(other, osrc);
		}
		if (ok_fall) {
			sync_linked_scalars(env->cur, dst);
			if (is_x)
				sync_linked_scalars(env->cur, src);
		}
		if (!ok_taken) {
			state_free(other);
			return 0;
		}
		if (!ok_fall) {
			/* Only the jump can happen: follow it instead. */
			state_free(env->cur);
			env->cur = other;
			return 0;
		}
	}
	return push_pending(env, other);
}

/* ---- ld_imm64 ---- */

static int check_ld_imm64(struct verifier_env *env, const struct bpf_insn *in, uint32_t idx)
{
	struct reg_state *dst = &cur_regs(env)[in->dst_reg];
	const struct object_map *m;
	int ret;

	ret = check_reg_write(env, in->dst_reg);
	if (ret)
		return ret;
	if (in->src_reg == 0) {
		reg_mark_const(dst, insn_ld_imm64_value(in));
		return 0;
	}
	if (in->src_reg == BPF_PSEUDO_FUNC) {
		reg_mark_not_init(dst);
		dst->type = REG_PTR_TO_FUNC;
		dst->func = (uint32_t)((int64_t)idx + in->imm + 1);
		reg_set_var_const(dst, 0);
		return 0;
	}
	/* map references */
	if (env->opts.tier == SECBPF_TIER_RESTRICTED)
		return verr(env, EACCES,
			    "the restricted tier allows no maps and no "
			    "global data (direct map-value access)%s%s",
			    env->opts.tier_reason ? ": " : "",
			    env->opts.tier_reason ? env->opts.tier_reason : "");
	/* The map exists and a direct value access stays inside its value:
	 * check_map_ref() (verifier_cfg.c) checked every reference at load. */
	m = env_map(env, (uint32_t)in->imm);
	if (!m)
		return verr(env, EFAULT, "internal error: map reference not checked at load");
	fact_flag(env, idx, VERIFIER_INSN_MAP_ACCESS);
	reg_mark_not_init(dst);
	dst->map = (uint32_t)in->imm;
	reg_set_var_const(dst, 0);
	if (in->src_reg == BPF_PSEUDO_MAP_FD) {
		dst->type = REG_CONST_PTR_TO_MAP;
		return 0;
	}
	/* BPF_PSEUDO_MAP_VALUE: a pointer into the map's only value */
	dst->type = REG_PTR_TO_MAP_VALUE;
	dst->off = in[1].imm;
	dst->rdonly = map_is_rdonly(m);
	return 0;
}

/* ---- loads and stores ---- */

static int check_ldst(struct verifier_env *env, const struct bpf_insn *in, uint32_t idx)
{
	uint8_t cls = BPF_CLASS(in->code);
	unsigned size = verifier_access_size(in->code);
	int ret;

	if (cls == BPF_LDX) {
		ret = check_reg_read(env, in->src_reg);
		if (ret)
			return ret;
		ret = check_reg_write(env, in->dst_reg);
		if (ret)
			return ret;
		return check_mem_access(env, idx, in->src_reg, in->off, size, MEM_READ, in->dst_reg,
					BPF_MODE(in->code) == BPF_MEMSX);
	}
	ret = check_reg_read(env, in->dst_reg);
	if (ret)
		return ret;
	if (cls == BPF_ST)
		return check_mem_access(env, idx, in->dst_reg, in->off, size, MEM_WRITE, -1, false);
	ret = check_reg_read(env, in->src_reg);
	if (ret)
		return ret;
	if (BPF_MODE(in->code) == BPF_MEM)
		return check_mem_access(env, idx, in->dst_reg, in->off, size, MEM_WRITE,
					in->src_reg, false);
	/* atomics */
	if (in->imm == BPF_CMPXCHG) {
		ret = check_reg_read(env, BPF_REG_0);
		if (ret)
			return ret;
		if (cur_regs(env)[BPF_REG_0].type != REG_SCALAR)
			return verr(env, EACCES,
				    "R0: compare-and-exchange with a "
				    "pointer is not allowed");
	}
	if (cur_regs(env)[in->src_reg].type != REG_SCALAR)
		return verr(env, EACCES,
			    "R%u: atomic operation with a pointer would "
			    "leak it",
			    in->src_reg);
	ret = check_mem_access(env, idx, in->dst_reg, in->off, size, MEM_ATOMIC, in->src_reg,
			       false);
	if (ret)
		return ret;
	if (in->imm == BPF_CMPXCHG)
		reg_mark_unknown_size(&cur_regs(env)[BPF_REG_0], size);
	else if (in->imm & BPF_FETCH)
		reg_mark_unknown_size(&cur_regs(env)[in->src_reg], size);
	return 0;
}

/* ---- the exploration ---- */

/* Execute the instruction at env->cur->insn. Returns 0 to go on, 1 when the
 * path ended (the entry function returned), <0 on rejection. */
static int step_insn(struct verifier_env *env)
{
	uint32_t idx = env->cur->insn;
	const struct bpf_insn *in = &env->insns[idx];
	uint8_t cls = BPF_CLASS(in->code);
	int ret;

	env->cur->last_insn = idx;
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		ret = check_alu(env, in);
		env->cur->insn = idx + 1;
		return ret;
	case BPF_LD:
		ret = check_ld_imm64(env, in, idx);
		env->cur->insn = idx + 2;
		return ret;
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		ret = check_ldst(env, in, idx);
		env->cur->insn = idx + 1;
		return ret;
	case BPF_JMP:
	case BPF_JMP32:
		if (vinsn_is_ja(in)) {
			env->cur->insn = (uint32_t)vinsn_jump_target(in, idx);
			return 0;
		}
		if (vinsn_is_exit(in))
			return check_exit(env, idx);
		if (BPF_OP(in->code) == BPF_CALL) {
			if (in->src_reg == BPF_PSEUDO_CALL)
				return check_subprog_call(env, in, idx);
			return check_helper_call(env, in, idx);
		}
		return check_cond_jump(env, in, idx);
	}
	return verr(env, EINVAL, "unknown opcode 0x%02x", in->code);
}

static void log_insn(struct verifier_env *env, uint32_t idx)
{
	FILE *f = env->opts.log;
	const struct object_line *line;
	char dis[128];

	if (!env->opts.verbose || !f)
		return;
	line = env->prog ? object_prog_line(env->prog, idx) : NULL;
	if (line && line->line &&
	    (!env->last_line || line->line != env->last_line->line ||
	     line->file != env->last_line->file)) {
		env->last_line = line;
		fprintf(f, "; %s @ %s:%u\n", line->source ? line->source : "",
			line->file ? line->file : "?", line->line);
	}
	insn_disasm(env->insns, env->cnt, idx, dis, sizeof(dis));
	fprintf(f, "%u: (%02x) %s\t;", idx, env->insns[idx].code, dis);
	log_state(env, f);
	fputc('\n', f);
}

static struct vstate *initial_state(void)
{
	struct vstate *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->frames[0] = frame_new(0, 0, 0);
	if (!st->frames[0]) {
		free(st);
		return NULL;
	}
	/* r1: the context, struct seccomp_data */
	st->frames[0]->regs[BPF_REG_1].type = REG_PTR_TO_CTX;
	reg_set_var_const(&st->frames[0]->regs[BPF_REG_1], 0);
	st->last_insn = UINT32_MAX;
	return st;
}

/* Explore every path from the entry, one pending branch at a time, until
 * all end, one is rejected or the complexity limit is reached. */
static int explore_paths(struct verifier_env *env, uint32_t *bad_insn)
{
	uint64_t limit =
		env->opts.complexity_limit ? env->opts.complexity_limit : VERIFIER_COMPLEXITY_LIMIT;
	int ret;

	env->cur = initial_state();
	if (!env->cur)
		return -ENOMEM;
	for (;;) {
		uint32_t idx = env->cur->insn;

		*bad_insn = idx;
		if (++env->processed > limit)
			return verr(env, E2BIG,
				    "the program is too complex: more than "
				    "%" PRIu64 " instructions processed over all "
				    "paths; bound its loops more tightly or split it",
				    limit);
		if (env->aux[idx].flags & AUX_PRUNE_POINT) {
			ret = is_state_visited(env, idx);
			if (ret < 0)
				return ret;
			if (ret == 1) {
				if (env->opts.verbose && env->opts.log)
					fprintf(env->opts.log, "%u: safe (state seen before)\n",
						idx);
				goto path_end;
			}
		}
		env->cur->reentry = false;
		fact_record(env, idx);
		log_insn(env, idx);
		ret = step_insn(env);
		if (ret < 0)
			return ret;
		if (ret == 0)
			continue;
	path_end:
		path_done(env->cur);
		state_free(env->cur);
		env->cur = NULL;
		if (!env->npending)
			return 0;
		env->cur = env->pending[--env->npending];
		if (env->opts.verbose && env->opts.log)
			fprintf(env->opts.log, "from %u to %u:\n", env->cur->last_insn,
				env->cur->insn);
	}
}

static void env_free(struct verifier_env *env)
{
	uint32_t i;

	state_free(env->cur);
	for (i = 0; i < env->npending; i++)
		state_free(env->pending[i]);
	free(env->pending);
	while (env->retired) {
		struct vstate_node *next = env->retired->next;

		free(env->retired); /* its frames were freed when retired */
		env->retired = next;
	}
	if (env->aux) {
		for (i = 0; i < env->cnt; i++) {
			struct vstate_node *n = env->aux[i].states, *next;

			for (; n; n = next) {
				uint32_t k;

				next = n->next;
				for (k = 0; k < VERIFIER_MAX_FRAMES; k++)
					frame_free(n->st.frames[k]);
				free(n);
			}
		}
	}
	free(env->aux);
}

void verifier_facts_free(struct verifier_facts *facts)
{
	if (!facts)
		return;
	free(facts->insns);
	free(facts);
}

/* The registers an instruction reads, for the message. */
static void append_regs(struct verifier_env *env, const struct bpf_insn *in, char *buf, size_t len)
{
	bool used[MAX_BPF_REG] = { false };
	uint8_t cls = BPF_CLASS(in->code);
	size_t n = strlen(buf);
	char b[200];
	int r;

	if (!env->cur)
		return;
	if (cls == BPF_JMP && BPF_OP(in->code) == BPF_CALL) {
		for (r = 1; r <= 5; r++)
			used[r] = true;
	} else if (cls == BPF_JMP && BPF_OP(in->code) == BPF_EXIT) {
		used[0] = true;
	} else {
		used[in->dst_reg] = true;
		if (BPF_SRC(in->code) == BPF_X || cls == BPF_LDX || cls == BPF_STX)
			used[in->src_reg] = true;
	}
	for (r = 0; r < MAX_BPF_REG && n < len; r++) {
		const struct reg_state *reg = &cur_regs(env)[r];

		if (!used[r] ||
		    (reg->type == REG_NOT_INIT && cls == BPF_JMP && BPF_OP(in->code) == BPF_CALL))
			continue;
		format_reg(b, sizeof(b), env, reg);
		n += snprintf(buf + n, len - n, " R%d=%s", r, b);
	}
}

int verifier_check(const struct object *obj, const struct object_prog *prog,
		   const struct verifier_opts *opts, struct verifier_facts **facts,
		   struct secbpf_err *err)
{
	struct verifier_env env = { 0 };
	uint32_t bad = 0;
	int ret;

	if (facts)
		*facts = NULL;
	if (!prog || !prog->insns || !prog->insn_cnt)
		return err_set(err, EINVAL, "empty program");
	if (prog->insn_cnt > INSN_MAX_CNT)
		return err_set(err, E2BIG, "program has %u instructions (limit %u)", prog->insn_cnt,
			       INSN_MAX_CNT);
	env.obj = obj;
	env.prog = prog;
	env.insns = prog->insns;
	env.cnt = prog->insn_cnt;
	if (opts) {
		size_t sz = opts->sz ? opts->sz : sizeof(*opts);

		memcpy(&env.opts, opts, sz < sizeof(env.opts) ? sz : sizeof(env.opts));
	} else {
		env.opts.tier = SECBPF_TIER_UNPRIVILEGED;
	}
	env.aux = calloc(env.cnt, sizeof(*env.aux));
	env.facts = calloc(1, sizeof(*env.facts));
	if (!env.aux || !env.facts) {
		ret = -ENOMEM;
		goto out;
	}
	env.facts->insn_cnt = env.cnt;
	env.facts->insns = calloc(env.cnt, sizeof(*env.facts->insns));
	if (!env.facts->insns) {
		ret = -ENOMEM;
		goto out;
	}

	ret = verifier_cfg_check(&env, &bad);
	if (!ret)
		ret = verifier_liveness(&env);
	if (!ret)
		ret = explore_paths(&env, &bad);
	if (ret) {
		const struct object_line *line = object_prog_line(prog, bad);
		char dis[128] = "";
		char msg[SECBPF_ERR_MAX];
		size_t n = 0;

		if (!env.has_reason)
			snprintf(env.reason, sizeof(env.reason), "%s", strerror(-ret));
		if (bad < env.cnt)
			insn_disasm(env.insns, env.cnt, bad, dis, sizeof(dis));
		if (line && line->file)
			n += snprintf(msg + n, sizeof(msg) - n, "%s:%u: ", line->file, line->line);
		n += snprintf(msg + n, sizeof(msg) - n, "insn %u (%s): %s", bad, dis, env.reason);
		if (bad < env.cnt && n < sizeof(msg))
			append_regs(&env, &env.insns[bad], msg, sizeof(msg));
		err_set(err, -ret, "%s", msg);
		if (env.opts.log && env.opts.verbose)
			fprintf(env.opts.log, "%s\n", msg);
		goto out;
	}
	env.facts->insns_processed = env.processed;
	env.facts->states_stored = env.states_stored;
	{
		uint32_t i;

		for (i = 0; i < env.cnt; i++) {
			uint32_t fl = env.facts->insns[i].flags;

			if (fl & VERIFIER_INSN_HELPER_CALL)
				env.facts->uses_helpers = true;
			if (fl & VERIFIER_INSN_MAP_ACCESS)
				env.facts->uses_maps = true;
		}
	}
	if (env.opts.verbose && env.opts.log)
		fprintf(env.opts.log,
			"verified: %" PRIu64 " insns processed, %u states "
			"stored\n",
			env.processed, env.states_stored);
	if (facts) {
		*facts = env.facts;
		env.facts = NULL;
	}
out:
	verifier_facts_free(env.facts);
	env_free(&env);
	return ret;
}
