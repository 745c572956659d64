// SPDX-License-Identifier: MIT
/*
 * The lines of --stats, the same for `run` (the supervisor's maps) and
 * `native-run` (the kernel's): "SPEC VAR = VALUE" per global variable and
 * "SPEC MAP KEY = VALUE..." per map entry.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <json-c/json.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Internal header: common/syscall_name.h, the one syscall resolver. */
#include "common/syscall_name.h"
#include "cli.h"

/* An integer of 1, 2, 4 or 8 bytes in decimal, anything else in hex. */
void cli_print_value(FILE *f, const uint8_t *p, size_t n)
{
	uint64_t v;
	size_t i;

	switch (n) {
	case 1:
		v = *p;
		break;
	case 2: {
		uint16_t x;

		memcpy(&x, p, 2);
		v = x;
		break;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p, 4);
		v = x;
		break;
	}
	case 8:
		memcpy(&v, p, 8);
		break;
	default:
		fputs("0x", f);
		for (i = 0; i < n; i++)
			fprintf(f, "%02x", p[i]);
		return;
	}
	fprintf(f, "%llu", (unsigned long long)v);
}

struct json_object *cli_json_value(const uint8_t *p, size_t n)
{
	char *hex;
	uint64_t v;
	size_t i;

	switch (n) {
	case 1:
	case 2:
	case 4:
	case 8:
		v = 0;
		/* Little-endian like cli_print_value's reads on the hosts
		 * secbpf builds for (x86_64, aarch64). */
		memcpy(&v, p, n);
		return json_object_new_uint64(v);
	default:
		hex = malloc(2 * n + 3);
		if (!hex)
			return NULL;
		strcpy(hex, "0x");
		for (i = 0; i < n; i++)
			snprintf(hex + 2 + 2 * i, 3, "%02x", p[i]);
		struct json_object *j = json_object_new_string(hex);

		free(hex);
		return j;
	}
}

struct json_object *cli_json_entry(const uint8_t *key, size_t ksize, const uint8_t *val,
				   size_t vsize, size_t stride, unsigned int nvals, bool percpu)
{
	struct json_object *e = json_object_new_object(), *vals;
	unsigned int c;

	json_object_object_add(e, "key", cli_json_value(key, ksize));
	if (!percpu) {
		json_object_object_add(e, "value", cli_json_value(val, vsize));
		return e;
	}
	vals = json_object_new_array();
	for (c = 0; c < nvals; c++)
		json_object_array_add(vals, cli_json_value(val + c * stride, vsize));
	json_object_object_add(e, "value", vals);
	return e;
}

bool cli_stats_iterable(uint32_t type, bool with_task_storage)
{
	switch (type) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return true;
	case BPF_MAP_TYPE_TASK_STORAGE:
		return with_task_storage;
	default:
		return false;
	}
}

void cli_stats_var(FILE *f, const char *spec, const char *var, const uint8_t *value, size_t size)
{
	fprintf(f, "%s %s = ", spec, var);
	cli_print_value(f, value, size);
	fputc('\n', f);
}

void cli_stats_entry(FILE *f, const char *spec, const char *map, const uint8_t *key, size_t ksize,
		     const uint8_t *val, size_t vsize, size_t stride, unsigned int nvals,
		     const char *note)
{
	unsigned int c;

	fprintf(f, "%s %s ", spec, map);
	cli_print_value(f, key, ksize);
	fputs(" =", f);
	for (c = 0; c < nvals; c++) {
		fputc(' ', f);
		cli_print_value(f, val + c * stride, vsize);
	}
	if (note && *note)
		fprintf(f, " (%s)", note);
	fputc('\n', f);
}

bool cli_stats_syscall_keys(const struct object *obj, const struct object_map *om)
{
	const struct btf_type *t;
	uint32_t id = om->btf_key_type_id;

	if (!obj->btf || !id || om->key_size != sizeof(uint32_t))
		return false;
	/* Through const and volatile to the typedef itself. */
	t = btf__type_by_id(obj->btf, id);
	while (t && (btf_is_const(t) || btf_is_volatile(t)))
		t = btf__type_by_id(obj->btf, t->type);
	return t && btf_is_typedef(t) &&
	       !strcmp(btf__name_by_offset(obj->btf, t->name_off), "secbpf_syscall_nr");
}

const char *cli_stats_syscall_name(const uint8_t *key, char *buf, size_t len)
{
	struct syscall_abi abi = syscall_abi_native();
	uint32_t nr;

	memcpy(&nr, key, sizeof(nr));
	return syscall_abi_syscall_name(&abi, (int32_t)nr, buf, len);
}

FILE *cli_stats_open(const char *path)
{
	FILE *f;

	if (!path)
		return stderr;
	f = fopen(path, "we");
	if (!f)
		cli_error(path, "cannot write the stats: %s", strerror(errno));
	return f;
}

int cli_stats_check(const char *path)
{
	int fd;

	if (!path)
		return 0;
	/* Created (or truncated) now, rewritten at the end: a typo in the
	 * path must not cost the user a whole run of CMD. */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		cli_error(path, "cannot write the stats: %s (checked before running the command)",
			  strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

void cli_stats_close(FILE *f, const char *path)
{
	if (path && fclose(f))
		cli_error(path, "cannot write the stats: %s", strerror(errno));
}
