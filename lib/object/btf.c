// SPDX-License-Identifier: MIT
/*
 * The .BTF section: parsed with libbpf, then its DATASECs fixed up (clang
 * leaves their sizes and offsets to the linker, and lists the variables of
 * mergeable sections such as .rodata.cst32 under .rodata) so that obj->btf
 * describes the global data sections truthfully.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "object/object_internal.h"

/* An object symbol named name defined in section sec, or NULL. */
static const struct loader_sym *find_var_sym(const struct loader *ld, size_t sec, const char *name)
{
	size_t i;

	for (i = 0; i < ld->sym_cnt; i++) {
		const struct loader_sym *s = &ld->syms[i];
		unsigned type = GELF_ST_TYPE(s->sym.st_info);

		if (s->sym.st_shndx != sec || !s->name || strcmp(s->name, name))
			continue;
		if (type == STT_OBJECT || type == STT_NOTYPE)
			return s;
	}
	return NULL;
}

/*
 * The object symbol named name defined in a global data section other than
 * sec, if exactly one such section holds one (else NULL). clang places a
 * small constant table in a mergeable section (.rodata.cst16, .rodata.cst32)
 * while its BTF lists the variable under .rodata; the symbol says where the
 * bytes are, as libbpf reads it.
 */
static const struct loader_sym *find_var_sym_elsewhere(const struct loader *ld, size_t sec,
						       const char *name)
{
	const struct loader_sym *found = NULL;
	size_t i;

	for (i = 0; i < ld->sym_cnt; i++) {
		const struct loader_sym *s = &ld->syms[i];
		unsigned type = GELF_ST_TYPE(s->sym.st_info);
		size_t shndx = s->sym.st_shndx;

		if (shndx == sec || shndx == SHN_UNDEF || shndx >= ld->shnum || !s->name ||
		    strcmp(s->name, name) || (type != STT_OBJECT && type != STT_NOTYPE) ||
		    !sec_is_data(&ld->secs[shndx]))
			continue;
		if (found && found->sym.st_shndx != shndx)
			return NULL;
		found = s;
	}
	return found;
}

/* Follow typedefs and modifiers from id; returns the type (id in *out). */
const struct btf_type *object_btf_skip_mods(const struct btf *btf, uint32_t id, uint32_t *out)
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

/* A DATASEC entry whose variable lives in another section (see regroup). */
struct moved_var {
	uint32_t datasec_id; /* the DATASEC that lists it */
	uint32_t idx;	     /* its entry there */
	size_t sec;	     /* the section that holds its bytes */
	struct btf_var_secinfo vsi;
};

struct moved_vars {
	struct moved_var *v;
	size_t cnt;
};

/* Note that entry idx of DATASEC id is variable vsi of section sym's. */
static int note_moved_var(struct loader *ld, struct moved_vars *mv, uint32_t id, size_t idx,
			  const struct btf_var_secinfo *vsi, const struct loader_sym *sym)
{
	const struct loader_sec *ts = &ld->secs[sym->sym.st_shndx];
	struct moved_var *v;

	if (sym->sym.st_value > ts->shdr.sh_size ||
	    vsi->size > ts->shdr.sh_size - sym->sym.st_value)
		return loader_fail(ld, EINVAL,
				   "variable '%s' (offset %llu, %u bytes) lies outside section "
				   "'%s' (%llu bytes); the object is corrupt",
				   sym_name(sym), (unsigned long long)sym->sym.st_value, vsi->size,
				   ts->name, (unsigned long long)ts->shdr.sh_size);
	v = realloc(mv->v, (mv->cnt + 1) * sizeof(*v));
	if (!v)
		return loader_nomem(ld);
	mv->v = v;
	v = &mv->v[mv->cnt++];
	v->datasec_id = id;
	v->idx = (uint32_t)idx;
	v->sec = sym->sym.st_shndx;
	v->vsi = *vsi;
	v->vsi.offset = (uint32_t)sym->sym.st_value;
	return 0;
}

/*
 * Variable idx (vsi) of DATASEC id, name (section sec, size bytes): its
 * offset from its symbol when it has one, written to dst (its copy) if it
 * differs; noted in mv if its symbol is in another data section.
 */
