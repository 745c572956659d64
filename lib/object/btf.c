// SPDX-License-Identifier: MIT
/*
 * The .BTF section: parsed with libbpf, then its DATASECs fixed up (clang
 * leaves their sizes and offsets to the linker) so that obj->btf describes
 * the global data sections truthfully.
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

/*
 * Variable idx (vsi) of DATASEC name (section sec, size bytes): its offset
 * from its symbol when it has one, written to dst (its copy) if it differs.
 */
static int fix_datasec_var(struct loader *ld, const struct btf *btf, const char *name, size_t sec,
			   uint32_t size, size_t idx, const struct btf_var_secinfo *vsi,
			   uint8_t *dst, bool *changed)
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
 * Compute the true size and variable offsets of one DATASEC into a patched
 * copy of its bytes (dst, same layout). clang writes the DATASEC size as 0
 * and leaves each offset to a relocation in .rel.BTF (0 in the file, or the
 * addend for a section-relative one). Like libbpf we take the section size
 * from the ELF header and each offset from the variable's symbol, and keep
 * the file's offset only for variables that have no symbol of their own.
 */
static int fix_datasec(struct loader *ld, const struct btf *btf, const struct btf_type *t,
		       uint8_t *dst, bool *changed)
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
		return 0; /* .kconfig and the like: no section, nothing to fix */
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
		ret = fix_datasec_var(ld, btf, name, sec, size, i, &vsi[i],
				      dst + sizeof(nt) + i * sizeof(*vsi), changed);
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
			bool *changed)
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
			ret = fix_datasec(ld, btf, t, copy + pos, changed);
			if (ret)
				return ret;
		}
		pos += len;
	}
	return 0;
}

/*
 * Parse .BTF and fix up its DATASECs (see fix_datasec). The fixed BTF is
 * built from a patched copy of the section, walked type by type in step with
 * libbpf's view of it, so obj->btf tells the truth to every later user.
 */
int loader_read_btf(struct loader *ld)
{
	const struct loader_sec *s = &ld->secs[ld->btf];
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
	ret = fix_datasecs(ld, btf, copy, s->size, &changed);
	if (ret || !changed)
		goto out;
	fixed = btf__new(copy, (uint32_t)s->size);
	if (!fixed) {
		ret = loader_fail(ld, EINVAL,
				  "section .BTF cannot be parsed after fixing its DATASECs "
				  "(libbpf: %s)",
				  strerror(errno));
		goto out;
	}
	btf__free(btf);
	btf = fixed;
out:
	free(copy);
	if (ret)
		btf__free(btf);
	else
		ld->obj->btf = btf;
	return ret;
}
