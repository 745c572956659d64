// SPDX-License-Identifier: MIT
/*
 * Calls in the verifier: helper calls checked against helper_protos.c and
 * the tier, bpf-to-bpf calls with their own frames, callbacks run by
 * bpf_loop and bpf_for_each_map_elem, exits, and ringbuf references that
 * every path must give back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vm/helper_protos.h"
#include "verifier/verifier_internal.h"

/* What the arguments told us, for the return value and the callback. */
struct call_meta {
	int64_t map;	    /* index of the map argument, -1 if none */
	uint32_t mem_regno; /* the buffer a size argument belongs to */
	enum helper_arg mem_type;
	uint32_t func; /* callback start slot */
	bool has_func;
	uint32_t release; /* ringbuf reference to release */
	uint64_t alloc_size;
};

static bool is_const_zero(const struct reg_state *r)
{
	return r->type == REG_SCALAR && tnum_is_const(r->var_off) && r->var_off.value == 0;
}

/* Every copy of a released pointer (registers and spills, all frames)
 * becomes unusable: the record belongs to the ringbuf again. */
static void release_reg_refs(struct vstate *st, uint32_t ref_obj_id)
{
	uint32_t fi, r, spi;

	for (fi = 0; fi <= st->curframe; fi++) {
		struct func_state *f = st->frames[fi];

		for (r = 0; r < MAX_BPF_REG; r++)
			if (f->regs[r].ref_obj_id == ref_obj_id)
				reg_mark_not_init(&f->regs[r]);
		for (spi = 0; spi < f->nslots; spi++)
			if (f->slots[spi].bytes[0] == STACK_SPILL &&
			    f->slots[spi].spilled.ref_obj_id == ref_obj_id)
				reg_mark_not_init(&f->slots[spi].spilled);
	}
}

int release_reference(struct verifier_env *env, struct vstate *st, uint32_t ref_obj_id)
{
	uint32_t i;

	for (i = 0; i < st->nrefs; i++) {
		if (st->refs[i].id != ref_obj_id)
			continue;
		memmove(&st->refs[i], &st->refs[i + 1], (st->nrefs - i - 1) * sizeof(st->refs[0]));
		st->nrefs--;
		release_reg_refs(st, ref_obj_id);
		return 0;
	}
	return verr(env, EACCES,
		    "the ringbuf record was already submitted or "
		    "discarded");
}

static int check_size_arg(struct verifier_env *env, uint32_t regno, enum helper_arg t,
			  const struct call_meta *meta, const char *name)
{
	struct reg_state *reg = &cur_regs(env)[regno];

	if (reg->type != REG_SCALAR)
		return verr(env, EACCES, "R%u: the size passed to %s must be a number", regno,
			    name);
	if (reg->smin < 0)
		return verr(env, EACCES,
			    "R%u: the size passed to %s may be negative; "
			    "use an unsigned size or check it first",
			    regno, name);
	if (reg->umax > (1U << 29))
		return verr(env, EACCES,
			    "R%u: the size passed to %s is unbounded; "
			    "check it against the buffer size first",
			    regno, name);
	if (t == HELPER_ARG_CONST_SIZE && reg->umin == 0)
		return verr(env, EACCES, "R%u: the size passed to %s may be zero", regno, name);
	return check_helper_mem(env, meta->mem_regno, reg->umax,
				meta->mem_type == HELPER_ARG_UNINIT_MEM, "the buffer");
}

static int check_const_str(struct verifier_env *env, uint32_t regno, const char *name)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	const struct object_map *m;
	int64_t off;

	if (reg->type != REG_PTR_TO_MAP_VALUE || !tnum_is_const(reg->var_off))
		goto bad;
	m = env_map(env, reg->map);
	if (!m || !map_is_rdonly(m) || !m->init_data)
		goto bad;
	off = (int64_t)reg->off + (int64_t)reg->var_off.value;
	if (off < 0 || off >= m->value_size)
		goto bad;
	if (!memchr(m->init_data + off, 0, m->value_size - (size_t)off))
		goto bad;
	return 0;
bad:
	return verr(env, EACCES,
		    "R%u: %s needs a constant NUL-terminated string "
		    "in read-only data (a string literal)",
		    regno, name);
}

/* Helpers that change the map given as their first argument. */
static bool helper_writes_map(int32_t id)
{
	switch (id) {
	case BPF_FUNC_map_update_elem:
	case BPF_FUNC_map_delete_elem:
	case BPF_FUNC_map_push_elem:
	case BPF_FUNC_map_pop_elem:
	case BPF_FUNC_task_storage_delete:
		return true;
	default:
		return false;
	}
}

