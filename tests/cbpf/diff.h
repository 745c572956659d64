/* SPDX-License-Identifier: MIT */
/*
 * Differential checking of the cBPF compiler: run the eBPF program in the
 * interpreter and the compiled filter in cbpf_sim_run() on the same inputs
 * (every dispatch boundary, every program constant +-1, sign and carry
 * edges, random args) and report the first disagreement. The filter may
 * answer USER_NOTIF instead, only where the compiler said it needs the
 * supervisor. Shared by tests/test_cbpf.c and fuzz/fuzz_cbpf.c.
 */
#ifndef SECBPF_TESTS_DIFF_H
#define SECBPF_TESTS_DIFF_H

#include <linux/audit.h>
#include <stdio.h>
#include <string.h>

#include "cbpf/cbpf.h"
#include "vm/runtime.h"

struct diff_result {
	bool mismatch;
	struct seccomp_data sd;
	uint32_t want, got;
	uint64_t runs, notifs;
	char msg[600];
};

static inline uint64_t diff_rand(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

/* The seccomp_is_const_allow() emulation of the kernel (kernel/seccomp.c):
 * true iff the filter provably returns exactly SECCOMP_RET_ALLOW for this
 * (arch, nr) whatever the arguments. */
static inline bool diff_const_allow(const struct sock_filter *f, size_t len, uint32_t arch,
				    uint32_t nr)
{
	uint32_t a = 0, pc;

	for (pc = 0; pc < len; pc++) {
		const struct sock_filter *in = &f[pc];
		bool r;

		switch (in->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (in->k == 0)
				a = nr;
			else if (in->k == 4)
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
			switch (BPF_OP(in->code)) {
			case BPF_JEQ: r = a == in->k; break;
			case BPF_JGE: r = a >= in->k; break;
			case BPF_JGT: r = a > in->k; break;
			default: r = (a & in->k) != 0; break;
			}
			pc += r ? in->jt : in->jf;
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

/*
 * cbpf_sim_run() again, counting the instructions executed (what the
 * kernel runs for this input), so that tests can pin path lengths.
 * The filter must have passed cbpf_check(). Returns the action.
 */
static inline uint32_t diff_sim_count(const struct sock_filter *f, size_t len,
				      const struct seccomp_data *sd, uint32_t *steps)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 }, src, v;
	size_t pc = 0;

	*steps = 0;
	while (pc < len) {
		const struct sock_filter *in = &f[pc++];

		(*steps)++;
		src = BPF_SRC(in->code) == BPF_X ? x : in->k;
		switch (BPF_CLASS(in->code)) {
		case BPF_LD:
		case BPF_LDX:
			switch (BPF_MODE(in->code)) {
			case BPF_ABS:
				if (in->k > sizeof(*sd) - 4)
					return 0;
				memcpy(&v, (const uint8_t *)sd + in->k, sizeof(v));
				break;
			case BPF_LEN: v = sizeof(*sd); break;
			case BPF_IMM: v = in->k; break;
			case BPF_MEM: v = mem[in->k & (BPF_MEMWORDS - 1)]; break;
			default: return 0;
			}
			if (BPF_CLASS(in->code) == BPF_LD)
				a = v;
			else
				x = v;
			break;
		case BPF_ST:
			mem[in->k & (BPF_MEMWORDS - 1)] = a;
			break;
		case BPF_STX:
			mem[in->k & (BPF_MEMWORDS - 1)] = x;
			break;
		case BPF_ALU:
			switch (BPF_OP(in->code)) {
			case BPF_ADD: a += src; break;
			case BPF_SUB: a -= src; break;
			case BPF_MUL: a *= src; break;
			case BPF_DIV:
				if (!src)
					return 0;
				a /= src;
				break;
			case BPF_AND: a &= src; break;
			case BPF_OR: a |= src; break;
			case BPF_XOR: a ^= src; break;
			case BPF_LSH: a <<= src & 31; break;
			case BPF_RSH: a >>= src & 31; break;
			case BPF_NEG: a = 0u - a; break;
			default: return 0;
			}
			break;
		case BPF_JMP:
			if (BPF_OP(in->code) == BPF_JA) {
				pc += in->k;
				break;
			}
			switch (BPF_OP(in->code)) {
			case BPF_JEQ: v = a == src; break;
			case BPF_JGT: v = a > src; break;
			case BPF_JGE: v = a >= src; break;
			default: v = (a & src) != 0; break;
			}
			pc += v ? in->jt : in->jf;
			break;
		case BPF_RET:
			return BPF_RVAL(in->code) == BPF_A ? a : in->k;
		case BPF_MISC:
			if (BPF_MISCOP(in->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		}
	}
	return 0;
}

static inline void diff_add(uint64_t *v, uint32_t *n, uint32_t cap, uint64_t x)
{
	if (*n < cap)
		v[(*n)++] = x;
}

/* One input; false (and res filled) on a disagreement. */
static inline bool diff_one(struct runtime *rt, const struct cbpf_prog *cp,
			    const struct seccomp_data *sd, struct diff_result *res)
{
	struct secbpf_err err = { { 0 } };
	uint32_t want = 0, got;
	int rc;

	rc = runtime_run(rt, sd, &want, &err);
	got = cbpf_sim_run(cp->insns, cp->len, sd);
	res->runs++;
	if (got == SECCOMP_RET_USER_NOTIF && want != got)
		res->notifs++;
	/* A failed run (a fault, the insn limit) is left to the supervisor. */
	if (rc == 0 && got == want)
		return true;
	if (got == SECCOMP_RET_USER_NOTIF && cp->needs_supervisor)
		return true;
	res->mismatch = true;
	res->sd = *sd;
	res->want = want;
	res->got = got;
	snprintf(res->msg, sizeof(res->msg),
		 "arch 0x%x nr %d ip 0x%llx args 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx: "
		 "eBPF %s0x%x, cBPF 0x%x (%s)", sd->arch, sd->nr,
		 (unsigned long long)sd->instruction_pointer, (unsigned long long)sd->args[0],
		 (unsigned long long)sd->args[1], (unsigned long long)sd->args[2],
		 (unsigned long long)sd->args[3], (unsigned long long)sd->args[4],
		 (unsigned long long)sd->args[5], rc ? "failed " : "", want, got, err.msg);
	return false;
}

/*
 * Check cp against the program on a spread of inputs. consts are extra
 * interesting values (program constants). per_nr: argument vectors per
 * (arch, nr); nr_upto: every nr below it is tried too. Returns false on the
 * first disagreement.
 */
static inline bool diff_check(struct runtime *rt, const struct bpf_insn *insns, uint32_t cnt,
			      const struct cbpf_prog *cp, const uint64_t *consts,
			      uint32_t nconsts, unsigned per_nr, uint32_t nr_upto, uint64_t seed,
			      struct diff_result *res)
{
	static uint64_t vals[4096], nrs[4096], arches[64];
	uint32_t nv = 0, nn = 0, na = 0, i, j, t;
	uint64_t r = seed | 1;

	memset(res, 0, sizeof(*res));
	/* values: edges, program constants +-1 (as 64- and 32-bit) */
	{
		static const uint64_t edge[] = {
			0, 1, 2, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff,
			0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull,
			0xffffffff00000000ull, 0x80000000ffffffffull,
		};

		for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
			diff_add(vals, &nv, 4096, edge[i]);
	}
	for (i = 0; i < nconsts; i++)
		for (j = 0; j < 3; j++) {
			uint64_t c = consts[i] + j - 1;

			diff_add(vals, &nv, 4096, c);
			diff_add(vals, &nv, 4096, (uint32_t)c);
			diff_add(vals, &nv, 4096, c << 32);
		}
	for (i = 0; i < cnt; i++) {
		if (BPF_CLASS(insns[i].code) == BPF_LD && i + 1 < cnt) {
			uint64_t c = (uint32_t)insns[i].imm | (uint64_t)(uint32_t)insns[i + 1].imm << 32;

			for (j = 0; j < 3; j++)
				diff_add(vals, &nv, 4096, c + j - 1);
			i++;
			continue;
		}
		for (j = 0; j < 3; j++) {
			diff_add(vals, &nv, 4096, (uint64_t)(int64_t)insns[i].imm + j - 1);
			diff_add(vals, &nv, 4096, (uint32_t)insns[i].imm + j - 1);
		}
	}
	/* nr: 0..460, every nr boundary of the filter +-1, x32, negatives */
	for (i = 0; i < nr_upto; i++)
		diff_add(nrs, &nn, 4096, i);
	for (i = 0; i < cp->len; i++)
		if (BPF_CLASS(cp->insns[i].code) == BPF_JMP && BPF_SRC(cp->insns[i].code) == BPF_K)
			for (j = 0; j < 3; j++)
				diff_add(nrs, &nn, 4096, (uint32_t)(cp->insns[i].k + j - 1));
	/* every value as an nr too (fewer when fuzzing: nr_upto is small) */
	for (i = 0; i < nv && nn < (nr_upto < 100 ? 96u : 4000u); i++)
		diff_add(nrs, &nn, 4096, (uint32_t)vals[i]);
	{
		static const uint32_t extra[] = {
			0x40000000, 0x40000003, 0x4000013d, 0x7fffffff, 0x80000000, 0xffffffff,
			0xfffffffe, 0xffffff9c, 0xc0000000,
		};

		for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
			diff_add(nrs, &nn, 4096, extra[i]);
	}
	/* arch: the usual, a foreign one, constants of the filter */
	diff_add(arches, &na, 64, AUDIT_ARCH_X86_64);
	diff_add(arches, &na, 64, AUDIT_ARCH_I386);
	diff_add(arches, &na, 64, AUDIT_ARCH_AARCH64);
	diff_add(arches, &na, 64, 0);
	diff_add(arches, &na, 64, 0x12345678);
	for (i = 0; i < cp->len && na < 64; i++)
		if (cp->insns[i].code == (BPF_JMP | BPF_JEQ | BPF_K) && cp->insns[i].k > 0x1000)
			diff_add(arches, &na, 64, cp->insns[i].k);
	for (i = 0; i < na; i++)
		for (j = 0; j < nn; j++)
			for (t = 0; t < per_nr; t++) {
				struct seccomp_data sd = {
					.nr = (int)(uint32_t)nrs[j],
					.arch = (uint32_t)arches[i],
				};
				unsigned k;

				for (k = 0; k < 6; k++) {
					uint64_t x = diff_rand(&r);

					sd.args[k] = (x & 3) ? vals[(x >> 8) % nv] : diff_rand(&r);
				}
				sd.instruction_pointer = (diff_rand(&r) & 1) ? vals[diff_rand(&r) % nv] :
									       diff_rand(&r);
				if (t == 0)
					memset(sd.args, 0, sizeof(sd.args));
				if (!diff_one(rt, cp, &sd, res))
					return false;
			}
	return true;
}

#endif
