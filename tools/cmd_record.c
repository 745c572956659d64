// SPDX-License-Identifier: MIT
/*
 * `secbpf record [-o FILE.bpf.c] -- CMD [ARG]...`: run CMD and everything
 * it starts under a filter that notifies the supervisor of every syscall,
 * a recording program that counts each (arch, nr) in a map and allows it
 * (CONTINUE), then write a starting allowlist filter from the map
 * (tools/record_emit.c). The whole run machinery of `secbpf run` serves
 * it: every thread and child is seen, signals are forwarded, the exit
 * status is CMD's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Internal headers: vm/maps.h and vm/runtime.h, to read the map the
 * supervisor's runtime filled (the API keeps no state between runs). */
#include "record.h"
#include "run.h"
#include "vm/maps.h"
#include "vm/runtime.h"

/*
 * The recording program. Every path reaches the map, so the compiled
 * filter notifies every syscall (the listener guard aside, which denies a
 * second listener as always) and the supervisor runs this for each. A
 * first sighting that two threads race on may lose one count, never the
 * syscall: the update is BPF_NOEXIST and the answer is ALLOW either way.
 */
static const char recorder_source[] =
	"#include <secbpf/filter.h>\n"
	"struct {\n"
	"	__uint(type, BPF_MAP_TYPE_HASH);\n"
	"	__uint(max_entries, 16384);\n"
	"	__type(key, __u64); /* arch << 32 | nr */\n"
	"	__type(value, __u64);\n"
	"} seen SEC(\".maps\");\n"
	"SEC(\"seccomp\")\n"
	"int secbpf_record(struct seccomp_data *ctx)\n"
	"{\n"
	"	/* volatile: two 4-byte loads, which clang would merge into one\n"
	"	 * 8-byte load that the context rules refuse. */\n"
	"	__u64 key = (__u64) * (volatile __u32 *)&ctx->arch << 32 |\n"
	"		    *(volatile __u32 *)&ctx->nr;\n"
	"	__u64 one = 1, *n;\n"
	"	n = bpf_map_lookup_elem(&seen, &key);\n"
	"	if (n)\n"
	"		__sync_fetch_and_add(n, 1);\n"
	"	else\n"
	"		bpf_map_update_elem(&seen, &key, &one, BPF_NOEXIST);\n"
	"	return SECCOMP_RET_ALLOW;\n"
	"}\n"
	"char _license[] SEC(\"license\") = \"GPL\";\n";

static void record_usage(FILE *f)
{
	fprintf(f, "usage: secbpf record [-o FILE.bpf.c] [--] CMD [ARG]...\n"
		   "\n"
		   "Run CMD, and everything it starts, with every syscall going through\n"
		   "secbpf's supervisor, which notes it and lets it run. Then write a starting\n"
		   "allowlist filter in C: per arch (x86_64, i386 through int $0x80, x32) the\n"
		   "syscalls seen, named, allowed; any other syscall fails with EPERM; an\n"
		   "arch never seen is killed. Apply it with: secbpf run -f FILE.bpf.c -- CMD\n"
		   "Arguments are not recorded, and paths CMD did not take are denied: review\n"
		   "the filter (docs/record.md).\n"
		   "\n"
		   "  -o FILE     write the filter to FILE (created before CMD runs);\n"
		   "              default: standard output, once CMD has exited\n"
		   "  -h, --help  show this help\n"
		   "\n"
		   "Exit status: CMD's (as for secbpf run); 125 if secbpf failed, including\n"
		   "when the filter could not be written.\n");
}

/* What the run leaves for the filter. */
struct record_state {
	FILE *out;
	const char *out_path; /* NULL: stdout */
	char *cmdline;	      /* CMD [ARG]..., for the filter's comment */
	struct record_syscall *seen;
	size_t n;
	int failed;   /* the map could not be read or the filter written */
	bool written; /* record_emit ran */
};