static int check_helper_arg(struct verifier_env *env, const struct helper_proto *p, uint32_t argno,
			    struct call_meta *meta, const char *name)
{
	uint32_t regno = argno + 1;
	enum helper_arg t = p->args[argno];
	struct reg_state *reg = &cur_regs(env)[regno];
	const struct object_map *m = meta->map >= 0 ? env_map(env, (uint32_t)meta->map) : NULL;
	int ret;

	if (t == HELPER_ARG_ANYTHING_OPT && reg->type == REG_NOT_INIT)
		return 0; /* bpf_trace_printk with fewer values */
	ret = check_reg_read(env, regno);
	if (ret)
		return ret;
	switch (t) {
	case HELPER_ARG_NONE:
		return 0;
	case HELPER_ARG_ANYTHING_OPT:
	case HELPER_ARG_ANYTHING:
		if (reg_is_pointer(reg))
			return verr(env, EACCES,
				    "R%u: passing a pointer as a number to "
				    "%s would leak its address",
				    regno, name);
		return 0;
	case HELPER_ARG_CONST_MAP_PTR:
		if (reg->type != REG_CONST_PTR_TO_MAP)
			return verr(env, EACCES,
				    "R%u: %s expects a map (the address of "
				    "a map variable), not %s",
				    regno, name, reg_type_name(reg->type));
		m = env_map(env, reg->map);
		if (!m)
			return verr(env, EFAULT, "internal error: bad map index");
		if (m->type >= 64 || !(p->map_types & (1ULL << m->type)))
			return verr(env, EACCES,
				    "%s cannot be used with map %s of "
				    "type %s",
				    name, m->name, helper_map_type_name(m->type));
		/* A read-only map (.rodata, BPF_F_RDONLY_PROG) is never changed
		 * by the program: its bytes are folded as constants elsewhere
		 * in the verifier and by the compiler, so a helper that writes
		 * to the map would make those constants lie. */
		if (map_is_rdonly(m) && helper_writes_map(p->id))
			return verr(env, EACCES,
				    "%s: map %s is read-only for the program (write into map "
				    "forbidden); use a map without BPF_F_RDONLY_PROG, not .rodata",
				    name, m->name);
		meta->map = reg->map;
		return 0;
	case HELPER_ARG_MAP_KEY:
	case HELPER_ARG_MAP_VALUE:
	case HELPER_ARG_UNINIT_MAP_VALUE:
	case HELPER_ARG_MAP_VALUE_OR_NULL:
		if (!m)
			return verr(env, EFAULT, "internal error: no map argument");
		if (t == HELPER_ARG_MAP_VALUE_OR_NULL && is_const_zero(reg))
			return 0;
		if (t == HELPER_ARG_MAP_KEY)
			return check_helper_mem(env, regno, m->key_size, false, "the map key");
		return check_helper_mem(env, regno, m->value_size, t == HELPER_ARG_UNINIT_MAP_VALUE,
					"the map value");
	case HELPER_ARG_MEM:
	case HELPER_ARG_UNINIT_MEM:
		/* checked with its size, in the next argument */
		meta->mem_regno = regno;
		meta->mem_type = t;
		if (reg->type == REG_SCALAR)
			return verr(env, EACCES,
				    "R%u: %s expects a pointer to a "
				    "buffer, not a number",
				    regno, name);
		return 0;
	case HELPER_ARG_CONST_SIZE:
	case HELPER_ARG_CONST_SIZE_OR_ZERO:
		return check_size_arg(env, regno, t, meta, name);
	case HELPER_ARG_ALLOC_SIZE:
		if (reg->type != REG_SCALAR || !tnum_is_const(reg->var_off))
			return verr(env, EACCES,
				    "R%u: the size of a ringbuf record "
				    "must be a constant",
				    regno);
		if (reg->var_off.value > (1U << 29))
			return verr(env, EACCES,
				    "R%u: ringbuf record size %" PRIu64 " is too large", regno,
				    reg->var_off.value);
		meta->alloc_size = reg->var_off.value;
		return 0;
	case HELPER_ARG_FUNC:
		if (reg->type != REG_PTR_TO_FUNC)
			return verr(env, EACCES,
				    "R%u: %s expects a callback function "
				    "(the address of a static function)",
				    regno, name);
		meta->func = reg->func;
		meta->has_func = true;
		return 0;
	case HELPER_ARG_STACK_OR_NULL:
		if (is_const_zero(reg) || reg->type == REG_PTR_TO_STACK)
			return 0;
		return verr(env, EACCES,
			    "R%u: the callback context passed to %s must "
			    "point to the stack, or be NULL",
			    regno, name);
	case HELPER_ARG_TASK_OR_NULL:
		if (is_const_zero(reg))
			return 0;
		return verr(env, EACCES,
			    "R%u: pass NULL as the task to %s: a seccomp "
			    "filter gets the storage of its own process (seed 011)",
			    regno, name);
	case HELPER_ARG_RINGBUF_MEM:
		if (reg->type == REG_PTR_TO_MEM_OR_NULL)
			return verr(env, EACCES,
				    "R%u may be NULL: check the record "
				    "against NULL before %s",
				    regno, name);
		if (reg->type != REG_PTR_TO_MEM || !reg->ref_obj_id)
			return verr(env, EACCES,
				    "R%u: %s expects a record returned by "
				    "bpf_ringbuf_reserve",
				    regno, name);
		if (reg->off || !tnum_is_const(reg->var_off) || reg->var_off.value)
			return verr(env, EACCES,
				    "R%u: pass the pointer returned by "
				    "bpf_ringbuf_reserve to %s unchanged",
				    regno, name);
		meta->release = reg->ref_obj_id;
		return 0;
	case HELPER_ARG_CTX:
		if (reg->type != REG_PTR_TO_CTX || reg->off || !tnum_is_const(reg->var_off) ||
		    reg->var_off.value)
			return verr(env, EACCES,
				    "R%u: %s expects the context pointer "
				    "(the filter's argument) unchanged",
				    regno, name);
		return 0;
	case HELPER_ARG_CONST_STR:
		return check_const_str(env, regno, name);
	}
	return verr(env, EFAULT, "internal error: unknown argument type");
}

