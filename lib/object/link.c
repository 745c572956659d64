// SPDX-License-Identifier: MIT
/*
 * Linking: each SEC("seccomp") program is copied out with every function it
 * calls or takes the address of, appended once each, and its ld_imm64 and
 * call relocations resolved to maps, global data and relative calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object_internal.h"
#include "vm/insn.h"

/* Copy function f to the end of the program being linked (once). */
static int place_func(struct loader *ld, struct prog_link *lk, size_t f, const char *prog,
		      uint32_t *start)
{
	const struct loader_func *fn = &ld->funcs[f];
	const struct loader_sec *s = &ld->secs[fn->sec];

	if (lk->placed[f] >= 0) {
		*start = (uint32_t)lk->placed[f];
		return 0;
	}
	if (fn->cnt > INSN_MAX_CNT - lk->cnt)
		return loader_fail(
			ld, E2BIG,
			"program '%s' with its subprograms is more than %d instructions; split it",
			prog, INSN_MAX_CNT);
	if (lk->cnt + fn->cnt > lk->cap) {
		uint32_t cap = lk->cap ? lk->cap : 64;
		struct bpf_insn *insns;

		while (cap < lk->cnt + fn->cnt)
			cap *= 2;
		insns = realloc(lk->insns, (size_t)cap * sizeof(*insns));
		if (!insns)
			return loader_nomem(ld);
		lk->insns = insns;
		lk->cap = cap;
	}
	memcpy(lk->insns + lk->cnt, s->data + (size_t)fn->start * 8, (size_t)fn->cnt * 8);
	lk->placed[f] = lk->cnt;
	lk->order[lk->order_cnt++] = f;
	*start = lk->cnt;
	lk->cnt += fn->cnt;
	return 0;
}

/* The address of function tf (placed if it is not yet): BPF_PSEUDO_FUNC. */
static int reloc_func_addr(struct loader *ld, struct prog_link *lk, size_t tf, uint32_t pos,
			   const char *prog)
{
	uint32_t target;
	int ret;

	ret = place_func(ld, lk, tf, prog, &target);
	if (ret)
		return ret;
	lk->insns[pos].src_reg = BPF_PSEUDO_FUNC;
	lk->insns[pos].imm = (int32_t)((int64_t)target - ((int64_t)pos + 1));
	lk->insns[pos + 1].imm = 0;
	return 0;
}

/* The BTF map defined at .maps+off, or -1. */
static int64_t map_at_offset(const struct loader *ld, uint64_t off)
{
	uint32_t i;

	for (i = 0; i < ld->obj->map_cnt; i++)
		if (ld->obj->maps[i].kind == OBJECT_MAP_BTF && ld->map_off[i] == off)
			return i;
	return -1;
}

/* A map reference becomes BPF_PSEUDO_MAP_FD with the map's index. */
static void reloc_map_ref(struct prog_link *lk, uint32_t pos, uint32_t map)
{
	lk->insns[pos].src_reg = BPF_PSEUDO_MAP_FD;
	lk->insns[pos].imm = (int32_t)map;
	lk->insns[pos + 1].imm = 0;
}

/* A global variable reference becomes BPF_PSEUDO_MAP_VALUE at off. */
static void reloc_data_ref(struct prog_link *lk, uint32_t pos, int map, uint64_t off)
{
	lk->insns[pos].src_reg = BPF_PSEUDO_MAP_VALUE;
	lk->insns[pos].imm = map;
	lk->insns[pos + 1].imm = (int32_t)off;
}

/*
 * The checks on the ld_imm64 at slot k of function f (out slot pos) before
 * its target is looked at: two whole slots, no relocation on the second, a
 * src_reg only from a relocation, and only R_BPF_64_64 against a defined
 * symbol. Returns 1 if there is a relocation to apply, 0 if none, or -errno.
 */