static int fix_datasec_var(struct loader *ld, const struct btf *btf, uint32_t id, const char *name,
			   size_t sec, uint32_t size, size_t idx, const struct btf_var_secinfo *vsi,
			   uint8_t *dst, bool *changed, struct moved_vars *mv)
{
	const struct btf_type *v = btf__type_by_id(btf, vsi->type);
	const struct loader_sym *s;
	struct btf_var_secinfo nv;
	const char *vname;

	if (!v || !btf_is_var(v))
		return loader_fail(
			ld, EINVAL,
			"BTF DATASEC '%s' entry %zu is not a variable; the BTF is corrupt", name,
			idx);
	vname = btf__name_by_offset(btf, v->name_off);
	if (!vname)
		return loader_fail(ld, EINVAL,
				   "BTF variable %u in '%s' has a bad name; the BTF is corrupt",
				   vsi->type, name);
	memcpy(&nv, vsi, sizeof(nv));
	s = find_var_sym(ld, sec, vname);
	if (!s) {
		const struct loader_sym *other = find_var_sym_elsewhere(ld, sec, vname);

		if (other)
			return note_moved_var(ld, mv, id, idx, vsi, other);
	}
	if (s) {
		if (s->sym.st_value > UINT32_MAX)
			return loader_fail(ld, EINVAL,
					   "symbol '%s' has offset %llu, outside section '%s'",
					   vname, (unsigned long long)s->sym.st_value, name);
		nv.offset = (uint32_t)s->sym.st_value;
	}
	if ((uint64_t)nv.offset + nv.size > size)
		return loader_fail(ld, EINVAL,
				   "variable '%s' (offset %u, %u bytes) lies outside section '%s' "
				   "(%u bytes); the object is corrupt",
				   vname, nv.offset, nv.size, name, size);
	if (nv.offset != vsi->offset) {
		memcpy(dst, &nv, sizeof(nv));
		*changed = true;
	}
	return 0;
}

/*
 * DATASEC t (id) names no section: .kconfig and the like, whose variables
 * stay, or .rodata when clang put every constant of it in mergeable
 * sections; those variables are noted in mv to move where their bytes are.
 */