/* The map's entries into r->seen. Returns 0, or -1 after printing why. */
static int record_collect(struct record_state *r, struct map *m)
{
	uint64_t key, next, count;
	size_t max = 0;
	void *prev = NULL;
	struct record_syscall *grown;

	if (map_key_size(m) != sizeof(key) || map_value_size(m) != sizeof(count)) {
		cli_error("record", "internal error: the recording map has another layout");
		return -1;
	}
	while (map_get_next_key(m, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (map_lookup_user(m, &key, &count))
			continue;
		if (r->n == max) {
			max = max ? 2 * max : 256;
			grown = realloc(r->seen, max * sizeof(*r->seen));
			if (!grown) {
				cli_error("record", "out of memory");
				return -1;
			}
			r->seen = grown;
		}
		r->seen[r->n++] = (struct record_syscall){
			.arch = (uint32_t)(key >> 32),
			.nr = (int32_t)(uint32_t)key,
			.count = count,
		};
	}
	return 0;
}

/* run_options.done: every recorded process is gone; write the filter. */
static void record_done(const struct run_state *s, void *arg)
{
	struct record_state *r = arg;
	struct map *m = s->plan.runtimes ? runtime_map(s->plan.runtimes[0], "seen") : NULL;

	if (!m) {
		cli_error("record", "internal error: no recording map");
		r->failed = 1;
		return;
	}
	if (record_collect(r, m)) {
		r->failed = 1;
		return;
	}
	record_emit(r->out, r->seen, r->n, r->cmdline);
	r->written = true;
	if (fflush(r->out) || ferror(r->out)) {
		cli_error(r->out_path ? r->out_path : "record", "cannot write the filter: %s",
			  strerror(errno));
		r->failed = 1;
		return;
	}
	fprintf(stderr, "secbpf: record: %zu distinct syscall%s%s%s\n", r->n, r->n == 1 ? "" : "s",
		r->out_path ? " written to " : "", r->out_path ? r->out_path : "");
}

/* "CMD ARG..." with single quotes where a word needs them. */
static char *record_cmdline(char **argv)
{
	size_t len = 1, i;
	char *s, *p;
	int k;

	for (k = 0; argv[k]; k++)
		len += 4 * strlen(argv[k]) + 3;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	for (k = 0; argv[k]; k++) {
		bool plain = *argv[k] && strspn(argv[k], "abcdefghijklmnopqrstuvwxyz"
							 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
							 "0123456789-_./=:,+@%") == strlen(argv[k]);

		if (k)
			*p++ = ' ';
		if (plain) {
			p = stpcpy(p, argv[k]);
			continue;
		}
		*p++ = '\'';
		for (i = 0; argv[k][i]; i++) {
			if (argv[k][i] == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = argv[k][i];
		}
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}

/* The recorder's source in a private temporary .c file (run compiles it
 * like any -f FILE.c). Returns its malloc'ed path, or NULL after saying
 * why. */
static char *record_write_source(void)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	FILE *f;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if (asprintf(&path, "%s/secbpf-record-XXXXXX.c", dir) < 0)
		return NULL;
	fd = mkstemps(path, 2);
	if (fd < 0) {
		cli_error("record", "%s: cannot create the recording program: %s", dir,
			  strerror(errno));
		free(path);
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f || fputs(recorder_source, f) < 0 || fclose(f)) {
		cli_error("record", "%s: cannot write the recording program: %s", path,
			  strerror(errno));
		if (!f)
			close(fd);
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

/* Parse the command line into o and r. Returns 0, 1 after --help, -1
 * after printing why. */
static int record_parse(int argc, char **argv, struct run_options *o, struct record_state *r)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ 0 },
	};
	struct cli_options opts;
	int c;

	/* '+': options end at CMD, whose own options are its business. */
	cli_options_init(&opts, argc, argv, "+o:", longopts, record_usage, NULL);
	while ((c = cli_options_next(&opts)) > 0)
		r->out_path = optarg;
	if (c < 0)
		return c == CLI_OPTIONS_HELP ? 1 : -1;
	o->cmd_argv = argv + optind;
	if (!o->cmd_argv[0]) {
		cli_error("record", "no command to record (try 'secbpf record --help')");
		return -1;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_state r = { .out = stdout };
	struct run_options o = { 0 };
	const char *spec;
	char *src = NULL;
	int rc, status = EXIT_RUN_FAILED;

	rc = record_parse(argc, argv, &o, &r);
	if (rc)
		return rc > 0 ? 0 : EXIT_RUN_FAILED;
	/* Created now: a bad path must not cost a whole run of CMD. */
	if (r.out_path) {
		r.out = fopen(r.out_path, "we");
		if (!r.out) {
			cli_error(r.out_path, "cannot write the filter: %s", strerror(errno));
			return EXIT_RUN_FAILED;
		}
	}
	r.cmdline = record_cmdline(o.cmd_argv);
	src = record_write_source();
	if (!r.cmdline || !src)
		goto out;
	spec = src;
	o.specs = &spec;
	o.nspecs = 1;
	o.nworkers = supervisor_default_workers();
	o.done = record_done;
	o.done_arg = &r;
	status = run_under_supervisor(&o);
	if (r.failed && (status == 0 || status > 125))
		status = EXIT_RUN_FAILED;
out:
	if (src) {
		unlink(src);
		free(src);
	}
	if (r.out_path && fclose(r.out) && r.written && !r.failed) {
		cli_error(r.out_path, "cannot write the filter: %s", strerror(errno));
		status = EXIT_RUN_FAILED;
	}
	/* An empty FILE left behind would look like a filter. */
	if (r.out_path && (!r.written || r.failed))
		unlink(r.out_path);
	free(r.cmdline);
	free(r.seen);
	return status;
}