static int check_ld_imm64(struct loader *ld, const struct prog_link *lk, size_t f, uint32_t k,
			  uint32_t pos)
{
	const struct loader_func *fn = &ld->funcs[f];
	const struct loader_sec *cs = &ld->secs[fn->sec];
	const struct loader_relo *r = &cs->relos[fn->start + k];
	const struct loader_sym *sym;
	size_t shndx;

	if (k + 1 >= fn->cnt)
		return loader_fail(ld, EINVAL,
				   "%s+%u: ld_imm64 at the end of function '%s' is cut off (it "
				   "needs two slots); the object is truncated or corrupt",
				   cs->name, (fn->start + k) * 8, fn->name);
	if (cs->relos[fn->start + k + 1].type != R_BPF_NONE)
		return loader_fail(ld, EINVAL,
				   "%s+%u: relocation on the second half of an ld_imm64; the "
				   "object is corrupt",
				   cs->name, (fn->start + k + 1) * 8);
	if (r->type == R_BPF_NONE) {
		if (lk->insns[pos].src_reg != 0)
			return loader_fail(ld, EINVAL,
					   "%s+%u: ld_imm64 with src_reg %u but no relocation; map "
					   "and function references must come from clang "
					   "relocations",
					   cs->name, (fn->start + k) * 8, lk->insns[pos].src_reg);
		return 0;
	}
	sym = &ld->syms[r->sym];
	if (r->type != R_BPF_64_64)
		return loader_fail(ld, EINVAL,
				   "%s+%u: relocation type %u against '%s' on an ld_imm64, "
				   "expected R_BPF_64_64; the object is corrupt",
				   cs->name, (fn->start + k) * 8, r->type, sym_name(sym));
	if (lk->insns[pos].src_reg != 0)
		return loader_fail(ld, EINVAL,
				   "%s+%u: relocated ld_imm64 already has src_reg %u; the object "
				   "is corrupt",
				   cs->name, (fn->start + k) * 8, lk->insns[pos].src_reg);
	shndx = sym->sym.st_shndx;
	if (shndx == SHN_UNDEF)
		return loader_fail(ld, ENOTSUP,
				   "%s+%u: reference to extern '%s' (kconfig/ksym externs are not "
				   "supported by secbpf); define the variable in the filter",
				   cs->name, (fn->start + k) * 8, sym_name(sym));
	if (shndx >= ld->shnum)
		return loader_fail(ld, EINVAL,
				   "%s+%u: symbol '%s' is in section %zu, which does not exist; "
				   "the object is corrupt",
				   cs->name, (fn->start + k) * 8, sym_name(sym), shndx);
	return 1;
}

/*
 * Relocate the ld_imm64 at slot k of function f (at out slot pos): a map,
 * global data, or the address of a subprogram (a bpf_loop callback).
 */
