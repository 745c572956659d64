// SPDX-License-Identifier: MIT
/*
 * .BTF.ext line info: indexed per code section while loading, then
 * translated to program slots as each program is linked, so that errors
 * can name file.c:LINE. Function info is not needed and not read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "object/object_internal.h"

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

/*
 * The string at offset off of the string table that .BTF.ext refers to:
 * the .BTF section as clang wrote it, even when the loader rebuilt obj->btf
 * (btf.c, regroup_datasecs); NULL if off is outside it. The string lives as
 * long as the object.
 */
static const char *btf_ext_str(const struct loader *ld, uint32_t off)
{
	const struct object *obj = ld->obj;

	return btf__name_by_offset(obj->btf_as_written ? obj->btf_as_written : obj->btf, off);
}

static int check_btf_ext_str(struct loader *ld, uint32_t off, const char *what)
{
	if (!btf_ext_str(ld, off))
		return loader_fail(
			ld, EINVAL,
			".BTF.ext: %s offset %u is outside the BTF strings; rebuild the object",
			what, off);
	return 0;
}

/* The .BTF.ext header, checked against the section s. */
static int read_btf_ext_header(struct loader *ld, const struct loader_sec *s,
			       struct btf_ext_hdr *hdr)
{
	if (!s->data || s->size < 8)
		return loader_fail(ld, EINVAL, ".BTF.ext is truncated; rebuild the object");
	memset(hdr, 0, sizeof(*hdr));
	memcpy(hdr, s->data, s->size < sizeof(*hdr) ? s->size : sizeof(*hdr));
	if (hdr->magic != BTF_MAGIC)
		return loader_fail(ld, EINVAL,
				   ".BTF.ext has bad magic 0x%04x (expected 0x%04x, little "
				   "endian); rebuild the object",
				   hdr->magic, BTF_MAGIC);
	if (hdr->version != BTF_VERSION)
		return loader_fail(ld, EINVAL, ".BTF.ext version %u is not supported (expected %u)",
				   hdr->version, BTF_VERSION);
	if (hdr->hdr_len < sizeof(*hdr) || hdr->hdr_len > s->size)
		return loader_fail(ld, EINVAL,
				   ".BTF.ext header length %u is invalid (section is %zu bytes); "
				   "the object is corrupt",
				   hdr->hdr_len, s->size);
	if ((uint64_t)hdr->hdr_len + hdr->line_info_off + hdr->line_info_len > s->size)
		return loader_fail(ld, EINVAL,
				   ".BTF.ext line info (offset %u, %u bytes) lies outside the "
				   "section (%zu bytes); the object is truncated or corrupt",
				   hdr->line_info_off, hdr->line_info_len, s->size);
	return 0;
}

