// SPDX-License-Identifier: MIT
/*
 * The lints as `secbpf verify` and `secbpf cc` report them (lib/lint): one
 * `FILE:LINE: warning: ...` line per finding on stderr, and the findings as
 * JSON for `verify -j`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_lint.h"

int cli_lint_program(const struct object *obj, const struct object_prog *prog,
		     struct lint_report *r)
{
	struct secbpf_err err = { { 0 } };

	if (lint_program(obj, prog, r, &err)) {
		/* The verifier accepted it; the lints could not follow it (run
		 * would fail to compile it the same way). */
		cli_error(obj->path, "%s: lints skipped: %s", prog->name, err.msg);
		return -1;
	}
	lint_report_print(stderr, obj, prog, r);
	return 0;
}

long cli_lint_object_file(const char *path, const char *name)
{
	struct secbpf_err err = { { 0 } };
	struct lint_report r = { 0 };
	struct object *obj;
	long warnings;
	uint32_t i;

	obj = object_open_file(path, &err);
	if (!obj) {
		cli_error(name, "lints skipped: %s", err.msg);
		return 0;
	}
	char *display = strdup(name);

	if (display) {
		free(obj->path);
		obj->path = display;
	}
	for (i = 0; i < obj->prog_cnt; i++)
		cli_lint_program(obj, &obj->progs[i], &r);
	warnings = (long)r.warnings;
	lint_report_free(&r);
	object_free(obj);
	return warnings;
}

json_object *cli_lint_json(const struct lint_report *r)
{
	json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; arr && i < r->n; i++) {
		const struct lint_finding *f = &r->v[i];
		json_object *o = json_object_new_object();

		if (!o)
			break;
		json_object_object_add(o, "lint", json_object_new_string(f->name));
		json_object_object_add(
			o, "severity",
			json_object_new_string(f->severity == LINT_WARNING ? "warning" : "note"));
		json_object_object_add(o, "file", f->file ? json_object_new_string(f->file) : NULL);
		json_object_object_add(o, "line", json_object_new_int64(f->file ? f->line : 0));
		json_object_object_add(o, "insn", json_object_new_int64(f->insn));
		json_object_object_add(o, "message", json_object_new_string(f->msg));
		json_object_array_add(arr, o);
	}
	return arr;
}

int cli_lint_compiled(const char *src, const char *obj, bool werror)
{
	long warnings = cli_lint_object_file(obj, src);

	if (!werror || warnings <= 0)
		return 0;
	cli_error(src, "%ld lint warning%s, an error with --Werror", warnings,
		  warnings == 1 ? "" : "s");
	unlink(obj);
	return EXIT_REJECTED;
}