static int reloc_ld_imm64(struct loader *ld, struct prog_link *lk, size_t f, uint32_t k,
			  uint32_t pos, const char *prog)
{
	const struct loader_func *fn = &ld->funcs[f];
	const struct loader_sec *cs = &ld->secs[fn->sec];
	const struct loader_sym *sym;
	const struct loader_sec *ts;
	uint64_t addend, off;
	size_t shndx;
	int64_t map;
	ssize_t tf;
	int ret;

	ret = check_ld_imm64(ld, lk, f, k, pos);
	if (ret <= 0)
		return ret;
	sym = &ld->syms[cs->relos[fn->start + k].sym];
	shndx = sym->sym.st_shndx;
	ts = &ld->secs[shndx];
	addend = insn_ld_imm64_value(&lk->insns[pos]);
	off = sym->sym.st_value + addend;
	if (off < addend)
		goto bad_off;

	if (sec_is_code(ts)) {
		if (off % 8 || off >= ts->size)
			goto bad_off;
		tf = loader_find_func(ld, shndx, off / 8);
		if (tf < 0)
			return loader_fail(
				ld, EINVAL,
				"%s+%u: address of %s+%llu, which is not the start of a function",
				cs->name, (fn->start + k) * 8, ts->name, (unsigned long long)off);
		return reloc_func_addr(ld, lk, (size_t)tf, pos, prog);
	}
	if (ts->kind == LOADER_SEC_MAPS) {
		map = map_at_offset(ld, off);
		if (map < 0)
			return loader_fail(ld, EINVAL,
					   "%s+%u: reference to '%s' at .maps+%llu, where no map "
					   "is defined; the object is corrupt",
					   cs->name, (fn->start + k) * 8, sym_name(sym),
					   (unsigned long long)off);
		reloc_map_ref(lk, pos, (uint32_t)map);
		return 0;
	}
	if (sec_is_data(ts)) {
		if (ts->map < 0 || off >= ts->size)
			goto bad_off;
		reloc_data_ref(lk, pos, ts->map, off);
		return 0;
	}
	return loader_fail(ld, ENOTSUP,
			   "%s+%u: reference to '%s' in section '%s', which is neither code, a "
			   "map nor global data (.data, .rodata, .bss); move the object there",
			   cs->name, (fn->start + k) * 8, sym_name(sym), ts->name);
bad_off:
	return loader_fail(ld, EINVAL,
			   "%s+%u: reference to '%s' at offset %llu, outside section '%s' (%zu "
			   "bytes); the object is corrupt",
			   cs->name, (fn->start + k) * 8, sym_name(sym), (unsigned long long)off,
			   ts->name, ts->size);
}

/*
 * A call that is not BPF_PSEUDO_CALL (slot k of function f): a helper call,
 * left to insn_validate, unless it is a kfunc or has a relocation.
 */
static int check_helper_call(struct loader *ld, size_t f, uint32_t k, const struct bpf_insn *in)
{
	const struct loader_func *fn = &ld->funcs[f];
	const struct loader_sec *cs = &ld->secs[fn->sec];
	const struct loader_relo *r = &cs->relos[fn->start + k];

	if (r->type != R_BPF_NONE)
		return loader_fail(ld, ENOTSUP,
				   "%s+%u: call to extern function '%s' (kfuncs are not supported "
				   "by secbpf); use helpers or static functions",
				   cs->name, (fn->start + k) * 8, sym_name(&ld->syms[r->sym]));
	if (in->src_reg == BPF_PSEUDO_KFUNC_CALL)
		return loader_fail(ld, ENOTSUP, "%s+%u: kfunc calls are not supported by secbpf",
				   cs->name, (fn->start + k) * 8);
	return 0;
}

/*
 * The section and slot a BPF_PSEUDO_CALL at slot k of function f targets:
 * from its R_BPF_64_32 relocation if it has one, else relative to itself.
 */
static int call_target(struct loader *ld, size_t f, uint32_t k, const struct bpf_insn *in,
		       size_t *tsec, int64_t *tslot)
{
	const struct loader_func *fn = &ld->funcs[f];
	const struct loader_sec *cs = &ld->secs[fn->sec];
	const struct loader_relo *r = &cs->relos[fn->start + k];
	const struct loader_sym *sym;

	if (r->type == R_BPF_NONE) {
		*tsec = fn->sec;
		*tslot = (int64_t)fn->start + k + in->imm + 1;
		return 0;
	}
	sym = &ld->syms[r->sym];
	if (r->type != R_BPF_64_32)
		return loader_fail(ld, EINVAL,
				   "%s+%u: relocation type %u against '%s' on a call, expected "
				   "R_BPF_64_32; the object is corrupt",
				   cs->name, (fn->start + k) * 8, r->type, sym_name(sym));
	*tsec = sym->sym.st_shndx;
	if (*tsec == SHN_UNDEF)
		return loader_fail(ld, ENOTSUP,
				   "%s+%u: call to undefined function '%s'; define it (static) in "
				   "the filter",
				   cs->name, (fn->start + k) * 8, sym_name(sym));
	if (*tsec >= ld->shnum || !sec_is_code(&ld->secs[*tsec]) || sym->sym.st_value % 8)
		return loader_fail(ld, EINVAL,
				   "%s+%u: call to '%s', which is not in a code section; the "
				   "object is corrupt",
				   cs->name, (fn->start + k) * 8, sym_name(sym));
	/* REL: the addend is the imm, in slots, minus the one the CPU adds. */
	*tslot = (int64_t)(sym->sym.st_value / 8) + in->imm + 1;
	return 0;
}

