// SPDX-License-Identifier: MIT
/*
 * The verifier corpus format (verifier_corpus.h): directives, pseudo
 * instructions, and the object a case's program is checked in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/asm.h"
#include "vm/insn.h"
#include "verifier_corpus.h"

#define MAGIC_MAP 0x5ecb9001
#define MAGIC_MAPVAL 0x5ecb9002
#define MAGIC_FUNC 0x5ecb9004
#define MAGIC_RAW 0x5ecb9005

char *corpus_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int map_type_of(const char *s, uint32_t *type)
{
	static const struct {
		const char *name;
		uint32_t type;
	} types[] = {
		{ "hash", BPF_MAP_TYPE_HASH },
		{ "array", BPF_MAP_TYPE_ARRAY },
		{ "percpu_array", BPF_MAP_TYPE_PERCPU_ARRAY },
		{ "lru_hash", BPF_MAP_TYPE_LRU_HASH },
		{ "queue", BPF_MAP_TYPE_QUEUE },
		{ "stack", BPF_MAP_TYPE_STACK },
		{ "ringbuf", BPF_MAP_TYPE_RINGBUF },
		{ "task_storage", BPF_MAP_TYPE_TASK_STORAGE },
		{ "prog_array", BPF_MAP_TYPE_PROG_ARRAY },
		{ "perf_event_array", BPF_MAP_TYPE_PERF_EVENT_ARRAY },
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(types[i].name, s)) {
			*type = types[i].type;
			return 0;
		}
	return -1;
}

int corpus_parse(const char *text, struct corpus_spec *spec, struct secbpf_err *err)
{
	const char *line = text;

	memset(spec, 0, sizeof(*spec));
	spec->tier = SECBPF_TIER_UNPRIVILEGED;
	spec->expect_accept = true;
	while (line && *line) {
		const char *end = strchr(line, '\n');
		char buf[512], *p;
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = 0;
		line = end ? end + 1 : NULL;
		p = buf;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#')
			p++;
		else if (p[0] == '/' && p[1] == '/')
			p += 2;
		else
			continue;
		while (*p == ' ')
			p++;
		if (!strncmp(p, "expect: accept", 14)) {
			spec->expect_accept = true;
		} else if (!strncmp(p, "expect: reject ", 15)) {
			spec->expect_accept = false;
			snprintf(spec->reason, sizeof(spec->reason), "%s", p + 15);
		} else if (!strncmp(p, "tier: ", 6)) {
			if (secbpf_tier_parse(p + 6, &spec->tier))
				return err_set(err, EINVAL, "bad tier: %s", p);
		} else if (!strncmp(p, "strict: yes", 11)) {
			spec->strict = true;
		} else if (!strncmp(p, "prog: ", 6)) {
			snprintf(spec->prog, sizeof(spec->prog), "%s", p + 6);
		} else if (!strncmp(p, "map: ", 5)) {
			struct object_map *m = &spec->maps[spec->nmaps];
			char name[32], type[32], kind[16] = "btf";
			unsigned k, v, e;

			if (spec->nmaps >= CORPUS_MAX_MAPS)
				return err_set(err, E2BIG, "more than %d maps", CORPUS_MAX_MAPS);
			if (sscanf(p + 5, "%31s %31s %u %u %u %15s", name, type, &k, &v, &e, kind) <
				    5 ||
			    map_type_of(type, &m->type))
				return err_set(err, EINVAL, "bad map: %s", p);
			snprintf(spec->map_names[spec->nmaps], 32, "%s", name);
			m->name = spec->map_names[spec->nmaps];
			m->key_size = k;
			m->value_size = v;
			m->max_entries = e;
			m->kind = !strcmp(kind, "data")	    ? OBJECT_MAP_DATA
				  : !strcmp(kind, "rodata") ? OBJECT_MAP_RODATA
				  : !strcmp(kind, "bss")    ? OBJECT_MAP_BSS
							    : OBJECT_MAP_BTF;
			/* As the object loader makes .rodata (lib/object/globals.c,
			 * and libbpf): read-only to programs, so the kernel
			 * refuses their writes as secbpf does. */
			if (m->kind == OBJECT_MAP_RODATA)
				m->map_flags = BPF_F_RDONLY_PROG;
			spec->nmaps++;
		} else if (!strncmp(p, "init: ", 6)) {
			char *q = p + 6;
			unsigned idx = (unsigned)strtoul(q, &q, 0), n = 0;

			if (idx >= CORPUS_MAX_MAPS)
				return err_set(err, EINVAL, "bad init: %s", p);
			while (*q && n < 256) {
				char *next;
				unsigned long b = strtoul(q, &next, 16);

				if (next == q)
					break;
				spec->init[idx][n++] = (uint8_t)b;
				q = next;
			}
			spec->has_init[idx] = true;
		}
	}
	for (uint32_t i = 0; i < spec->nmaps; i++)
		if (spec->has_init[i])
			spec->maps[i].init_data = spec->init[i];
	return 0;
}

