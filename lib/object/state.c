// SPDX-License-Identifier: MIT
/*
 * The saved state of an object's maps (docs/introspection.md): the
 * `.secbpf.state` section that `secbpf dump PID -o` writes and the loader
 * applies, so that a restored filter starts from the values the original
 * had. Reading checks every map against the object's own definitions;
 * writing appends (or replaces) the section in a copy of the ELF image.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "object/object_internal.h"

/*
 * The section: a header, then for each map a struct state_map, its name
 * (name_len bytes, padded to 8) and nentries entries, each a key
 * (key_size bytes, padded to 8) and ncpus values of round_up(value_size,
 * 8) bytes (the layout bpf() gives per-CPU maps; ncpus is 1 for the
 * others). Host byte order, like the object itself.
 */
#define STATE_MAGIC 0x54534253u /* "SBST" in memory order */
#define STATE_VERSION 1
#define STATE_MAX_NAME 256
#define STATE_MAX_CPUS 1024

struct state_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t nmaps;
	uint32_t reserved;
};

struct state_map {
	uint32_t name_len;
	uint32_t type;
	uint32_t key_size;
	uint32_t value_size;
	uint32_t max_entries;
	uint32_t map_flags;
	uint32_t nentries;
	uint32_t ncpus;
};

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

bool object_state_supported(const struct object_map *m)
{
	if (m->kind != OBJECT_MAP_BTF)
		return true;
	switch (m->type) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return true;
	default:
		return false;
	}
}

