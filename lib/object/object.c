// SPDX-License-Identifier: MIT
/*
 * The object loader: turns a clang-built BPF ELF object into struct object
 * (object.h) -- programs linked with their subprograms and relocated, maps
 * from SEC(".maps") and the global data sections, line info from .BTF.ext.
 * The input is untrusted: every size, offset and index is checked before use.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "vm/insn.h"
#include "object/object.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif
#ifndef R_BPF_NONE
#define R_BPF_NONE 0
#endif
#ifndef R_BPF_64_64
#define R_BPF_64_64 1
#endif
#ifndef R_BPF_64_32
#define R_BPF_64_32 10
#endif

/*
 * The kernel refuses array maps whose value exceeds KMALLOC_MAX_SIZE (4 MiB
 * on x86_64); a bigger data section could never load, and refusing it here
 * also keeps a forged .bss size from making us allocate gigabytes.
 */
#define OBJECT_DATA_MAX (4u << 20)

/* BTF type chains are acyclic in valid BTF, but libbpf does not check. */
#define BTF_WALK_MAX 32

/* .BTF.ext header up to and including line_info_len. */
struct btf_ext_hdr {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t func_info_off;
	uint32_t func_info_len;
	uint32_t line_info_off;
	uint32_t line_info_len;
};

enum ld_sec_kind {
	LD_SEC_OTHER,
	LD_SEC_PROG, /* "seccomp", "seccomp/..." */
	LD_SEC_TEXT, /* .text: subprograms */
	LD_SEC_DATA,
	LD_SEC_RODATA,
	LD_SEC_BSS,
	LD_SEC_MAPS, /* .maps */
	LD_SEC_LICENSE,
	LD_SEC_BTF,
	LD_SEC_BTF_EXT,
};

/* The relocation (if any) that applies to one instruction slot. */
struct ld_relo {
	uint32_t type; /* R_BPF_*; R_BPF_NONE = no relocation */
	uint32_t sym;
};

struct ld_sec {
	const char *name; /* in the ELF string table */
	GElf_Shdr shdr;
	enum ld_sec_kind kind;
	const uint8_t *data; /* NULL for SHT_NOBITS or not read */
	size_t size;
	int map;	       /* data sections: index in obj->maps, else -1 */
	struct ld_relo *relos; /* code sections: one per slot */
	const uint8_t *lines;  /* code sections: .BTF.ext line records */
	uint32_t line_cnt;
};

struct ld_sym {
	GElf_Sym sym;
	const char *name; /* NULL if the name offset is bad */
};

/* A function in a code section, from its STT_FUNC symbol. */
struct ld_func {
	size_t sec;
	uint32_t start; /* slot in the section */
	uint32_t cnt;
	const char *name;
	bool is_prog; /* global function in a seccomp section */
};

struct loader {
	const char *name; /* for messages */
	size_t size;	  /* of the ELF image */
	struct secbpf_err *err;
	int errnum; /* of the failure in err, for errno */
	struct object *obj;
	Elf *elf;
	size_t shnum;
	struct ld_sec *secs; /* indexed by ELF section index */
	struct ld_sym *syms;
	size_t sym_cnt;
	struct ld_func *funcs; /* sorted by (sec, start) */
	size_t func_cnt;
	size_t maps, btf, btf_ext, license; /* section index, 0 if absent */
	uint32_t *map_off;		    /* BTF maps: offset of the definition in .maps */
	uint32_t line_rec_size;
};

/* Work area while one program is linked. */
struct ld_link {
	struct bpf_insn *insns;
	uint32_t cnt;
	uint32_t cap;
	int64_t *placed; /* per ld_func: its first slot, or -1 */
	size_t *order;	 /* ld_func indices in placement order */
	size_t order_cnt;
};

static const char *const map_type_names[] = {
	[BPF_MAP_TYPE_UNSPEC] = "unspec",
	[BPF_MAP_TYPE_HASH] = "hash",
	[BPF_MAP_TYPE_ARRAY] = "array",
	[BPF_MAP_TYPE_PROG_ARRAY] = "prog_array",
	[BPF_MAP_TYPE_PERF_EVENT_ARRAY] = "perf_event_array",
	[BPF_MAP_TYPE_PERCPU_HASH] = "percpu_hash",
	[BPF_MAP_TYPE_PERCPU_ARRAY] = "percpu_array",
	[BPF_MAP_TYPE_STACK_TRACE] = "stack_trace",
	[BPF_MAP_TYPE_CGROUP_ARRAY] = "cgroup_array",
	[BPF_MAP_TYPE_LRU_HASH] = "lru_hash",
	[BPF_MAP_TYPE_LRU_PERCPU_HASH] = "lru_percpu_hash",
	[BPF_MAP_TYPE_LPM_TRIE] = "lpm_trie",
	[BPF_MAP_TYPE_ARRAY_OF_MAPS] = "array_of_maps",
	[BPF_MAP_TYPE_HASH_OF_MAPS] = "hash_of_maps",
	[BPF_MAP_TYPE_DEVMAP] = "devmap",
	[BPF_MAP_TYPE_SOCKMAP] = "sockmap",
	[BPF_MAP_TYPE_CPUMAP] = "cpumap",
	[BPF_MAP_TYPE_XSKMAP] = "xskmap",
	[BPF_MAP_TYPE_SOCKHASH] = "sockhash",
	[BPF_MAP_TYPE_CGROUP_STORAGE] = "cgroup_storage",
	[BPF_MAP_TYPE_REUSEPORT_SOCKARRAY] = "reuseport_sockarray",
	[BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE] = "percpu_cgroup_storage",
	[BPF_MAP_TYPE_QUEUE] = "queue",
	[BPF_MAP_TYPE_STACK] = "stack",
	[BPF_MAP_TYPE_SK_STORAGE] = "sk_storage",
	[BPF_MAP_TYPE_DEVMAP_HASH] = "devmap_hash",
	[BPF_MAP_TYPE_STRUCT_OPS] = "struct_ops",
	[BPF_MAP_TYPE_RINGBUF] = "ringbuf",
	[BPF_MAP_TYPE_INODE_STORAGE] = "inode_storage",
	[BPF_MAP_TYPE_TASK_STORAGE] = "task_storage",
	[BPF_MAP_TYPE_BLOOM_FILTER] = "bloom_filter",
};

/*
 * The map types a seccomp filter may declare: those of the helpers docs/design.md
 * lists for the unprivileged tier. The others need kernel objects (sockets,
 * cgroups, perf events) that have no meaning for a user-space filter.
 */