/* The cnt line records at recs, for code section cs named name. */
static int check_line_records(struct loader *ld, const struct loader_sec *cs, const char *name,
			      const uint8_t *recs, uint32_t cnt)
{
	uint32_t i;
	int ret;

	for (i = 0; i < cnt; i++) {
		struct bpf_line_info li;

		memcpy(&li, recs + (uint64_t)i * ld->line_rec_size, sizeof(li));
		if (li.insn_off % 8 || li.insn_off >= cs->size)
			return loader_fail(ld, EINVAL,
					   ".BTF.ext line info points at %s+%u, which is not an "
					   "instruction; the object is corrupt",
					   name, li.insn_off);
		ret = check_btf_ext_str(ld, li.file_name_off, "file name");
		if (!ret)
			ret = check_btf_ext_str(ld, li.line_off, "source line");
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The block of line info at p + *pos (len bytes of line info in all):
 * {section name, count, records}. Attached to its section if that is code;
 * *pos moves past it.
 */
static int read_line_block(struct loader *ld, const uint8_t *p, uint64_t len, uint64_t *pos)
{
	uint32_t name_off, cnt, rec_size = ld->line_rec_size;
	struct loader_sec *cs;
	const char *name;
	size_t sec;
	int ret;

	if (len - *pos < 8)
		return loader_fail(ld, EINVAL, ".BTF.ext line info block is truncated");
	memcpy(&name_off, p + *pos, 4);
	memcpy(&cnt, p + *pos + 4, 4);
	*pos += 8;
	name = btf_ext_str(ld, name_off);
	if (!name)
		return loader_fail(ld, EINVAL,
				   ".BTF.ext line info names section at string offset %u, outside "
				   "the BTF strings; the object is corrupt",
				   name_off);
	if (cnt == 0 || (uint64_t)cnt * rec_size > len - *pos)
		return loader_fail(ld, EINVAL,
				   ".BTF.ext line info for '%s' has %u records, which do not fit "
				   "the section; the object is truncated or corrupt",
				   name, cnt);
	sec = loader_find_section(ld, name);
	cs = sec ? &ld->secs[sec] : NULL;
	if (cs && sec_is_code(cs)) {
		if (cs->lines)
			return loader_fail(ld, EINVAL,
					   ".BTF.ext has two line info blocks for '%s'; the object "
					   "is corrupt",
					   name);
		ret = check_line_records(ld, cs, name, p + *pos, cnt);
		if (ret)
			return ret;
		cs->lines = p + *pos;
		cs->line_cnt = cnt;
	}
	*pos += (uint64_t)cnt * rec_size;
	return 0;
}

/*
 * Index the line info of .BTF.ext by code section. Layout: a header, then
 * at line_info_off a record size and blocks of {section name, count,
 * records}; insn_off in a record is a byte offset in its section.
 */
int loader_read_btf_ext(struct loader *ld)
{
	const struct loader_sec *s;
	struct btf_ext_hdr hdr;
	const uint8_t *p;
	uint64_t len, pos;
	uint32_t rec_size;
	int ret;

	if (!ld->btf_ext)
		return 0;
	s = &ld->secs[ld->btf_ext];
	if (!ld->obj->btf)
		return loader_fail(ld, EINVAL,
				   "the object has .BTF.ext but no .BTF; rebuild it with clang -g");
	ret = read_btf_ext_header(ld, s, &hdr);
	if (ret)
		return ret;
	len = hdr.line_info_len;
	if (len == 0)
		return 0;
	p = s->data + hdr.hdr_len + hdr.line_info_off;
	if (len < 4)
		return loader_fail(ld, EINVAL, ".BTF.ext line info is truncated");
	memcpy(&rec_size, p, 4);
	if (rec_size < sizeof(struct bpf_line_info))
		return loader_fail(ld, EINVAL,
				   ".BTF.ext line info record size %u is smaller than %zu; the "
				   "object is corrupt",
				   rec_size, sizeof(struct bpf_line_info));
	ld->line_rec_size = rec_size;
	for (pos = 4; pos < len;) {
		ret = read_line_block(ld, p, len, &pos);
		if (ret)
			return ret;
	}
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
int loader_link_lines(struct loader *ld, const struct prog_link *lk, struct object_prog *prog)
{
	size_t i, n = 0;
	uint32_t j;

	for (i = 0; i < lk->order_cnt; i++)
		n += ld->secs[ld->funcs[lk->order[i]].sec].line_cnt;
	if (!n)
		return 0;
	prog->lines = calloc(n, sizeof(*prog->lines));
	if (!prog->lines)
		return loader_nomem(ld);
	for (i = 0; i < lk->order_cnt; i++) {
		const struct loader_func *fn = &ld->funcs[lk->order[i]];
		const struct loader_sec *s = &ld->secs[fn->sec];

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
			l->file = btf_ext_str(ld, li.file_name_off);
			src = btf_ext_str(ld, li.line_off);
			l->source = src && src[0] ? src : NULL;
			l->line = BPF_LINE_INFO_LINE_NUM(li.line_col);
			l->col = BPF_LINE_INFO_LINE_COL(li.line_col);
			prog->line_cnt++;
		}
	}
	qsort(prog->lines, prog->line_cnt, sizeof(*prog->lines), cmp_line);
	return 0;
}
