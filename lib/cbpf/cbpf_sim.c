// SPDX-License-Identifier: MIT
/*
 * The one cBPF simulator: runs a checked seccomp cBPF filter on one
 * seccomp_data as the kernel does (after its cBPF-to-eBPF conversion):
 * 32-bit A and X, zeroed M[], a division by zero ends the filter with 0,
 * variable shifts use the count mod 32. Also the kernel's action-cache
 * emulation (seccomp_is_const_allow()).
 */
#include <stddef.h>
#include <string.h>

#include "cbpf/cbpf.h"

/* A 32-bit word of seccomp_data, as LD W ABS sees it (native byte order). */
static uint32_t cbpf_sim_word(const struct seccomp_data *sd, uint32_t off)
{
	uint32_t w;

	memcpy(&w, (const uint8_t *)sd + off, sizeof(w));
	return w;
}

bool cbpf_sim_alu(uint16_t code, uint32_t *a, uint32_t src)
{
	switch (BPF_OP(code)) {
	case BPF_ADD: *a += src; break;
	case BPF_SUB: *a -= src; break;
	case BPF_MUL: *a *= src; break;
	case BPF_DIV:
		if (!src)
			return false;
		*a /= src;
		break;
	case BPF_MOD:
		if (!src)
			return false;
		*a %= src;
		break;
	case BPF_AND: *a &= src; break;
	case BPF_OR: *a |= src; break;
	case BPF_XOR: *a ^= src; break;
	/* The kernel turns these into 32-bit eBPF shifts; x86 masks the count
	 * to 5 bits. cbpf_check() rejects constant counts >= 32 and the
	 * compiler never emits a variable count that could reach 32
	 * (cbpf_sim_exec() counts those that do: wide_shifts). */
	case BPF_LSH: *a <<= src & 31; break;
	case BPF_RSH: *a >>= src & 31; break;
	case BPF_NEG: *a = 0u - *a; break;
	}
	return true;
}

bool cbpf_sim_cond(uint16_t code, uint32_t a, uint32_t src)
{
	switch (BPF_OP(code)) {
	case BPF_JEQ: return a == src;
	case BPF_JGT: return a > src;
	case BPF_JGE: return a >= src;
	case BPF_JSET: return (a & src) != 0;
	}
	return false;
}

uint32_t cbpf_sim_exec(const struct sock_filter *insns, size_t len, const struct seccomp_data *sd,
		       struct cbpf_sim_state *st)
{
	struct cbpf_sim_state local;
	uint32_t *a, *x, *mem;
	size_t pc = 0;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	a = &st->a;
	x = &st->x;
	mem = st->mem;
	while (pc < len) {
		const struct sock_filter *in = &insns[pc++];
		uint32_t src = BPF_SRC(in->code) == BPF_X ? *x : in->k;

		st->steps++;
		switch (BPF_CLASS(in->code)) {
		case BPF_LD:
		case BPF_LDX: {
			uint32_t v;

			switch (BPF_MODE(in->code)) {
			case BPF_ABS:
				/* Checked filters only load aligned words inside. */
				if (in->k > sizeof(*sd) - 4)
					return 0;
				v = cbpf_sim_word(sd, in->k);
				st->loads[in->k / 4]++;
				break;
			case BPF_LEN: v = sizeof(*sd); break;
			case BPF_IMM: v = in->k; break;
			case BPF_MEM: v = mem[in->k & (BPF_MEMWORDS - 1)]; break;
			default: return 0;
			}
			if (BPF_CLASS(in->code) == BPF_LD)
				*a = v;
			else
				*x = v;
			break;
		}
		case BPF_ST:
			mem[in->k & (BPF_MEMWORDS - 1)] = *a;
			break;
		case BPF_STX:
			mem[in->k & (BPF_MEMWORDS - 1)] = *x;
			break;
		case BPF_ALU:
			if (BPF_SRC(in->code) == BPF_X && src >= 32 &&
			    (BPF_OP(in->code) == BPF_LSH || BPF_OP(in->code) == BPF_RSH))
				st->wide_shifts++;
			if (!cbpf_sim_alu(in->code, a, src))
				return 0;
			break;
		case BPF_JMP:
			if (BPF_OP(in->code) == BPF_JA)
				pc += in->k;
			else
				pc += cbpf_sim_cond(in->code, *a, src) ? in->jt : in->jf;
			break;
		case BPF_RET:
			return BPF_RVAL(in->code) == BPF_A ? *a : in->k;
		case BPF_MISC:
			if (BPF_MISCOP(in->code) == BPF_TAX)
				*x = *a;
			else
				*a = *x;
			break;
		}
	}
	/* Running off the end cannot happen after cbpf_check(); kill. */
	return 0;
}

uint32_t cbpf_sim_run(const struct sock_filter *insns, size_t len, const struct seccomp_data *sd)
{
	return cbpf_sim_exec(insns, len, sd, NULL);
}

bool cbpf_sim_const_allow(const struct sock_filter *insns, size_t len, uint32_t arch, uint32_t nr)
{
	uint32_t a = 0;
	size_t pc;

	for (pc = 0; pc < len; pc++) {
		const struct sock_filter *in = &insns[pc];

		switch (in->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (in->k == offsetof(struct seccomp_data, nr))
				a = nr;
			else if (in->k == offsetof(struct seccomp_data, arch))
				a = arch;
			else
				return false;
			break;
		case BPF_RET | BPF_K:
			return in->k == SECCOMP_RET_ALLOW;
		case BPF_JMP | BPF_JA:
			pc += in->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JGE | BPF_K:
		case BPF_JMP | BPF_JGT | BPF_K:
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += cbpf_sim_cond(in->code, a, in->k) ? in->jt : in->jf;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= in->k;
			break;
		default:
			return false;
		}
	}
	return false;
}

/* The kernel's ACTION_ONLY(): the action bits of a return, signed, so that
 * KILL_PROCESS (0x80000000) ranks below KILL_THREAD (0). */
static int32_t cbpf_sim_action_rank(uint32_t ret)
{
	return (int32_t)(ret & SECCOMP_RET_ACTION_FULL);
}

uint32_t cbpf_sim_run_stack(const struct sock_fprog *filters, size_t n,
			    const struct seccomp_data *sd)
{
	uint32_t ret = SECCOMP_RET_ALLOW;
	size_t i;

	for (i = n; i-- > 0;) {
		uint32_t cur = cbpf_sim_run(filters[i].filter, filters[i].len, sd);

		if (cbpf_sim_action_rank(cur) < cbpf_sim_action_rank(ret))
			ret = cur;
	}
	return ret;
}
