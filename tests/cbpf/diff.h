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
	char msg[800];
};

static inline uint64_t diff_rand(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
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
	struct cbpf_sim_state st;
	uint32_t want = 0, got, wide = 0, i;
	int rc;

	rc = runtime_run(rt, sd, &want, &err);
	/* A program split by cells runs as the kernel runs its stack, which
	 * keeps no data of an ALLOW (the eBPF value may have some). */
	if (cp->nfilters > 1) {
		got = cbpf_sim_run_stack(cp->filters, cp->nfilters, sd);
		if ((want & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ALLOW && got == SECCOMP_RET_ALLOW)
			want = got;
		for (i = 0; i < cp->nfilters; i++) {
			cbpf_sim_exec(cp->filters[i].filter, cp->filters[i].len, sd, &st);
			wide += st.wide_shifts;
		}
	} else {
		got = cbpf_sim_exec(cp->insns, cp->len, sd, &st);
		wide = st.wide_shifts;
	}
	res->runs++;
	if (got == SECCOMP_RET_USER_NOTIF && want != got)
		res->notifs++;
	/* A failed run (a fault, the insn limit) is left to the supervisor.
	 * A shift by X of 32 or more is a mismatch whatever it returned: the
	 * kernel's result for it is not the simulator's everywhere. */
	if (rc == 0 && got == want && !wide)
		return true;
	if (got == SECCOMP_RET_USER_NOTIF && cp->needs_supervisor && !wide)
		return true;
	res->mismatch = true;
	res->sd = *sd;
	res->want = want;
	res->got = got;
	snprintf(res->msg, sizeof(res->msg),
		 "arch 0x%x nr %d ip 0x%llx args 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx: "
		 "eBPF %s0x%x, cBPF 0x%x%s (%s)", sd->arch, sd->nr,
		 (unsigned long long)sd->instruction_pointer, (unsigned long long)sd->args[0],
		 (unsigned long long)sd->args[1], (unsigned long long)sd->args[2],
		 (unsigned long long)sd->args[3], (unsigned long long)sd->args[4],
		 (unsigned long long)sd->args[5], rc ? "failed " : "", want, got,
		 wide ? " after a shift by X >= 32" : "", err.msg);
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
	for (t = 0; t < (cp->nfilters ? cp->nfilters : 1); t++) {
		const struct sock_filter *f = cp->nfilters ? cp->filters[t].filter : cp->insns;
		uint32_t len = cp->nfilters ? cp->filters[t].len : cp->len;

		for (i = 0; i < len; i++)
			if (BPF_CLASS(f[i].code) == BPF_JMP && BPF_SRC(f[i].code) == BPF_K)
				for (j = 0; j < 3; j++)
					diff_add(nrs, &nn, 4096, (uint32_t)(f[i].k + j - 1));
	}
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
