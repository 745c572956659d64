// SPDX-License-Identifier: MIT
/*
 * The command line of `secbpf run` (docs/design.md §5): its help, its
 * options, and the checks that refuse a run that cannot be what the user
 * meant (no command, no filter, supervisor options with --native or with
 * a handle).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "service/protocol.h"

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf run [-f OBJ[:PROG]]... [--set VAR=VALUE]... [--stats[=FILE] [-j]]\n"
		"                  [--events[=FILE]] [--workers N] [--agent SOCKET] [--native]\n"
		"                  [--no-supervisor]\n"
		"                  [--] CMD [ARG]...\n"
		"       secbpf run --prog NAME [--daemon SOCKET] [--] CMD [ARG]...\n"
		"       secbpf run --fd N [--] CMD [ARG]...\n"
		"\n"
		"Run CMD under the filters: they are installed, in the order given, right\n"
		"before CMD's execve, and apply to CMD and everything it starts. The last\n"
		"filter given wins ties (as with several seccomp() calls). no_new_privs is\n"
		"set for CMD. OBJ may be a .c file, compiled first. What a filter decides\n"
		"from the syscall's number and arguments alone the kernel decides; when it\n"
		"needs maps or helpers, secbpf stays as CMD's supervisor and runs the\n"
		"program for those syscalls, until CMD and every process it started under\n"
		"the filter have exited.\n"
		"\n"
		"  -f OBJ[:PROG]    a filter to install (at least one)\n"
		"  --set VAR=VALUE  write a const volatile global in every object defining it\n"
		"  --stats[=FILE]   at the end, print the stateful programs' global variables\n"
		"                   and map entries (to stderr, or FILE, which is created\n"
		"                   before CMD runs)\n"
		"  -j, --json       print --stats as one JSON document\n"
		"  --events[=FILE]  print each record the stateful programs submit to a ring\n"
		"                   buffer, as it comes (to stderr, or FILE), one line each:\n"
		"                   secbpf: event MAP LEN: HEX[ \"TEXT\"]\n"
		"                   (without it, a full ring makes bpf_ringbuf_reserve fail)\n"
		"  --workers N      supervisor threads, 1 to %d (default: the online CPUs,\n"
		"                   at most 4); each has its own slot in PERCPU maps\n"
		"  --agent SOCKET   send syscalls a filter answers with USER_NOTIF to the user\n"
		"                   agent at SOCKET (docs/agent.md); without: they fail, ENOSYS\n"
		"  --native         let the kernel load and run the programs themselves\n"
		"                   (BPF_PROG_TYPE_SECCOMP): needs a kernel with the\n"
		"                   seccomp-eBPF patch set, which it detects by its\n"
		"                   kernel.seccomp.extended sysctl (kernel/README.md); no\n"
		"                   supervisor, no compilation to cBPF\n"
		"  --no-supervisor  refuse to run when a filter would hand any syscall to the\n"
		"                   supervisor, naming each C line and operation that keeps\n"
		"                   it out of the kernel (without it, a program with no maps\n"
		"                   or helpers that still needs the supervisor gets one\n"
		"                   warning per line)\n"
		"  --prog NAME      the program NAME that secbpfd loaded for you: ask the\n"
		"                   service for a handle (docs/handles.md); the service\n"
		"                   supervises its state, at the tier it granted\n"
		"  --daemon SOCKET  the service's socket (default " SVC_DEFAULT_SOCKET ")\n"
		"  --fd N           a handle of secbpfd this process inherited (passed over a\n"
		"                   unix socket by whoever asked the service for it)\n"
		"  -h, --help       show this help\n"
		"\n"
		"Exit status: CMD's status; 128+N if CMD was killed by signal N (159 for\n"
		"SIGSYS, a filter's KILL decided by the kernel; 137, SIGKILL, for one decided\n"
		"by the supervisor); 125 if secbpf failed before running CMD (with --prog\n"
		"or --fd: also when secbpfd refused, with its reason); 126 if CMD could not\n"
		"be executed (no permission, or a filter denied execve); 127 if CMD was not\n"
		"found.\n",
		SUPERVISOR_MAX_WORKERS);
}

/* --workers N: 1 to SUPERVISOR_MAX_WORKERS. Returns 0, or -1 after
 * printing why. */
static int run_parse_workers(const char *arg, unsigned int *n)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < 1 || v > SUPERVISOR_MAX_WORKERS) {
		cli_error("run", "--workers: '%s' is not a number from 1 to %d", arg,
			  SUPERVISOR_MAX_WORKERS);
		return -1;
	}
	*n = (unsigned int)v;
	return 0;
}

/* --fd N: an open fd other than stdio. Returns 0, or -1 after printing
 * why. */
static int run_parse_fd(const char *arg, int *fd)
{
	long v;
	char *end;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 3 || v > INT_MAX) {
		cli_error("run", "--fd: '%s' is not a file descriptor number above 2", arg);
		return -1;
	}
	*fd = (int)v;
	return 0;
}

/* What run refuses with --prog or --fd: the handle's program is fixed by
 * the service. Returns 0, or -1 after printing why. */
