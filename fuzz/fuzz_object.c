// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the object loader (lib/object/): any byte string must
 * either load or fail with a message and an errno, never crash or read out of
 * bounds. Loaded objects also go through program lookup and --set. Seeds:
 * fuzz/corpus/object/.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "object/object.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const values[] = {
		"1",
		"-1",
		"0x7f",
		"true",
		"300",
		"-0",
		"0x10000000000000000",
		"-9223372036854775808",
	};
	struct secbpf_err err = { { 0 } };
	struct object *obj;
	uint32_t i, j;

	errno = 0;
	obj = object_open_mem(data, size, "fuzz.o", &err);
	if (!obj) {
		/* Every failure must leave a message for the user and an errno. */
		if (!err.msg[0] || errno <= 0)
			__builtin_trap();
		return 0;
	}
	object_find_prog(obj, NULL, &err);
	for (i = 0; i < obj->prog_cnt; i++) {
		struct object_prog *p = object_find_prog(obj, obj->progs[i].name, &err);

		if (p != &obj->progs[i])
			__builtin_trap();
		for (j = 0; j <= p->insn_cnt; j++) {
			const struct object_line *l = object_prog_line(p, j);

			if (l && (!l->file || strlen(l->file) > size))
				__builtin_trap();
			object_prog_func(p, j);
		}
	}
	for (i = 0; i < obj->var_cnt; i++)
		for (j = 0; j < sizeof(values) / sizeof(values[0]); j++)
			object_set_var(obj, obj->vars[i].name, values[j], &err);
	object_set_var(obj, "no_such_variable", "1", &err);
	object_free(obj);
	return 0;
}