/* Enter the callback of bpf_loop / bpf_for_each_map_elem at insn idx. The
 * caller's registers stay as they are, so that returning to idx runs the
 * same call again: that is how the verifier covers every iteration. */
static int enter_callback(struct verifier_env *env, const struct helper_proto *p,
			  const struct call_meta *meta, uint32_t idx)
{
	struct vstate *st = env->cur;
	struct func_state *caller = st->frames[st->curframe];
	struct func_state *cb;
	struct vstate *after;
	const struct object_map *m;
	int r, ret;

	if (st->curframe + 1 >= VERIFIER_MAX_FRAMES)
		return verr(env, EACCES,
			    "callbacks and calls nested deeper than %d "
			    "frames",
			    VERIFIER_MAX_FRAMES);
	/* the path where the helper has finished (possibly after 0 runs) */
	after = state_clone(st);
	if (!after)
		return -ENOMEM;
	for (r = BPF_REG_1; r <= BPF_REG_5; r++)
		reg_mark_not_init(&after->frames[after->curframe]->regs[r]);
	reg_mark_unknown(&after->frames[after->curframe]->regs[BPF_REG_0]);
	after->insn = idx + 1;
	after->last_insn = idx;
	after->reentry = false;
	ret = push_pending(env, after);
	if (ret)
		return ret;

	cb = frame_new(st->curframe + 1, meta->func, idx);
	if (!cb)
		return -ENOMEM;
	cb->is_callback = true;
	switch (p->callback) {
	case HELPER_CB_LOOP:
		/* long cb(u32 index, void *ctx) */
		reg_mark_unknown_size(&cb->regs[BPF_REG_1], 4);
		cb->regs[BPF_REG_2] = caller->regs[BPF_REG_3];
		break;
	case HELPER_CB_FOR_EACH_MAP_ELEM:
		/* long cb(struct bpf_map *map, void *key, void *value, void *ctx) */
		m = env_map(env, (uint32_t)meta->map);
		if (!m) {
			free(cb);
			return verr(env, EFAULT, "internal error: no map");
		}
		cb->regs[BPF_REG_1] = caller->regs[BPF_REG_1];
		reg_mark_not_init(&cb->regs[BPF_REG_2]);
		cb->regs[BPF_REG_2].type = REG_PTR_TO_MEM;
		cb->regs[BPF_REG_2].mem_size = m->key_size;
		cb->regs[BPF_REG_2].rdonly = true;
		reg_set_var_const(&cb->regs[BPF_REG_2], 0);
		reg_mark_not_init(&cb->regs[BPF_REG_3]);
		cb->regs[BPF_REG_3].type = REG_PTR_TO_MAP_VALUE;
		cb->regs[BPF_REG_3].map = (uint32_t)meta->map;
		cb->regs[BPF_REG_3].rdonly = map_is_rdonly(m);
		reg_set_var_const(&cb->regs[BPF_REG_3], 0);
		cb->regs[BPF_REG_4] = caller->regs[BPF_REG_3];
		break;
	case HELPER_CB_NONE:
		break;
	}
	st->curframe++;
	st->frames[st->curframe] = cb;
	st->insn = meta->func;
	return 0;
}