static int run_check_handle_options(const struct run_options *o)
{
	if (o->prog && o->handle_fd >= 0) {
		cli_error("run", "--prog and --fd both name a program: give one");
		return -1;
	}
	if (o->nspecs) {
		cli_error("run", "-f and %s: a run attaches either its own objects or a handle",
			  o->prog ? "--prog" : "--fd");
		return -1;
	}
	if (o->sets.n || o->stats || o->json || o->events || o->agent_path || o->native ||
	    o->no_supervisor || o->nworkers != supervisor_default_workers()) {
		cli_error("run", "--set, --stats, -j, --events, --workers, --agent, --native and "
				 "--no-supervisor are for objects run loads itself; with %s "
				 "secbpfd loaded the program and supervises it",
			  o->prog ? "--prog" : "--fd");
		return -1;
	}
	return 0;
}

/* The option of run that getopt_long returned as c, into o. Returns 0,
 * or -1 after printing why. */
static int run_option(struct run_options *o, int c, const char *arg)
{
	switch (c) {
	case 'f':
		o->specs[o->nspecs++] = arg;
		return 0;
	case 'S':
		o->stats = true;
		o->stats_path = arg;
		return 0;
	case 'E':
		o->events = true;
		o->events_path = arg;
		return 0;
	case 'w':
		return run_parse_workers(arg, &o->nworkers);
	case 'N':
		o->native = true;
		return 0;
	case 'n':
		o->no_supervisor = true;
		return 0;
	case 'j':
		o->json = true;
		return 0;
	case 'A':
		o->agent_path = arg;
		return 0;
	case 'P':
		o->prog = arg;
		return 0;
	case 'D':
		o->daemon_path = arg;
		return 0;
	case 'F':
		return run_parse_fd(arg, &o->handle_fd);
	}
	return 0;
}

/* What run refuses once the options are parsed. Returns 0, or -1 after
 * printing why. */
static int run_check_options(const struct run_options *o)
{
	if (!o->cmd_argv[0]) {
		cli_error("run", "no command to run (see secbpf run --help)");
		return -1;
	}
	if (o->daemon_path && !o->prog) {
		cli_error("run", "--daemon names the service to ask for --prog NAME");
		return -1;
	}
	if (o->prog || o->handle_fd >= 0)
		return run_check_handle_options(o);
	/* Fail closed: running CMD unfiltered because -f was forgotten is
	 * never what a script meant. */
	if (o->nspecs == 0) {
		cli_error("run", "no filter given: use -f OBJ[:PROG], --prog NAME or --fd N (see "
				 "secbpf run --help)");
		return -1;
	}
	if (o->json && !o->stats) {
		cli_error("run", "-j prints --stats as JSON: give --stats too");
		return -1;
	}
	if (o->native && o->json) {
		cli_error("run", "-j is for the supervisor's --stats; with --native the kernel "
				 "keeps the maps (drop -j)");
		return -1;
	}
	if (o->no_supervisor && (o->native || o->agent_path || o->stats || o->events)) {
		const char *opt = o->native	? "--native"
				  : o->agent_path ? "--agent"
				  : o->stats	? "--stats"
						: "--events";

		cli_error("run", "--no-supervisor: %s needs %s; drop one of them", opt,
			  o->native ? "no compilation to cBPF (the kernel runs the programs)"
				    : "the supervisor");
		return -1;
	}
	if (o->native &&
	    (o->events || o->agent_path || o->nworkers != supervisor_default_workers())) {
		cli_error("run", "--events, --workers and --agent are for the supervisor; with "
				 "--native the kernel runs the programs");
		return -1;
	}
	return 0;
}

int run_parse_options(int argc, char **argv, struct run_options *o)
{
	static const struct option longopts[] = {
		{ "stats", optional_argument, NULL, 'S' },
		{ "events", optional_argument, NULL, 'E' },
		{ "workers", required_argument, NULL, 'w' },
		{ "native", no_argument, NULL, 'N' },
		{ "no-supervisor", no_argument, NULL, 'n' },
		{ "agent", required_argument, NULL, 'A' },
		{ "prog", required_argument, NULL, 'P' },
		{ "daemon", required_argument, NULL, 'D' },
		{ "fd", required_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 },
	};
	struct cli_options opts;
	int c;

	memset(o, 0, sizeof(*o));
	o->handle_fd = -1;
	o->nworkers = supervisor_default_workers();
	o->specs = calloc(argc, sizeof(*o->specs));
	if (!o->specs) {
		cli_error("run", "out of memory");
		return -1;
	}
	/* '+': options end at CMD, whose own options are its business. */
	cli_options_init(&opts, argc, argv, "+f:j", longopts, run_usage, &o->sets);
	while ((c = cli_options_next(&opts)) > 0)
		if (run_option(o, c, optarg))
			return -1;
	if (c < 0)
		return c == CLI_OPTIONS_HELP ? 1 : -1;
	o->cmd_argv = argv + optind;
	return run_check_options(o);
}

void run_options_free(struct run_options *o)
{
	cli_sets_free(&o->sets);
	free(o->specs);
	memset(o, 0, sizeof(*o));
}