static const uint32_t map_types_supported[] = {
	BPF_MAP_TYPE_HASH,
	BPF_MAP_TYPE_ARRAY,
	BPF_MAP_TYPE_PROG_ARRAY,
	BPF_MAP_TYPE_PERCPU_HASH,
	BPF_MAP_TYPE_PERCPU_ARRAY,
	BPF_MAP_TYPE_LRU_HASH,
	BPF_MAP_TYPE_LRU_PERCPU_HASH,
	BPF_MAP_TYPE_QUEUE,
	BPF_MAP_TYPE_STACK,
	BPF_MAP_TYPE_RINGBUF,
	BPF_MAP_TYPE_TASK_STORAGE,
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int ld_fail(struct loader *ld, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Set the error message, prefixed with the object name; returns -errnum. */
static int ld_fail(struct loader *ld, int errnum, const char *fmt, ...)
{
	char msg[SECBPF_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ld->errnum = errnum;
	return err_set(ld->err, errnum, "%s: %s", ld->name, msg);
}

static int ld_nomem(struct loader *ld)
{
	return ld_fail(ld, ENOMEM, "out of memory while loading the object");
}

static const char *map_type_name(uint32_t type)
{
	if (type < ARRAY_LEN(map_type_names) && map_type_names[type])
		return map_type_names[type];
	return NULL;
}

static bool map_type_supported(uint32_t type)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(map_types_supported); i++)
		if (map_types_supported[i] == type)
			return true;
	return false;
}

static const char *sym_name(const struct ld_sym *s)
{
	return s->name && s->name[0] ? s->name : "<unnamed>";
}

static bool sec_is_code(const struct ld_sec *s)
{
	return s->kind == LD_SEC_PROG || s->kind == LD_SEC_TEXT;
}

static bool sec_is_data(const struct ld_sec *s)
{
	return s->kind == LD_SEC_DATA || s->kind == LD_SEC_RODATA || s->kind == LD_SEC_BSS;
}

static enum ld_sec_kind classify_section(const char *name)
{
	if (!strcmp(name, "seccomp") || !strncmp(name, "seccomp/", 8))
		return LD_SEC_PROG;
	if (!strcmp(name, ".text"))
		return LD_SEC_TEXT;
	if (!strcmp(name, ".data") || !strncmp(name, ".data.", 6))
		return LD_SEC_DATA;
	if (!strcmp(name, ".rodata") || !strncmp(name, ".rodata.", 8))
		return LD_SEC_RODATA;
	if (!strcmp(name, ".bss") || !strncmp(name, ".bss.", 5))
		return LD_SEC_BSS;
	if (!strcmp(name, ".maps"))
		return LD_SEC_MAPS;
	if (!strcmp(name, "license"))
		return LD_SEC_LICENSE;
	if (!strcmp(name, ".BTF"))
		return LD_SEC_BTF;
	if (!strcmp(name, ".BTF.ext"))
		return LD_SEC_BTF_EXT;
	return LD_SEC_OTHER;
}

/*
 * Read the bytes of section idx into secs[idx].data/size. libelf checks that
 * the section lies inside the image; we also insist that it returned all
 * of it, so that later offset checks against size are checks on real bytes.
 */
static int ld_read_sec(struct loader *ld, size_t idx)
{
	struct ld_sec *s = &ld->secs[idx];
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
		return ld_fail(ld, EINVAL,
			       "section '%s' lies outside the file or cannot be read (%s); the "
			       "object is truncated or corrupt, rebuild it",
			       s->name, elf_errmsg(-1));
	s->data = d->d_buf;
	s->size = d->d_size;
	return 0;
}

static int ld_read_symtab(struct loader *ld, size_t idx)
{
	struct ld_sec *s = &ld->secs[idx];
	size_t strndx = s->shdr.sh_link, i;
	Elf_Scn *scn = elf_getscn(ld->elf, idx);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (!d || d->d_size != s->shdr.sh_size)
		return ld_fail(ld, EINVAL,
			       "symbol table '%s' lies outside the file or cannot be read (%s); "
			       "the object is truncated or corrupt",
			       s->name, elf_errmsg(-1));
	if (strndx == 0 || strndx >= ld->shnum || ld->secs[strndx].shdr.sh_type != SHT_STRTAB)
		return ld_fail(ld, EINVAL,
			       "symbol table '%s' links to section %zu, which is not a string "
			       "table; the object is corrupt",
			       s->name, strndx);
	ld->sym_cnt = d->d_size / sizeof(Elf64_Sym);
	if (ld->sym_cnt > INT_MAX)
		return ld_fail(ld, E2BIG, "symbol table '%s' is too large", s->name);
	ld->syms = calloc(ld->sym_cnt ? ld->sym_cnt : 1, sizeof(*ld->syms));
	if (!ld->syms)
		return ld_nomem(ld);
	for (i = 0; i < ld->sym_cnt; i++) {
		if (!gelf_getsym(d, (int)i, &ld->syms[i].sym))
			return ld_fail(ld, EINVAL, "cannot read symbol %zu: %s", i, elf_errmsg(-1));
		ld->syms[i].name = elf_strptr(ld->elf, strndx, ld->syms[i].sym.st_name);
	}
	return 0;
}

/* ELF header checks and a first pass over the section headers. */
static int ld_read_sections(struct loader *ld)
{
	size_t shstrndx, i, symtab = 0;
	GElf_Ehdr eh;
	char *ident;
	int ret;

	if (elf_kind(ld->elf) != ELF_K_ELF)
		return ld_fail(ld, EINVAL,
			       "not an ELF file; build the filter with clang -target bpf -c");
	ident = elf_getident(ld->elf, NULL);
	if (!ident || ident[EI_CLASS] != ELFCLASS64)
		return ld_fail(ld, EINVAL,
			       "not a 64-bit ELF object; build the filter with clang -target bpf");
	if (ident[EI_DATA] != ELFDATA2LSB)
		return ld_fail(ld, EINVAL,
			       "big-endian BPF objects are not supported; build with -target bpf "
			       "or bpfel");
	if (!gelf_getehdr(ld->elf, &eh))
		return ld_fail(ld, EINVAL, "cannot read the ELF header: %s", elf_errmsg(-1));
	if (eh.e_machine != EM_BPF)
		return ld_fail(
			ld, EINVAL,
			"ELF machine is %u, not BPF (%u); build the filter with clang -target bpf",
			eh.e_machine, EM_BPF);
	if (eh.e_type != ET_REL)
		return ld_fail(ld, EINVAL,
			       "ELF type is %u, not a relocatable object (ET_REL); use the output "
			       "of clang -c",
			       eh.e_type);
	if (elf_getshdrnum(ld->elf, &ld->shnum) || elf_getshdrstrndx(ld->elf, &shstrndx))
		return ld_fail(
			ld, EINVAL,
			"cannot read the section headers (%s); the object is truncated or corrupt",
			elf_errmsg(-1));
	/* libelf reports no sections when the table is not in the image. */
	if (ld->shnum == 0 || eh.e_shoff > ld->size ||
	    (ld->size - eh.e_shoff) / sizeof(Elf64_Shdr) < ld->shnum)
		return ld_fail(ld, EINVAL,
			       "the ELF section header table (offset %llu) is missing or lies "
			       "outside the file (%zu bytes); the object is truncated or corrupt",
			       (unsigned long long)eh.e_shoff, ld->size);
	ld->secs = calloc(ld->shnum, sizeof(*ld->secs));
	if (!ld->secs)
		return ld_nomem(ld);
	for (i = 1; i < ld->shnum; i++) {
		struct ld_sec *s = &ld->secs[i];
		Elf_Scn *scn = elf_getscn(ld->elf, i);

		s->map = -1;
		if (!scn || !gelf_getshdr(scn, &s->shdr))
			return ld_fail(ld, EINVAL,
				       "cannot read section header %zu (%s); the object is corrupt",
				       i, elf_errmsg(-1));
		s->name = elf_strptr(ld->elf, shstrndx, s->shdr.sh_name);
		if (!s->name)
			return ld_fail(ld, EINVAL,
				       "section %zu has a bad name offset; the object is corrupt",
				       i);
		s->kind = classify_section(s->name);
		switch (s->kind) {
		case LD_SEC_MAPS:
			ld->maps = i;
			break;
		case LD_SEC_BTF:
			ld->btf = i;
			break;
		case LD_SEC_BTF_EXT:
			ld->btf_ext = i;
			break;
		case LD_SEC_LICENSE:
			ld->license = i;
			break;
		default:
			break;
		}
		if (s->shdr.sh_type == SHT_SYMTAB) {
			if (symtab)
				return ld_fail(ld, EINVAL,
					       "more than one symbol table; the object is corrupt");
			symtab = i;
		}
		if (s->kind != LD_SEC_OTHER) {
			ret = ld_read_sec(ld, i);
			if (ret)
				return ret;
		}
		if (sec_is_code(s)) {
			if (s->shdr.sh_type != SHT_PROGBITS)
				return ld_fail(ld, EINVAL,
					       "code section '%s' has no contents (type %u); the "
					       "object is corrupt",
					       s->name, s->shdr.sh_type);
			if (s->size % sizeof(struct bpf_insn))
				return ld_fail(
					ld, EINVAL,
					"code section '%s' is %zu bytes, not a multiple of 8 (one "
					"eBPF instruction); the object is truncated or corrupt",
					s->name, s->size);
			s->relos = calloc(s->size / 8 + 1, sizeof(*s->relos));
			if (!s->relos)
				return ld_nomem(ld);
		}
	}
	if (!symtab)
		return ld_fail(ld, EINVAL,
			       "the object has no symbol table (was it stripped?); use the "
			       "unstripped output of clang -c");
	return ld_read_symtab(ld, symtab);
}

/*
 * Record the relocations that apply to code sections, one per slot. Those on
 * debug and BTF sections only fix up DWARF/BTF offsets and are ignored (BTF
 * offsets are recomputed from the symbol table, see ld_fix_btf).
 */
static int ld_read_relocs(struct loader *ld)
{
	size_t i, j;

	for (i = 1; i < ld->shnum; i++) {
		const GElf_Shdr *sh = &ld->secs[i].shdr;
		struct ld_sec *t;
		Elf_Scn *scn;
		Elf_Data *d;
		size_t cnt;

		if (sh->sh_type != SHT_REL && sh->sh_type != SHT_RELA)
			continue;
		if (sh->sh_info == 0 || sh->sh_info >= ld->shnum)
			return ld_fail(ld, EINVAL,
				       "relocation section '%s' applies to section %u, which does "
				       "not exist; the object is corrupt",
				       ld->secs[i].name, sh->sh_info);
		t = &ld->secs[sh->sh_info];
		if (!sec_is_code(t))
			continue;
		if (sh->sh_type == SHT_RELA)
			return ld_fail(ld, EINVAL,
				       "section '%s' has RELA relocations ('%s'); only REL, as "
				       "clang emits, is supported",
				       t->name, ld->secs[i].name);
		if (sh->sh_link != 0 &&
		    (sh->sh_link >= ld->shnum || ld->secs[sh->sh_link].shdr.sh_type != SHT_SYMTAB))
			return ld_fail(ld, EINVAL,
				       "relocation section '%s' does not refer to the symbol "
				       "table; the object is corrupt",
				       ld->secs[i].name);
		scn = elf_getscn(ld->elf, i);
		d = scn ? elf_getdata(scn, NULL) : NULL;
		if (!d || d->d_size != sh->sh_size)
			return ld_fail(ld, EINVAL,
				       "relocation section '%s' lies outside the file or cannot be "
				       "read (%s); the object is truncated or corrupt",
				       ld->secs[i].name, elf_errmsg(-1));
		cnt = d->d_size / sizeof(Elf64_Rel);
		if (cnt > INT_MAX)
			return ld_fail(ld, E2BIG, "relocation section '%s' is too large",
				       ld->secs[i].name);
		for (j = 0; j < cnt; j++) {
			GElf_Rel rel;
			uint64_t off, symi;
			uint32_t type;

			if (!gelf_getrel(d, (int)j, &rel))
				return ld_fail(ld, EINVAL, "cannot read relocation %zu of '%s': %s",
					       j, ld->secs[i].name, elf_errmsg(-1));
			off = rel.r_offset;
			symi = GELF_R_SYM(rel.r_info);
			type = GELF_R_TYPE(rel.r_info);
			if (type == R_BPF_NONE)
				continue;
			if (off % 8 || off >= t->size)
				return ld_fail(ld, EINVAL,
					       "relocation %zu of section '%s' is at offset %llu, "
					       "which is not an instruction of the section (%zu "
					       "bytes); the object is corrupt",
					       j, t->name, (unsigned long long)off, t->size);
			if (symi == 0 || symi >= ld->sym_cnt)
				return ld_fail(
					ld, EINVAL,
					"relocation at %s+%llu refers to symbol %llu, which does "
					"not exist (%zu symbols); the object is corrupt",
					t->name, (unsigned long long)off, (unsigned long long)symi,
					ld->sym_cnt);
			/* Checked here too so that code no program reaches is
			 * held to the same rules. */
			if (t->data[off] != (BPF_LD | BPF_IMM | BPF_DW) &&
			    t->data[off] != (BPF_JMP | BPF_CALL))
				return ld_fail(
					ld, EINVAL,
					"%s+%llu: relocation on an instruction (code 0x%02x) that "
					"is neither ld_imm64 nor call; the object is corrupt",
					t->name, (unsigned long long)off, t->data[off]);
			if (t->relos[off / 8].type != R_BPF_NONE)
				return ld_fail(
					ld, EINVAL,
					"two relocations apply to %s+%llu; the object is corrupt",
					t->name, (unsigned long long)off);
			t->relos[off / 8].type = type;
			t->relos[off / 8].sym = (uint32_t)symi;
		}
	}
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct ld_func *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* A program and an alias at the same place: the program first. */
	return (int)y->is_prog - (int)x->is_prog;
}

/* Collect the functions of the code sections from their STT_FUNC symbols. */
static int ld_read_funcs(struct loader *ld)
{
	size_t i, n = 0;

	ld->funcs = calloc(ld->sym_cnt ? ld->sym_cnt : 1, sizeof(*ld->funcs));
	if (!ld->funcs)
		return ld_nomem(ld);
	for (i = 0; i < ld->sym_cnt; i++) {
		const struct ld_sym *s = &ld->syms[i];
		size_t shndx = s->sym.st_shndx;
		unsigned bind = GELF_ST_BIND(s->sym.st_info);
		struct ld_func *f;

		if (GELF_ST_TYPE(s->sym.st_info) != STT_FUNC)
			continue;
		if (shndx == SHN_UNDEF || shndx >= ld->shnum || !sec_is_code(&ld->secs[shndx]))
			continue;
		if (!s->name || !s->name[0])
			return ld_fail(
				ld, EINVAL,
				"function symbol %zu in '%s' has no name; the object is corrupt", i,
				ld->secs[shndx].name);
		if (s->sym.st_value % 8 || s->sym.st_size % 8 ||
		    s->sym.st_value >= ld->secs[shndx].size ||
		    s->sym.st_size > ld->secs[shndx].size - s->sym.st_value)
			return ld_fail(
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
		f->is_prog = ld->secs[shndx].kind == LD_SEC_PROG &&
			     (bind == STB_GLOBAL || bind == STB_WEAK);
	}
	ld->func_cnt = n;
	qsort(ld->funcs, n, sizeof(*ld->funcs), cmp_func);
	/* A function without a size (hand-written asm) runs to the next one. */
	for (i = 0; i < n; i++) {
		struct ld_func *f = &ld->funcs[i];
		size_t end = ld->secs[f->sec].size / 8, j;

		if (f->cnt)
			continue;
		for (j = i + 1; j < n && ld->funcs[j].sec == f->sec; j++) {
			if (ld->funcs[j].start > f->start) {
				end = ld->funcs[j].start;
				break;
			}
		}
		f->cnt = (uint32_t)(end - f->start);
	}
	return 0;
}

/* The function that starts exactly at slot of section sec, or -1. */
static ssize_t ld_find_func(const struct loader *ld, size_t sec, uint64_t slot)
{
	size_t lo = 0, hi = ld->func_cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ld_func *f = &ld->funcs[mid];

		if (f->sec < sec || (f->sec == sec && f->start < slot))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ld->func_cnt && ld->funcs[lo].sec == sec && ld->funcs[lo].start == slot)
		return (ssize_t)lo;
	return -1;
}

static size_t ld_find_sec(const struct loader *ld, const char *name)
{
	size_t i;

	for (i = 1; i < ld->shnum; i++)
		if (!strcmp(ld->secs[i].name, name))
			return i;
	return 0;
}

/* An object symbol named name defined in section sec, or NULL. */
static const struct ld_sym *ld_find_var_sym(const struct loader *ld, size_t sec, const char *name)
{
	size_t i;

	for (i = 0; i < ld->sym_cnt; i++) {
		const struct ld_sym *s = &ld->syms[i];
		unsigned type = GELF_ST_TYPE(s->sym.st_info);

		if (s->sym.st_shndx != sec || !s->name || strcmp(s->name, name))
			continue;
		if (type == STT_OBJECT || type == STT_NOTYPE)
			return s;
	}
	return NULL;
}

/* Follow typedefs and modifiers from id; returns the type (id in *out). */
static const struct btf_type *btf_skip_mods(const struct btf *btf, uint32_t id, uint32_t *out)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int depth;

	for (depth = 0; t && depth < BTF_WALK_MAX; depth++) {
		if (!btf_is_mod(t) && !btf_is_typedef(t))
			break;
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (!t || btf_is_mod(t) || btf_is_typedef(t))
		return NULL;
	if (out)
		*out = id;
	return t;
}

static size_t btf_type_len(const struct btf_type *t)
{
	size_t vlen = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		return sizeof(*t) + sizeof(uint32_t);
	case BTF_KIND_ARRAY:
		return sizeof(*t) + sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return sizeof(*t) + vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return sizeof(*t) + vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return sizeof(*t) + vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return sizeof(*t) + vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(*t) + sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return sizeof(*t) + vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(*t) + sizeof(struct btf_decl_tag);
	default:
		return sizeof(*t);
	}
}

