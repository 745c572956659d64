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
#include <json-c/json.h>
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
#include "ctl_client.h"
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
	fprintf(f, "usage: secbpf dump PID [-j | -o FILE.o]\n"
		   "\n"
		   "List the seccomp filters attached to process (or thread) PID, oldest first:\n"
		   "index, kind and a disassembly. A classic filter is shown as the kernel\n"
		   "holds it (what 'secbpf run' compiled); an extended one (an eBPF program\n"
		   "attached natively, on a kernel with the seccomp-eBPF patch set, see\n"
		   "kernel/README.md) as the kernel verifier rewrote it. PID is stopped\n"
		   "briefly with ptrace and then let go. Needs CAP_SYS_ADMIN, ptrace access\n"
		   "to PID, and secbpf itself must not be under seccomp (the kernel's rules).\n"
		   "The eBPF programs a secbpf supervisor runs for PID are named after them.\n"
		   "\n"
		   "With -o, write instead the eBPF programs attached to PID, with their maps'\n"
		   "current contents, as objects that 'secbpf run -f' loads again with that\n"
		   "state (a checkpoint): FILE.o for one program, FILE.0.o, FILE.1.o, ... in\n"
		   "installation order for a stack. This asks PID's supervisor, which answers\n"
		   "the owner of its processes and CAP_SYS_ADMIN (docs/introspection.md).\n"
		   "\n"
		   "  -j, --json           one JSON document: {\"pid\", \"filters\": [{\"index\",\n"
		   "                       \"kind\", \"instructions\": [...]}], \"supervisor\"}\n"
		   "  -o, --output FILE.o  write the checkpoint\n"
		   "  -h, --help           show this help\n"
		   "\n"
		   "Exit status: 0 when listed (a process without filters lists none), 2 on a\n"
		   "usage error or when PID cannot be inspected; with -o, 1 when no checkpoint\n"
		   "can be had (not supervised, not permitted).\n");
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

/* One filter as JSON: its kind and instructions (classic ones with their
 * fields, both with the text dump_print() shows). */
static struct json_object *dump_json_filter(const struct dump_filter *f, unsigned long index)
{
	struct json_object *o = json_object_new_object(), *insns = json_object_new_array();
	char buf[256];
	uint32_t i;
	int n;

	json_object_object_add(o, "index", json_object_new_int64((int64_t)index));
	json_object_object_add(o, "kind",
			       json_object_new_string(f->extended ? "extended" : "classic"));
	if (f->extended) {
		if (f->prog_id) {
			json_object_object_add(o, "prog_id", json_object_new_int64(f->prog_id));
			json_object_object_add(
				o, "name",
				json_object_new_string_len(
					f->name, (int)strnlen(f->name, BPF_OBJ_NAME_LEN)));
		}
		if (f->note[0])
			json_object_object_add(o, "note", json_object_new_string(f->note));
		for (i = 0; f->insns && i<f->cnt; i += n> 0 ? n : 1) {
			struct json_object *e = json_object_new_object();

			n = insn_disasm(f->insns, f->cnt, i, buf, sizeof(buf));
			json_object_object_add(e, "index", json_object_new_int64(i));
			json_object_object_add(e, "text", json_object_new_string(buf));
			json_object_array_add(insns, e);
		}
	} else {
		for (i = 0; i < f->cnt; i++) {
			struct json_object *e = json_object_new_object();

			cbpf_disasm_insn(f->cbpf, f->cnt, i, buf, sizeof(buf));
			json_object_object_add(e, "code", json_object_new_int(f->cbpf[i].code));
			json_object_object_add(e, "jt", json_object_new_int(f->cbpf[i].jt));
			json_object_object_add(e, "jf", json_object_new_int(f->cbpf[i].jf));
			json_object_object_add(e, "k", json_object_new_int64(f->cbpf[i].k));
			json_object_object_add(e, "text", json_object_new_string(buf));
			json_object_array_add(insns, e);
		}
	}
	json_object_object_add(o, "instructions", insns);
	return o;
}

