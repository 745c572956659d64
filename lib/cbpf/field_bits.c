// SPDX-License-Identifier: MIT
/*
 * Which bits of a seccomp_data field an expression's value depends on (a
 * demanded-bits analysis, as compilers use to drop dead bits): the lints
 * ask whether a compare of a syscall argument looks at its upper 32 bits.
 */
#include "cbpf/cbpf_internal.h"
#include "vm/insn.h"

/* Every bit up to the highest bit of d: what a carry chain reads. */
static uint64_t smear_down(uint64_t d)
{
	return d ? ~0ull >> __builtin_clzll(d) : 0;
}

/* The bits of the operands of ALU e that bits d of its result read. */
static void alu_demands(const struct cbpf_expr *e, uint64_t d, uint64_t *da, uint64_t *db)
{
	uint64_t full = e->is32 ? 0xffffffffull : ~0ull;
	bool kconst = e->b->kind == CBPF_X_CONST;
	unsigned sh = kconst ? (unsigned)(e->b->imm & (e->is32 ? 31 : 63)) : 0;

	d &= full;
	*da = *db = full;
	switch (e->op) {
	case BPF_AND:
		*da = kconst ? d & e->b->imm : d;
		*db = kconst ? 0 : d;
		break;
	case BPF_OR:
		*da = kconst ? d & ~e->b->imm : d;
		*db = kconst ? 0 : d;
		break;
	case BPF_XOR:
		*da = *db = d;
		break;
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
		*da = *db = smear_down(d);
		break;
	case BPF_LSH:
		if (kconst)
			*da = d >> sh;
		break;
	case BPF_RSH:
		if (kconst)
			*da = d << sh;
		break;
	case BPF_ARSH:
		if (kconst)
			*da = d << sh | (d & ~(full >> sh) ? (full >> 1) + 1 : 0);
		break;
	}
	if (!kconst && e->op != BPF_AND && e->op != BPF_OR && e->op != BPF_XOR &&
	    e->op != BPF_ADD && e->op != BPF_SUB && e->op != BPF_MUL)
		*da = *db = full; /* shifts by a variable, div, mod: all of both */
	if (kconst)
		*db = 0;
	*da &= full;
	*db &= full;
}

uint64_t cbpf_expr_field_bits(const struct cbpf_expr *e, uint32_t off, uint64_t demanded)
{
	uint64_t da, db, m;

	if (!demanded || !e)
		return 0;
	switch (e->kind) {
	case CBPF_X_FIELD:
		if (e->imm < off || e->imm >= off + 8)
			return 0;
		return (demanded & cbpf_width_mask(e->width)) << ((e->imm - off) * 8);
	case CBPF_X_TRUNC:
		return cbpf_expr_field_bits(e->a, off, demanded & cbpf_width_mask(e->width));
	case CBPF_X_SEXT:
		if (e->is32)
			demanded &= 0xffffffffull;
		m = cbpf_width_mask(e->width);
		da = demanded & m;
		if (demanded & ~m)
			da |= 1ull << (e->width - 1);
		return cbpf_expr_field_bits(e->a, off, da);
	case CBPF_X_NEG:
		da = smear_down(demanded);
		return cbpf_expr_field_bits(e->a, off, e->is32 ? da & 0xffffffffull : da);
	case CBPF_X_BSWAP:
		return cbpf_expr_field_bits(
			e->a, off, cbpf_byte_swap(demanded, e->width) & cbpf_width_mask(e->width));
	case CBPF_X_TABLE:
		/* any bit of the key may change the value read */
		return cbpf_expr_field_bits(e->a, off, ~0ull);
	case CBPF_X_ALU:
		alu_demands(e, demanded, &da, &db);
		return cbpf_expr_field_bits(e->a, off, da) | cbpf_expr_field_bits(e->b, off, db);
	}
	return 0;
}