int check_helper_call(struct verifier_env *env, const struct bpf_insn *insn, uint32_t idx)
{
	const struct helper_proto *p = helper_proto_find(insn->imm);
	const char *name = helper_proto_name(insn->imm);
	struct call_meta meta = { .map = -1 };
	struct reg_state *regs;
	uint32_t i;
	int ret;

	if (!p)
		return verr(env, EINVAL, "unknown helper function #%d", insn->imm);
	fact_flag(env, idx, VERIFIER_INSN_HELPER_CALL | VERIFIER_INSN_NEEDS_STATE);
	if (env->opts.tier == SECBPF_TIER_RESTRICTED)
		return verr(env, EACCES,
			    "%s: the restricted tier allows no helper "
			    "calls%s%s",
			    name, env->opts.tier_reason ? ": " : "",
			    env->opts.tier_reason ? env->opts.tier_reason : "");
	if (p->refused)
		return verr(env, EACCES, "%s: %s", name, p->refused);
	if (p->min_tier > env->opts.tier)
		return verr(env, EACCES,
			    "%s needs the %s tier (CAP_BPF and "
			    "CAP_PERFMON in the initial user namespace); this "
			    "filter is verified for the %s tier%s%s",
			    name, secbpf_tier_name(p->min_tier), secbpf_tier_name(env->opts.tier),
			    env->opts.tier_reason ? ": " : "",
			    env->opts.tier_reason ? env->opts.tier_reason : "");
	if (insn->imm == BPF_FUNC_tail_call && env->cur->nrefs)
		return verr(env, EACCES,
			    "bpf_tail_call with a ringbuf record still "
			    "reserved: submit or discard it first");

	for (i = 0; i < 5 && p->args[i] != HELPER_ARG_NONE; i++) {
		ret = check_helper_arg(env, p, i, &meta, name);
		if (ret)
			return ret;
	}
	if (meta.map >= 0)
		fact_flag(env, idx, VERIFIER_INSN_MAP_ACCESS);

	if (p->callback != HELPER_CB_NONE)
		return enter_callback(env, p, &meta, idx);

	if (meta.release) {
		ret = release_reference(env, env->cur, meta.release);
		if (ret)
			return ret;
	}

	regs = cur_regs(env);
	for (i = BPF_REG_1; i <= BPF_REG_5; i++)
		reg_mark_not_init(&regs[i]);
	switch (p->ret) {
	case HELPER_RET_INTEGER:
		if (p->ret_umax == UINT32_MAX)
			reg_mark_unknown_size(&regs[BPF_REG_0], 4);
		else
			reg_mark_unknown(&regs[BPF_REG_0]);
		break;
	case HELPER_RET_VOID:
		reg_mark_not_init(&regs[BPF_REG_0]);
		break;
	case HELPER_RET_MAP_VALUE_OR_NULL: {
		const struct object_map *m = env_map(env, (uint32_t)meta.map);

		if (!m)
			return verr(env, EFAULT, "internal error: no map");
		reg_mark_not_init(&regs[BPF_REG_0]);
		regs[BPF_REG_0].type = REG_PTR_TO_MAP_VALUE_OR_NULL;
		regs[BPF_REG_0].map = (uint32_t)meta.map;
		regs[BPF_REG_0].id = env_new_id(env);
		regs[BPF_REG_0].rdonly = map_is_rdonly(m);
		reg_set_var_const(&regs[BPF_REG_0], 0);
		break;
	}
	case HELPER_RET_RINGBUF_MEM_OR_NULL: {
		struct vstate *st = env->cur;
		uint32_t id = env_new_id(env);

		if (st->nrefs >= VERIFIER_MAX_REFS)
			return verr(env, EACCES,
				    "more than %d ringbuf records reserved "
				    "at once",
				    VERIFIER_MAX_REFS);
		st->refs[st->nrefs].id = id;
		st->refs[st->nrefs].insn = idx;
		st->refs[st->nrefs].frameno = st->curframe;
		st->nrefs++;
		reg_mark_not_init(&regs[BPF_REG_0]);
		regs[BPF_REG_0].type = REG_PTR_TO_MEM_OR_NULL;
		regs[BPF_REG_0].mem_size = (uint32_t)meta.alloc_size;
		regs[BPF_REG_0].id = id;
		regs[BPF_REG_0].ref_obj_id = id;
		reg_set_var_const(&regs[BPF_REG_0], 0);
		break;
	}
	}
	env->cur->insn = idx + 1;
	return 0;
}

