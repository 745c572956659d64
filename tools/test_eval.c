// SPDX-License-Identifier: MIT
/*
 * Running a syscall for `secbpf test` (see test_eval.h): the program or
 * its compiled cBPF on the one simulator
 * (lib/cbpf/cbpf_sim.c) with the program behind it where the kernel would
 * notify, and the result as a line or as JSON.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* Internal headers: install/action.h, to print the action as
 * docs/design.md §5 says; vm/runtime.h, to run the program with maps that
 * outlive one syscall (the API's test run starts fresh each time). */
#include "install/action.h"
#include "test_eval.h"
#include "vm/runtime.h"

/*
 * With --cbpf, what `run` installs for this program alone: the compiled
 * filter, with the listener guard when it needs the supervisor (the
 * kernel then denies a second listener, docs/design.md §1).
 */
static int test_eval_compile(struct test_eval *e, struct cli_target *t)
{
	struct cbpf_compile_opts opts = { .sz = sizeof(opts) };
	struct secbpf_err err = { { 0 } };

	if (cbpf_compile(t->obj, t->prog, &opts, &e->cp, &err))
		goto fail;
	if (!e->cp.needs_supervisor)
		return 0;
	cbpf_prog_free(&e->cp);
	opts.listener_guard = true;
	if (cbpf_compile(t->obj, t->prog, &opts, &e->cp, &err))
		goto fail;
	return 0;
fail:
	cli_error(e->spec, "cannot compile it to classic BPF: %s", err.msg);
	return EXIT_USAGE;
}

int test_eval_init(struct test_eval *e, struct cli_target *t, const char *spec, bool cbpf)
{
	struct secbpf_err err = { { 0 } };

	memset(e, 0, sizeof(*e));
	e->spec = spec;
	e->cbpf = cbpf;
	e->rt = runtime_new(t->obj, t->prog, &err);
	if (!e->rt) {
		cli_error(spec, "%s", err.msg);
		return EXIT_USAGE;
	}
	if (cbpf && test_eval_compile(e, t)) {
		test_eval_free(e);
		return EXIT_USAGE;
	}
	return 0;
}

void test_eval_free(struct test_eval *e)
{
	runtime_free(e->rt);
	cbpf_prog_free(&e->cp);
	memset(e, 0, sizeof(*e));
}

/* The program itself on s, with the maps as earlier syscalls left them. */
static int test_eval_program(struct test_eval *e, const struct test_syscall *s, uint32_t *ret)
{
	struct secbpf_err err = { { 0 } };

	if (!runtime_run(e->rt, &s->sd, ret, &err))
		return 0;
	if (s->line)
		cli_error(e->spec, "line %d: the program faulted: %s", s->line, err.msg);
	else
		cli_error(e->spec, "the program faulted: %s", err.msg);
	return EXIT_REJECTED;
}

int test_eval_run(struct test_eval *e, const struct test_syscall *s, struct test_result *r)
{
	if (!e->cbpf) {
		r->by = TEST_DECIDED_PROGRAM;
		return test_eval_program(e, s, &r->ret);
	}
	/* As the kernel: the classic filter first; where it notifies, the
	 * supervisor runs the whole program (docs/design.md §1). */
	r->ret = cbpf_sim_run(e->cp.insns, e->cp.len, &s->sd);
	if ((action_effective(r->ret) & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_USER_NOTIF) {
		r->by = TEST_DECIDED_KERNEL;
		return 0;
	}
	r->by = TEST_DECIDED_SUPERVISOR;
	return test_eval_program(e, s, &r->ret);
}

static const char *decider_name(enum test_decider by)
{
	return by == TEST_DECIDED_KERNEL ? "kernel" : "supervisor";
}

void test_result_print(FILE *f, const struct test_result *r)
{
	char action[32];

	action_format(r->ret, action, sizeof(action));
	if (r->by == TEST_DECIDED_PROGRAM)
		fprintf(f, "%s\n", action);
	else
		fprintf(f, "%s %s\n", action, decider_name(r->by));
}

struct json_object *test_result_json(const struct test_syscall *s, const struct test_result *r)
{
	struct json_object *j = json_object_new_object();
	uint32_t eff = action_effective(r->ret);
	uint32_t data = eff & SECCOMP_RET_DATA;
	char action[32];

	if (s->line)
		json_object_object_add(j, "line", json_object_new_int(s->line));
	json_object_object_add(
		j, "action", json_object_new_string(action_format(r->ret, action, sizeof(action))));
	json_object_object_add(j, "ret", json_object_new_uint64(r->ret));
	switch (eff & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ERRNO:
		/* As printed: capped at MAX_ERRNO like the kernel does. */
		json_object_object_add(j, "errno",
				       json_object_new_int(data > ACTION_MAX_ERRNO
								   ? ACTION_MAX_ERRNO
								   : (int)data));
		break;
	case SECCOMP_RET_TRAP:
	case SECCOMP_RET_TRACE:
		json_object_object_add(j, "data", json_object_new_int((int)data));
		break;
	}
	if (r->by != TEST_DECIDED_PROGRAM)
		json_object_object_add(j, "decided_by",
				       json_object_new_string(decider_name(r->by)));
	return j;
}

void test_json_print(struct json_object *doc)
{
	printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
								   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}
