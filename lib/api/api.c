// SPDX-License-Identifier: MIT
/*
 * The public API (include/secbpf.h) over the internal object and runtime
 * layers: opaque handles, errno conventions and per-object error messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/opts.h"
#include "vm/runtime.h"

/* The reason into the caller's errbuf, if its opts have one. */
static void report_open_error(const struct secbpf_object_open_opts *opts,
			      const struct secbpf_err *err)
{
	char *buf = OPTS_GET(opts, errbuf, NULL);
	size_t size = OPTS_GET(opts, errbuf_sz, 0);

	if (buf && size) {
		strncpy(buf, err->msg, size - 1);
		buf[size - 1] = '\0';
	}
}

/* NULL with errno set to errnum and the reason in opts->errbuf. */
static struct secbpf_object *open_failed(const struct secbpf_object_open_opts *opts,
					 const struct secbpf_err *err, int errnum)
{
	report_open_error(opts, err);
	errno = errnum;
	return NULL;
}

/* The handle over o; on NULL o, errnum is what the loader failed with. */
static struct secbpf_object *wrap(struct object *o, int errnum,
				  const struct secbpf_object_open_opts *opts,
				  struct secbpf_err *err)
{
	struct secbpf_object *obj;
	uint32_t i;

	if (!o)
		return open_failed(opts, err, errnum > 0 ? errnum : EINVAL);
	obj = calloc(1, sizeof(*obj));
	if (obj)
		obj->progs = calloc(o->prog_cnt ? o->prog_cnt : 1, sizeof(*obj->progs));
	if (!obj || !obj->progs) {
		free(obj);
		object_free(o);
		err_set(err, ENOMEM, "out of memory");
		return open_failed(opts, err, ENOMEM);
	}
	obj->obj = o;
	for (i = 0; i < o->prog_cnt; i++) {
		obj->progs[i].obj = obj;
		obj->progs[i].prog = &o->progs[i];
	}
	return obj;
}

/* The loader sets errno when it returns NULL (object.h). */
struct secbpf_object *secbpf_object__open_file(const char *path,
					       const struct secbpf_object_open_opts *opts)
{
	struct secbpf_err err = { { 0 } };
	struct object *o;
	int rc;

	rc = OPTS_VALID(opts, struct secbpf_object_open_opts, errbuf_sz, &err);
	if (rc)
		return open_failed(opts, &err, -rc);
	errno = 0;
	o = object_open_file(path, &err);
	return wrap(o, errno, opts, &err);
}

struct secbpf_object *secbpf_object__open_mem(const void *buf, size_t size,
					      const struct secbpf_object_open_opts *opts)
{
	struct secbpf_err err = { { 0 } };
	struct object *o;
	int rc;

	rc = OPTS_VALID(opts, struct secbpf_object_open_opts, errbuf_sz, &err);
	if (rc)
		return open_failed(opts, &err, -rc);
	errno = 0;
	o = object_open_mem(buf, size, "<memory>", &err);
	return wrap(o, errno, opts, &err);
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
