// SPDX-License-Identifier: MIT
/*
 * Structural checks of the verifier, done once before any path is explored:
 * every instruction well formed, functions found, jumps inside their
 * function, nothing falling off an end, no unreachable code.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vm/helper_protos.h"
#include "vm/insn.h"
#include "verifier/verifier_internal.h"

/* ---- structural checks ---- */

bool vinsn_is_cond_jump(uint8_t op)
{
	switch (op) {
	case BPF_JEQ:
	case BPF_JGT:
	case BPF_JGE:
	case BPF_JSET:
	case BPF_JNE:
	case BPF_JSGT:
	case BPF_JSGE:
	case BPF_JLT:
	case BPF_JLE:
	case BPF_JSLT:
	case BPF_JSLE:
		return true;
	default:
		return false;
	}
}

/* What the verifier refuses in a well-formed ALU instruction, as the
 * kernel does: an immediate shift by the width or more, an immediate
 * divisor of zero. */
static int check_alu_imm(struct verifier_env *env, const struct bpf_insn *in)
{
	uint8_t op = BPF_OP(in->code);
	unsigned width = BPF_CLASS(in->code) == BPF_ALU64 ? 64 : 32;

	if (BPF_SRC(in->code) != BPF_K)
		return 0;
	if ((op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) &&
	    (in->imm < 0 || (unsigned)in->imm >= width))
		return verr(env, EINVAL, "invalid shift %d for a %u-bit operation", in->imm, width);
	if ((op == BPF_DIV || op == BPF_MOD) && in->imm == 0)
		return verr(env, EINVAL, "division by zero");
	return 0;
}

/* A helper call: every one is resolved at load, dead code included, as the
 * interpreter does, so an unknown or refused helper is an error wherever
 * it is. Indirect calls (callx) do not exist for seccomp. */
static int check_call_insn(struct verifier_env *env, const struct bpf_insn *in)
{
	const struct helper_proto *p;

	if (BPF_SRC(in->code) == BPF_X)
		return verr(env, EINVAL,
			    "callx (an indirect call through r%u) is not supported: call "
			    "the function or helper by name",
			    in->dst_reg);
	if (in->src_reg != 0)
		return 0;
	p = helper_proto_find(in->imm);
	if (!p)
		return verr(env, EINVAL, "unknown helper function #%d", in->imm);
	if (p->refused)
		return verr(env, EACCES, "%s: %s", helper_proto_name(in->imm), p->refused);
	return 0;
}

/* A map reference: like the kernel, every one is resolved at load,
 * reachable or not (the interpreter and the native loader resolve them all
 * too), and a direct value access must stay inside the value. */
static int check_map_ref(struct verifier_env *env, const struct bpf_insn *in)
{
	const struct object_map *m;

	if (in->src_reg != BPF_PSEUDO_MAP_FD && in->src_reg != BPF_PSEUDO_MAP_VALUE)
		return 0;
	m = env_map(env, (uint32_t)in->imm);
	if (!m)
		return verr(env, EINVAL, "ld_imm64 refers to map %d, but the object has %u maps",
			    in->imm, env->obj ? env->obj->map_cnt : 0);
	if (in->src_reg == BPF_PSEUDO_MAP_FD)
		return 0;
	if (m->kind == OBJECT_MAP_BTF && !(m->type == BPF_MAP_TYPE_ARRAY && m->max_entries == 1))
		return verr(env, EACCES,
			    "direct access to map %s: only global data and one-element "
			    "arrays have a direct value",
			    m->name);
	if ((uint32_t)in[1].imm >= m->value_size)
		return verr(env, EACCES,
			    "direct access to map %s at offset %u is past its value size %u",
			    m->name, (uint32_t)in[1].imm, m->value_size);
	return 0;
}

/* The fields of one instruction: well formed by the instruction decoder
 * (insn_check, which the interpreter's validator uses too), then what the
 * verifier adds. Every later stage relies on this. */
static int check_insn_fields(struct verifier_env *env, uint32_t i)
{
	const struct bpf_insn *in = &env->insns[i];
	struct insn_fault fault;

	if (insn_check(env->insns, env->cnt, i, INSN_ALLOW_PSEUDO, &fault))
		return verr(env, EINVAL, "%s", fault.why);
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		return check_alu_imm(env, in);
	case BPF_JMP:
		if (BPF_OP(in->code) == BPF_CALL)
			return check_call_insn(env, in);
		return 0;
	case BPF_LD:
		return check_map_ref(env, in);
	default:
		return 0;
	}
}

bool vinsn_is_ja(const struct bpf_insn *in)
{
	return (in->code == (BPF_JMP | BPF_JA)) || (in->code == (BPF_JMP32 | BPF_JA));
}

int64_t vinsn_jump_target(const struct bpf_insn *in, uint32_t i)
{
	if (in->code == (BPF_JMP32 | BPF_JA))
		return (int64_t)i + in->imm + 1;
	return (int64_t)i + in->off + 1;
}

bool vinsn_is_exit(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_EXIT);
}

static bool insn_is_pseudo_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL;
}

static bool insn_is_pseudo_func(const struct bpf_insn *in)
{
	return insn_is_ld_imm64(in) && in->src_reg == BPF_PSEUDO_FUNC;
}

static int check_target(struct verifier_env *env, uint32_t from, int64_t to, const char *what)
{
	if (to < 0 || to >= env->cnt)
		return verr(env, EINVAL,
			    "%s out of range: from insn %u to %" PRId64 " (the program has %u)",
			    what, from, to, env->cnt);
	if (env->aux[to].flags & AUX_LD_IMM64_HI)
		return verr(env, EINVAL, "%s into the middle of an ld_imm64 (insn %" PRId64 ")",
			    what, to);
	return 0;
}

