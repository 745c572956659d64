// SPDX-License-Identifier: MIT
/*
 * `secbpf dump PID`: the seccomp filters attached to a process, oldest
 * first, each disassembled (seed 002, retrieval for inspection). Classic
 * filters come from PTRACE_SECCOMP_GET_FILTER, which every kernel has; an
 * extended (eBPF) filter, which only a kernel with the seccomp-eBPF port
 * can hold, from its PTRACE_SECCOMP_GET_FILTER_EXTENDED (a prog fd), read
 * back with BPF_OBJ_GET_INFO_BY_FD. The process is seized, stopped with
 * PTRACE_INTERRUPT while the filters are read, and detached again.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/filter.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Internal headers: cbpf/cbpf.h and vm/insn.h, the two disassemblers, and
 * install/native.h, the port's ABI (its ptrace request, reading back a
 * prog fd); the public API is about filters to attach, not installed ones. */
#include "cbpf/cbpf.h"
#include "cli.h"
#include "vm/insn.h"
#include "install/native.h"

/* Older libc headers may lack these (both are in Linux since 3.x/4.4). */
#ifndef PTRACE_SECCOMP_GET_FILTER
#define PTRACE_SECCOMP_GET_FILTER 0x420c
#endif

/* More filters than this on one process would be a broken kernel. */
#define DUMP_MAX_FILTERS 4096

static void dump_usage(FILE *f)
{
	fprintf(f, "usage: secbpf dump PID\n"
		   "\n"
		   "List the seccomp filters attached to process (or thread) PID, oldest first:\n"
		   "index, kind and a disassembly. A classic filter is shown as the kernel\n"
		   "holds it (what 'secbpf run' compiled); an extended one (an eBPF program\n"
		   "attached natively, on a kernel with the seccomp-eBPF patch set, see\n"
		   "kernel/README.md) as the kernel verifier rewrote it. PID is stopped\n"
		   "briefly with ptrace and then let go. Needs CAP_SYS_ADMIN, ptrace access\n"
		   "to PID, and secbpf itself must not be under seccomp (the kernel's rules).\n"
		   "\n"
		   "  -h, --help  show this help\n"
		   "\n"
		   "Exit status: 0 when listed (a process without filters lists none), 2 on a\n"
		   "usage error or when PID cannot be inspected.\n");
}

/* One retrieved filter: classic instructions, or an extended program. */
struct dump_filter {
	bool extended;
	struct sock_filter *cbpf; /* classic */
	struct bpf_insn *insns;	  /* extended, xlated; NULL if not readable */
	uint32_t cnt;
	uint32_t prog_id;
	char name[BPF_OBJ_NAME_LEN];
	/* why an extended filter's instructions are missing */
	char note[SECBPF_ERR_MAX + 64];
};

/*
 * Seize and stop pid. Returns 0, with *pending_sig set to a signal that
 * arrived while stopping (to be given back on detach), or -1 after
 * printing why. On failure the process is not left traced.
 */
static int dump_seize(pid_t pid, const char *what, int *pending_sig)
{
	int st;

	*pending_sig = 0;
	if (ptrace(PTRACE_SEIZE, pid, 0, 0)) {
		int e = errno;

		if (e == ESRCH)
			cli_error(what, "no such process");
		else if (e == EPERM)
			cli_error(what,
				  "cannot trace it: %s (it is already traced, or ptrace access is "
				  "denied: another user, Yama ptrace_scope, or no CAP_SYS_PTRACE)",
				  strerror(e));
		else
			cli_error(what, "cannot seize it with ptrace: %s", strerror(e));
		return -1;
	}
	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0)) {
		cli_error(what, "PTRACE_INTERRUPT: %s", strerror(errno));
		ptrace(PTRACE_DETACH, pid, 0, 0);
		return -1;
	}
	/* The first stop: the interrupt's event stop, or a signal-delivery
	 * stop that came first (the signal is then given back on detach). */
	for (;;) {
		if (waitpid(pid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			cli_error(what, "waiting for it to stop: %s", strerror(errno));
			ptrace(PTRACE_DETACH, pid, 0, 0);
			return -1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			cli_error(what, "it exited while being stopped");
			return -1;
		}
		if (WIFSTOPPED(st))
			break;
	}
	if (st >> 16 != PTRACE_EVENT_STOP && WSTOPSIG(st) != SIGTRAP)
		*pending_sig = WSTOPSIG(st);
	return 0;
}

/*
 * Read filter idx (the kernel's numbering: 0 is the oldest, the first
 * installed; get_nth_filter() in kernel/seccomp.c). Returns 1 when
 * read, 0 past the last filter, -1 after printing why.
 */
