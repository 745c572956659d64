/* SPDX-License-Identifier: MIT */
/*
 * What the object loader's files share (lib/object/): the loader's working
 * state over one ELF image, and one entry point per stage of loading. Callers
 * outside lib/object/ include object.h only.
 */
#ifndef SECBPF_OBJECT_INTERNAL_H
#define SECBPF_OBJECT_INTERNAL_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <bpf/btf.h>

#include "object/object.h"

#ifndef R_BPF_NONE
#define R_BPF_NONE 0
#endif
#ifndef R_BPF_64_64
#define R_BPF_64_64 1
#endif
#ifndef R_BPF_64_32
#define R_BPF_64_32 10
#endif

/* BTF type chains are acyclic in valid BTF, but libbpf does not check. */
#define BTF_WALK_MAX 32

enum loader_sec_kind {
	LOADER_SEC_OTHER,
	LOADER_SEC_PROG, /* "seccomp", "seccomp/..." */
	LOADER_SEC_TEXT, /* .text: subprograms */
	LOADER_SEC_DATA,
	LOADER_SEC_RODATA,
	LOADER_SEC_BSS,
	LOADER_SEC_MAPS, /* .maps */
	LOADER_SEC_LICENSE,
	LOADER_SEC_BTF,
	LOADER_SEC_BTF_EXT,
};

/* The relocation (if any) that applies to one instruction slot. */
struct loader_relo {
	uint32_t type; /* R_BPF_*; R_BPF_NONE = no relocation */
	uint32_t sym;
};

struct loader_sec {
	const char *name; /* in the ELF string table */
	GElf_Shdr shdr;
	enum loader_sec_kind kind;
	const uint8_t *data; /* NULL for SHT_NOBITS or not read */
	size_t size;
	int map;		   /* data sections: index in obj->maps, else -1 */
	struct loader_relo *relos; /* code sections: one per slot */
	const uint8_t *lines;	   /* code sections: .BTF.ext line records */
	uint32_t line_cnt;
};

struct loader_sym {
	GElf_Sym sym;
	const char *name; /* NULL if the name offset is bad */
};

/* A function in a code section, from its STT_FUNC symbol. */
struct loader_func {
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
	struct object *obj;
	Elf *elf;
	size_t shnum;
	struct loader_sec *secs; /* indexed by ELF section index */
	struct loader_sym *syms;
	size_t sym_cnt;
	struct loader_func *funcs; /* sorted by (sec, start) */
	size_t func_cnt;
	size_t maps, btf, btf_ext, license; /* section index, 0 if absent */
	uint32_t *map_off;		    /* BTF maps: offset of the definition in .maps */
	uint32_t line_rec_size;
};

/* Work area while one program is linked. */
struct prog_link {
	struct bpf_insn *insns;
	uint32_t cnt;
	uint32_t cap;
	int64_t *placed; /* per loader_func: its first slot, or -1 */
	size_t *order;	 /* loader_func indices in placement order */
	size_t order_cnt;
};

static inline const char *sym_name(const struct loader_sym *s)
{
	return s->name && s->name[0] ? s->name : "<unnamed>";
}

static inline bool sec_is_code(const struct loader_sec *s)
{
	return s->kind == LOADER_SEC_PROG || s->kind == LOADER_SEC_TEXT;
}

static inline bool sec_is_data(const struct loader_sec *s)
{
	return s->kind == LOADER_SEC_DATA || s->kind == LOADER_SEC_RODATA ||
	       s->kind == LOADER_SEC_BSS;
}

/* object.c: messages and the maps table. */

/* Set the error message, prefixed with the object name; returns -errnum. */
int loader_fail(struct loader *ld, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int loader_nomem(struct loader *ld);
/* Append *m to obj->maps (taking its allocations) with .maps offset 0. */
int loader_add_map(struct loader *ld, const struct object_map *m);

/* elf.c: the ELF image, its sections, symbols and relocations. */

/* Check the ELF header and read every section header and the symbol table. */
int loader_read_elf(struct loader *ld);
/* Record, per slot of each code section, the relocation that applies. */
int loader_read_relocs(struct loader *ld);
/* Collect the functions of the code sections, sorted by place. */
int loader_read_funcs(struct loader *ld);
int loader_read_license(struct loader *ld);
/* The function that starts exactly at slot of section sec, or -1. */
ssize_t loader_find_func(const struct loader *ld, size_t sec, uint64_t slot);
/* The first section named name, or 0. */
size_t loader_find_section(const struct loader *ld, const char *name);

/* btf.c: the .BTF section. */

/* Parse .BTF into obj->btf with its DATASEC sizes and offsets fixed. */
int loader_read_btf(struct loader *ld);
/* Follow typedefs and modifiers from id; returns the type (id in *out). */
const struct btf_type *object_btf_skip_mods(const struct btf *btf, uint32_t id, uint32_t *out);

/* btf_maps.c: the maps declared in SEC(".maps"). */
int loader_read_btf_maps(struct loader *ld);

/* globals.c: .data, .rodata and .bss as maps, and their variables. */
int loader_read_data_maps(struct loader *ld);
int loader_read_vars(struct loader *ld);

/* btf_ext.c: the line info of .BTF.ext. */

/* Index the line records of .BTF.ext by code section. */
int loader_read_btf_ext(struct loader *ld);
/* Translate the line info of every function placed in lk to prog's slots. */
int loader_link_lines(struct loader *ld, const struct prog_link *lk, struct object_prog *prog);

/* state.c: OBJECT_STATE_SECTION, checked against the maps and applied
 * (global data into init_data, the others into obj->states). */
int loader_read_state(struct loader *ld);

/* link.c: programs linked with their subprograms and relocated. */
int loader_link_progs(struct loader *ld);

#endif