/*
 * Before exploring: every insn well formed; functions found; every jump
 * inside its function and not into an ld_imm64's second slot; no function
 * falls off its end; every insn reachable. On error env->err_insn names it.
 */
int verifier_cfg_check(struct verifier_env *env, uint32_t *bad_insn)
{
	uint32_t i, cur_sub = 0, *work = NULL, nwork = 0;
	int ret;

	env->aux[0].flags |= AUX_SUBPROG_START;
	for (i = 0; i < env->cnt; i++) {
		const struct bpf_insn *in = &env->insns[i];

		*bad_insn = i;
		if (env->aux[i].flags & AUX_LD_IMM64_HI)
			continue;
		ret = check_insn_fields(env, i);
		if (ret)
			return ret;
		if (insn_is_ld_imm64(in))
			env->aux[i + 1].flags |= AUX_LD_IMM64_HI;
	}
	/* Function starts: targets of bpf-to-bpf calls and of callbacks. */
	for (i = 0; i < env->cnt; i++) {
		const struct bpf_insn *in = &env->insns[i];
		int64_t t;

		*bad_insn = i;
		if (env->aux[i].flags & AUX_LD_IMM64_HI)
			continue;
		if (!insn_is_pseudo_call(in) && !insn_is_pseudo_func(in))
			continue;
		t = (int64_t)i + in->imm + 1;
		ret = check_target(env, i, t,
				   insn_is_pseudo_call(in) ? "call" : "callback reference");
		if (ret)
			return ret;
		env->aux[t].flags |= AUX_SUBPROG_START | AUX_PRUNE_POINT;
	}
	for (i = 0; i < env->cnt; i++) {
		if (env->aux[i].flags & AUX_SUBPROG_START)
			cur_sub = i;
		env->aux[i].subprog = cur_sub;
	}
	for (i = 0; i < env->cnt; i++) {
		const struct bpf_insn *in = &env->insns[i];
		uint8_t cls = BPF_CLASS(in->code);
		uint32_t next = i + (insn_is_ld_imm64(in) ? 2 : 1);

		*bad_insn = i;
		if (env->aux[i].flags & AUX_LD_IMM64_HI)
			continue;
		if ((cls == BPF_JMP || cls == BPF_JMP32) && !vinsn_is_exit(in) &&
		    BPF_OP(in->code) != BPF_CALL) {
			int64_t t = vinsn_jump_target(in, i);

			ret = check_target(env, i, t, "jump");
			if (ret)
				return ret;
			if (env->aux[t].subprog != env->aux[i].subprog)
				return verr(env, EINVAL,
					    "jump from insn %u to insn %" PRId64
					    " leaves its function",
					    i, t);
			env->aux[t].flags |= AUX_PRUNE_POINT;
		}
		if (vinsn_is_exit(in) || vinsn_is_ja(in))
			continue;
		if (next >= env->cnt || env->aux[next].subprog != env->aux[i].subprog)
			return verr(env, EINVAL,
				    "control falls off the end of the "
				    "function after insn %u: the last instruction must "
				    "be exit or a jump",
				    i);
		if ((cls == BPF_JMP || cls == BPF_JMP32) && vinsn_is_cond_jump(BPF_OP(in->code)))
			env->aux[next].flags |= AUX_PRUNE_POINT;
		if (insn_is_pseudo_call(in))
			env->aux[next].flags |= AUX_PRUNE_POINT;
		if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0) {
			const struct helper_proto *p = helper_proto_find(in->imm);

			if (p && !p->refused && p->callback != HELPER_CB_NONE)
				env->aux[i].flags |= AUX_CALLBACK_CALL | AUX_PRUNE_POINT;
		}
	}
	/* Reachability over all edges, both sides of every branch. */
	work = malloc(env->cnt * sizeof(*work));
	if (!work)
		return -ENOMEM;
	env->aux[0].flags |= AUX_SEEN;
	work[nwork++] = 0;
	while (nwork) {
		uint32_t s[3], ns = 0, k;
		const struct bpf_insn *in;
		uint8_t cls;

		i = work[--nwork];
		in = &env->insns[i];
		cls = BPF_CLASS(in->code);
		if (!vinsn_is_exit(in) && !vinsn_is_ja(in))
			s[ns++] = i + (insn_is_ld_imm64(in) ? 2 : 1);
		if ((cls == BPF_JMP || cls == BPF_JMP32) && !vinsn_is_exit(in) &&
		    BPF_OP(in->code) != BPF_CALL)
			s[ns++] = (uint32_t)vinsn_jump_target(in, i);
		if (insn_is_pseudo_call(in) || insn_is_pseudo_func(in))
			s[ns++] = (uint32_t)((int64_t)i + in->imm + 1);
		for (k = 0; k < ns; k++) {
			if (env->aux[s[k]].flags & AUX_SEEN)
				continue;
			env->aux[s[k]].flags |= AUX_SEEN;
			work[nwork++] = s[k];
		}
	}
	free(work);
	for (i = 0; i < env->cnt; i++) {
		if (env->aux[i].flags & (AUX_SEEN | AUX_LD_IMM64_HI))
			continue;
		*bad_insn = i;
		return verr(env, EINVAL, "unreachable insn %u: remove dead code", i);
	}
	return 0;
}
