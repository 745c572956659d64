// SPDX-License-Identifier: MIT
/*
 * `secbpf run [-f OBJ[:PROG]]... [--set VAR=VALUE]... [--] CMD [ARG]...`:
 * run CMD under the given filters, installed in a child right before its
 * execve (docs/design.md §1, §5). When a filter needs state (maps,
 * helpers), this process becomes the supervisor (run_supervise.c) until
 * the last filtered process is gone. This file loads, verifies and plans
 * the stack; run_options.c parses the command line, run_child.c runs CMD.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Internal headers, for what the public API does not offer `run`: it
 * attaches to the calling process (run installs in a child, right before
 * its execve) and starts a separate supervisor (run is the supervisor).
 * install/policy.h: the policy's answer on reading non-dumpable targets;
 * install/stack_plan.h and supervisor/supervisor.h (through run.h): the
 * stack to install and the programs to serve; vm/events.h: --events;
 * verifier/verifier.h: the tiers cli_verify_target verifies for.
 */
#include "install/policy.h"
#include "run.h"
#include "verifier/verifier.h"

static void run_state_release(void *arg)
{
	struct run_state *s = arg;
	int i;

	/* The reader goes before the runtimes whose rings it reads. */
	events_free(s->events);
	if (s->events_file && fclose(s->events_file))
		cli_error("run", "cannot write the events: %s", strerror(errno));
	stack_plan_free(&s->plan);
	for (i = 0; s->targets && i < s->ntargets; i++)
		cli_close(&s->targets[i]);
	free(s->targets);
	free(s->path);
	if (s->agent_fd >= 0)
		close(s->agent_fd);
	memset(s, 0, sizeof(*s));
	s->agent_fd = -1;
}

/*
 * Whether probe_read_user may read non-dumpable targets for us (seed 009):
 * the policy's answer (CAP_SYS_PTRACE in the initial user namespace). A
 * policy that cannot be read answers no; verification reports it.
 */
static bool run_may_read_nondumpable(void)
{
	struct secbpf_err err = { { 0 } };
	struct policy_decision d;
	struct policy_inputs in;

	if (policy_read_system(&in, NULL, &err) ||
	    policy_decide(&in, SECBPF_TIER_PRIVILEGED, &d, &err))
		return false;
	return d.may_read_nondumpable;
}

/*
 * Without --agent, a filter that can return USER_NOTIF without needing
 * state would be installed with no listener, and the kernel would fail
 * those syscalls with ENOSYS: refuse, naming the option that was probably
 * meant (stateful ones are told by the supervisor when it happens).
 * Returns 0, or -1 after printing why.
 */
static int run_check_user_notif(const struct run_state *s, const struct run_options *o)
{
	size_t i;

	if (o->agent_path)
		return 0;
	for (i = 0; i < s->plan.n; i++) {
		const struct cbpf_prog *p = &s->plan.compiled[i];
		uint32_t k;
		bool may_notify = false;

		for (k = 0; k < p->nfilters; k++)
			may_notify |= supervisor_filter_may_notify(p->filters[k].filter,
								   p->filters[k].len);
		if (s->plan.runtimes[i] || !may_notify)
			continue;
		cli_error(o->specs[i],
			  "returns USER_NOTIF and no user agent is given to answer it: give one "
			  "with --agent SOCKET (docs/agent.md)");
		return -1;
	}
	return 0;
}

/*
 * The paths that a filter hands to the supervisor although the compiler
 * could have kept them in the kernel: with --no-supervisor any such path
 * is an error; without, each reason of a program with no maps, global
 * data or helpers is a warning (stateful programs need the supervisor
 * anyway). Returns 0, or -1 after printing why.
 */
static int run_check_supervised(const struct run_state *s, const struct run_options *o)
{
	char lead[512];
	size_t i;

	for (i = 0; i < s->plan.n; i++) {
		const struct cbpf_prog *p = &s->plan.compiled[i];

		if (o->no_supervisor) {
			if (cli_refuse_supervised("run", o->specs[i], p, s->targets[i].prog))
				return -1;
			continue;
		}
		if (!p->needs_supervisor || p->needs_state)
			continue;
		snprintf(lead, sizeof(lead),
			 "secbpf: run: %s: warning: supervised, not in the kernel: ", o->specs[i]);
		cli_print_punts(stderr, p, s->targets[i].prog, lead, "", false);
	}
	return 0;
}

/*
 * Compile the targets and plan their stack (lib/install/stack_plan.c, shared with
 * the attach API). may_read_nondumpable is the policy's answer for seed
 * 009's dumpable check. Warns when this process already has filters: CMD
 * inherits them below ours, and a syscall they decide in the kernel with
 * a higher precedence never reaches our programs (docs/design.md §1, stacking
 * divergences). Returns 0, or -1 after printing why.
 */
