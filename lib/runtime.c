// SPDX-License-Identifier: MIT
/*
 * Instantiates an object's global data maps and prepares the interpreter for
 * one program (see runtime.h). Each map gets its own heap value; the program
 * reaches it only through BPF_PSEUDO_MAP_VALUE loads, which the interpreter
 * turns into regions with the map's writability.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"
#include "runtime.h"

struct runtime {
	const struct object *obj;
	const struct object_prog *prog;
	struct interp_map_ref *refs;
	struct interp *interp;
};

void runtime_free(struct runtime *rt)
{
	uint32_t i;

	if (!rt)
		return;
	interp_free(rt->interp);
	for (i = 0; rt->refs && i < rt->obj->map_cnt; i++)
		free(rt->refs[i].value);
	free(rt->refs);
	free(rt);
}

/* Allocate the storage of one map. Only global data maps can be backed
 * here; a BTF map is given a handle and no value, so a program that reaches
 * one through a helper fails when it is prepared (no helper table yet). */
static int runtime_map_init(const struct object_map *m, uint32_t idx, struct interp_map_ref *ref,
			    struct secbpf_err *err)
{
	/* Handles are small tagged numbers, never host addresses, so that a
	 * program cannot learn or forge a pointer through them. */
	ref->handle = 0x5ecb000000000000ull | idx;
	if (m->kind == OBJECT_MAP_BTF)
		return 0;
	ref->value = calloc(1, m->value_size ? m->value_size : 1);
	if (!ref->value)
		return err_set(err, ENOMEM, "map %s: out of memory", m->name);
	if (m->init_data)
		memcpy(ref->value, m->init_data, m->value_size);
	ref->value_size = m->value_size;
	ref->writable = m->kind != OBJECT_MAP_RODATA;
	return 0;
}

struct runtime *runtime_new(const struct object *obj, const struct object_prog *prog,
			    struct secbpf_err *err)
{
	struct interp_config cfg = { 0 };
	struct runtime *rt;
	uint32_t i;

	rt = calloc(1, sizeof(*rt));
	if (!rt) {
		err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	rt->obj = obj;
	rt->prog = prog;
	rt->refs = calloc(obj->map_cnt ? obj->map_cnt : 1, sizeof(*rt->refs));
	if (!rt->refs) {
		err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < obj->map_cnt; i++)
		if (runtime_map_init(&obj->maps[i], i, &rt->refs[i], err))
			goto fail;

	cfg.insns = prog->insns;
	cfg.cnt = prog->insn_cnt;
	cfg.maps = rt->refs;
	cfg.nmaps = obj->map_cnt;
	rt->interp = interp_new(&cfg, err);
	if (!rt->interp) {
		err_prefix(err, "%s", prog->name);
		goto fail;
	}
	return rt;
fail:
	runtime_free(rt);
	return NULL;
}

int runtime_run(struct runtime *rt, const struct seccomp_data *sd, uint32_t *ret,
		struct secbpf_err *err)
{
	struct seccomp_data copy = *sd;
	struct interp_region ctx = {
		.base = (uint64_t)(uintptr_t)&copy,
		.size = sizeof(copy),
		.writable = false,
	};
	uint64_t args[5] = { (uint64_t)(uintptr_t)&copy };
	uint64_t r0;
	int rc;

	rc = interp_run(rt->interp, args, &ctx, 1, &r0, err);
	if (rc)
		return rc;
	*ret = (uint32_t)r0;
	return 0;
}