bool object_map_percpu(const struct object_map *m)
{
	return m->type == BPF_MAP_TYPE_PERCPU_HASH || m->type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       m->type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

/* A bounded reader over the section's bytes. */
struct state_cursor {
	const uint8_t *p;
	size_t left;
};

static const void *take(struct state_cursor *c, size_t n)
{
	const void *p = c->p;

	if (n > c->left)
		return NULL;
	c->p += n;
	c->left -= n;
	return p;
}

/* Check one map's record against the object's definition of it. */
static int check_map_record(struct loader *ld, const struct state_map *r, const char *name,
			    uint32_t *idx)
{
	const struct object_map *m = NULL;
	uint32_t i;

	for (i = 0; i < ld->obj->map_cnt; i++)
		if (!strcmp(ld->obj->maps[i].name, name)) {
			m = &ld->obj->maps[i];
			break;
		}
	if (!m)
		return loader_fail(
			ld, EINVAL,
			".secbpf.state: map '%s' is not defined by the object; the saved "
			"state belongs to another object",
			name);
	if (r->type != m->type || r->key_size != m->key_size || r->value_size != m->value_size ||
	    r->max_entries != m->max_entries || r->map_flags != m->map_flags)
		return loader_fail(
			ld, EINVAL,
			".secbpf.state: map '%s' was saved as type %u, key %u, value %u, "
			"%u entries, flags 0x%x, but the object defines type %u, key %u, "
			"value %u, %u entries, flags 0x%x",
			name, r->type, r->key_size, r->value_size, r->max_entries, r->map_flags,
			m->type, m->key_size, m->value_size, m->max_entries, m->map_flags);
	if (!object_state_supported(m))
		return loader_fail(ld, EINVAL,
				   ".secbpf.state: map '%s' is of a type whose state is not saved",
				   name);
	if (r->nentries > m->max_entries || (m->kind != OBJECT_MAP_BTF && r->nentries != 1))
		return loader_fail(ld, EINVAL, ".secbpf.state: map '%s': %u entries saved, %s %u",
				   name, r->nentries,
				   m->kind != OBJECT_MAP_BTF ? "expected" : "at most",
				   m->kind != OBJECT_MAP_BTF ? 1 : m->max_entries);
	if (r->ncpus == 0 || r->ncpus > STATE_MAX_CPUS || (!object_map_percpu(m) && r->ncpus != 1))
		return loader_fail(ld, EINVAL, ".secbpf.state: map '%s': %u value slots per entry",
				   name, r->ncpus);
	for (i = 0; i < ld->obj->state_cnt; i++)
		if (ld->obj->states[i].map == (uint32_t)(m - ld->obj->maps))
			return loader_fail(ld, EINVAL, ".secbpf.state: map '%s' saved twice", name);
	*idx = (uint32_t)(m - ld->obj->maps);
	return 0;
}

/* Global data: the saved value becomes the section's initial bytes. */
static int apply_global(struct loader *ld, struct object_map *m, const uint8_t *key,
			const uint8_t *value)
{
	uint32_t zero = 0;

	if (m->key_size != sizeof(zero) || memcmp(key, &zero, sizeof(zero)))
		return loader_fail(ld, EINVAL, ".secbpf.state: map '%s': the key is not 0",
				   m->name);
	if (!m->init_data) {
		m->init_data = calloc(1, m->value_size);
		if (!m->init_data)
			return loader_nomem(ld);
	}
	memcpy(m->init_data, value, m->value_size);
	return 0;
}

/* Read one map's record and its entries at the cursor. */
static int read_map_record(struct loader *ld, struct state_cursor *c)
{
	const struct state_map *r = take(c, sizeof(*r));
	struct object_map_state *s;
	char name[STATE_MAX_NAME + 1];
	const uint8_t *p;
	size_t ksz, vsz, bytes;
	uint32_t idx = 0;
	int ret;

	if (!r)
		return loader_fail(ld, EINVAL, ".secbpf.state: truncated map record");
	if (!r->name_len || r->name_len > STATE_MAX_NAME || !(p = take(c, round8(r->name_len))))
		return loader_fail(ld, EINVAL, ".secbpf.state: bad map name length %u",
				   r->name_len);
	memcpy(name, p, r->name_len);
	name[r->name_len] = '\0';
	if (strlen(name) != r->name_len)
		return loader_fail(ld, EINVAL, ".secbpf.state: a map name holds a NUL byte");
	ret = check_map_record(ld, r, name, &idx);
	if (ret)
		return ret;
	ksz = round8(r->key_size);
	vsz = (size_t)r->ncpus * round8(r->value_size);
	bytes = (size_t)r->nentries * (ksz + vsz);
	p = take(c, bytes);
	if (!p)
		return loader_fail(ld, EINVAL, ".secbpf.state: map '%s': %u entries do not fit",
				   name, r->nentries);
	if (ld->obj->maps[idx].kind != OBJECT_MAP_BTF)
		return apply_global(ld, &ld->obj->maps[idx], p, p + ksz);
	s = &ld->obj->states[ld->obj->state_cnt];
	s->map = idx;
	s->nentries = r->nentries;
	s->ncpus = r->ncpus;
	s->entries = malloc(bytes ? bytes : 1);
	if (!s->entries)
		return loader_nomem(ld);
	memcpy(s->entries, p, bytes);
	ld->obj->state_cnt++;
	return 0;
}

int loader_read_state(struct loader *ld)
{
	size_t idx = loader_find_section(ld, OBJECT_STATE_SECTION);
	const struct state_hdr *h;
	struct state_cursor c;
	Elf_Data *d;
	uint32_t i;
	int ret;

	if (!idx)
		return 0;
	d = elf_getdata(elf_getscn(ld->elf, idx), NULL);
	if (!d || !d->d_buf || d->d_size != ld->secs[idx].shdr.sh_size)
		return loader_fail(ld, EINVAL, ".secbpf.state: cannot read the section");
	c.p = d->d_buf;
	c.left = d->d_size;
	h = take(&c, sizeof(*h));
	if (!h || h->magic != STATE_MAGIC || h->version != STATE_VERSION || h->reserved)
		return loader_fail(ld, EINVAL,
				   ".secbpf.state: not a state section of this secbpf version");
	if (h->nmaps > ld->obj->map_cnt)
		return loader_fail(ld, EINVAL, ".secbpf.state: %u maps saved, the object has %u",
				   h->nmaps, ld->obj->map_cnt);
	ld->obj->states = calloc(h->nmaps ? h->nmaps : 1, sizeof(*ld->obj->states));
	if (!ld->obj->states)
		return loader_nomem(ld);
	for (i = 0; i < h->nmaps; i++) {
		ret = read_map_record(ld, &c);
		if (ret)
			return ret;
	}
	if (c.left)
		return loader_fail(ld, EINVAL, ".secbpf.state: %zu bytes after the last map",
				   c.left);
	return 0;
}

/* Writing: a growing buffer. */
static int grow(struct object_state_writer *w, size_t more)
{
	uint8_t *p;
	size_t cap;

	if (w->len + more <= w->cap)
		return 0;
	cap = w->cap ? w->cap : 256;
	while (cap < w->len + more)
		cap *= 2;
	p = realloc(w->buf, cap);
	if (!p)
		return -ENOMEM;
	w->buf = p;
	w->cap = cap;
	return 0;
}

static int put(struct object_state_writer *w, const void *data, size_t n, size_t padded)
{
	if (grow(w, padded))
		return -ENOMEM;
	memcpy(w->buf + w->len, data, n);
	memset(w->buf + w->len + n, 0, padded - n);
	w->len += padded;
	return 0;
}

int object_state_writer_init(struct object_state_writer *w)
{
	struct state_hdr h = { .magic = STATE_MAGIC, .version = STATE_VERSION };

	memset(w, 0, sizeof(*w));
	return put(w, &h, sizeof(h), sizeof(h));
}

int object_state_add_map(struct object_state_writer *w, const struct object_map *m, uint32_t ncpus)
{
	struct state_map r = {
		.name_len = (uint32_t)strlen(m->name),
		.type = m->type,
		.key_size = m->key_size,
		.value_size = m->value_size,
		.max_entries = m->max_entries,
		.map_flags = m->map_flags,
		.ncpus = object_map_percpu(m) ? ncpus : 1,
	};
	struct state_hdr *h;

	if (!r.name_len || r.name_len > STATE_MAX_NAME || !object_state_supported(m))
		return -EINVAL;
	w->cur = w->len;
	w->key_size = m->key_size;
	w->value_bytes = (size_t)r.ncpus * round8(m->value_size);
	if (put(w, &r, sizeof(r), sizeof(r)) || put(w, m->name, r.name_len, round8(r.name_len)))
		return -ENOMEM;
	h = (struct state_hdr *)w->buf;
	h->nmaps++;
	return 0;
}

int object_state_add_entry(struct object_state_writer *w, const void *key, const void *value)
{
	struct state_map *r;

	if (put(w, key, w->key_size, round8(w->key_size)) ||
	    put(w, value, w->value_bytes, w->value_bytes))
		return -ENOMEM;
	r = (struct state_map *)(w->buf + w->cur);
	r->nentries++;
	return 0;
}

void object_state_writer_free(struct object_state_writer *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

/* The section headers of image, checked to lie inside it. */
static int elf_headers(const uint8_t *image, size_t size, const Elf64_Ehdr **eh,
		       const Elf64_Shdr **sh)
{
	const Elf64_Ehdr *e = (const Elf64_Ehdr *)image;
	size_t i;

	if (size < sizeof(*e) || memcmp(e->e_ident, ELFMAG, SELFMAG) ||
	    e->e_ident[EI_CLASS] != ELFCLASS64 || e->e_shentsize != sizeof(Elf64_Shdr) ||
	    e->e_shnum == 0 || e->e_shstrndx == SHN_UNDEF || e->e_shstrndx >= e->e_shnum ||
	    e->e_shoff > size || (size - e->e_shoff) / sizeof(Elf64_Shdr) < e->e_shnum ||
	    e->e_shoff % 8)
		return -EINVAL;
	*eh = e;
	*sh = (const Elf64_Shdr *)(image + e->e_shoff);
	for (i = 0; i < e->e_shnum; i++)
		if ((*sh)[i].sh_type != SHT_NOBITS &&
		    ((*sh)[i].sh_offset > size || (*sh)[i].sh_size > size - (*sh)[i].sh_offset))
			return -EINVAL;
	return 0;
}

int object_image_with_state(const struct object *obj, const struct object_state_writer *w,
			    uint8_t **out, size_t *out_size)
{
	static const char name[] = OBJECT_STATE_SECTION;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const uint8_t *img = obj->image;
	size_t state_off, strtab_off, strtab_size, shoff, total, nsec, i, existing = 0;
	Elf64_Shdr *nsh;
	Elf64_Ehdr *neh;
	uint8_t *buf;
	const char *strtab;

	if (!img || elf_headers(img, obj->image_size, &eh, &sh))
		return -EINVAL;
	strtab = (const char *)img + sh[eh->e_shstrndx].sh_offset;
	strtab_size = sh[eh->e_shstrndx].sh_size;
	for (i = 1; i < eh->e_shnum; i++)
		if (sh[i].sh_name <= strtab_size - sizeof(name) &&
		    !memcmp(strtab + sh[i].sh_name, name, sizeof(name)))
			existing = i;
	/* [image][state][shstrtab + name][section headers], each 8-aligned;
	 * an earlier state section is replaced (its header points here). */
	nsec = eh->e_shnum + (existing ? 0 : 1);
	if (nsec >= SHN_LORESERVE || strtab_size < sizeof(name))
		return -E2BIG;
	state_off = round8(obj->image_size);
	strtab_off = round8(state_off + w->len);
	shoff = round8(strtab_off + strtab_size + sizeof(name));
	total = shoff + nsec * sizeof(Elf64_Shdr);
	buf = calloc(1, total);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, img, obj->image_size);
	memcpy(buf + state_off, w->buf, w->len);
	memcpy(buf + strtab_off, strtab, strtab_size);
	memcpy(buf + strtab_off + strtab_size, name, sizeof(name));
	nsh = (Elf64_Shdr *)(buf + shoff);
	memcpy(nsh, sh, eh->e_shnum * sizeof(Elf64_Shdr));
	nsh[eh->e_shstrndx].sh_offset = strtab_off;
	nsh[eh->e_shstrndx].sh_size = strtab_size + sizeof(name);
	i = existing ? existing : eh->e_shnum;
	memset(&nsh[i], 0, sizeof(nsh[i]));
	nsh[i].sh_name = (uint32_t)strtab_size;
	nsh[i].sh_type = SHT_PROGBITS;
	nsh[i].sh_offset = state_off;
	nsh[i].sh_size = w->len;
	nsh[i].sh_addralign = 8;
	neh = (Elf64_Ehdr *)buf;
	neh->e_shoff = shoff;
	neh->e_shnum = (Elf64_Half)nsec;
	*out = buf;
	*out_size = total;
	return 0;
}