/*
 * Compute the true size and variable offsets of one DATASEC into a patched
 * copy of its bytes (dst, same layout). clang writes the DATASEC size as 0
 * and leaves each offset to a relocation in .rel.BTF (0 in the file, or the
 * addend for a section-relative one). Like libbpf we take the section size
 * from the ELF header and each offset from the variable's symbol, and keep
 * the file's offset only for variables that have no symbol of their own.
 */
static int ld_fix_datasec(struct loader *ld, const struct btf *btf, const struct btf_type *t,
			  uint8_t *dst, bool *changed)
{
	const struct btf_var_secinfo *vsi = btf_var_secinfos(t);
	struct btf_type nt;
	const char *name = btf__name_by_offset(btf, t->name_off);
	size_t sec, i, secsz;
	uint32_t size;

	if (!name)
		return ld_fail(ld, EINVAL, "BTF DATASEC has a bad name; the BTF is corrupt");
	sec = ld_find_sec(ld, name);
	if (!sec)
		return 0; /* .kconfig and the like: no section, nothing to fix */
	secsz = ld->secs[sec].shdr.sh_size;
	if (t->size && t->size != secsz)
		return ld_fail(
			ld, EINVAL,
			"BTF says section '%s' is %u bytes but it is %zu; the object is corrupt",
			name, t->size, secsz);
	if (secsz > UINT32_MAX)
		return ld_fail(ld, EINVAL, "section '%s' is too large (%zu bytes)", name, secsz);
	size = (uint32_t)secsz;
	memcpy(&nt, t, sizeof(nt));
	if (nt.size != size) {
		nt.size = size;
		memcpy(dst, &nt, sizeof(nt));
		*changed = true;
	}
	for (i = 0; i < btf_vlen(t); i++) {
		const struct btf_type *v = btf__type_by_id(btf, vsi[i].type);
		const struct ld_sym *s;
		struct btf_var_secinfo nv;
		const char *vname;

		if (!v || !btf_is_var(v))
			return ld_fail(
				ld, EINVAL,
				"BTF DATASEC '%s' entry %zu is not a variable; the BTF is corrupt",
				name, i);
		vname = btf__name_by_offset(btf, v->name_off);
		if (!vname)
			return ld_fail(ld, EINVAL,
				       "BTF variable %u in '%s' has a bad name; the BTF is corrupt",
				       vsi[i].type, name);
		memcpy(&nv, &vsi[i], sizeof(nv));
		s = ld_find_var_sym(ld, sec, vname);
		if (s) {
			if (s->sym.st_value > UINT32_MAX)
				return ld_fail(ld, EINVAL,
					       "symbol '%s' has offset %llu, outside section '%s'",
					       vname, (unsigned long long)s->sym.st_value, name);
			nv.offset = (uint32_t)s->sym.st_value;
		}
		if ((uint64_t)nv.offset + nv.size > size)
			return ld_fail(ld, EINVAL,
				       "variable '%s' (offset %u, %u bytes) lies outside section "
				       "'%s' (%u bytes); the object is corrupt",
				       vname, nv.offset, nv.size, name, size);
		if (nv.offset != vsi[i].offset) {
			memcpy(dst + sizeof(nt) + i * sizeof(nv), &nv, sizeof(nv));
			*changed = true;
		}
	}
	return 0;
}

/*
 * Parse .BTF and fix up its DATASECs (see ld_fix_datasec). The fixed BTF is
 * built from a patched copy of the section, walked type by type in step with
 * libbpf's view of it, so obj->btf tells the truth to every later user.
 */
