/* SPDX-License-Identifier: MIT */
/*
 * The lints in the command-line tool (tools/cli_lint.c): printing the
 * findings of lib/lint for `verify` and `cc`, and as JSON for `verify -j`.
 */
#ifndef SECBPF_CLI_LINT_H
#define SECBPF_CLI_LINT_H

#include <json-c/json.h>
#include <stdbool.h>

#include "lint/lint.h"

/* Lint prog, adding to r, and print its findings on stderr. -1 (after
 * saying why) when the program could not be explored. */
int cli_lint_program(const struct object *obj, const struct object_prog *prog,
		     struct lint_report *r);

/* Open the object at path (name in messages) and lint every program of it.
 * Returns the number of warnings (an object secbpf cannot open is not
 * linted: 0 after saying so). */
long cli_lint_object_file(const char *path, const char *name);

/* cc: lint the object obj compiled from src. 0, or EXIT_REJECTED (obj
 * removed, as a compiler does on an error) when werror and a lint warns. */
int cli_lint_compiled(const char *src, const char *obj, bool werror);

/* The findings as a JSON array (NULL when out of memory). */
json_object *cli_lint_json(const struct lint_report *r);

#endif