/* Relocate the call at slot k of function f (out slot pos). */
static int reloc_call(struct loader *ld, struct prog_link *lk, size_t f, uint32_t k, uint32_t pos,
		      const char *prog)
{
	const struct loader_func *fn = &ld->funcs[f];
	const struct loader_sec *cs = &ld->secs[fn->sec];
	struct bpf_insn *in = &lk->insns[pos];
	size_t tsec = 0;
	int64_t tslot = 0;
	uint32_t target;
	ssize_t tf;
	int ret;

	if (in->src_reg != BPF_PSEUDO_CALL)
		return check_helper_call(ld, f, k, in);
	ret = call_target(ld, f, k, in, &tsec, &tslot);
	if (ret)
		return ret;
	if (tslot < 0 || (uint64_t)tslot >= ld->secs[tsec].size / 8)
		return loader_fail(
			ld, EINVAL,
			"%s+%u: call target slot %lld is outside section '%s'; the object "
			"is corrupt",
			cs->name, (fn->start + k) * 8, (long long)tslot, ld->secs[tsec].name);
	tf = loader_find_func(ld, tsec, (uint64_t)tslot);
	if (tf < 0)
		return loader_fail(
			ld, EINVAL, "%s+%u: call to %s+%lld, which is not the start of a function",
			cs->name, (fn->start + k) * 8, ld->secs[tsec].name, (long long)tslot * 8);
	ret = place_func(ld, lk, (size_t)tf, prog, &target);
	if (ret)
		return ret;
	lk->insns[pos].imm = (int32_t)((int64_t)target - ((int64_t)pos + 1));
	return 0;
}

/*
 * Relocate every function placed so far, in placement order; relocations
 * place the functions they reach, which this loop then relocates in turn.
 */
static int relocate_placed_funcs(struct loader *ld, struct prog_link *lk, const char *prog)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < lk->order_cnt; i++) {
		size_t f = lk->order[i];
		const struct loader_func *fn = &ld->funcs[f];
		const struct loader_sec *cs = &ld->secs[fn->sec];
		uint32_t base = (uint32_t)lk->placed[f], k;

		for (k = 0; !ret && k < fn->cnt; k++) {
			const struct bpf_insn *in = &lk->insns[base + k];

			if (insn_is_ld_imm64(in)) {
				ret = reloc_ld_imm64(ld, lk, f, k, base + k, prog);
				k++;
			} else if (in->code == (BPF_JMP | BPF_CALL)) {
				ret = reloc_call(ld, lk, f, k, base + k, prog);
			} else if (cs->relos[fn->start + k].type != R_BPF_NONE) {
				ret = loader_fail(ld, EINVAL,
						  "%s+%u: relocation on an instruction (code "
						  "0x%02x) that is neither ld_imm64 nor call; the "
						  "object is corrupt",
						  cs->name, (fn->start + k) * 8, in->code);
			}
		}
	}
	return ret;
}

/* The names of the placed functions by their first slot, into prog->funcs. */
static int record_prog_funcs(struct loader *ld, const struct prog_link *lk,
			     struct object_prog *prog)
{
	size_t i;

	prog->funcs = calloc(lk->order_cnt, sizeof(*prog->funcs));
	if (!prog->funcs)
		return loader_nomem(ld);
	for (i = 0; i < lk->order_cnt; i++) {
		prog->funcs[i].start = (uint32_t)lk->placed[lk->order[i]];
		prog->funcs[i].name = strdup(ld->funcs[lk->order[i]].name);
		if (!prog->funcs[i].name)
			return loader_nomem(ld);
		prog->func_cnt++;
	}
	return 0;
}