/* Turn the pseudo instructions into common syntax with magic markers. */
static char *preprocess_asm(const char *text, struct corpus_spec *spec, struct secbpf_err *err)
{
	size_t cap = strlen(text) * 2 + 1024, n = 0;
	char *out = malloc(cap);
	const char *line = text;

	if (!out) {
		err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[512], label[128];
		unsigned r, a, b;
		int code, dst, src, off;
		long long imm;
		char *p;

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = 0;
		line = end ? end + 1 : NULL;
		p = buf;
		while (*p == ' ' || *p == '\t')
			p++;
		if (sscanf(p, "ldmap %%r%u, %u", &r, &a) == 2)
			n += snprintf(out + n, cap - n, "lddw %%r%u, 0x%08x%08x\n", r, MAGIC_MAP,
				      a);
		else if (sscanf(p, "ldmapval %%r%u, %u, %u", &r, &a, &b) == 3)
			n += snprintf(out + n, cap - n, "lddw %%r%u, 0x%08x%08x\n", r, MAGIC_MAPVAL,
				      (a << 16) | b);
		else if (sscanf(p, "ldfunc %%r%u, %127s", &r, label) == 2)
			n += snprintf(out + n, cap - n, "call local %s\nmov %%r%u, 0x%x\n", label,
				      r, MAGIC_FUNC);
		else if (sscanf(p, "raw %i %i %i %i %lli", &code, &dst, &src, &off, &imm) == 5) {
			if (spec->nraw >= CORPUS_MAX_RAW) {
				free(out);
				err_set(err, E2BIG, "more than %d raw instructions",
					CORPUS_MAX_RAW);
				return NULL;
			}
			spec->raw[spec->nraw++] = (struct bpf_insn){ .code = (uint8_t)code,
								     .dst_reg = (uint8_t)dst,
								     .src_reg = (uint8_t)src,
								     .off = (int16_t)off,
								     .imm = (int32_t)imm };
			n += snprintf(out + n, cap - n, "mov %%r0, 0x%x\n", MAGIC_RAW);
		} else
			n += snprintf(out + n, cap - n, "%s\n", buf);
	}
	return out;
}

static void postprocess_asm(struct bpf_insn *in, size_t cnt, const struct corpus_spec *spec)
{
	uint32_t raw = 0;
	size_t i;

	for (i = 0; i < cnt; i++) {
		if (insn_is_ld_imm64(&in[i]) && i + 1 < cnt) {
			uint32_t lo = (uint32_t)in[i].imm;

			if ((uint32_t)in[i + 1].imm == MAGIC_MAP) {
				in[i].src_reg = BPF_PSEUDO_MAP_FD;
				in[i].imm = (int32_t)lo;
				in[i + 1].imm = 0;
			} else if ((uint32_t)in[i + 1].imm == MAGIC_MAPVAL) {
				in[i].src_reg = BPF_PSEUDO_MAP_VALUE;
				in[i].imm = (int32_t)(lo >> 16);
				in[i + 1].imm = (int32_t)(lo & 0xffff);
			}
			i++;
			continue;
		}
		if (in[i].code == (BPF_JMP | BPF_CALL) && in[i].src_reg == BPF_PSEUDO_CALL &&
		    i + 1 < cnt && in[i + 1].code == (BPF_ALU64 | BPF_MOV | BPF_K) &&
		    in[i + 1].imm == MAGIC_FUNC) {
			uint8_t dst = in[i + 1].dst_reg;
			int32_t rel = in[i].imm;

			in[i] = (struct bpf_insn){ .code = BPF_LD | BPF_IMM | BPF_DW,
						   .dst_reg = dst,
						   .src_reg = BPF_PSEUDO_FUNC,
						   .imm = rel };
			in[i + 1] = (struct bpf_insn){ 0 };
			i++;
			continue;
		}
		if (in[i].code == (BPF_ALU64 | BPF_MOV | BPF_K) && in[i].imm == MAGIC_RAW &&
		    raw < spec->nraw)
			in[i] = spec->raw[raw++];
	}
}

int corpus_assemble(const char *text, struct corpus_spec *spec, struct bpf_insn **insns,
		    size_t *cnt, struct secbpf_err *err)
{
	char *src = preprocess_asm(text, spec, err);
	int ret;

	if (!src)
		return -ENOMEM;
	ret = insn_assemble(src, insns, cnt, err);
	free(src);
	if (ret)
		return ret;
	postprocess_asm(*insns, *cnt, spec);
	return 0;
}

void corpus_object(struct corpus_spec *spec, struct bpf_insn *insns, size_t cnt, struct object *obj,
		   struct object_prog *prog)
{
	memset(obj, 0, sizeof(*obj));
	memset(prog, 0, sizeof(*prog));
	obj->path = "corpus";
	obj->maps = spec->maps;
	obj->map_cnt = spec->nmaps;
	prog->name = "asm";
	prog->section = "seccomp";
	prog->insns = insns;
	prog->insn_cnt = (uint32_t)cnt;
	prog->main_cnt = (uint32_t)cnt;
}