int check_subprog_call(struct verifier_env *env, const struct bpf_insn *insn, uint32_t idx)
{
	struct vstate *st = env->cur;
	struct func_state *caller = st->frames[st->curframe];
	struct func_state *callee;
	uint32_t target = (uint32_t)((int64_t)idx + insn->imm + 1);
	int r;

	fact_flag(env, idx, VERIFIER_INSN_SUBPROG_CALL);
	if (st->curframe + 1 >= VERIFIER_MAX_FRAMES)
		return verr(env, EACCES,
			    "calls nested deeper than %d frames "
			    "(recursion is not allowed)",
			    VERIFIER_MAX_FRAMES);
	callee = frame_new(st->curframe + 1, target, idx);
	if (!callee)
		return -ENOMEM;
	/* r1-r5 are the arguments; the callee may not read more than were set */
	for (r = BPF_REG_1; r <= BPF_REG_5; r++)
		callee->regs[r] = caller->regs[r];
	st->curframe++;
	st->frames[st->curframe] = callee;
	st->insn = target;
	return 0;
}

int check_exit(struct verifier_env *env, uint32_t idx)
{
	struct vstate *st = env->cur;
	struct func_state *f = st->frames[st->curframe];
	struct func_state *caller;
	struct reg_state *r0 = &f->regs[BPF_REG_0];
	uint32_t i;

	(void)idx;
	/*
	 * The program and a callback must return a value. A subprogram need
	 * not, as in the kernel: its R0 goes back to the caller as it is, and
	 * the caller may not read it unset (clang leaves a callee a bare exit
	 * when it has propagated the callee's constant return to the caller).
	 */
	if (r0->type == REG_NOT_INIT && (st->curframe == 0 || f->is_callback))
		return verr(env, EACCES,
			    "R0 is not set at exit: the function must "
			    "return a value");
	if (st->curframe == 0) {
		if (reg_is_pointer(r0))
			return verr(env, EACCES,
				    "R0 leaks a pointer at exit: a filter "
				    "returns a SECCOMP_RET_* number");
		if (st->nrefs)
			return verr(env, EACCES,
				    "the ringbuf record reserved at insn %u "
				    "is neither submitted nor discarded on this path",
				    st->refs[0].insn);
		return 1;
	}
	if (f->is_callback) {
		if (r0->type != REG_SCALAR)
			return verr(env, EACCES,
				    "R0 leaks a pointer: a callback returns "
				    "0 (continue) or 1 (stop)");
		if (r0->smin < 0 || r0->smax > 1)
			return verr(env, EACCES,
				    "a callback must return 0 (continue) "
				    "or 1 (stop)");
		for (i = 0; i < st->nrefs; i++)
			if (st->refs[i].frameno == st->curframe)
				return verr(env, EACCES,
					    "the callback must submit or "
					    "discard the ringbuf record it reserved at "
					    "insn %u",
					    st->refs[i].insn);
	} else if (r0->type == REG_PTR_TO_STACK && r0->frameno >= st->curframe) {
		return verr(env, EACCES,
			    "returning a pointer to the function's own "
			    "stack, which is gone after the return");
	}
	for (i = 0; i < st->nrefs; i++)
		if (st->refs[i].frameno == st->curframe)
			st->refs[i].frameno = st->curframe - 1;

	caller = st->frames[st->curframe - 1];
	if (f->is_callback) {
		/* back to the helper call: it may run the callback again */
		st->insn = f->callsite;
		st->reentry = true;
		st->cb_iter++;
	} else {
		caller->regs[BPF_REG_0] = *r0;
		for (i = BPF_REG_1; i <= BPF_REG_5; i++)
			reg_mark_not_init(&caller->regs[i]);
		st->insn = f->callsite + 1;
	}
	free(f->slots);
	free(f);
	st->frames[st->curframe] = NULL;
	st->curframe--;
	return 0;
}