/* Link program function main_f with everything it calls into prog. */
static int link_prog(struct loader *ld, size_t main_f, struct object_prog *prog)
{
	const struct loader_func *mf = &ld->funcs[main_f];
	struct prog_link lk = { 0 };
	uint32_t start;
	size_t i;
	int ret;

	prog->name = strdup(mf->name);
	prog->section = strdup(ld->secs[mf->sec].name);
	lk.placed = malloc(ld->func_cnt * sizeof(*lk.placed));
	lk.order = malloc(ld->func_cnt * sizeof(*lk.order));
	if (!prog->name || !prog->section || !lk.placed || !lk.order) {
		ret = loader_nomem(ld);
		goto out;
	}
	for (i = 0; i < ld->func_cnt; i++)
		lk.placed[i] = -1;
	if (mf->cnt == 0) {
		ret = loader_fail(ld, EINVAL, "program '%s' has no instructions", mf->name);
		goto out;
	}
	ret = place_func(ld, &lk, main_f, mf->name, &start);
	if (!ret)
		ret = relocate_placed_funcs(ld, &lk, mf->name);
	if (ret)
		goto out;
	prog->insns = lk.insns;
	prog->insn_cnt = lk.cnt;
	prog->main_cnt = mf->cnt;
	lk.insns = NULL;
	ret = record_prog_funcs(ld, &lk, prog);
	if (!ret)
		ret = loader_link_lines(ld, &lk, prog);
out:
	free(lk.insns);
	free(lk.placed);
	free(lk.order);
	return ret;
}

/* No program in the object: name the code sections skipped, often a typo in SEC(). */
static int fail_no_program(struct loader *ld)
{
	char found[256] = "";
	size_t len = 0, i;

	for (i = 1; i < ld->shnum && len < sizeof(found) - 1; i++) {
		const struct loader_sec *s = &ld->secs[i];

		if (!(s->shdr.sh_flags & SHF_EXECINSTR) || s->kind == LOADER_SEC_TEXT ||
		    s->shdr.sh_size == 0)
			continue;
		len += (size_t)snprintf(found + len, sizeof(found) - len, "%s'%s'", len ? ", " : "",
					s->name);
	}
	if (len)
		return loader_fail(ld, ENOENT,
				   "no SEC(\"seccomp\") program (code sections found: %s); put the "
				   "filter function in SEC(\"seccomp\") or SEC(\"seccomp/NAME\")",
				   found);
	return loader_fail(ld, ENOENT,
			   "no SEC(\"seccomp\") program; put the filter function in "
			   "SEC(\"seccomp\") and make it non-static");
}

/* OBJ:PROG must name one program; ELF allows one global per name. */
static int check_prog_names_unique(struct loader *ld)
{
	size_t i, j;

	for (i = 0; i < ld->func_cnt; i++) {
		for (j = i + 1; ld->funcs[i].is_prog && j < ld->func_cnt; j++) {
			if (ld->funcs[j].is_prog && !strcmp(ld->funcs[i].name, ld->funcs[j].name))
				return loader_fail(ld, EINVAL,
						   "two programs are named '%s'; the object is "
						   "corrupt",
						   ld->funcs[i].name);
		}
	}
	return 0;
}

int loader_link_progs(struct loader *ld)
{
	struct object *obj = ld->obj;
	size_t i, n = 0;
	int ret;

	for (i = 0; i < ld->func_cnt; i++)
		n += ld->funcs[i].is_prog;
	if (!n)
		return fail_no_program(ld);
	ret = check_prog_names_unique(ld);
	if (ret)
		return ret;
	obj->progs = calloc(n, sizeof(*obj->progs));
	if (!obj->progs)
		return loader_nomem(ld);
	for (i = 0; i < ld->func_cnt; i++) {
		if (!ld->funcs[i].is_prog)
			continue;
		ret = link_prog(ld, i, &obj->progs[obj->prog_cnt++]);
		if (ret)
			return ret;
	}
	return 0;
}