static int move_sectionless_vars(struct loader *ld, const struct btf *btf, uint32_t id,
				 const struct btf_type *t, struct moved_vars *mv)
{
	const struct btf_var_secinfo *vsi = btf_var_secinfos(t);
	size_t i;
	int ret;

	for (i = 0; i < btf_vlen(t); i++) {
		const struct btf_type *v = btf__type_by_id(btf, vsi[i].type);
		const char *vname =
			v && btf_is_var(v) ? btf__name_by_offset(btf, v->name_off) : NULL;
		const struct loader_sym *s = vname ? find_var_sym_elsewhere(ld, 0, vname) : NULL;

		if (!s)
			continue;
		ret = note_moved_var(ld, mv, id, i, &vsi[i], s);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Compute the true size and variable offsets of one DATASEC into a patched
 * copy of its bytes (dst, same layout). clang writes the DATASEC size as 0
 * and leaves each offset to a relocation in .rel.BTF (0 in the file, or the
 * addend for a section-relative one). Like libbpf we take the section size
 * from the ELF header and each offset from the variable's symbol, and keep
 * the file's offset only for variables that have no symbol of their own.
 */
static int fix_datasec(struct loader *ld, const struct btf *btf, uint32_t id,
		       const struct btf_type *t, uint8_t *dst, bool *changed, struct moved_vars *mv)
{
	const struct btf_var_secinfo *vsi = btf_var_secinfos(t);
	struct btf_type nt;
	const char *name = btf__name_by_offset(btf, t->name_off);
	size_t sec, i, secsz;
	uint32_t size;
	int ret;

	if (!name)
		return loader_fail(ld, EINVAL, "BTF DATASEC has a bad name; the BTF is corrupt");
	sec = loader_find_section(ld, name);
	if (!sec)
		return move_sectionless_vars(ld, btf, id, t, mv);
	secsz = ld->secs[sec].shdr.sh_size;
	if (t->size && t->size != secsz)
		return loader_fail(
			ld, EINVAL,
			"BTF says section '%s' is %u bytes but it is %zu; the object is corrupt",
			name, t->size, secsz);
	if (secsz > UINT32_MAX)
		return loader_fail(ld, EINVAL, "section '%s' is too large (%zu bytes)", name,
				   secsz);
	size = (uint32_t)secsz;
	memcpy(&nt, t, sizeof(nt));
	if (nt.size != size) {
		nt.size = size;
		memcpy(dst, &nt, sizeof(nt));
		*changed = true;
	}
	for (i = 0; i < btf_vlen(t); i++) {
		ret = fix_datasec_var(ld, btf, id, name, sec, size, i, &vsi[i],
				      dst + sizeof(nt) + i * sizeof(*vsi), changed, mv);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Walk the types of btf in step with copy (the section's bytes) and fix
 * each DATASEC in copy; *changed says whether any byte changed.
 */
static int fix_datasecs(struct loader *ld, const struct btf *btf, uint8_t *copy, size_t size,
			bool *changed, struct moved_vars *mv)
{
	struct btf_header hdr;
	size_t pos, end;
	uint32_t id, n;
	int ret;

	memcpy(&hdr, copy, sizeof(hdr));
	pos = (size_t)hdr.hdr_len + hdr.type_off;
	end = pos + hdr.type_len;
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		size_t len = t ? btf_type_len(t) : 0;

		/* libbpf validated the layout; this only guards our walk. */
		if (!t || pos > end || len > end - pos || end > size ||
		    memcmp(copy + pos, t, sizeof(*t)))
			return loader_fail(
				ld, EINVAL,
				"section .BTF: type %u is not where expected; the BTF is corrupt",
				id);
		if (btf_is_datasec(t)) {
			ret = fix_datasec(ld, btf, id, t, copy + pos, changed, mv);
			if (ret)
				return ret;
		}
		pos += len;
	}
	return 0;
}

static int cmp_vsi_by_offset(const void *a, const void *b)
{
	const struct btf_var_secinfo *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Append DATASEC name (size bytes) to dst with the n entries of vsi, sorted
 * by offset as the kernel wants them; they must not overlap.
 */
static int add_datasec(struct loader *ld, struct btf *dst, const char *name, uint32_t size,
		       struct btf_var_secinfo *vsi, size_t n)
{
	uint64_t end = 0;
	size_t i;
	int id;

	qsort(vsi, n, sizeof(*vsi), cmp_vsi_by_offset);
	id = btf__add_datasec(dst, name, size);
	for (i = 0; id > 0 && i < n; i++) {
		if (vsi[i].offset < end)
			return loader_fail(ld, EINVAL,
					   "BTF DATASEC '%s': two variables overlap at offset %u; "
					   "the object is corrupt",
					   name, vsi[i].offset);
		end = (uint64_t)vsi[i].offset + vsi[i].size;
		if (btf__add_datasec_var_info(dst, (int)vsi[i].type, vsi[i].offset, vsi[i].size))
			id = -1;
	}
	if (id <= 0)
		return loader_fail(ld, EINVAL, "cannot rebuild BTF DATASEC '%s' (libbpf: %s)", name,
				   strerror(errno));
	return id;
}

/* Whether entry idx of DATASEC id was moved to another section. */
static bool is_moved(const struct moved_vars *mv, uint32_t id, size_t idx)
{
	size_t i;

	for (i = 0; i < mv->cnt; i++)
		if (mv->v[i].datasec_id == id && mv->v[i].idx == idx)
			return true;
	return false;
}

/*
 * Gather into vsi the entries that describe section sec: those DATASEC t
 * (id, or 0 for none) lists that stay, and the moved ones sec holds (marked
 * in placed). Returns their count.
 */
static size_t gather_entries(const struct moved_vars *mv, uint32_t id, const struct btf_type *t,
			     size_t sec, bool *placed, struct btf_var_secinfo *vsi)
{
	size_t i, n = 0;

	for (i = 0; t && i < btf_vlen(t); i++)
		if (!is_moved(mv, id, i))
			vsi[n++] = btf_var_secinfos(t)[i];
	for (i = 0; sec && i < mv->cnt; i++) {
		if (placed[i] || mv->v[i].sec != sec)
			continue;
		placed[i] = true;
		vsi[n++] = mv->v[i].vsi;
	}
	return n;
}

/*
 * Whether every name of t (its own, its members', values' or parameters')
 * is a string of src: libbpf copies them into the rebuilt BTF, and a name
 * off the string section would make it read from NULL.
 */
static bool type_names_valid(const struct btf *src, const struct btf_type *t)
{
	uint16_t i, vlen = btf_vlen(t);

	if (!btf__str_by_offset(src, t->name_off))
		return false;
	for (i = 0; i < vlen; i++) {
		uint32_t off;

		if (btf_is_composite(t))
			off = btf_members(t)[i].name_off;
		else if (btf_is_enum(t))
			off = btf_enum(t)[i].name_off;
		else if (btf_is_enum64(t))
			off = btf_enum64(t)[i].name_off;
		else if (btf_is_func_proto(t))
			off = btf_params(t)[i].name_off;
		else
			break;
		if (!btf__str_by_offset(src, off))
			return false;
	}
	return true;
}

/*
 * Rebuild src into *out with each moved variable under the DATASEC of the
 * section that holds it: the DATASEC of that name if there is one, else a new
 * one after all the others. Every type keeps its id.
 */
static int regroup_datasecs(struct loader *ld, const struct btf *src, const struct moved_vars *mv,
			    struct btf **out)
{
	uint32_t id, n = btf__type_cnt(src), most = 0;
	struct btf_var_secinfo *vsi = NULL;
	struct btf *dst = btf__new_empty();
	bool *placed = calloc(mv->cnt, sizeof(*placed));
	size_t i;
	int ret = 0;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(src, id);

		if (btf_is_datasec(t) && btf_vlen(t) > most)
			most = btf_vlen(t);
	}
	vsi = calloc(most + mv->cnt + 1, sizeof(*vsi));
	if (!dst || !placed || !vsi) {
		ret = loader_nomem(ld);
		goto out;
	}
	for (id = 1; id < n && !ret; id++) {
		const struct btf_type *t = btf__type_by_id(src, id);
		const char *name = btf__name_by_offset(src, t->name_off);
		int got;

		if (!type_names_valid(src, t)) {
			ret = loader_fail(ld, EINVAL,
					  "BTF type %u names a string outside the string section; "
					  "the object is corrupt",
					  id);
			break;
		}
		if (!btf_is_datasec(t)) {
			got = btf__add_type(dst, src, t);
			if (got != (int)id)
				ret = loader_fail(ld, EINVAL,
						  "cannot copy BTF type %u (libbpf: %s)", id,
						  strerror(errno));
			continue;
		}
		got = add_datasec(
			ld, dst, name, t->size, vsi,
			gather_entries(mv, id, t, loader_find_section(ld, name), placed, vsi));
		if (got < 0)
			ret = got;
	}
	for (i = 0; i < mv->cnt && !ret; i++) {
		const struct loader_sec *ts = &ld->secs[mv->v[i].sec];
		int got;

		if (placed[i])
			continue;
		got = add_datasec(ld, dst, ts->name, (uint32_t)ts->shdr.sh_size, vsi,
				  gather_entries(mv, 0, NULL, mv->v[i].sec, placed, vsi));
		if (got < 0)
			ret = got;
	}
out:
	free(vsi);
	free(placed);
	if (ret)
		btf__free(dst);
	else
		*out = dst;
	return ret;
}

/*
 * Parse .BTF and fix up its DATASECs (see fix_datasec). The fixed BTF is
 * built from a patched copy of the section, walked type by type in step with
 * libbpf's view of it, so obj->btf tells the truth to every later user.
 */
int loader_read_btf(struct loader *ld)
{
	const struct loader_sec *s = &ld->secs[ld->btf];
	struct moved_vars mv = { 0 };
	struct btf *btf, *fixed;
	uint8_t *copy = NULL;
	bool changed = false;
	int ret = 0;

	if (!s->data || s->size < sizeof(struct btf_header) || s->size > UINT32_MAX)
		return loader_fail(
			ld, EINVAL,
			"section .BTF is empty or too large; rebuild the object with clang -g");
	btf = btf__new(s->data, (uint32_t)s->size);
	if (!btf)
		return loader_fail(
			ld, EINVAL,
			"section .BTF is malformed (libbpf: %s); rebuild the object with clang -g",
			strerror(errno));
	if (btf__endianness(btf) != BTF_LITTLE_ENDIAN) {
		ret = loader_fail(ld, EINVAL, "big-endian BTF is not supported");
		goto out;
	}
	copy = malloc(s->size);
	if (!copy) {
		ret = loader_nomem(ld);
		goto out;
	}
	memcpy(copy, s->data, s->size);
	ret = fix_datasecs(ld, btf, copy, s->size, &changed, &mv);
	if (ret || (!changed && !mv.cnt))
		goto out;
	if (changed) {
		fixed = btf__new(copy, (uint32_t)s->size);
		if (!fixed) {
			ret = loader_fail(ld, EINVAL,
					  "section .BTF cannot be parsed after fixing its "
					  "DATASECs (libbpf: %s)",
					  strerror(errno));
			goto out;
		}
		btf__free(btf);
		btf = fixed;
	}
	if (mv.cnt) {
		ret = regroup_datasecs(ld, btf, &mv, &fixed);
		if (ret)
			goto out;
		/* The rebuilt BTF has new string offsets; .BTF.ext keeps
		 * clang's (btf_ext.c, btf_ext_str). */
		ld->obj->btf_as_written = btf;
		btf = fixed;
	}
out:
	free(mv.v);
	free(copy);
	if (ret)
		btf__free(btf);
	else
		ld->obj->btf = btf;
	return ret;
}
