// SPDX-License-Identifier: MIT
/*
 * The lines of --stats, the same for `run` (the supervisor's maps) and
 * `native-run` (the kernel's): "SPEC VAR = VALUE" per global variable and
 * "SPEC MAP KEY = VALUE..." per map entry.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <string.h>

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

void cli_stats_close(FILE *f, const char *path)
{
	if (path && fclose(f))
		cli_error(path, "cannot write the stats: %s", strerror(errno));
}