/* Where object i of n goes: path itself for one, "x.I.o" for x.o. */
static void checkpoint_path(const char *path, uint32_t i, uint32_t n, char *out, size_t size)
{
	size_t len = strlen(path);

	if (n == 1)
		snprintf(out, size, "%s", path);
	else if (len > 2 && !strcmp(path + len - 2, ".o"))
		snprintf(out, size, "%.*s.%u.o", (int)(len - 2), path, i);
	else
		snprintf(out, size, "%s.%u.o", path, i);
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "we");
	bool ok;

	if (!f)
		return -errno;
	ok = fwrite(data, 1, len, f) == len;
	if (fclose(f) || !ok)
		return -EIO;
	return 0;
}

/* Write the objects of a SVC_REQ_CTL_CHECKPOINT answer (protocol.h). */
static int write_checkpoint(const char *what, const uint8_t *p, size_t len, const char *path)
{
	const struct svc_checkpoint *h = (const void *)p;
	const struct svc_checkpoint_entry *e;
	size_t off = sizeof(*h), name_pad, obj_pad;
	char out[4096], runline[8192];
	size_t used = 0;
	uint32_t i;
	int rc;

	if (len < sizeof(*h) || h->magic != SVC_CHECKPOINT_MAGIC || !h->nobjects ||
	    h->nobjects > 64) {
		cli_error(what, "the supervisor's checkpoint is malformed");
		return -1;
	}
	for (i = 0; i < h->nobjects; i++) {
		if (len - off < sizeof(*e)) {
			cli_error(what, "the supervisor's checkpoint is truncated");
			return -1;
		}
		e = (const void *)(p + off);
		off += sizeof(*e);
		name_pad = ((size_t)e->name_len + 7) & ~(size_t)7;
		obj_pad = (e->size + 7) & ~(uint64_t)7;
		if (e->size == 0 || name_pad > len - off || obj_pad > len - off - name_pad) {
			cli_error(what, "the supervisor's checkpoint is truncated");
			return -1;
		}
		checkpoint_path(path, i, h->nobjects, out, sizeof(out));
		rc = write_file(out, p + off + name_pad, e->size);
		if (rc) {
			cli_error(out, "cannot write the checkpoint: %s", strerror(-rc));
			return -1;
		}
		printf("wrote %s: program %.*s, %llu bytes\n", out, (int)e->name_len,
		       (const char *)(p + off), (unsigned long long)e->size);
		used += (size_t)snprintf(runline + used, sizeof(runline) - used, " -f %s", out);
		if (used >= sizeof(runline))
			used = sizeof(runline) - 1;
		off += name_pad + obj_pad;
	}
	printf("restore with: secbpf run%s -- CMD\n", runline);
	return 0;
}

/* dump PID -o FILE: ask PID's supervisor for a checkpoint. */
static int dump_checkpoint(pid_t pid, const char *path)
{
	struct secbpf_err err = { { 0 } };
	struct ctl_supervisor *sup, *s;
	char what[64], *data;
	size_t n, len;
	int rc;

	snprintf(what, sizeof(what), "dump: pid %d", (int)pid);
	s = ctl_find_for_pid("dump", pid, &sup, &n);
	if (!s) {
		ctl_free(sup, n);
		return EXIT_REJECTED;
	}
	rc = ctl_request(s, SVC_REQ_CTL_CHECKPOINT, NULL, 0, &data, &len, &err);
	ctl_free(sup, n);
	if (rc) {
		cli_error(what, "%s", err.msg);
		return EXIT_REJECTED;
	}
	rc = write_checkpoint(what, (const uint8_t *)data, len, path);
	free(data);
	return rc ? EXIT_REJECTED : 0;
}

/* After the classic listing: the eBPF programs PID's supervisor runs;
 * with doc, into it as "supervisor" (null when none answers) instead. */