static int dump_read(pid_t pid, const char *what, unsigned long idx, const struct native_abi *abi,
		     bool have_abi, struct dump_filter *f)
{
	struct secbpf_err err = { { 0 } };
	long n, fd;

	memset(f, 0, sizeof(*f));
	n = ptrace(PTRACE_SECCOMP_GET_FILTER, pid, (void *)idx, NULL);
	if (n >= 0) {
		f->cnt = (uint32_t)n;
		f->cbpf = calloc(n ? n : 1, sizeof(*f->cbpf));
		if (!f->cbpf) {
			cli_error(what, "out of memory");
			return -1;
		}
		n = ptrace(PTRACE_SECCOMP_GET_FILTER, pid, (void *)idx, f->cbpf);
		if (n < 0) {
			cli_error(what, "PTRACE_SECCOMP_GET_FILTER %lu: %s", idx, strerror(errno));
			return -1;
		}
		f->cnt = (uint32_t)n < f->cnt ? (uint32_t)n : f->cnt;
		return 1;
	}
	switch (errno) {
	case ENOENT:
		return 0;
	case EINVAL:
		/* Not in filter mode: no filters at all. */
		if (idx == 0)
			return 0;
		cli_error(what, "PTRACE_SECCOMP_GET_FILTER %lu: %s", idx, strerror(EINVAL));
		return -1;
	case EACCES:
		cli_error(what,
			  "PTRACE_SECCOMP_GET_FILTER: %s (needs CAP_SYS_ADMIN, and secbpf must "
			  "not run under seccomp itself)",
			  strerror(errno));
		return -1;
	case EMEDIUMTYPE:
		break;
	default:
		cli_error(what, "PTRACE_SECCOMP_GET_FILTER %lu: %s", idx, strerror(errno));
		return -1;
	}
	/* Not a classic filter: an extended one, on a kernel with the port. */
	f->extended = true;
	if (!have_abi || !abi->ptrace_get_filter) {
		snprintf(f->note, sizeof(f->note),
			 "not a classic filter, and this kernel advertises no "
			 "PTRACE_SECCOMP_GET_FILTER_EXTENDED");
		return 1;
	}
	fd = ptrace((enum __ptrace_request)abi->ptrace_get_filter, pid, (void *)idx, NULL);
	if (fd < 0) {
		snprintf(f->note, sizeof(f->note), "PTRACE_SECCOMP_GET_FILTER_EXTENDED: %s",
			 strerror(errno));
		return 1;
	}
	if (native_prog_xlated((int)fd, &f->insns, &f->cnt, &f->prog_id, f->name, &err))
		snprintf(f->note, sizeof(f->note), "%s", err.msg);
	else if (!f->insns)
		snprintf(f->note, sizeof(f->note),
			 "the kernel shows no instructions (they need CAP_SYS_ADMIN)");
	close((int)fd);
	return 1;
}

static void dump_print(FILE *out, const struct dump_filter *f, unsigned long index)
{
	char buf[256];
	uint32_t i;
	int n;

	if (!f->extended) {
		fprintf(out, "filter %lu: classic, %u instructions\n", index, f->cnt);
		cbpf_disasm_print(out, f->cbpf, f->cnt, "  ");
		return;
	}
	fprintf(out, "filter %lu: extended", index);
	if (f->prog_id)
		fprintf(out, ", prog id %u '%.*s', %u instructions", f->prog_id, BPF_OBJ_NAME_LEN,
			f->name, f->cnt);
	fputc('\n', out);
	if (f->note[0])
		fprintf(out, "  (%s)\n", f->note);
	for (i = 0; f->insns && i<f->cnt; i += n> 0 ? n : 1) {
		n = insn_disasm(f->insns, f->cnt, i, buf, sizeof(buf));
		fprintf(out, "  %4u: %s\n", i, buf);
	}
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = { { 0 } };
	struct secbpf_err err = { { 0 } };
	struct dump_filter *filters = NULL, *grown;
	unsigned long cap = 0;
	struct native_abi abi;
	bool have_abi;
	int c, rc = EXIT_USAGE, pending_sig, got;
	unsigned long n = 0, i;
	struct cli_options o;
	char what[32], *end;
	long pid;

	cli_options_init(&o, argc, argv, "", longopts, dump_usage, NULL);
	c = cli_options_next(&o);
	if (c < 0)
		return c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
	if (optind + 1 != argc) {
		cli_error("dump", "expected exactly one PID (see secbpf dump --help)");
		return EXIT_USAGE;
	}
	errno = 0;
	pid = strtol(argv[optind], &end, 10);
	if (errno || end == argv[optind] || *end || pid <= 0 || pid > 0x3fffffff) {
		cli_error(argv[optind], "not a process id");
		return EXIT_USAGE;
	}
	snprintf(what, sizeof(what), "pid %ld", pid);
	if (pid == getpid()) {
		cli_error(what, "secbpf cannot trace itself");
		return EXIT_USAGE;
	}
	/* Only an advertised ABI gives the extended request's number. */
	have_abi = native_detect(&abi, &err) == 0;

	if (dump_seize((pid_t)pid, what, &pending_sig))
		return EXIT_USAGE;
	for (n = 0; n < DUMP_MAX_FILTERS; n++) {
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			grown = realloc(filters, cap * sizeof(*filters));
			if (!grown) {
				cli_error(what, "out of memory");
				goto detach;
			}
			filters = grown;
		}
		got = dump_read((pid_t)pid, what, n, &abi, have_abi, &filters[n]);
		if (got < 0) {
			n++; /* free what it read */
			goto detach;
		}
		if (got == 0)
			break;
	}
	rc = 0;
detach:
	/* Let it go before printing: it stays stopped only while we read. */
	if (ptrace(PTRACE_DETACH, pid, 0, (void *)(long)pending_sig) && errno != ESRCH)
		cli_error(what, "PTRACE_DETACH: %s", strerror(errno));
	if (rc == 0) {
		printf("pid %ld: %lu seccomp filter%s, oldest first\n", pid, n, n == 1 ? "" : "s");
		for (i = 0; i < n; i++)
			dump_print(stdout, &filters[i], i);
	}
	for (i = 0; i < n && i < cap; i++) {
		free(filters[i].cbpf);
		free(filters[i].insns);
	}
	free(filters);
	return rc;
}