static int run_plan(struct run_state *s, const struct run_options *o, bool may_read_nondumpable)
{
	struct stack_plan_opts opts = {
		.sz = sizeof(opts),
		.ncpus = o->nworkers, /* one PERCPU slot per supervisor worker */
		.loader_cap_sys_ptrace = may_read_nondumpable,
		/* With an agent, a filter that can return USER_NOTIF is
		 * supervised even without state, so that its USER_NOTIF
		 * reaches the agent. */
		.supervise_user_notif = o->agent_path != NULL,
	};
	struct stack_plan_target *t;
	struct secbpf_err err = { { 0 } };
	int i, existing, rc;

	t = calloc(o->nspecs, sizeof(*t));
	if (!t) {
		cli_error("run", "out of memory");
		return -1;
	}
	for (i = 0; i < o->nspecs; i++) {
		t[i].obj = s->targets[i].obj;
		t[i].prog = s->targets[i].prog;
		t[i].name = o->specs[i];
	}
	rc = stack_plan_build(&s->plan, t, o->nspecs, &opts, &err);
	free(t);
	if (rc) {
		cli_error("run", "%s", err.msg);
		return -1;
	}
	if (run_check_user_notif(s, o) || run_check_supervised(s, o))
		return -1;
	if (!s->plan.stateful)
		return 0;
	if (s->plan.stack.listener_notifies_all)
		fprintf(stderr,
			"secbpf: run: warning: the stateful filters are too long to share "
			"one listener filter; every syscall goes to the supervisor (slower)\n");
	existing = supervisor_count_own_filters();
	if (existing > 0)
		fprintf(stderr,
			"secbpf: run: warning: stacking a stateful filter on %d seccomp filter%s "
			"this process already has: what they decide in the kernel first never "
			"reaches the supervised programs (their maps do not see it)\n",
			existing, existing == 1 ? "" : "s");
	return 0;
}

/*
 * Load every -f target, apply the sets to them all at once (a VAR must
 * exist in at least one) and verify each: as in the kernel, nothing runs
 * that the verifier rejects. Returns 0, or -1 after printing why.
 */
static int run_load_targets(struct run_state *s, const struct run_options *o)
{
	int i;

	s->targets = calloc(o->nspecs, sizeof(*s->targets));
	if (!s->targets) {
		cli_error("run", "out of memory");
		return -1;
	}
	for (i = 0; i < o->nspecs; i++) {
		if (cli_load(o->specs[i], &s->targets[i]))
			return -1;
		s->ntargets = i + 1;
	}
	if (cli_apply_sets(s->targets, s->ntargets, &o->sets))
		return -1;
	for (i = 0; i < o->nspecs; i++) {
		/* The tier asked for is the highest; the system policy caps it. */
		if (cli_verify_target(&s->targets[i], SECBPF_TIER_PRIVILEGED, false, NULL))
			return -1;
	}
	return 0;
}

/* --agent: connect before CMD runs, so that a bad socket fails first.
 * Returns 0, or -1 after printing why. */
static int run_connect_agent(struct run_state *s, const struct run_options *o)
{
	struct secbpf_err err = { { 0 } };

	if (!o->agent_path)
		return 0;
	s->agent_fd = supervisor_agent_connect(o->agent_path, &err);
	if (s->agent_fd < 0) {
		cli_error("--agent", "%s", err.msg);
		return -1;
	}
	return 0;
}

/*
 * Everything before CMD runs: the targets loaded and verified, the stack
 * planned, the --events reader, CMD resolved, the agent connected.
 * Returns 0, or run's exit status after printing why.
 */
static int run_prepare(struct run_state *s, const struct run_options *o)
{
	int status = EXIT_RUN_FAILED;

	if (o->stats && cli_stats_check(o->stats_path))
		return EXIT_RUN_FAILED;
	if (run_load_targets(s, o) || run_plan(s, o, run_may_read_nondumpable()))
		return EXIT_RUN_FAILED;
	if (o->events && run_open_events(s, o->specs, o->events_path))
		return EXIT_RUN_FAILED;
	s->path = cli_resolve_command("run", o->cmd_argv[0], &status);
	if (!s->path)
		return status;
	if (run_connect_agent(s, o))
		return EXIT_RUN_FAILED;
	return 0;
}

/* Run CMD under the planned stack, supervised if it is stateful, and
 * print the stats at the end. Returns run's exit status. */
static int run_start(struct run_state *s, const struct run_options *o)
{
	struct run_child child = {
		.service_handle = -1,
		.path = s->path,
		.argv = o->cmd_argv,
		.progs = s->plan.install,
		.nprogs = s->plan.ninstall,
	};
	struct run_supervision sup = {
		.progs = s->plan.sv_progs,
		.n = o->nspecs,
		.nworkers = o->nworkers,
		.events = s->events,
		.agent_fd = &s->agent_fd,
	};
	int status;

	if (!s->plan.stateful)
		return run_and_wait(&child, o->cmd_argv[0], NULL, run_state_release, s);
	child.listener = true;
	status = run_and_wait(&child, o->cmd_argv[0], &sup, run_state_release, s);
	/* Every record the workers submitted, before the stats. */
	events_stop(s->events);
	if (o->stats)
		run_stats(s, o->specs, o->stats_path, o->json);
	if (o->done)
		o->done(s, o->done_arg);
	return status;
}

int run_under_supervisor(const struct run_options *o)
{
	struct run_state s = { .agent_fd = -1 };
	int status;

	status = run_prepare(&s, o);
	if (status == 0)
		status = run_start(&s, o);
	run_state_release(&s);
	return status;
}

int cmd_run(int argc, char **argv)
{
	struct run_options o;
	int rc, status;

	rc = run_parse_options(argc, argv, &o);
	if (rc)
		status = rc > 0 ? 0 : EXIT_RUN_FAILED;
	else if (o.prog || o.handle_fd >= 0)
		/* secbpfd loaded, verified and compiled the program. */
		status = run_with_handle(&o);
	else if (o.native)
		/* The kernel verifies, runs and keeps the state: none of the
		 * user-space machinery of this file takes part. */
		status = cli_native_run("run", o.specs, o.nspecs, &o.sets, o.stats, o.stats_path,
					o.cmd_argv);
	else
		status = run_under_supervisor(&o);
	run_options_free(&o);
	return status;
}