static void print_supervised(pid_t pid, struct json_object *doc)
{
	struct ctl_supervisor *sup = NULL, *s, *refused;
	struct json_object *progs, *p, *v;
	struct ctl_ptable t;
	size_t n, i;
	int rc;

	rc = ctl_discover(&sup);
	if (rc <= 0 || ctl_ptable_read(&t)) {
		ctl_free(sup, rc > 0 ? (size_t)rc : 0);
		if (doc)
			json_object_object_add(doc, "supervisor", NULL);
		return;
	}
	n = (size_t)rc;
	s = ctl_supervisor_of(sup, n, &t, pid, &refused);
	ctl_ptable_free(&t);
	if (doc) {
		struct json_object *j = NULL;

		if (s) {
			j = json_object_new_object();
			json_object_object_add(j, "pid", json_object_new_int(s->pid));
			if (json_object_object_get_ex(s->info, "supervisor", &v))
				json_object_object_add(j, "kind", json_object_get(v));
			if (json_object_object_get_ex(s->info, "programs", &progs))
				json_object_object_add(j, "programs", json_object_get(progs));
		} else if (refused) {
			j = json_object_new_object();
			json_object_object_add(j, "pid", json_object_new_int(refused->pid));
			json_object_object_add(j, "error", json_object_new_string(refused->why));
		}
		json_object_object_add(doc, "supervisor", j);
	} else if (s && json_object_object_get_ex(s->info, "programs", &progs)) {
		json_object_object_get_ex(s->info, "supervisor", &v);
		printf("eBPF programs run by %s (pid %d), oldest first:\n",
		       json_object_get_string(v), (int)s->pid);
		for (i = 0; i < json_object_array_length(progs); i++) {
			p = json_object_array_get_idx(progs, i);
			printf("  %zu: ", i);
			if (json_object_object_get_ex(p, "function", &v))
				printf("%s ", json_object_get_string(v));
			if (json_object_object_get_ex(p, "name", &v))
				printf("(%s)", json_object_get_string(v));
			json_object_object_get_ex(p, "stateful", &v);
			printf("%s\n", json_object_get_boolean(v) ? ", stateful" : "");
		}
	} else if (refused) {
		printf("eBPF programs: supervised by pid %d, which does not answer you: %s\n",
		       (int)refused->pid, refused->why);
	}
	ctl_free(sup, n);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = { { "output", required_argument, NULL, 'o' },
						  { "json", no_argument, NULL, 'j' },
						  { 0 } };
	const char *output = NULL;
	bool json = false;
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

	cli_options_init(&o, argc, argv, "o:j", longopts, dump_usage, NULL);
	while ((c = cli_options_next(&o)) > 0) {
		if (c == 'o')
			output = optarg;
		else if (c == 'j')
			json = true;
	}
	if (c < 0)
		return c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
	if (json && output) {
		cli_error("dump", "-j lists the filters; -o writes a checkpoint instead: give one");
		return EXIT_USAGE;
	}
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
	if (output)
		return dump_checkpoint((pid_t)pid, output);
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
	if (rc == 0 && json) {
		struct json_object *doc = json_object_new_object(), *arr = json_object_new_array();

		json_object_object_add(doc, "pid", json_object_new_int64(pid));
		for (i = 0; i < n; i++)
			json_object_array_add(arr, dump_json_filter(&filters[i], i));
		json_object_object_add(doc, "filters", arr);
		print_supervised((pid_t)pid, doc);
		printf("%s\n",
		       json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(doc);
	} else if (rc == 0) {
		printf("pid %ld: %lu seccomp filter%s, oldest first\n", pid, n, n == 1 ? "" : "s");
		for (i = 0; i < n; i++)
			dump_print(stdout, &filters[i], i);
		print_supervised((pid_t)pid, NULL);
	}
	for (i = 0; i < n && i < cap; i++) {
		free(filters[i].cbpf);
		free(filters[i].insns);
	}
	free(filters);
	return rc;
}
