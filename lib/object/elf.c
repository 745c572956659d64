// SPDX-License-Identifier: MIT
/*
 * The ELF side of the object loader: header checks, section headers and
 * contents, the symbol table, the relocations on code sections and the
 * functions the symbols delimit. Every offset and index is checked here.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "object/object_internal.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif

static enum loader_sec_kind section_kind_by_name(const char *name)
{
	if (!strcmp(name, "seccomp") || !strncmp(name, "seccomp/", 8))
		return LOADER_SEC_PROG;
	if (!strcmp(name, ".text"))
		return LOADER_SEC_TEXT;
	if (!strcmp(name, ".data") || !strncmp(name, ".data.", 6))
		return LOADER_SEC_DATA;
	if (!strcmp(name, ".rodata") || !strncmp(name, ".rodata.", 8))
		return LOADER_SEC_RODATA;
	if (!strcmp(name, ".bss") || !strncmp(name, ".bss.", 5))
		return LOADER_SEC_BSS;
	if (!strcmp(name, ".maps"))
		return LOADER_SEC_MAPS;
	if (!strcmp(name, "license"))
		return LOADER_SEC_LICENSE;
	if (!strcmp(name, ".BTF"))
		return LOADER_SEC_BTF;
	if (!strcmp(name, ".BTF.ext"))
		return LOADER_SEC_BTF_EXT;
	return LOADER_SEC_OTHER;
}

/*
 * Read the bytes of section idx into secs[idx].data/size. libelf checks that
 * the section lies inside the image; we also insist that it returned all
 * of it, so that later offset checks against size are checks on real bytes.
 */
static int read_section_data(struct loader *ld, size_t idx)
{
	struct loader_sec *s = &ld->secs[idx];
	Elf_Scn *scn;
	Elf_Data *d;

	if (s->shdr.sh_type == SHT_NOBITS) {
		s->data = NULL;
		s->size = s->shdr.sh_size;
		return 0;
	}
	scn = elf_getscn(ld->elf, idx);
	d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || (s->shdr.sh_size && !d->d_buf) || d->d_size != s->shdr.sh_size)
		return loader_fail(ld, EINVAL,
				   "section '%s' lies outside the file or cannot be read (%s); the "
				   "object is truncated or corrupt, rebuild it",
				   s->name, elf_errmsg(-1));
	s->data = d->d_buf;
	s->size = d->d_size;
	return 0;
}

static int read_symtab(struct loader *ld, size_t idx)
{
	struct loader_sec *s = &ld->secs[idx];
	size_t strndx = s->shdr.sh_link, i;
	Elf_Scn *scn = elf_getscn(ld->elf, idx);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (!d || d->d_size != s->shdr.sh_size)
		return loader_fail(
			ld, EINVAL,
			"symbol table '%s' lies outside the file or cannot be read (%s); "
			"the object is truncated or corrupt",
			s->name, elf_errmsg(-1));
	if (strndx == 0 || strndx >= ld->shnum || ld->secs[strndx].shdr.sh_type != SHT_STRTAB)
		return loader_fail(ld, EINVAL,
				   "symbol table '%s' links to section %zu, which is not a string "
				   "table; the object is corrupt",
				   s->name, strndx);
	ld->sym_cnt = d->d_size / sizeof(Elf64_Sym);
	if (ld->sym_cnt > INT_MAX)
		return loader_fail(ld, E2BIG, "symbol table '%s' is too large", s->name);
	ld->syms = calloc(ld->sym_cnt ? ld->sym_cnt : 1, sizeof(*ld->syms));
	if (!ld->syms)
		return loader_nomem(ld);
	for (i = 0; i < ld->sym_cnt; i++) {
		if (!gelf_getsym(d, (int)i, &ld->syms[i].sym))
			return loader_fail(ld, EINVAL, "cannot read symbol %zu: %s", i,
					   elf_errmsg(-1));
		ld->syms[i].name = elf_strptr(ld->elf, strndx, ld->syms[i].sym.st_name);
	}
	return 0;
}

