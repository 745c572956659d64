/* SPDX-License-Identifier: MIT */
/*
 * In-memory form of a loaded BPF ELF object (lib/object/object.c): its seccomp
 * programs, already relocated (subprograms appended, map references turned
 * into pseudo ld_imm64, calls into relative BPF_PSEUDO_CALL), its maps
 * (BTF-defined maps and the global data sections), its license and the line
 * info that lets errors name file.c:LINE. No kernel calls are involved.
 */
#ifndef SECBPF_OBJECT_H
#define SECBPF_OBJECT_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct btf;

/* Where a map came from. */
enum object_map_kind {
	OBJECT_MAP_BTF,		/* declared in SEC(".maps") */
	OBJECT_MAP_DATA,	/* .data, .data.*: one-element array */
	OBJECT_MAP_RODATA,	/* .rodata, .rodata.*: one-element array, read-only */
	OBJECT_MAP_BSS,		/* .bss, .bss.*: one-element array, zeroed */
};

/* object->maps holds those of SEC(".maps") as declared, then one per
 * non-empty data section in ELF section order. */
struct object_map {
	char *name;			/* variable name, or section name */
	enum object_map_kind kind;
	uint32_t type;			/* BPF_MAP_TYPE_* */
	uint32_t key_size;
	uint32_t value_size;
	uint32_t max_entries;
	uint32_t map_flags;		/* BPF_F_* */
	uint32_t btf_key_type_id;	/* 0 if not known */
	uint32_t btf_value_type_id;
	/* Global data: the section's initial bytes (value_size of them), owned.
	 * NULL for BTF maps and for .bss (all zero) until object_set_var()
	 * writes a .bss variable, which allocates it. */
	uint8_t *init_data;
	/* Inner map spec and pinning are not supported; the loader rejects them. */
};

/* A global variable in a data section (for --set and for messages). */
struct object_var {
	char *name;
	uint32_t map;			/* index in object->maps */
	uint32_t offset;		/* byte offset in the value */
	uint32_t size;
	uint32_t btf_type_id;		/* the variable's type, modifiers kept */
	bool is_const_volatile;		/* declared const volatile */
	bool is_integer;		/* int, bool, char or enum (after typedefs) */
	bool is_signed;
};

/* One line-info record: the instruction at insn_off starts source line. */
struct object_line {
	uint32_t insn_off;		/* slot index within the program */
	const char *file;		/* points into the BTF string table */
	const char *source;		/* the source text of the line, may be NULL */
	uint32_t line;
	uint32_t col;
};

struct object_prog {
	char *name;			/* function name */
	char *section;			/* "seccomp" or "seccomp/..." */
	struct bpf_insn *insns;		/* relocated, subprograms appended */
	uint32_t insn_cnt;
	uint32_t main_cnt;		/* slots of the entry function itself */
	struct object_line *lines;	/* sorted by insn_off, may be empty */
	uint32_t line_cnt;
	/* Subprogram names by start slot, for disassembly and messages. */
	struct object_func {
		uint32_t start;
		char *name;
	} *funcs;
	uint32_t func_cnt;
};

struct object {
	char *path;			/* as given, for messages */
	char *license;			/* NULL if no license section */
	struct object_prog *progs;
	uint32_t prog_cnt;
	struct object_map *maps;
	uint32_t map_cnt;
	struct object_var *vars;
	uint32_t var_cnt;
	struct btf *btf;		/* NULL if the object has no .BTF */
	/* The ELF image as given, untouched, so that another process (a
	 * spawned supervisor) can load the very same object. */
	void *image;
	size_t image_size;
};

/*
 * Parse an ELF object from memory (size bytes, copied as needed). name is
 * used in messages. Returns NULL with err set on any malformed input, and
 * errno set to the code of the failure in err (EINVAL, ENOTSUP, E2BIG, ENOMEM).
 */
struct object *object_open_mem(const void *buf, size_t size, const char *name,
			       struct secbpf_err *err);
/* Same, reading the file at path; errno also as open(2) or read(2) failed. */
struct object *object_open_file(const char *path, struct secbpf_err *err);
void object_free(struct object *obj);

/*
 * Find a program by function name; name NULL means "the only one" (error
 * listing the names when there are several). Returns NULL with err set.
 */
struct object_prog *object_find_prog(struct object *obj, const char *name,
				     struct secbpf_err *err);

/*
 * --set: write value into the global variable name (an integer, bool or
 * enum; const volatile or plain global). Returns 0, -ENOENT if the object
 * has no such variable, -EINVAL (err set) if the type is not an integer or
 * the value does not fit.
 */
int object_set_var(struct object *obj, const char *name, const char *value,
		   struct secbpf_err *err);

/* The line info record covering slot insn_off of prog, or NULL. */
const struct object_line *object_prog_line(const struct object_prog *prog,
					   uint32_t insn_off);

/* The name of the function starting at or containing slot insn_off. */
const char *object_prog_func(const struct object_prog *prog, uint32_t insn_off);

#endif
