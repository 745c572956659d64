// SPDX-License-Identifier: MIT
/*
 * The label assembler: the back end appends instructions whose jumps name
 * labels, then cbpf_asm_resolve() turns labels into 8-bit offsets, with a
 * JA trampoline after each conditional jump whose target is further.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf_internal.h"
uint32_t cbpf_asm_label(struct cbpf_asm *m)
{
	if (m->nlab == m->labcap) {
		uint32_t cap = m->labcap ? m->labcap * 2 : 256;
		uint32_t *n = realloc(m->lab, cap * sizeof(*n));
		uint32_t *from;

		if (!n) {
			m->oom = true;
			return 0;
		}
		m->lab = n;
		from = realloc(m->lab_from, cap * sizeof(*from));
		if (!from) {
			m->oom = true;
			return 0;
		}
		m->lab_from = from;
		m->labcap = cap;
	}
	m->lab[m->nlab] = CBPF_ASM_NO_LABEL;
	m->lab_from[m->nlab] = CBPF_ASM_NO_LABEL;
	return m->nlab++;
}

/* Forget the memos that keep(memo, arg) rejects. */
static void asm_memo_filter(struct cbpf_asm *m, bool (*keep)(const struct cbpf_asm_memo *, uint32_t),
			    uint32_t arg)
{
	uint32_t i, n = 0;

	for (i = 0; i < m->nmemo; i++)
		if (keep(&m->memo[i], arg))
			m->memo[n++] = m->memo[i];
	m->nmemo = n;
}

static bool memo_made_before(const struct cbpf_asm_memo *e, uint32_t first_jump)
{
	return e->created < first_jump;
}

static bool memo_not_in(const struct cbpf_asm_memo *e, uint32_t slot)
{
	return e->slot != slot;
}

void cbpf_asm_place(struct cbpf_asm *m, uint32_t label)
{
	if (m->oom)
		return;
	m->lab[label] = m->n;
	/* A jump from before a memo's store skips it. */
	if (m->lab_from[label] != CBPF_ASM_NO_LABEL)
		asm_memo_filter(m, memo_made_before, m->lab_from[label]);
}

void cbpf_asm_memo_add(struct cbpf_asm *m, const void *expr, bool hi, unsigned slot)
{
	if (m->oom || !m->n)
		return;
	if (m->nmemo == m->memocap) {
		uint32_t cap = m->memocap ? m->memocap * 2 : 16;
		struct cbpf_asm_memo *n = realloc(m->memo, cap * sizeof(*n));

		if (!n) {
			m->oom = true;
			return;
		}
		m->memo = n;
		m->memocap = cap;
	}
	m->memo[m->nmemo++] = (struct cbpf_asm_memo){ expr, hi, (uint8_t)slot, m->n - 1 };
}

unsigned cbpf_asm_memo_free_slot(const struct cbpf_asm *m, unsigned sp)
{
	unsigned slot, i;

	for (slot = BPF_MEMWORDS; slot-- > sp;) {
		for (i = 0; i < m->nmemo && m->memo[i].slot != slot; i++)
			;
		if (i == m->nmemo)
			return slot;
	}
	return sp;
}

int cbpf_asm_memo_find(const struct cbpf_asm *m, const void *expr, bool hi)
{
	uint32_t i;

	for (i = 0; i < m->nmemo; i++)
		if (m->memo[i].expr == expr && m->memo[i].hi == hi)
			return m->memo[i].slot;
	return -1;
}

static void asm_append(struct cbpf_asm *m, uint16_t code, uint32_t k, uint32_t lt, uint32_t lf)
{
	if (m->n == m->cap) {
		uint32_t cap = m->cap ? m->cap * 2 : 1024;
		struct cbpf_asm_insn *n = realloc(m->v, cap * sizeof(*n));

		if (!n) {
			m->oom = true;
			return;
		}
		m->v = n;
		m->cap = cap;
	}
	if (lt != CBPF_ASM_NO_LABEL && lt < m->nlab && m->lab_from[lt] == CBPF_ASM_NO_LABEL)
		m->lab_from[lt] = m->n;
	if (lf != CBPF_ASM_NO_LABEL && lf < m->nlab && m->lab_from[lf] == CBPF_ASM_NO_LABEL)
		m->lab_from[lf] = m->n;
	if (BPF_CLASS(code) == BPF_ST || BPF_CLASS(code) == BPF_STX)
		asm_memo_filter(m, memo_not_in, k);
	m->v[m->n++] = (struct cbpf_asm_insn){ code, k, lt, lf };
}