/* The ELF header: a little-endian 64-bit relocatable BPF object. */
static int check_elf_header(struct loader *ld, size_t *shstrndx)
{
	GElf_Ehdr eh;
	char *ident;

	if (elf_kind(ld->elf) != ELF_K_ELF)
		return loader_fail(ld, EINVAL,
				   "not an ELF file; build the filter with clang -target bpf -c");
	ident = elf_getident(ld->elf, NULL);
	if (!ident || ident[EI_CLASS] != ELFCLASS64)
		return loader_fail(
			ld, EINVAL,
			"not a 64-bit ELF object; build the filter with clang -target bpf");
	if (ident[EI_DATA] != ELFDATA2LSB)
		return loader_fail(ld, EINVAL,
				   "big-endian BPF objects are not supported; build with -target "
				   "bpf or bpfel");
	if (!gelf_getehdr(ld->elf, &eh))
		return loader_fail(ld, EINVAL, "cannot read the ELF header: %s", elf_errmsg(-1));
	if (eh.e_machine != EM_BPF)
		return loader_fail(
			ld, EINVAL,
			"ELF machine is %u, not BPF (%u); build the filter with clang -target bpf",
			eh.e_machine, EM_BPF);
	if (eh.e_type != ET_REL)
		return loader_fail(ld, EINVAL,
				   "ELF type is %u, not a relocatable object (ET_REL); use the "
				   "output of clang -c",
				   eh.e_type);
	if (elf_getshdrnum(ld->elf, &ld->shnum) || elf_getshdrstrndx(ld->elf, shstrndx))
		return loader_fail(
			ld, EINVAL,
			"cannot read the section headers (%s); the object is truncated or corrupt",
			elf_errmsg(-1));
	/* libelf reports no sections when the table is not in the image. */
	if (ld->shnum == 0 || eh.e_shoff > ld->size ||
	    (ld->size - eh.e_shoff) / sizeof(Elf64_Shdr) < ld->shnum)
		return loader_fail(ld, EINVAL,
				   "the ELF section header table (offset %llu) is missing or lies "
				   "outside the file (%zu bytes); the object is truncated or "
				   "corrupt",
				   (unsigned long long)eh.e_shoff, ld->size);
	return 0;
}

/* Note where the sections the loader looks up by kind are. */
static void note_special_section(struct loader *ld, size_t idx)
{
	switch (ld->secs[idx].kind) {
	case LOADER_SEC_MAPS:
		ld->maps = idx;
		break;
	case LOADER_SEC_BTF:
		ld->btf = idx;
		break;
	case LOADER_SEC_BTF_EXT:
		ld->btf_ext = idx;
		break;
	case LOADER_SEC_LICENSE:
		ld->license = idx;
		break;
	default:
		break;
	}
}

/* A code section holds whole instructions; give it a relocation per slot. */
static int prepare_code_section(struct loader *ld, struct loader_sec *s)
{
	if (s->shdr.sh_type != SHT_PROGBITS)
		return loader_fail(ld, EINVAL,
				   "code section '%s' has no contents (type %u); the object is "
				   "corrupt",
				   s->name, s->shdr.sh_type);
	if (s->size % sizeof(struct bpf_insn))
		return loader_fail(ld, EINVAL,
				   "code section '%s' is %zu bytes, not a multiple of 8 (one eBPF "
				   "instruction); the object is truncated or corrupt",
				   s->name, s->size);
	s->relos = calloc(s->size / 8 + 1, sizeof(*s->relos));
	if (!s->relos)
		return loader_nomem(ld);
	return 0;
}

/* Section header idx: its name and kind, and the contents of those we use. */
static int read_section(struct loader *ld, size_t idx, size_t shstrndx)
{
	struct loader_sec *s = &ld->secs[idx];
	Elf_Scn *scn = elf_getscn(ld->elf, idx);

	s->map = -1;
	if (!scn || !gelf_getshdr(scn, &s->shdr))
		return loader_fail(ld, EINVAL,
				   "cannot read section header %zu (%s); the object is corrupt",
				   idx, elf_errmsg(-1));
	s->name = elf_strptr(ld->elf, shstrndx, s->shdr.sh_name);
	if (!s->name)
		return loader_fail(ld, EINVAL,
				   "section %zu has a bad name offset; the object is corrupt", idx);
	s->kind = section_kind_by_name(s->name);
	note_special_section(ld, idx);
	return 0;
}

int loader_read_elf(struct loader *ld)
{
	size_t shstrndx, i, symtab = 0;
	int ret;

	ret = check_elf_header(ld, &shstrndx);
	if (ret)
		return ret;
	ld->secs = calloc(ld->shnum, sizeof(*ld->secs));
	if (!ld->secs)
		return loader_nomem(ld);
	for (i = 1; i < ld->shnum; i++) {
		struct loader_sec *s = &ld->secs[i];

		ret = read_section(ld, i, shstrndx);
		if (ret)
			return ret;
		if (s->shdr.sh_type == SHT_SYMTAB) {
			if (symtab)
				return loader_fail(ld, EINVAL,
						   "more than one symbol table; the object is "
						   "corrupt");
			symtab = i;
		}
		if (s->kind != LOADER_SEC_OTHER) {
			ret = read_section_data(ld, i);
			if (ret)
				return ret;
		}
		if (sec_is_code(s)) {
			ret = prepare_code_section(ld, s);
			if (ret)
				return ret;
		}
	}
	if (!symtab)
		return loader_fail(ld, EINVAL,
				   "the object has no symbol table (was it stripped?); use the "
				   "unstripped output of clang -c");
	return read_symtab(ld, symtab);
}

