/* SPDX-License-Identifier: MIT */
/*
 * In-memory form of a loaded BPF ELF object (lib/object/): its seccomp
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

/* The name of the section that holds saved map contents. */
#define OBJECT_STATE_SECTION ".secbpf.state"

/* Saved contents of a SEC(".maps") map (from OBJECT_STATE_SECTION), which
 * runtime_new_opts() writes into the map it creates. Global data is not
 * listed: its saved bytes are the map's init_data already. */
struct object_map_state {
	uint32_t map;	   /* index in object->maps */
	uint32_t nentries;
	uint32_t ncpus;	   /* value slots per entry (1 unless per-CPU) */
	uint8_t *entries;  /* nentries * (round_up(key_size, 8) +
			    * ncpus * round_up(value_size, 8)) bytes */
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
	/* The .BTF as clang wrote it, when btf was rebuilt with a string
	 * table of its own (regrouped DATASECs): .BTF.ext names its strings
	 * by offsets into this one. NULL when btf kept clang's strings. */
	struct btf *btf_as_written;
	/* The ELF image as given, untouched, so that another process (a
	 * spawned supervisor) can load the very same object. */
	void *image;
	size_t image_size;
	struct object_map_state *states; /* from OBJECT_STATE_SECTION */
	uint32_t state_cnt;
};

/*
 * Parse an ELF object from memory (size bytes, copied as needed). name is
 * used in messages. Returns NULL with err set and errno set to the (positive)
 * reason on any failure: EINVAL for malformed input, ENOTSUP for a feature
 * secbpf refuses, E2BIG, ENOENT (no program), ENOMEM.
 */
struct object *object_open_mem(const void *buf, size_t size, const char *name,
			       struct secbpf_err *err);
/*
 * Same, reading the file at path. A file that cannot be read fails with the
 * system's errno (ENOENT, EACCES, ENOTDIR, ...), EISDIR for a directory;
 * the message names path either way.
 */
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

/*
 * Whether global data map (a .data or .bss map of obj) is read-only at run
 * time: no program of obj (the programs of an object share its global
 * data) may write it, by a store or an atomic through a pointer into it,
 * a helper or kfunc given such a pointer, or a reference to the map
 * itself (which only helpers take). Conservative: a pointer is followed by
 * register number and through any spill, over all paths at once, so a
 * true answer is a proof. Nothing outside the programs writes global data
 * once the object is loaded (--set and a checkpoint's saved state change
 * its initial bytes before; the control socket only reads). false for any
 * other map.
 */
bool object_global_read_only(const struct object *obj, uint32_t map);

/* The line info record covering slot insn_off of prog, or NULL. */
const struct object_line *object_prog_line(const struct object_prog *prog,
					   uint32_t insn_off);

/* The name of the function starting at or containing slot insn_off. */
const char *object_prog_func(const struct object_prog *prog, uint32_t insn_off);

/* The size in bytes (1 to 8) of BTF type type_id of obj when it is an
 * integer or enum (typedefs and modifiers followed), with *is_signed set;
 * 0 for any other type, or without BTF. */
uint32_t object_btf_integer(const struct object *obj, uint32_t type_id, bool *is_signed);

/* Whether a map's contents are saved by a checkpoint: global data and the
 * hash and array kinds (not queues, rings, program arrays, task storage). */
bool object_state_supported(const struct object_map *m);
/* Whether the map keeps one value per worker slot. */
bool object_map_percpu(const struct object_map *m);

/*
 * Building an OBJECT_STATE_SECTION: init, then for each map add_map and
 * its entries (key_size bytes of key, and the value as map_lookup_user
 * gives it: ncpus slots of round_up(value_size, 8) for per-CPU maps).
 * Each returns 0 or -ENOMEM (-EINVAL: a map whose state is not saved).
 */
struct object_state_writer {
	uint8_t *buf;
	size_t len, cap;
	size_t cur; /* offset of the map record being filled */
	uint32_t key_size;
	size_t value_bytes;
};
int object_state_writer_init(struct object_state_writer *w);
int object_state_add_map(struct object_state_writer *w, const struct object_map *m,
			 uint32_t ncpus);
int object_state_add_entry(struct object_state_writer *w, const void *key, const void *value);
void object_state_writer_free(struct object_state_writer *w);

/*
 * obj's ELF image with w's section added (or put in place of the one it
 * had), into *out (malloc'ed, *out_size bytes): an object that
 * object_open_*() loads with that state. Returns 0, -EINVAL (an image this
 * cannot edit: not ELF64), -E2BIG or -ENOMEM.
 */
int object_image_with_state(const struct object *obj, const struct object_state_writer *w,
			    uint8_t **out, size_t *out_size);

#endif