static int ld_read_btf(struct loader *ld)
{
	const struct ld_sec *s = &ld->secs[ld->btf];
	struct btf_header hdr;
	struct btf *btf;
	uint8_t *copy = NULL;
	bool changed = false;
	size_t pos, end;
	uint32_t id, n;
	int ret = 0;

	if (!s->data || s->size < sizeof(hdr) || s->size > UINT32_MAX)
		return ld_fail(
			ld, EINVAL,
			"section .BTF is empty or too large; rebuild the object with clang -g");
	btf = btf__new(s->data, (uint32_t)s->size);
	if (!btf)
		return ld_fail(
			ld, EINVAL,
			"section .BTF is malformed (libbpf: %s); rebuild the object with clang -g",
			strerror(errno));
	if (btf__endianness(btf) != BTF_LITTLE_ENDIAN) {
		ret = ld_fail(ld, EINVAL, "big-endian BTF is not supported");
		goto out;
	}
	memcpy(&hdr, s->data, sizeof(hdr));
	copy = malloc(s->size);
	if (!copy) {
		ret = ld_nomem(ld);
		goto out;
	}
	memcpy(copy, s->data, s->size);
	pos = (size_t)hdr.hdr_len + hdr.type_off;
	end = pos + hdr.type_len;
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		size_t len = t ? btf_type_len(t) : 0;

		/* libbpf validated the layout; this only guards our walk. */
		if (!t || pos > end || len > end - pos || end > s->size ||
		    memcmp(copy + pos, t, sizeof(*t))) {
			ret = ld_fail(
				ld, EINVAL,
				"section .BTF: type %u is not where expected; the BTF is corrupt",
				id);
			goto out;
		}
		if (btf_is_datasec(t)) {
			ret = ld_fix_datasec(ld, btf, t, copy + pos, &changed);
			if (ret)
				goto out;
		}
		pos += len;
	}
	if (changed) {
		struct btf *fixed = btf__new(copy, (uint32_t)s->size);

		if (!fixed) {
			ret = ld_fail(ld, EINVAL,
				      "section .BTF cannot be parsed after fixing its DATASECs "
				      "(libbpf: %s)",
				      strerror(errno));
			goto out;
		}
		btf__free(btf);
		btf = fixed;
	}
out:
	free(copy);
	if (ret)
		btf__free(btf);
	else
		ld->obj->btf = btf;
	return ret;
}

static int ld_add_map(struct loader *ld, const struct object_map *m)
{
	struct object *obj = ld->obj;
	struct object_map *maps;
	uint32_t *offs;

	maps = realloc(obj->maps, (obj->map_cnt + 1) * sizeof(*maps));
	if (!maps)
		return ld_nomem(ld);
	obj->maps = maps;
	offs = realloc(ld->map_off, (obj->map_cnt + 1) * sizeof(*offs));
	if (!offs)
		return ld_nomem(ld);
	ld->map_off = offs;
	maps[obj->map_cnt] = *m;
	offs[obj->map_cnt] = 0;
	obj->map_cnt++;
	return 0;
}

/* An integer attribute: __uint(name, N) is `int (*name)[N]`. */
static int ld_map_int(struct loader *ld, const char *map, const char *attr, uint32_t type_id,
		      uint32_t *val)
{
	const struct btf *btf = ld->obj->btf;
	const struct btf_type *t = btf_skip_mods(btf, type_id, NULL);
	const struct btf_type *arr;

	if (!t || !btf_is_ptr(t))
		goto bad;
	arr = btf__type_by_id(btf, t->type);
	if (!arr || !btf_is_array(arr))
		goto bad;
	*val = btf_array(arr)->nelems;
	return 0;
bad:
	return ld_fail(
		ld, EINVAL,
		"map '%s': attribute '%s' is not an integer; declare it with __uint(%s, VALUE)",
		map, attr, attr);
}

/* A type attribute: __type(name, T) is `T *name`; sets the type and size. */
static int ld_map_type(struct loader *ld, const char *map, const char *attr, uint32_t type_id,
		       uint32_t *id, uint32_t *size)
{
	const struct btf *btf = ld->obj->btf;
	const struct btf_type *t = btf_skip_mods(btf, type_id, NULL);
	long long sz;

	if (!t || !btf_is_ptr(t))
		return ld_fail(
			ld, EINVAL,
			"map '%s': attribute '%s' is not a type; declare it with __type(%s, TYPE)",
			map, attr, attr);
	sz = btf__resolve_size(btf, t->type);
	if (sz <= 0 || sz > UINT32_MAX)
		return ld_fail(ld, EINVAL,
			       "map '%s': the %s type has no usable size; use a complete type of "
			       "at least one byte",
			       map, attr);
	*id = t->type;
	*size = (uint32_t)sz;
	return 0;
}

/* One BTF-defined map: var is the VAR in the .maps DATASEC. */
static int ld_read_btf_map(struct loader *ld, const struct btf_type *var,
			   const struct btf_var_secinfo *vsi)
{
	const struct btf *btf = ld->obj->btf;
	const char *name = btf__name_by_offset(btf, var->name_off);
	const struct btf_type *def = btf_skip_mods(btf, var->type, NULL);
	const struct btf_member *m;
	struct object_map map = { .kind = OBJECT_MAP_BTF };
	uint32_t key_size = 0, value_size = 0, val = 0;
	bool has_type = false, has_key_size = false, has_value_size = false;
	size_t i;
	int ret;

	if (!name || !name[0])
		return ld_fail(ld, EINVAL, "a map in .maps has no name; the BTF is corrupt");
	if (!def || !btf_is_struct(def))
		return ld_fail(ld, EINVAL,
			       "map '%s' in .maps is not a struct; declare it as struct { "
			       "__uint(type, ...); ... } %s SEC(\".maps\")",
			       name, name);
	m = btf_members(def);
	for (i = 0; i < btf_vlen(def); i++, m++) {
		const char *attr = btf__name_by_offset(btf, m->name_off);

		if (!attr || !attr[0])
			return ld_fail(ld, EINVAL,
				       "map '%s' has an unnamed attribute; use __uint()/__type() "
				       "from bpf_helpers.h",
				       name);
		if (!strcmp(attr, "type")) {
			ret = ld_map_int(ld, name, attr, m->type, &map.type);
			has_type = true;
		} else if (!strcmp(attr, "max_entries")) {
			ret = ld_map_int(ld, name, attr, m->type, &map.max_entries);
		} else if (!strcmp(attr, "map_flags")) {
			ret = ld_map_int(ld, name, attr, m->type, &map.map_flags);
		} else if (!strcmp(attr, "key_size")) {
			ret = ld_map_int(ld, name, attr, m->type, &key_size);
			has_key_size = true;
		} else if (!strcmp(attr, "value_size")) {
			ret = ld_map_int(ld, name, attr, m->type, &value_size);
			has_value_size = true;
		} else if (!strcmp(attr, "key")) {
			ret = ld_map_type(ld, name, attr, m->type, &map.btf_key_type_id,
					  &map.key_size);
		} else if (!strcmp(attr, "value")) {
			ret = ld_map_type(ld, name, attr, m->type, &map.btf_value_type_id,
					  &map.value_size);
		} else if (!strcmp(attr, "numa_node")) {
			/* A placement hint; one process has nothing to place. */
			ret = ld_map_int(ld, name, attr, m->type, &val);
		} else if (!strcmp(attr, "pinning") || !strcmp(attr, "map_extra")) {
			ret = ld_map_int(ld, name, attr, m->type, &val);
			if (!ret && val)
				return ld_fail(ld, ENOTSUP,
					       "map '%s': '%s' is not supported by secbpf; remove "
					       "the attribute",
					       name, attr);
		} else if (!strcmp(attr, "values")) {
			return ld_fail(ld, ENOTSUP,
				       "map '%s': initial 'values' and inner maps (map-in-map, "
				       "prog array init) are not supported by secbpf; fill the map "
				       "from the program instead",
				       name);
		} else {
			return ld_fail(ld, ENOTSUP,
				       "map '%s': unknown attribute '%s'; use type, key, value, "
				       "key_size, value_size, max_entries or map_flags",
				       name, attr);
		}
		if (ret)
			return ret;
	}
	if (!has_type)
		return ld_fail(ld, EINVAL,
			       "map '%s' has no type; add __uint(type, BPF_MAP_TYPE_...)", name);
	if (!map_type_supported(map.type)) {
		const char *tn = map_type_name(map.type);

		if (tn)
			return ld_fail(
				ld, ENOTSUP,
				"map '%s': type %s (%u) is not supported by secbpf; use hash, "
				"array, percpu_hash, percpu_array, lru_hash, lru_percpu_hash, "
				"queue, stack, ringbuf, task_storage or prog_array",
				name, tn, map.type);
		return ld_fail(ld, ENOTSUP,
			       "map '%s': unknown map type %u; use a BPF_MAP_TYPE_* constant such "
			       "as BPF_MAP_TYPE_HASH",
			       name, map.type);
	}
	if (has_key_size && map.btf_key_type_id && key_size != map.key_size)
		return ld_fail(
			ld, EINVAL,
			"map '%s': key_size %u contradicts the key type (%u bytes); drop key_size",
			name, key_size, map.key_size);
	if (has_value_size && map.btf_value_type_id && value_size != map.value_size)
		return ld_fail(ld, EINVAL,
			       "map '%s': value_size %u contradicts the value type (%u bytes); "
			       "drop value_size",
			       name, value_size, map.value_size);
	if (has_key_size)
		map.key_size = key_size;
	if (has_value_size)
		map.value_size = value_size;
	map.name = strdup(name);
	if (!map.name)
		return ld_nomem(ld);
	ret = ld_add_map(ld, &map);
	if (ret) {
		free(map.name);
		return ret;
	}
	ld->map_off[ld->obj->map_cnt - 1] = vsi->offset;
	return 0;
}