/* Relocation j, which applies to code section t: checked and recorded by slot. */
static int record_reloc(struct loader *ld, struct loader_sec *t, size_t j, const GElf_Rel *rel)
{
	uint64_t off = rel->r_offset, symi = GELF_R_SYM(rel->r_info);
	uint32_t type = GELF_R_TYPE(rel->r_info);

	if (type == R_BPF_NONE)
		return 0;
	if (off % 8 || off >= t->size)
		return loader_fail(ld, EINVAL,
				   "relocation %zu of section '%s' is at offset %llu, which is not "
				   "an instruction of the section (%zu bytes); the object is "
				   "corrupt",
				   j, t->name, (unsigned long long)off, t->size);
	if (symi == 0 || symi >= ld->sym_cnt)
		return loader_fail(ld, EINVAL,
				   "relocation at %s+%llu refers to symbol %llu, which does not "
				   "exist (%zu symbols); the object is corrupt",
				   t->name, (unsigned long long)off, (unsigned long long)symi,
				   ld->sym_cnt);
	/* Checked here too so that code no program reaches is held to the same rules. */
	if (t->data[off] != (BPF_LD | BPF_IMM | BPF_DW) && t->data[off] != (BPF_JMP | BPF_CALL))
		return loader_fail(ld, EINVAL,
				   "%s+%llu: relocation on an instruction (code 0x%02x) that is "
				   "neither ld_imm64 nor call; the object is corrupt",
				   t->name, (unsigned long long)off, t->data[off]);
	if (t->relos[off / 8].type != R_BPF_NONE)
		return loader_fail(ld, EINVAL,
				   "two relocations apply to %s+%llu; the object is corrupt",
				   t->name, (unsigned long long)off);
	t->relos[off / 8].type = type;
	t->relos[off / 8].sym = (uint32_t)symi;
	return 0;
}

