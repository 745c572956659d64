// SPDX-License-Identifier: MIT
/*
 * The object's life: open (from a file or memory, running the loader's
 * stages in order), free, and the lookups callers make on a loaded object.
 * The input is untrusted: every size, offset and index is checked before use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "object/object_internal.h"

/* Set the error message, prefixed with the object name; returns -errnum. */
int loader_fail(struct loader *ld, int errnum, const char *fmt, ...)
{
	char msg[SECBPF_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(ld->err, errnum, "%s: %s", ld->name, msg);
}

int loader_nomem(struct loader *ld)
{
	return loader_fail(ld, ENOMEM, "out of memory while loading the object");
}

int loader_add_map(struct loader *ld, const struct object_map *m)
{
	struct object *obj = ld->obj;
	struct object_map *maps;
	uint32_t *offs;

	maps = realloc(obj->maps, (obj->map_cnt + 1) * sizeof(*maps));
	if (!maps)
		return loader_nomem(ld);
	obj->maps = maps;
	offs = realloc(ld->map_off, (obj->map_cnt + 1) * sizeof(*offs));
	if (!offs)
		return loader_nomem(ld);
	ld->map_off = offs;
	maps[obj->map_cnt] = *m;
	offs[obj->map_cnt] = 0;
	obj->map_cnt++;
	return 0;
}

static int load_object(struct loader *ld)
{
	int ret;

	ret = loader_read_elf(ld);
	if (!ret)
		ret = loader_read_relocs(ld);
	if (!ret)
		ret = loader_read_funcs(ld);
	if (!ret && ld->btf)
		ret = loader_read_btf(ld);
	if (!ret)
		ret = loader_read_btf_maps(ld);
	if (!ret)
		ret = loader_read_data_maps(ld);
	if (!ret)
		ret = loader_read_vars(ld);
	if (!ret)
		ret = loader_read_state(ld);
	if (!ret)
		ret = loader_read_license(ld);
	if (!ret)
		ret = loader_read_btf_ext(ld);
	if (!ret)
		ret = loader_link_progs(ld);
	return ret;
}

/* Free what the loader holds besides obj (which the caller keeps or frees). */
static void loader_release(struct loader *ld)
{
	size_t i;

	if (ld->secs)
		for (i = 0; i < ld->shnum; i++)
			free(ld->secs[i].relos);
	free(ld->secs);
	free(ld->syms);
	free(ld->funcs);
	free(ld->map_off);
	if (ld->elf)
		elf_end(ld->elf);
}

/*
 * Load the object from image (a private copy of the size bytes at buf, which
 * libelf may convert in place) into ld->obj, with a copy of buf kept as
 * obj->image.
 */
static int load_image(struct loader *ld, void *image, const void *buf, size_t size)
{
	int ret;

	ld->obj->path = strdup(ld->name);
	if (!ld->obj->path)
		return loader_nomem(ld);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return loader_fail(ld, EINVAL, "libelf is too old: %s", elf_errmsg(-1));
	ld->elf = elf_memory(image, size);
	if (!ld->elf)
		return loader_fail(ld, EINVAL, "not a readable ELF object (%s)", elf_errmsg(-1));
	ret = load_object(ld);
	if (ret)
		return ret;
	ld->obj->image = malloc(size);
	if (!ld->obj->image)
		return loader_nomem(ld);
	memcpy(ld->obj->image, buf, size);
	ld->obj->image_size = size;
	return 0;
}

struct object *object_open_mem(const void *buf, size_t size, const char *name,
			       struct secbpf_err *err)
{
	struct loader ld = { .name = name ? name : "<memory>", .err = err, .size = size };
	void *image = NULL;
	int ret;

	if (!buf || size == 0) {
		errno = -loader_fail(&ld, EINVAL, "the object is empty");
		return NULL;
	}
	ld.obj = calloc(1, sizeof(*ld.obj));
	image = malloc(size);
	if (!ld.obj || !image) {
		ret = loader_nomem(&ld);
	} else {
		memcpy(image, buf, size);
		ret = load_image(&ld, image, buf, size);
	}
	if (ret) {
		object_free(ld.obj);
		ld.obj = NULL;
	}
	loader_release(&ld);
	free(image);
	if (ret)
		errno = -ret;
	return ld.obj;
}

/*
 * Read all of the regular file at path into *buf (malloc'd) and *size.
 * Returns 0, or -errno with err naming the file: the open, fstat or read
 * errno as the system gave it, EISDIR for a directory, EINVAL for another
 * kind of file or an empty one.
 */
static int read_object_file(const char *path, uint8_t **buf, size_t *size, struct secbpf_err *err)
{
	struct stat st;
	size_t done = 0;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, errno, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st))
		ret = err_set(err, errno, "%s: cannot stat: %s", path, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		ret = err_set(err, EISDIR,
			      "%s: is a directory, not a regular file; give a BPF object built "
			      "with clang -target bpf -c",
			      path);
	else if (!S_ISREG(st.st_mode))
		ret = err_set(err, EINVAL,
			      "%s: not a regular file; give a BPF object built with clang -target "
			      "bpf -c",
			      path);
	else if (st.st_size == 0)
		ret = err_set(err, EINVAL, "%s: the file is empty; rebuild the object", path);
	if (ret) {
		close(fd);
		return ret;
	}
	*buf = malloc((size_t)st.st_size);
	if (!*buf) {
		close(fd);
		return err_set(err, ENOMEM, "%s: out of memory reading the object", path);
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + done, (size_t)st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = err_set(err, n < 0 ? errno : EIO, "%s: read failed: %s", path,
				      n < 0 ? strerror(errno) : "file shrank while reading");
			free(*buf);
			*buf = NULL;
			close(fd);
			return ret;
		}
		done += (size_t)n;
	}
	close(fd);
	*size = done;
	return 0;
}