void cbpf_asm_stmt(struct cbpf_asm *m, uint16_t code, uint32_t k)
{
	asm_append(m, code, k, CBPF_ASM_NO_LABEL, CBPF_ASM_NO_LABEL);
}

void cbpf_asm_ja(struct cbpf_asm *m, uint32_t label)
{
	asm_append(m, BPF_JMP | BPF_JA, 0, label, CBPF_ASM_NO_LABEL);
}

void cbpf_asm_jump(struct cbpf_asm *m, uint16_t code, uint32_t k, uint32_t lt, uint32_t lf)
{
	if (lt == lf)
		cbpf_asm_ja(m, lt);
	else
		asm_append(m, code, k, lt, lf);
}

/*
 * Resolve labels into offsets. A conditional jump reaches 255 instructions
 * at most: a far target gets a JA trampoline right after the jump. Adding
 * trampolines only moves targets further, so iterate to a fixpoint.
 */
int cbpf_asm_resolve(const struct cbpf_asm *m, struct sock_filter **outp, uint32_t *lenp)
{
	uint8_t *tr = calloc(m->n ? m->n : 1, 1);	/* bit 0: jt, bit 1: jf */
	uint32_t *pos = malloc((m->n + 1) * sizeof(*pos));
	struct sock_filter *out = NULL;
	uint32_t i, len = 0;
	bool changed = true;
	int rc = 0;

	if (!tr || !pos) {
		rc = -ENOMEM;
		goto done;
	}
	while (changed) {
		changed = false;
		len = 0;
		for (i = 0; i < m->n; i++) {
			pos[i] = len;
			len += 1 + !!(tr[i] & 1) + !!(tr[i] & 2);
		}
		pos[m->n] = len;
		for (i = 0; i < m->n; i++) {
			const struct cbpf_asm_insn *in = &m->v[i];
			uint32_t t;

			if (BPF_CLASS(in->code) != BPF_JMP || BPF_OP(in->code) == BPF_JA)
				continue;
			t = m->lab[in->lt];
			if (!(tr[i] & 1) && pos[t] - pos[i] - 1 > 255) {
				tr[i] |= 1;
				changed = true;
			}
			t = m->lab[in->lf];
			if (!(tr[i] & 2) && pos[t] - pos[i] - 1 > 255) {
				tr[i] |= 2;
				changed = true;
			}
		}
	}
	out = calloc(len ? len : 1, sizeof(*out));
	if (!out) {
		rc = -ENOMEM;
		goto done;
	}
	for (i = 0; i < m->n; i++) {
		const struct cbpf_asm_insn *in = &m->v[i];
		struct sock_filter *f = &out[pos[i]];
		uint32_t p = pos[i], slot = p + 1;

		f->code = in->code;
		f->k = in->k;
		if (BPF_CLASS(in->code) != BPF_JMP)
			continue;
		if (BPF_OP(in->code) == BPF_JA) {
			f->k = pos[m->lab[in->lt]] - p - 1;
			continue;
		}
		if (tr[i] & 1) {
			f->jt = (uint8_t)(slot - p - 1);
			out[slot] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
								 pos[m->lab[in->lt]] - slot - 1);
			slot++;
		} else {
			f->jt = (uint8_t)(pos[m->lab[in->lt]] - p - 1);
		}
		if (tr[i] & 2) {
			f->jf = (uint8_t)(slot - p - 1);
			out[slot] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
								 pos[m->lab[in->lf]] - slot - 1);
		} else {
			f->jf = (uint8_t)(pos[m->lab[in->lf]] - p - 1);
		}
	}
	*outp = out;
	*lenp = len;
	out = NULL;
done:
	free(out);
	free(tr);
	free(pos);
	return rc;
}

/* Every label used must be placed after its user (forward jumps only). */
bool cbpf_asm_labels_forward(const struct cbpf_asm *m)
{
	uint32_t i;

	for (i = 0; i < m->n; i++) {
		const struct cbpf_asm_insn *in = &m->v[i];

		if (BPF_CLASS(in->code) != BPF_JMP)
			continue;
		if (in->lt >= m->nlab || m->lab[in->lt] == CBPF_ASM_NO_LABEL || m->lab[in->lt] <= i)
			return false;
		if (BPF_OP(in->code) == BPF_JA)
			continue;
		if (in->lf >= m->nlab || m->lab[in->lf] == CBPF_ASM_NO_LABEL || m->lab[in->lf] <= i)
			return false;
	}
	return true;
}

void cbpf_asm_free(struct cbpf_asm *m)
{
	free(m->v);
	free(m->lab);
	free(m->lab_from);
	free(m->memo);
	memset(m, 0, sizeof(*m));
}
