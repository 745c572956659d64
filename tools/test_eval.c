// SPDX-License-Identifier: MIT
/*
 * Running a syscall for `secbpf test` (see test_eval.h): the options that
 * describe it, the program or its compiled cBPF on the one simulator
 * (lib/cbpf/cbpf_sim.c) with the program behind it where the kernel would
 * notify, and the result as a line or as JSON.
 */
#include <errno.h>
#include <json-c/json.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

/* Internal headers: install/action.h, to print the action as
 * docs/design.md §5 says; vm/runtime.h, to run the program with maps that
 * outlive one syscall (the API's test run starts fresh each time). */
#include "install/action.h"
#include "test_eval.h"
#include "vm/runtime.h"

/* Parse a decimal or 0x-hex number (a leading '-' negates, two's
 * complement). Returns 0, or -1 if s is not entirely a number in range. */
static int parse_u64(const char *s, uint64_t *out)
{
	bool neg = false;
	char *end;
	int base = 10;

	if (*s == '-') {
		neg = true;
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	if (neg)
		*out = -*out;
	return 0;
}

/* Resolve --arch: the AUDIT_ARCH value for seccomp_data and the
 * libseccomp arch token used to resolve syscall names. */
static int parse_arch(const char *s, uint32_t *audit, uint32_t *token)
{
	uint64_t n;

	if (!strcmp(s, "i386"))
		s = "x86";
	if (parse_u64(s, &n) == 0) {
		if (n > UINT32_MAX)
			return -1;
		*audit = (uint32_t)n;
		/* libseccomp's tokens are the AUDIT_ARCH values (x32 aside), so
		 * the matching arch resolves names; none matching is fine for
		 * numeric syscalls. */
		*token = *audit;
		return 0;
	}
	*token = seccomp_arch_resolve_name(s);
	if (!*token)
		return -1;
	/* The kernel reports x32 tasks with AUDIT_ARCH_X86_64 (bit 30 of nr
	 * tells them apart); libseccomp's x32 token is not an audit arch. */
	*audit = *token == SCMP_ARCH_X32 ? AUDIT_ARCH_X86_64 : *token;
	return 0;
}

static int parse_nr(const char *s, uint32_t token, int32_t *nr)
{
	uint64_t n;
	int r;

	if (parse_u64(s, &n) == 0) {
		if ((int64_t)n < INT32_MIN || ((int64_t)n > INT32_MAX && n > UINT32_MAX)) {
			cli_error("--nr", "%s does not fit in 32 bits", s);
			return -1;
		}
		*nr = (int32_t)(uint32_t)n;
		return 0;
	}
	/* libseccomp returns negative pseudo numbers for syscalls that do not
	 * exist on an arch; those are never valid in seccomp_data. */
	r = seccomp_syscall_resolve_name_arch(token, s);
	if (r < 0) {
		cli_error("--nr", "no syscall named '%s' on this arch", s);
		return -1;
	}
	*nr = r;
	return 0;
}

/* --ip and --arg: a decimal or 0x hex number. Returns 0, or -1 after
 * printing why. */
static int parse_number_option(const char *option, const char *arg, uint64_t *v)
{
	if (parse_u64(arg, v) == 0)
		return 0;
	cli_error(option, "'%s' is not a decimal or 0x hex number", arg);
	return -1;
}

int test_syscall_option(struct test_syscall_args *a, int c, const char *arg)
{
	switch (c) {
	case TEST_OPT_NR:
		a->nr = arg;
		return 0;
	case TEST_OPT_ARCH:
		a->arch = arg;
		return 0;
	case TEST_OPT_IP:
		return parse_number_option("--ip", arg, &a->ip);
	case TEST_OPT_ARG:
		if (a->nargs == 6) {
			cli_error("--arg", "a syscall has at most 6 arguments");
			return -1;
		}
		return parse_number_option("--arg", arg, &a->args[a->nargs++]);
	}
	return 0;
}

int test_syscall_resolve(const struct test_syscall_args *a, struct seccomp_data *sd)
{
	uint32_t token;
	int i;

	memset(sd, 0, sizeof(*sd));
	if (!a->nr) {
		cli_error("test", "--nr is required (a syscall name or number)");
		return -1;
	}
	if (a->arch) {
		if (parse_arch(a->arch, &sd->arch, &token)) {
			cli_error("--arch",
				  "unknown arch '%s' (try x86_64, x86, x32, aarch64 or an "
				  "AUDIT_ARCH_* number)",
				  a->arch);
			return -1;
		}
	} else {
		token = seccomp_arch_native();
		sd->arch = token;
	}
	sd->instruction_pointer = a->ip;
	for (i = 0; i < a->nargs; i++)
		sd->args[i] = a->args[i];
	return parse_nr(a->nr, token, &sd->nr);
}

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