static int ld_read_btf_maps(struct loader *ld)
{
	const struct btf *btf = ld->obj->btf;
	const struct btf_type *sec;
	const struct btf_var_secinfo *vsi;
	int id;
	size_t i;

	if (!ld->maps)
		return 0;
	if (!btf)
		return ld_fail(
			ld, EINVAL,
			"section .maps needs BTF to describe its maps; compile with clang -g");
	id = btf__find_by_name_kind(btf, ".maps", BTF_KIND_DATASEC);
	if (id <= 0) {
		if (ld->secs[ld->maps].size == 0)
			return 0;
		return ld_fail(ld, EINVAL,
			       "section .maps has no BTF description; compile with clang -g");
	}
	sec = btf__type_by_id(btf, (uint32_t)id);
	vsi = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++) {
		const struct btf_type *var = btf__type_by_id(btf, vsi[i].type);
		int ret;

		if (!var || !btf_is_var(var))
			return ld_fail(ld, EINVAL,
				       "BTF .maps entry %zu is not a variable; the BTF is corrupt",
				       i);
		ret = ld_read_btf_map(ld, var, &vsi[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Each non-empty global data section becomes a one-element array map. */
static int ld_read_data_maps(struct loader *ld)
{
	const struct btf *btf = ld->obj->btf;
	size_t i;

	for (i = 1; i < ld->shnum; i++) {
		struct ld_sec *s = &ld->secs[i];
		struct object_map map = {
			.type = BPF_MAP_TYPE_ARRAY,
			.key_size = 4,
			.max_entries = 1,
		};
		int ret, id;

		if (!sec_is_data(s) || s->size == 0)
			continue;
		if (s->size > OBJECT_DATA_MAX)
			return ld_fail(ld, E2BIG,
				       "global data section '%s' is %zu bytes, more than the %u an "
				       "array map value may hold; use a map for big tables",
				       s->name, s->size, OBJECT_DATA_MAX);
		map.value_size = (uint32_t)s->size;
		switch (s->kind) {
		case LD_SEC_DATA:
			map.kind = OBJECT_MAP_DATA;
			break;
		case LD_SEC_RODATA:
			map.kind = OBJECT_MAP_RODATA;
			map.map_flags = BPF_F_RDONLY_PROG;
			break;
		default:
			map.kind = OBJECT_MAP_BSS;
			break;
		}
		if (btf) {
			id = btf__find_by_name_kind(btf, s->name, BTF_KIND_DATASEC);
			if (id > 0)
				map.btf_value_type_id = (uint32_t)id;
		}
		if (map.kind != OBJECT_MAP_BSS) {
			map.init_data = calloc(1, s->size);
			if (!map.init_data)
				return ld_nomem(ld);
			if (s->data)
				memcpy(map.init_data, s->data, s->size);
		}
		map.name = strdup(s->name);
		if (!map.name) {
			free(map.init_data);
			return ld_nomem(ld);
		}
		ret = ld_add_map(ld, &map);
		if (ret) {
			free(map.name);
			free(map.init_data);
			return ret;
		}
		s->map = (int)(ld->obj->map_cnt - 1);
	}
	return 0;
}

/* Fill var's const volatile, integer and signedness flags from its type. */
static void ld_var_type(const struct btf *btf, struct object_var *var)
{
	const struct btf_type *t = btf__type_by_id(btf, var->btf_type_id);
	bool is_const = false, is_volatile = false;
	int depth;

	for (depth = 0; t && depth < BTF_WALK_MAX; depth++) {
		if (btf_is_const(t))
			is_const = true;
		else if (btf_is_volatile(t))
			is_volatile = true;
		else if (!btf_is_mod(t) && !btf_is_typedef(t))
			break;
		t = btf__type_by_id(btf, t->type);
	}
	var->is_const_volatile = is_const && is_volatile;
	if (!t)
		return;
	if (btf_is_int(t)) {
		var->is_integer = true;
		var->is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
	} else if (btf_is_any_enum(t)) {
		var->is_integer = true;
		var->is_signed = btf_kflag(t);
	}
}

static int ld_read_vars(struct loader *ld)
{
	struct object *obj = ld->obj;
	const struct btf *btf = obj->btf;
	uint32_t mi;

	if (!btf)
		return 0;
	for (mi = 0; mi < obj->map_cnt; mi++) {
		const struct object_map *m = &obj->maps[mi];
		const struct btf_type *sec;
		const struct btf_var_secinfo *vsi;
		struct object_var *vars;
		size_t i, n;

		if (m->kind == OBJECT_MAP_BTF || !m->btf_value_type_id)
			continue;
		sec = btf__type_by_id(btf, m->btf_value_type_id);
		vsi = btf_var_secinfos(sec);
		n = btf_vlen(sec);
		vars = realloc(obj->vars, (obj->var_cnt + n + 1) * sizeof(*vars));
		if (!vars)
			return ld_nomem(ld);
		obj->vars = vars;
		for (i = 0; i < n; i++) {
			const struct btf_type *v = btf__type_by_id(btf, vsi[i].type);
			struct object_var *var = &obj->vars[obj->var_cnt];

			/* ld_fix_datasec checked kind, name and bounds. */
			memset(var, 0, sizeof(*var));
			var->name = strdup(btf__name_by_offset(btf, v->name_off));
			if (!var->name)
				return ld_nomem(ld);
			obj->var_cnt++;
			var->map = mi;
			var->offset = vsi[i].offset;
			var->size = vsi[i].size;
			/* Two sections of one name: the DATASEC was checked against
			 * the first, the map may come from the other. */
			if ((uint64_t)var->offset + var->size > m->value_size)
				return ld_fail(ld, EINVAL,
					       "variable '%s' lies outside section '%s'; the "
					       "object is corrupt",
					       var->name, m->name);
			var->btf_type_id = v->type;
			ld_var_type(btf, var);
		}
	}
	return 0;
}

static int ld_read_license(struct loader *ld)
{
	const struct ld_sec *s;

	if (!ld->license)
		return 0;
	s = &ld->secs[ld->license];
	ld->obj->license = strndup(s->data ? (const char *)s->data : "", s->data ? s->size : 0);
	return ld->obj->license ? 0 : ld_nomem(ld);
}

static int ld_check_str(struct loader *ld, uint32_t off, const char *what)
{
	if (!btf__name_by_offset(ld->obj->btf, off))
		return ld_fail(
			ld, EINVAL,
			".BTF.ext: %s offset %u is outside the BTF strings; rebuild the object",
			what, off);
	return 0;
}

/*
 * Index the line info of .BTF.ext by code section. Layout: a header, then
 * at line_info_off a record size and blocks of {section name, count,
 * records}; insn_off in a record is a byte offset in its section.
 */
static int ld_read_btf_ext(struct loader *ld)
{
	const struct ld_sec *s;
	struct btf_ext_hdr hdr;
	const uint8_t *p;
	uint64_t len, pos;
	uint32_t rec_size;

	if (!ld->btf_ext)
		return 0;
	s = &ld->secs[ld->btf_ext];
	if (!ld->obj->btf)
		return ld_fail(ld, EINVAL,
			       "the object has .BTF.ext but no .BTF; rebuild it with clang -g");
	if (!s->data || s->size < 8)
		return ld_fail(ld, EINVAL, ".BTF.ext is truncated; rebuild the object");
	memset(&hdr, 0, sizeof(hdr));
	memcpy(&hdr, s->data, s->size < sizeof(hdr) ? s->size : sizeof(hdr));
	if (hdr.magic != BTF_MAGIC)
		return ld_fail(ld, EINVAL,
			       ".BTF.ext has bad magic 0x%04x (expected 0x%04x, little endian); "
			       "rebuild the object",
			       hdr.magic, BTF_MAGIC);
	if (hdr.version != BTF_VERSION)
		return ld_fail(ld, EINVAL, ".BTF.ext version %u is not supported (expected %u)",
			       hdr.version, BTF_VERSION);
	if (hdr.hdr_len < sizeof(hdr) || hdr.hdr_len > s->size)
		return ld_fail(ld, EINVAL,
			       ".BTF.ext header length %u is invalid (section is %zu bytes); the "
			       "object is corrupt",
			       hdr.hdr_len, s->size);
	if ((uint64_t)hdr.hdr_len + hdr.line_info_off + hdr.line_info_len > s->size)
		return ld_fail(ld, EINVAL,
			       ".BTF.ext line info (offset %u, %u bytes) lies outside the section "
			       "(%zu bytes); the object is truncated or corrupt",
			       hdr.line_info_off, hdr.line_info_len, s->size);
	len = hdr.line_info_len;
	if (len == 0)
		return 0;
	p = s->data + hdr.hdr_len + hdr.line_info_off;
	if (len < 4)
		return ld_fail(ld, EINVAL, ".BTF.ext line info is truncated");
	memcpy(&rec_size, p, 4);
	if (rec_size < sizeof(struct bpf_line_info))
		return ld_fail(ld, EINVAL,
			       ".BTF.ext line info record size %u is smaller than %zu; the object "
			       "is corrupt",
			       rec_size, sizeof(struct bpf_line_info));
	ld->line_rec_size = rec_size;
	for (pos = 4; pos < len;) {
		uint32_t name_off, cnt, i;
		const char *name;
		struct ld_sec *cs;
		size_t sec;
		int ret;

		if (len - pos < 8)
			return ld_fail(ld, EINVAL, ".BTF.ext line info block is truncated");
		memcpy(&name_off, p + pos, 4);
		memcpy(&cnt, p + pos + 4, 4);
		pos += 8;
		name = btf__name_by_offset(ld->obj->btf, name_off);
		if (!name)
			return ld_fail(ld, EINVAL,
				       ".BTF.ext line info names section at string offset %u, "
				       "outside the BTF strings; the object is corrupt",
				       name_off);
		if (cnt == 0 || (uint64_t)cnt * rec_size > len - pos)
			return ld_fail(ld, EINVAL,
				       ".BTF.ext line info for '%s' has %u records, which do not "
				       "fit the section; the object is truncated or corrupt",
				       name, cnt);
		sec = ld_find_sec(ld, name);
		cs = sec ? &ld->secs[sec] : NULL;
		if (cs && sec_is_code(cs)) {
			if (cs->lines)
				return ld_fail(ld, EINVAL,
					       ".BTF.ext has two line info blocks for '%s'; the "
					       "object is corrupt",
					       name);
			for (i = 0; i < cnt; i++) {
				struct bpf_line_info li;

				memcpy(&li, p + pos + (uint64_t)i * rec_size, sizeof(li));
				if (li.insn_off % 8 || li.insn_off >= cs->size)
					return ld_fail(
						ld, EINVAL,
						".BTF.ext line info points at %s+%u, which is not "
						"an instruction; the object is corrupt",
						name, li.insn_off);
				ret = ld_check_str(ld, li.file_name_off, "file name");
				if (!ret)
					ret = ld_check_str(ld, li.line_off, "source line");
				if (ret)
					return ret;
			}
			cs->lines = p + pos;
			cs->line_cnt = cnt;
		}
		pos += (uint64_t)cnt * rec_size;
	}
	return 0;
}

/* Copy function f to the end of the program being linked (once). */
static int ld_place(struct loader *ld, struct ld_link *lk, size_t f, const char *prog,
		    uint32_t *start)
{
	const struct ld_func *fn = &ld->funcs[f];
	const struct ld_sec *s = &ld->secs[fn->sec];

	if (lk->placed[f] >= 0) {
		*start = (uint32_t)lk->placed[f];
		return 0;
	}
	if (fn->cnt > INSN_MAX_CNT - lk->cnt)
		return ld_fail(
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
			return ld_nomem(ld);
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

/*
 * Relocate the ld_imm64 at slot k of function f (at out slot pos): a map,
 * global data, or the address of a subprogram (a bpf_loop callback).
 */
static int ld_reloc_ld_imm64(struct loader *ld, struct ld_link *lk, size_t f, uint32_t k,
			     uint32_t pos, const char *prog)
{
	const struct ld_func *fn = &ld->funcs[f];
	const struct ld_sec *cs = &ld->secs[fn->sec];
	const struct ld_relo *r = &cs->relos[fn->start + k];
	const struct ld_sym *sym;
	const struct ld_sec *ts;
	uint64_t addend, off;
	size_t shndx;
	uint32_t i, target;
	ssize_t tf;
	int ret;

	if (k + 1 >= fn->cnt)
		return ld_fail(ld, EINVAL,
			       "%s+%u: ld_imm64 at the end of function '%s' is cut off (it needs "
			       "two slots); the object is truncated or corrupt",
			       cs->name, (fn->start + k) * 8, fn->name);
	if (cs->relos[fn->start + k + 1].type != R_BPF_NONE)
		return ld_fail(ld, EINVAL,
			       "%s+%u: relocation on the second half of an ld_imm64; the object is "
			       "corrupt",
			       cs->name, (fn->start + k + 1) * 8);
	if (r->type == R_BPF_NONE) {
		if (lk->insns[pos].src_reg != 0)
			return ld_fail(ld, EINVAL,
				       "%s+%u: ld_imm64 with src_reg %u but no relocation; map and "
				       "function references must come from clang relocations",
				       cs->name, (fn->start + k) * 8, lk->insns[pos].src_reg);
		return 0;
	}
	sym = &ld->syms[r->sym];
	if (r->type != R_BPF_64_64)
		return ld_fail(ld, EINVAL,
			       "%s+%u: relocation type %u against '%s' on an ld_imm64, expected "
			       "R_BPF_64_64; the object is corrupt",
			       cs->name, (fn->start + k) * 8, r->type, sym_name(sym));
	if (lk->insns[pos].src_reg != 0)
		return ld_fail(
			ld, EINVAL,
			"%s+%u: relocated ld_imm64 already has src_reg %u; the object is corrupt",
			cs->name, (fn->start + k) * 8, lk->insns[pos].src_reg);
	shndx = sym->sym.st_shndx;
	if (shndx == SHN_UNDEF)
		return ld_fail(ld, ENOTSUP,
			       "%s+%u: reference to extern '%s' (kconfig/ksym externs are not "
			       "supported by secbpf); define the variable in the filter",
			       cs->name, (fn->start + k) * 8, sym_name(sym));
	if (shndx >= ld->shnum)
		return ld_fail(ld, EINVAL,
			       "%s+%u: symbol '%s' is in section %zu, which does not exist; the "
			       "object is corrupt",
			       cs->name, (fn->start + k) * 8, sym_name(sym), shndx);
	ts = &ld->secs[shndx];
	addend = insn_ld_imm64_value(&lk->insns[pos]);
	off = sym->sym.st_value + addend;
	if (off < addend)
		goto bad_off;

	if (sec_is_code(ts)) {
		if (off % 8 || off >= ts->size)
			goto bad_off;
		tf = ld_find_func(ld, shndx, off / 8);
		if (tf < 0)
			return ld_fail(
				ld, EINVAL,
				"%s+%u: address of %s+%llu, which is not the start of a function",
				cs->name, (fn->start + k) * 8, ts->name, (unsigned long long)off);
		ret = ld_place(ld, lk, (size_t)tf, prog, &target);
		if (ret)
			return ret;
		lk->insns[pos].src_reg = BPF_PSEUDO_FUNC;
		lk->insns[pos].imm = (int32_t)((int64_t)target - ((int64_t)pos + 1));
		lk->insns[pos + 1].imm = 0;
		return 0;
	}
	if (ts->kind == LD_SEC_MAPS) {
		for (i = 0; i < ld->obj->map_cnt; i++)
			if (ld->obj->maps[i].kind == OBJECT_MAP_BTF && ld->map_off[i] == off)
				break;
		if (i == ld->obj->map_cnt)
			return ld_fail(ld, EINVAL,
				       "%s+%u: reference to '%s' at .maps+%llu, where no map is "
				       "defined; the object is corrupt",
				       cs->name, (fn->start + k) * 8, sym_name(sym),
				       (unsigned long long)off);
		lk->insns[pos].src_reg = BPF_PSEUDO_MAP_FD;
		lk->insns[pos].imm = (int32_t)i;
		lk->insns[pos + 1].imm = 0;
		return 0;
	}
	if (sec_is_data(ts)) {
		if (ts->map < 0 || off >= ts->size)
			goto bad_off;
		lk->insns[pos].src_reg = BPF_PSEUDO_MAP_VALUE;
		lk->insns[pos].imm = ts->map;
		lk->insns[pos + 1].imm = (int32_t)off;
		return 0;
	}
	return ld_fail(ld, ENOTSUP,
		       "%s+%u: reference to '%s' in section '%s', which is neither code, a map nor "
		       "global data (.data, .rodata, .bss); move the object there",
		       cs->name, (fn->start + k) * 8, sym_name(sym), ts->name);
bad_off:
	return ld_fail(ld, EINVAL,
		       "%s+%u: reference to '%s' at offset %llu, outside section '%s' (%zu bytes); "
		       "the object is corrupt",
		       cs->name, (fn->start + k) * 8, sym_name(sym), (unsigned long long)off,
		       ts->name, ts->size);
}

/* Relocate the call at slot k of function f (out slot pos). */
static int ld_reloc_call(struct loader *ld, struct ld_link *lk, size_t f, uint32_t k, uint32_t pos,
			 const char *prog)
{
	const struct ld_func *fn = &ld->funcs[f];
	const struct ld_sec *cs = &ld->secs[fn->sec];
	const struct ld_relo *r = &cs->relos[fn->start + k];
	struct bpf_insn *in = &lk->insns[pos];
	size_t tsec = fn->sec;
	int64_t tslot;
	uint32_t target;
	ssize_t tf;
	int ret;

	if (in->src_reg != BPF_PSEUDO_CALL) {
		if (r->type != R_BPF_NONE)
			return ld_fail(ld, ENOTSUP,
				       "%s+%u: call to extern function '%s' (kfuncs are not "
				       "supported by secbpf); use helpers or static functions",
				       cs->name, (fn->start + k) * 8, sym_name(&ld->syms[r->sym]));
		if (in->src_reg == BPF_PSEUDO_KFUNC_CALL)
			return ld_fail(ld, ENOTSUP,
				       "%s+%u: kfunc calls are not supported by secbpf", cs->name,
				       (fn->start + k) * 8);
		return 0; /* a helper call: insn_validate checks the rest */
	}
	if (r->type != R_BPF_NONE) {
		const struct ld_sym *sym = &ld->syms[r->sym];

		if (r->type != R_BPF_64_32)
			return ld_fail(ld, EINVAL,
				       "%s+%u: relocation type %u against '%s' on a call, expected "
				       "R_BPF_64_32; the object is corrupt",
				       cs->name, (fn->start + k) * 8, r->type, sym_name(sym));
		tsec = sym->sym.st_shndx;
		if (tsec == SHN_UNDEF)
			return ld_fail(ld, ENOTSUP,
				       "%s+%u: call to undefined function '%s'; define it (static) "
				       "in the filter",
				       cs->name, (fn->start + k) * 8, sym_name(sym));
		if (tsec >= ld->shnum || !sec_is_code(&ld->secs[tsec]) || sym->sym.st_value % 8)
			return ld_fail(ld, EINVAL,
				       "%s+%u: call to '%s', which is not in a code section; the "
				       "object is corrupt",
				       cs->name, (fn->start + k) * 8, sym_name(sym));
		/* REL: the addend is the imm, in slots, minus the one the CPU adds. */
		tslot = (int64_t)(sym->sym.st_value / 8) + in->imm + 1;
	} else {
		tslot = (int64_t)fn->start + k + in->imm + 1;
	}
	if (tslot < 0 || (uint64_t)tslot >= ld->secs[tsec].size / 8)
		return ld_fail(ld, EINVAL,
			       "%s+%u: call target slot %lld is outside section '%s'; the object "
			       "is corrupt",
			       cs->name, (fn->start + k) * 8, (long long)tslot,
			       ld->secs[tsec].name);
	tf = ld_find_func(ld, tsec, (uint64_t)tslot);
	if (tf < 0)
		return ld_fail(
			ld, EINVAL, "%s+%u: call to %s+%lld, which is not the start of a function",
			cs->name, (fn->start + k) * 8, ld->secs[tsec].name, (long long)tslot * 8);
	ret = ld_place(ld, lk, (size_t)tf, prog, &target);
	if (ret)
		return ret;
	lk->insns[pos].imm = (int32_t)((int64_t)target - ((int64_t)pos + 1));
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct object_line *x = a, *y = b;

	if (x->insn_off != y->insn_off)
		return x->insn_off < y->insn_off ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return 0;
}

/* Translate the line info of every placed function to program slots. */
static int ld_link_lines(struct loader *ld, struct ld_link *lk, struct object_prog *prog)
{
	size_t i, n = 0;
	uint32_t j;

	for (i = 0; i < lk->order_cnt; i++)
		n += ld->secs[ld->funcs[lk->order[i]].sec].line_cnt;
	if (!n)
		return 0;
	prog->lines = calloc(n, sizeof(*prog->lines));
	if (!prog->lines)
		return ld_nomem(ld);
	for (i = 0; i < lk->order_cnt; i++) {
		const struct ld_func *fn = &ld->funcs[lk->order[i]];
		const struct ld_sec *s = &ld->secs[fn->sec];

		for (j = 0; j < s->line_cnt; j++) {
			struct object_line *l = &prog->lines[prog->line_cnt];
			struct bpf_line_info li;
			const char *src;
			uint32_t slot;

			memcpy(&li, s->lines + (size_t)j * ld->line_rec_size, sizeof(li));
			slot = li.insn_off / 8;
			if (slot < fn->start || slot - fn->start >= fn->cnt)
				continue;
			l->insn_off = (uint32_t)lk->placed[lk->order[i]] + (slot - fn->start);
			l->file = btf__name_by_offset(ld->obj->btf, li.file_name_off);
			src = btf__name_by_offset(ld->obj->btf, li.line_off);
			l->source = src && src[0] ? src : NULL;
			l->line = BPF_LINE_INFO_LINE_NUM(li.line_col);
			l->col = BPF_LINE_INFO_LINE_COL(li.line_col);
			prog->line_cnt++;
		}
	}
	qsort(prog->lines, prog->line_cnt, sizeof(*prog->lines), cmp_line);
	return 0;
}

/* Link program function main_f with everything it calls into prog. */
static int ld_link_prog(struct loader *ld, size_t main_f, struct object_prog *prog)
{
	const struct ld_func *mf = &ld->funcs[main_f];
	struct ld_link lk = { 0 };
	uint32_t start;
	size_t i;
	int ret;

	prog->name = strdup(mf->name);
	prog->section = strdup(ld->secs[mf->sec].name);
	lk.placed = malloc(ld->func_cnt * sizeof(*lk.placed));
	lk.order = malloc(ld->func_cnt * sizeof(*lk.order));
	if (!prog->name || !prog->section || !lk.placed || !lk.order) {
		ret = ld_nomem(ld);
		goto out;
	}
	for (i = 0; i < ld->func_cnt; i++)
		lk.placed[i] = -1;
	if (mf->cnt == 0) {
		ret = ld_fail(ld, EINVAL, "program '%s' has no instructions", mf->name);
		goto out;
	}
	ret = ld_place(ld, &lk, main_f, mf->name, &start);
	for (i = 0; !ret && i < lk.order_cnt; i++) {
		size_t f = lk.order[i];
		uint32_t base = (uint32_t)lk.placed[f], k;

		for (k = 0; !ret && k < ld->funcs[f].cnt; k++) {
			const struct bpf_insn *in = &lk.insns[base + k];
			const struct ld_sec *cs = &ld->secs[ld->funcs[f].sec];

			if (insn_is_ld_imm64(in)) {
				ret = ld_reloc_ld_imm64(ld, &lk, f, k, base + k, mf->name);
				k++;
			} else if (in->code == (BPF_JMP | BPF_CALL)) {
				ret = ld_reloc_call(ld, &lk, f, k, base + k, mf->name);
			} else if (cs->relos[ld->funcs[f].start + k].type != R_BPF_NONE) {
				ret = ld_fail(
					ld, EINVAL,
					"%s+%u: relocation on an instruction (code 0x%02x) that is "
					"neither ld_imm64 nor call; the object is corrupt",
					cs->name, (ld->funcs[f].start + k) * 8, in->code);
			}
		}
	}
	if (ret)
		goto out;
	prog->insns = lk.insns;
	prog->insn_cnt = lk.cnt;
	prog->main_cnt = mf->cnt;
	lk.insns = NULL;
	prog->funcs = calloc(lk.order_cnt, sizeof(*prog->funcs));
	if (!prog->funcs) {
		ret = ld_nomem(ld);
		goto out;
	}
	for (i = 0; i < lk.order_cnt; i++) {
		prog->funcs[i].start = (uint32_t)lk.placed[lk.order[i]];
		prog->funcs[i].name = strdup(ld->funcs[lk.order[i]].name);
		if (!prog->funcs[i].name) {
			ret = ld_nomem(ld);
			goto out;
		}
		prog->func_cnt++;
	}
	ret = ld_link_lines(ld, &lk, prog);
out:
	free(lk.insns);
	free(lk.placed);
	free(lk.order);
	return ret;
}

static int ld_link_progs(struct loader *ld)
{
	struct object *obj = ld->obj;
	size_t i, n = 0;
	int ret;

	for (i = 0; i < ld->func_cnt; i++)
		n += ld->funcs[i].is_prog;
	if (!n) {
		char found[256] = "";
		size_t len = 0;

		/* Name the code sections we skipped: often a typo in SEC(). */
		for (i = 1; i < ld->shnum && len < sizeof(found) - 1; i++) {
			const struct ld_sec *s = &ld->secs[i];

			if (!(s->shdr.sh_flags & SHF_EXECINSTR) || s->kind == LD_SEC_TEXT ||
			    s->shdr.sh_size == 0)
				continue;
			len += (size_t)snprintf(found + len, sizeof(found) - len, "%s'%s'",
						len ? ", " : "", s->name);
		}
		if (len)
			return ld_fail(
				ld, ENOENT,
				"no SEC(\"seccomp\") program (code sections found: %s); put the "
				"filter function in SEC(\"seccomp\") or SEC(\"seccomp/NAME\")",
				found);
		return ld_fail(ld, ENOENT,
			       "no SEC(\"seccomp\") program; put the filter function in "
			       "SEC(\"seccomp\") and make it non-static");
	}
	/* OBJ:PROG must name one program; ELF allows one global per name. */
	for (i = 0; i < ld->func_cnt; i++) {
		size_t j;

		for (j = i + 1; ld->funcs[i].is_prog && j < ld->func_cnt; j++) {
			if (ld->funcs[j].is_prog && !strcmp(ld->funcs[i].name, ld->funcs[j].name))
				return ld_fail(ld, EINVAL,
					       "two programs are named '%s'; the object is corrupt",
					       ld->funcs[i].name);
		}
	}
	obj->progs = calloc(n, sizeof(*obj->progs));
	if (!obj->progs)
		return ld_nomem(ld);
	for (i = 0; i < ld->func_cnt; i++) {
		if (!ld->funcs[i].is_prog)
			continue;
		ret = ld_link_prog(ld, i, &obj->progs[obj->prog_cnt++]);
		if (ret)
			return ret;
	}
	return 0;
}

static int ld_load(struct loader *ld)
{
	int ret;

	ret = ld_read_sections(ld);
	if (!ret)
		ret = ld_read_relocs(ld);
	if (!ret)
		ret = ld_read_funcs(ld);
	if (!ret && ld->btf)
		ret = ld_read_btf(ld);
	if (!ret)
		ret = ld_read_btf_maps(ld);
	if (!ret)
		ret = ld_read_data_maps(ld);
	if (!ret)
		ret = ld_read_vars(ld);
	if (!ret)
		ret = ld_read_license(ld);
	if (!ret)
		ret = ld_read_btf_ext(ld);
	if (!ret)
		ret = ld_link_progs(ld);
	return ret;
}

struct object *object_open_mem(const void *buf, size_t size, const char *name,
			       struct secbpf_err *err)
{
	struct loader ld = { .name = name ? name : "<memory>", .err = err, .size = size };
	void *image = NULL;
	size_t i;
	int ret;

	if (!buf || size == 0) {
		ld_fail(&ld, EINVAL, "the object is empty");
		return NULL;
	}
	ld.obj = calloc(1, sizeof(*ld.obj));
	/* libelf may convert data in place; give it a private aligned copy. */
	image = malloc(size);
	if (!ld.obj || !image) {
		ld_nomem(&ld);
		goto fail;
	}
	memcpy(image, buf, size);
	ld.obj->path = strdup(ld.name);
	if (!ld.obj->path) {
		ld_nomem(&ld);
		goto fail;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		ld_fail(&ld, EINVAL, "libelf is too old: %s", elf_errmsg(-1));
		goto fail;
	}
	ld.elf = elf_memory(image, size);
	if (!ld.elf) {
		ld_fail(&ld, EINVAL, "not a readable ELF object (%s)", elf_errmsg(-1));
		goto fail;
	}
	ret = ld_load(&ld);
	if (ret)
		goto fail;
	ld.obj->image = malloc(size);
	if (!ld.obj->image) {
		ld_nomem(&ld);
		goto fail;
	}
	memcpy(ld.obj->image, buf, size);
	ld.obj->image_size = size;
	goto out;
fail:
	object_free(ld.obj);
	ld.obj = NULL;
out:
	if (ld.secs)
		for (i = 0; i < ld.shnum; i++)
			free(ld.secs[i].relos);
	free(ld.secs);
	free(ld.syms);
	free(ld.funcs);
	free(ld.map_off);
	if (ld.elf)
		elf_end(ld.elf);
	free(image);
	if (!ld.obj)
		errno = ld.errnum ? ld.errnum : EINVAL;
	return ld.obj;
}

struct object *object_open_file(const char *path, struct secbpf_err *err)
{
	struct object *obj;
	struct stat st;
	uint8_t *buf;
	size_t done = 0;
	int fd, errnum;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errnum = errno;
		err_set(err, errnum, "%s: cannot open: %s", path, strerror(errnum));
		errno = errnum;
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		err_set(err, EINVAL,
			"%s: not a regular file; give a BPF object built with clang -target bpf -c",
			path);
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	if (st.st_size == 0) {
		err_set(err, EINVAL, "%s: the file is empty; rebuild the object", path);
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		err_set(err, ENOMEM, "%s: out of memory reading the object", path);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errnum = n < 0 ? errno : EIO;
			err_set(err, errnum, "%s: read failed: %s", path,
				n < 0 ? strerror(errnum) : "file shrank while reading");
			free(buf);
			close(fd);
			errno = errnum;
			return NULL;
		}
		done += (size_t)n;
	}
	close(fd);
	obj = object_open_mem(buf, done, path, err);
	free(buf);
	return obj;
}

void object_free(struct object *obj)
{
	uint32_t i, j;

	if (!obj)
		return;
	free(obj->image);
	for (i = 0; i < obj->prog_cnt; i++) {
		struct object_prog *p = &obj->progs[i];

		free(p->name);
		free(p->section);
		free(p->insns);
		free(p->lines);
		for (j = 0; j < p->func_cnt; j++)
			free(p->funcs[j].name);
		free(p->funcs);
	}
	free(obj->progs);
	for (i = 0; i < obj->map_cnt; i++) {
		free(obj->maps[i].name);
		free(obj->maps[i].init_data);
	}
	free(obj->maps);
	for (i = 0; i < obj->var_cnt; i++)
		free(obj->vars[i].name);
	free(obj->vars);
	btf__free(obj->btf);
	free(obj->license);
	free(obj->path);
	free(obj);
}

/* "a, b, c" of the program names, truncated to fit buf. */
static void prog_names(const struct object *obj, char *buf, size_t len)
{
	size_t used = 0;
	uint32_t i;

	buf[0] = 0;
	for (i = 0; i < obj->prog_cnt && used < len - 1; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", obj->progs[i].name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

struct object_prog *object_find_prog(struct object *obj, const char *name, struct secbpf_err *err)
{
	char names[256];
	uint32_t i;

	if (!obj) {
		err_set(err, EINVAL, "no object given");
		return NULL;
	}
	if (!name) {
		if (obj->prog_cnt == 1)
			return &obj->progs[0];
		prog_names(obj, names, sizeof(names));
		err_set(err, EINVAL, "%s: has %u programs (%s); pick one with %s:PROG", obj->path,
			obj->prog_cnt, names, obj->path);
		return NULL;
	}
	for (i = 0; i < obj->prog_cnt; i++)
		if (!strcmp(obj->progs[i].name, name))
			return &obj->progs[i];
	prog_names(obj, names, sizeof(names));
	err_set(err, ENOENT, "%s: no program '%s' (programs: %s)", obj->path, name, names);
	return NULL;
}

/* Parse decimal, 0x hex, a leading '-', true or false. */
static int parse_int(const char *s, bool *neg, uint64_t *mag)
{
	unsigned base = 10;
	uint64_t v = 0;

	*neg = false;
	if (!strcmp(s, "true") || !strcmp(s, "false")) {
		*mag = s[0] == 't';
		return 0;
	}
	if (*s == '-') {
		*neg = true;
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*mag = v;
	return 0;
}

/* The value of enumerator name in the enum under var's type, if any. */
static bool enum_value(const struct btf *btf, const struct object_var *var, const char *name,
		       bool *neg, uint64_t *mag)
{
	const struct btf_type *t = btf_skip_mods(btf, var->btf_type_id, NULL);
	uint16_t i;

	if (!t || !btf_is_any_enum(t))
		return false;
	for (i = 0; i < btf_vlen(t); i++) {
		const char *en;
		int64_t v;

		if (btf_is_enum(t)) {
			en = btf__name_by_offset(btf, btf_enum(t)[i].name_off);
			v = btf_enum(t)[i].val;
		} else {
			en = btf__name_by_offset(btf, btf_enum64(t)[i].name_off);
			v = (int64_t)btf_enum64_value(&btf_enum64(t)[i]);
		}
		if (en && !strcmp(en, name)) {
			*neg = v < 0;
			*mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
			return true;
		}
	}
	return false;
}

int object_set_var(struct object *obj, const char *name, const char *value, struct secbpf_err *err)
{
	const struct btf_type *t;
	struct object_var *var = NULL;
	struct object_map *map;
	uint64_t mag, raw, max_pos, max_neg;
	bool neg, is_bool, is_enum;
	unsigned bits;
	uint32_t i;
	int ret;

	if (!obj || !name || !value)
		return err_set(err, EINVAL, "object_set_var: missing argument");
	for (i = 0; i < obj->var_cnt; i++) {
		if (!strcmp(obj->vars[i].name, name)) {
			var = &obj->vars[i];
			break;
		}
	}
	if (!var)
		return err_set(err, ENOENT, "%s: no global variable '%s'", obj->path, name);
	t = obj->btf ? btf_skip_mods(obj->btf, var->btf_type_id, NULL) : NULL;
	if (!var->is_integer || !t)
		return err_set(err, EINVAL,
			       "%s: variable '%s' is not an integer, bool or enum; --set only "
			       "writes those",
			       obj->path, name);
	if (var->size != 1 && var->size != 2 && var->size != 4 && var->size != 8)
		return err_set(
			err, EINVAL,
			"%s: variable '%s' is %u bytes; --set writes 1, 2, 4 or 8 byte integers",
			obj->path, name, var->size);
	map = &obj->maps[var->map];
	if (var->offset > map->value_size || var->size > map->value_size - var->offset)
		return err_set(err, EINVAL, "%s: variable '%s' lies outside its section", obj->path,
			       name);
	is_bool = btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_BOOL);
	is_enum = btf_is_any_enum(t);
	ret = parse_int(value, &neg, &mag);
	if (ret && !(is_enum && enum_value(obj->btf, var, value, &neg, &mag)))
		return err_set(err, EINVAL,
			       "%s: '%s' is not a valid value for '%s'; give a decimal or 0x hex "
			       "integer%s",
			       obj->path, value, name,
			       is_bool	 ? ", true or false"
			       : is_enum ? " or an enumerator name"
					 : "");
	bits = var->size * 8;
	/* Enums from clang before 15 carry no signedness: accept both ranges. */
	max_pos = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
	max_neg = 0;
	if (var->is_signed) {
		max_pos >>= 1;
		max_neg = max_pos + 1;
	} else if (is_enum) {
		max_neg = (max_pos >> 1) + 1;
	}
	if (is_bool)
		max_pos = 1;
	if (neg ? mag > max_neg : mag > max_pos)
		return err_set(err, EINVAL,
			       "%s: %s does not fit '%s' (%s%u-bit%s); use a value in range",
			       obj->path, value, name,
			       is_bool		? "bool, "
			       : var->is_signed ? "signed "
						: "unsigned ",
			       bits, is_bool ? ": 0 or 1" : "");
	raw = neg ? (uint64_t)0 - mag : mag;
	if (!map->init_data) {
		map->init_data = calloc(1, map->value_size);
		if (!map->init_data)
			return err_set(err, ENOMEM, "%s: out of memory", obj->path);
	}
	/* The target is little endian; write byte by byte to be host-neutral. */
	for (i = 0; i < var->size; i++)
		map->init_data[var->offset + i] = (uint8_t)(raw >> (8 * i));
	return 0;
}

const struct object_line *object_prog_line(const struct object_prog *prog, uint32_t insn_off)
{
	uint32_t lo = 0, hi;

	if (!prog || !prog->line_cnt || insn_off >= prog->insn_cnt)
		return NULL;
	hi = prog->line_cnt;
	/* The last record starting at or before insn_off. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (prog->lines[mid].insn_off <= insn_off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &prog->lines[lo - 1] : NULL;
}

const char *object_prog_func(const struct object_prog *prog, uint32_t insn_off)
{
	const char *name = NULL;
	uint32_t i;

	if (!prog)
		return NULL;
	/* funcs are in placement order, which is increasing start. */
	for (i = 0; i < prog->func_cnt; i++) {
		if (prog->funcs[i].start > insn_off)
			break;
		name = prog->funcs[i].name;
	}
	return name;
}
