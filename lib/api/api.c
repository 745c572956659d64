// SPDX-License-Identifier: MIT
/*
 * The public API (include/secbpf.h) over the internal object and runtime
 * layers: opaque handles, errno conventions and per-object error messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "vm/runtime.h"

static void report_open_error(const struct secbpf_object_open_opts *opts,
			      const struct secbpf_err *err)
{
	if (opts && opts->sz >= sizeof(*opts) && opts->errbuf && opts->errbuf_sz) {
		strncpy(opts->errbuf, err->msg, opts->errbuf_sz - 1);
		opts->errbuf[opts->errbuf_sz - 1] = '\0';
	}
}

static struct secbpf_object *wrap(struct object *o, const struct secbpf_object_open_opts *opts,
				  struct secbpf_err *err)
{
	struct secbpf_object *obj;
	uint32_t i;

	if (!o) {
		report_open_error(opts, err);
		errno = EINVAL;
		return NULL;
	}
	obj = calloc(1, sizeof(*obj));
	if (obj)
		obj->progs = calloc(o->prog_cnt ? o->prog_cnt : 1, sizeof(*obj->progs));
	if (!obj || !obj->progs) {
		free(obj);
		object_free(o);
		err_set(err, ENOMEM, "out of memory");
		report_open_error(opts, err);
		errno = ENOMEM;
		return NULL;
	}
	obj->obj = o;
	for (i = 0; i < o->prog_cnt; i++) {
		obj->progs[i].obj = obj;
		obj->progs[i].prog = &o->progs[i];
	}
	return obj;
}

struct secbpf_object *secbpf_object__open_file(const char *path,
					       const struct secbpf_object_open_opts *opts)
{
	struct secbpf_err err = { { 0 } };

	return wrap(object_open_file(path, &err), opts, &err);
}

struct secbpf_object *secbpf_object__open_mem(const void *buf, size_t size,
					      const struct secbpf_object_open_opts *opts)
{
	struct secbpf_err err = { { 0 } };

	return wrap(object_open_mem(buf, size, "<memory>", &err), opts, &err);
}

void secbpf_object__close(struct secbpf_object *obj)
{
	if (!obj)
		return;
	object_free(obj->obj);
	while (obj->nsets > 0)
		free(obj->sets[--obj->nsets]);
	free(obj->sets);
	free(obj->progs);
	free(obj);
}

const char *secbpf_object__last_error(const struct secbpf_object *obj)
{
	return obj->err.msg;
}

struct secbpf_program *secbpf_object__find_program(struct secbpf_object *obj, const char *name)
{
	struct object_prog *p = object_find_prog(obj->obj, name, &obj->err);

	if (!p) {
		errno = name ? ENOENT : EINVAL;
		return NULL;
	}
	return &obj->progs[p - obj->obj->progs];
}

size_t secbpf_object__program_cnt(const struct secbpf_object *obj)
{
	return obj->obj->prog_cnt;
}

struct secbpf_program *secbpf_object__program(struct secbpf_object *obj, size_t i)
{
	if (i >= obj->obj->prog_cnt) {
		errno = ENOENT;
		return NULL;
	}
	return &obj->progs[i];
}

int secbpf_object__set_var(struct secbpf_object *obj, const char *name, const char *value)
{
	int rc = object_set_var(obj->obj, name, value, &obj->err);

	char **sets, *set;

	if (rc == -ENOENT)
		err_set(&obj->err, ENOENT, "%s: no global variable named '%s'", obj->obj->path,
			name);
	if (rc) {
		errno = -rc;
		return rc;
	}
	/* Remembered for a spawned supervisor, which loads the object again. */
	sets = realloc(obj->sets, (obj->nsets + 1) * sizeof(*sets));
	if (sets)
		obj->sets = sets;
	if (!sets || asprintf(&set, "%s=%s", name, value) < 0) {
		err_set(&obj->err, ENOMEM, "out of memory");
		errno = ENOMEM;
		return -ENOMEM;
	}
	obj->sets[obj->nsets++] = set;
	return 0;
}

const char *secbpf_program__name(const struct secbpf_program *prog)
{
	return prog->prog->name;
}

const void *secbpf_program__insns(const struct secbpf_program *prog)
{
	return prog->prog->insns;
}

size_t secbpf_program__insn_cnt(const struct secbpf_program *prog)
{
	return prog->prog->insn_cnt;
}

int secbpf_program__test_run(struct secbpf_program *prog, const struct seccomp_data *sd,
			     uint32_t *ret)
{
	struct secbpf_object *obj = prog->obj;
	struct runtime *rt = runtime_new(obj->obj, prog->prog, &obj->err);
	int rc;

	if (!rt) {
		errno = EINVAL;
		return -EINVAL;
	}
	rc = runtime_run(rt, sd, ret, &obj->err);
	runtime_free(rt);
	if (rc)
		errno = -rc;
	return rc;
}