struct object *object_open_file(const char *path, struct secbpf_err *err)
{
	struct object *obj;
	uint8_t *buf = NULL;
	size_t size = 0;
	int ret;

	if (!path) {
		errno = EINVAL;
		err_set(err, EINVAL, "no object file given");
		return NULL;
	}
	ret = read_object_file(path, &buf, &size, err);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	obj = object_open_mem(buf, size, path, err);
	ret = obj ? 0 : errno;
	free(buf);
	if (!obj)
		errno = ret;
	return obj;
}

void object_free(struct object *obj)
{
	uint32_t i, j;

	if (!obj)
		return;
	free(obj->image);
	for (i = 0; i < obj->prog_cnt; i++) {
		struct object_prog *p = &obj->progs[i];

		free(p->name);
		free(p->section);
		free(p->insns);
		free(p->lines);
		for (j = 0; j < p->func_cnt; j++)
			free(p->funcs[j].name);
		free(p->funcs);
	}
	free(obj->progs);
	for (i = 0; i < obj->map_cnt; i++) {
		free(obj->maps[i].name);
		free(obj->maps[i].init_data);
	}
	free(obj->maps);
	for (i = 0; i < obj->state_cnt; i++)
		free(obj->states[i].entries);
	free(obj->states);
	for (i = 0; i < obj->var_cnt; i++)
		free(obj->vars[i].name);
	free(obj->vars);
	btf__free(obj->btf);
	btf__free(obj->btf_as_written);
	free(obj->license);
	free(obj->path);
	free(obj);
}

/* "a, b, c" of the program names, truncated to fit buf. */
static void prog_names(const struct object *obj, char *buf, size_t len)
{
	size_t used = 0;
	uint32_t i;

	buf[0] = 0;
	for (i = 0; i < obj->prog_cnt && used < len - 1; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", obj->progs[i].name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

struct object_prog *object_find_prog(struct object *obj, const char *name, struct secbpf_err *err)
{
	char names[256];
	uint32_t i;

	if (!obj) {
		err_set(err, EINVAL, "no object given");
		return NULL;
	}
	if (!name) {
		if (obj->prog_cnt == 1)
			return &obj->progs[0];
		prog_names(obj, names, sizeof(names));
		err_set(err, EINVAL, "%s: has %u programs (%s); pick one with %s:PROG", obj->path,
			obj->prog_cnt, names, obj->path);
		return NULL;
	}
	for (i = 0; i < obj->prog_cnt; i++)
		if (!strcmp(obj->progs[i].name, name))
			return &obj->progs[i];
	prog_names(obj, names, sizeof(names));
	err_set(err, ENOENT, "%s: no program '%s' (programs: %s)", obj->path, name, names);
	return NULL;
}

const struct object_line *object_prog_line(const struct object_prog *prog, uint32_t insn_off)
{
	uint32_t lo = 0, hi;

	if (!prog || !prog->line_cnt || insn_off >= prog->insn_cnt)
		return NULL;
	hi = prog->line_cnt;
	/* The last record starting at or before insn_off. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (prog->lines[mid].insn_off <= insn_off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &prog->lines[lo - 1] : NULL;
}

const char *object_prog_func(const struct object_prog *prog, uint32_t insn_off)
{
	const char *name = NULL;
	uint32_t i;

	if (!prog)
		return NULL;
	/* funcs are in placement order, which is increasing start. */
	for (i = 0; i < prog->func_cnt; i++) {
		if (prog->funcs[i].start > insn_off)
			break;
		name = prog->funcs[i].name;
	}
	return name;
}