/* Relocation section i: checked, and recorded if it applies to code. */
static int read_reloc_section(struct loader *ld, size_t i)
{
	const GElf_Shdr *sh = &ld->secs[i].shdr;
	const char *name = ld->secs[i].name;
	struct loader_sec *t;
	Elf_Scn *scn;
	Elf_Data *d;
	size_t cnt, j;
	int ret;

	if (sh->sh_info == 0 || sh->sh_info >= ld->shnum)
		return loader_fail(ld, EINVAL,
				   "relocation section '%s' applies to section %u, which does not "
				   "exist; the object is corrupt",
				   name, sh->sh_info);
	t = &ld->secs[sh->sh_info];
	if (!sec_is_code(t))
		return 0;
	if (sh->sh_type == SHT_RELA)
		return loader_fail(ld, EINVAL,
				   "section '%s' has RELA relocations ('%s'); only REL, as clang "
				   "emits, is supported",
				   t->name, name);
	if (sh->sh_link != 0 &&
	    (sh->sh_link >= ld->shnum || ld->secs[sh->sh_link].shdr.sh_type != SHT_SYMTAB))
		return loader_fail(ld, EINVAL,
				   "relocation section '%s' does not refer to the symbol table; "
				   "the object is corrupt",
				   name);
	scn = elf_getscn(ld->elf, i);
	d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || d->d_size != sh->sh_size)
		return loader_fail(ld, EINVAL,
				   "relocation section '%s' lies outside the file or cannot be "
				   "read (%s); the object is truncated or corrupt",
				   name, elf_errmsg(-1));
	cnt = d->d_size / sizeof(Elf64_Rel);
	if (cnt > INT_MAX)
		return loader_fail(ld, E2BIG, "relocation section '%s' is too large", name);
	for (j = 0; j < cnt; j++) {
		GElf_Rel rel;

		if (!gelf_getrel(d, (int)j, &rel))
			return loader_fail(ld, EINVAL, "cannot read relocation %zu of '%s': %s", j,
					   name, elf_errmsg(-1));
		ret = record_reloc(ld, t, j, &rel);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Record the relocations that apply to code sections, one per slot. Those on
 * debug and BTF sections only fix up DWARF/BTF offsets and are ignored (BTF
 * offsets are recomputed from the symbol table, see fix_datasec in btf.c).
 */
int loader_read_relocs(struct loader *ld)
{
	size_t i;
	int ret;

	for (i = 1; i < ld->shnum; i++) {
		uint32_t type = ld->secs[i].shdr.sh_type;

		if (type != SHT_REL && type != SHT_RELA)
			continue;
		ret = read_reloc_section(ld, i);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_func_by_place(const void *a, const void *b)
{
	const struct loader_func *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* A program and an alias at the same place: the program first. */
	return (int)y->is_prog - (int)x->is_prog;
}

/* A function without a size (hand-written asm) runs to the next one. */
static void size_unsized_funcs(struct loader *ld)
{
	size_t i, j;

	for (i = 0; i < ld->func_cnt; i++) {
		struct loader_func *f = &ld->funcs[i];
		size_t end = ld->secs[f->sec].size / 8;

		if (f->cnt)
			continue;
		for (j = i + 1; j < ld->func_cnt && ld->funcs[j].sec == f->sec; j++) {
			if (ld->funcs[j].start > f->start) {
				end = ld->funcs[j].start;
				break;
			}
		}
		f->cnt = (uint32_t)(end - f->start);
	}
}

/* Collect the functions of the code sections from their STT_FUNC symbols. */
int loader_read_funcs(struct loader *ld)
{
	size_t i, n = 0;

	ld->funcs = calloc(ld->sym_cnt ? ld->sym_cnt : 1, sizeof(*ld->funcs));
	if (!ld->funcs)
		return loader_nomem(ld);
	for (i = 0; i < ld->sym_cnt; i++) {
		const struct loader_sym *s = &ld->syms[i];
		size_t shndx = s->sym.st_shndx;
		unsigned bind = GELF_ST_BIND(s->sym.st_info);
		struct loader_func *f;

		if (GELF_ST_TYPE(s->sym.st_info) != STT_FUNC)
			continue;
		if (shndx == SHN_UNDEF || shndx >= ld->shnum || !sec_is_code(&ld->secs[shndx]))
			continue;
		if (!s->name || !s->name[0])
			return loader_fail(
				ld, EINVAL,
				"function symbol %zu in '%s' has no name; the object is corrupt", i,
				ld->secs[shndx].name);
		if (s->sym.st_value % 8 || s->sym.st_size % 8 ||
		    s->sym.st_value >= ld->secs[shndx].size ||
		    s->sym.st_size > ld->secs[shndx].size - s->sym.st_value)
			return loader_fail(
				ld, EINVAL,
				"function '%s' (offset %llu, size %llu) does not fit section '%s' "
				"(%zu bytes) in whole instructions; the object is corrupt",
				s->name, (unsigned long long)s->sym.st_value,
				(unsigned long long)s->sym.st_size, ld->secs[shndx].name,
				ld->secs[shndx].size);
		f = &ld->funcs[n++];
		f->sec = shndx;
		f->start = (uint32_t)(s->sym.st_value / 8);
		f->cnt = (uint32_t)(s->sym.st_size / 8);
		f->name = s->name;
		f->is_prog = ld->secs[shndx].kind == LOADER_SEC_PROG &&
			     (bind == STB_GLOBAL || bind == STB_WEAK);
	}
	ld->func_cnt = n;
	qsort(ld->funcs, n, sizeof(*ld->funcs), cmp_func_by_place);
	size_unsized_funcs(ld);
	return 0;
}

/* The function that starts exactly at slot of section sec, or -1. */
ssize_t loader_find_func(const struct loader *ld, size_t sec, uint64_t slot)
{
	size_t lo = 0, hi = ld->func_cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct loader_func *f = &ld->funcs[mid];

		if (f->sec < sec || (f->sec == sec && f->start < slot))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ld->func_cnt && ld->funcs[lo].sec == sec && ld->funcs[lo].start == slot)
		return (ssize_t)lo;
	return -1;
}

size_t loader_find_section(const struct loader *ld, const char *name)
{
	size_t i;

	for (i = 1; i < ld->shnum; i++)
		if (!strcmp(ld->secs[i].name, name))
			return i;
	return 0;
}

int loader_read_license(struct loader *ld)
{
	const struct loader_sec *s;

	if (!ld->license)
		return 0;
	s = &ld->secs[ld->license];
	ld->obj->license = strndup(s->data ? (const char *)s->data : "", s->data ? s->size : 0);
	return ld->obj->license ? 0 : loader_nomem(ld);
}
