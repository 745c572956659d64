// SPDX-License-Identifier: MIT
/*
 * Tests of `secbpf dump PID` (tools/cmd_dump.c) on the host kernel: a real
 * process under the classic filters `secbpf run` installed is listed, oldest
 * first, with exactly the instructions `secbpf compile` produced; and the
 * errors for a missing or untraceable process. Extended filters exist only
 * on the patched kernel: kernel/tests/native_cli.sh dumps those.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <linux/filter.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static char out[1 << 17];

/* Run `$SECBPF <args>`, stderr merged into stdout; returns the status. */
#define secbpf(fmt, ...) test_shell(out, sizeof(out), "'%s' " fmt, getenv("SECBPF"), ##__VA_ARGS__)

static void sample(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/samples/%s.bpf.o", getenv("SECBPF_BUILD_DIR"), name);
	cr_assert_eq(access(buf, R_OK), 0, "no %s", buf);
}

/* The instruction lines of a cBPF listing ("NNNN: 0x.."), spaces trimmed. */
static void insn_lines(const char *text, char *dst, size_t size)
{
	const char *line = text;
	size_t n = 0;

	dst[0] = '\0';
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *p = line;

		while (p < line + len && *p == ' ')
			p++;
		if (line + len - p > 6 && p[4] == ':' && p[6] == '0' &&
		    n + (line + len - p) + 2 < size)
			n += snprintf(dst + n, size - n, "%.*s\n", (int)(line + len - p), p);
		line = end ? end + 1 : NULL;
	}
}

struct started {
	const char *pidfile;
	long pid;
};

/* The shell under the filters wrote its pid, and has become sleep. */
static bool started_sleeping(void *arg)
{
	struct started *s = arg;
	char path[64], comm[32] = "";
	FILE *f;

	if (s->pid <= 0) {
		f = fopen(s->pidfile, "r");
		if (!f)
			return false;
		if (fscanf(f, "%ld", &s->pid) != 1)
			s->pid = 0;
		fclose(f);
		if (s->pid <= 0)
			return false;
	}
	snprintf(path, sizeof(path), "/proc/%ld/comm", s->pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strcmp(comm, "sleep\n");
}

/* Start `secbpf run -f A -f B -- sleep` in the background; returns the
 * pid of sleep (CMD itself: run execs it in its child), once it is sleep. */
static pid_t start_filtered(const char *a, const char *b, char *pidfile, size_t size)
{
	struct started s = { .pidfile = pidfile };
	char cmd[16384];

	snprintf(pidfile, size, "/tmp/secbpf-test-dump-%d", getpid());
	unlink(pidfile);
	snprintf(cmd, sizeof(cmd),
		 "'%s' run -f '%s' -f '%s' -- sh -c 'echo $$ >%s; exec sleep 30' "
		 ">/dev/null 2>&1 &",
		 getenv("SECBPF"), a, b, pidfile);
	cr_assert_eq(system(cmd), 0);
	cr_assert(test_wait_for(started_sleeping, &s, 10000),
		  "the filtered process did not start (pid %ld)", s.pid);
	return (pid_t)s.pid;
}

/*
 * Run `secbpf dump ARGS PID` on a process under the seed_close and wx
 * samples (their objects into seed and wx, 4096 bytes each); the process
 * is gone when this returns. Returns dump's status (output in out).
 */
static int dump_two_filters(const char *args, char *seed, char *wx, pid_t *pid)
{
	char pidfile[256];
	int rc;

	if (geteuid() != 0)
		test_skip_unless_ci("PTRACE_SECCOMP_GET_FILTER needs CAP_SYS_ADMIN");
	sample(seed, 4096, "seed_close");
	sample(wx, 4096, "wx");
	*pid = start_filtered(seed, wx, pidfile, sizeof(pidfile));
	rc = secbpf("dump %s %d", args, (int)*pid);
	kill(*pid, SIGKILL);
	unlink(pidfile);
	return rc;
}

Test(dump, classic_filters_oldest_first_as_compiled)
{
	char seed[4096], wx[4096], got[1 << 15], want[1 << 15], *second;
	pid_t pid;

	cr_assert_eq(dump_two_filters("", seed, wx, &pid), 0, "%s", out);
	cr_assert(strstr(out, ": 2 seccomp filters, oldest first\n"), "%s", out);
	second = strstr(out, "filter 1: classic, ");
	cr_assert(strstr(out, "filter 0: classic, "), "%s", out);
	cr_assert_not_null(second, "%s", out);
	/* filter 0 is the seed sample (installed first), filter 1 is wx */
	second = strdup(second);
	cr_assert_not_null(second);
	*strstr(out, "filter 1: classic, ") = '\0';
	insn_lines(out, got, sizeof(got));
	cr_assert_eq(secbpf("compile '%s' --format asm", seed), 0, "%s", out);
	insn_lines(out, want, sizeof(want));
	cr_assert_str_eq(got, want);
	insn_lines(second, got, sizeof(got));
	cr_assert_eq(secbpf("compile '%s' --format asm", wx), 0, "%s", out);
	insn_lines(out, want, sizeof(want));
	cr_assert_str_eq(got, want);
	free(second);
}

/* The instructions of filter idx of a dump -j document, as sock_filters. */
static size_t json_filter_insns(struct json_object *doc, size_t idx, struct sock_filter *dst,
				size_t cap)
{
	struct json_object *filters, *f, *insns, *e, *v;
	size_t i, n;

	cr_assert(json_object_object_get_ex(doc, "filters", &filters));
	f = json_object_array_get_idx(filters, idx);
	cr_assert_not_null(f);
	cr_assert(json_object_object_get_ex(f, "kind", &v));
	cr_assert_str_eq(json_object_get_string(v), "classic");
	cr_assert(json_object_object_get_ex(f, "instructions", &insns));
	n = json_object_array_length(insns);
	cr_assert_leq(n, cap);
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(insns, i);
		cr_assert(json_object_object_get_ex(e, "code", &v));
		dst[i].code = (uint16_t)json_object_get_int(v);
		cr_assert(json_object_object_get_ex(e, "jt", &v));
		dst[i].jt = (uint8_t)json_object_get_int(v);
		cr_assert(json_object_object_get_ex(e, "jf", &v));
		dst[i].jf = (uint8_t)json_object_get_int(v);
		cr_assert(json_object_object_get_ex(e, "k", &v));
		dst[i].k = (uint32_t)json_object_get_int64(v);
		cr_assert(json_object_object_get_ex(e, "text", &v));
	}
	return n;
}

/* What compile --format bin writes for obj. */
static size_t compiled_insns(const char *obj, struct sock_filter *dst, size_t cap)
{
	char path[256];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/secbpf-test-dump-bin-%d", getpid());
	cr_assert_eq(secbpf("compile '%s' --format bin -o '%s'", obj, path), 0, "%s", out);
	f = fopen(path, "rb");
	cr_assert_not_null(f);
	n = fread(dst, sizeof(*dst), cap, f);
	fclose(f);
	unlink(path);
	return n;
}

Test(dump, json_lists_the_filters_as_compiled)
{
	static struct sock_filter got[4096], want[4096];
	char seed[4096], wx[4096];
	struct json_object *doc, *v;
	size_t n, m;
	pid_t pid;

	cr_assert_eq(dump_two_filters("-j", seed, wx, &pid), 0, "%s", out);
	doc = json_tokener_parse(out);
	cr_assert_not_null(doc, "not JSON: %s", out);
	cr_assert(json_object_object_get_ex(doc, "pid", &v));
	cr_assert_eq(json_object_get_int(v), pid);
	cr_assert(json_object_object_get_ex(doc, "filters", &v));
	cr_assert_eq(json_object_array_length(v), 2, "%s", out);
	cr_assert(json_object_object_get_ex(doc, "supervisor", &v), "%s", out);
	n = json_filter_insns(doc, 0, got, 4096);
	m = compiled_insns(seed, want, 4096);
	cr_assert_eq(n, m);
	cr_assert_eq(memcmp(got, want, n * sizeof(*got)), 0, "filter 0 is not the seed sample");
	n = json_filter_insns(doc, 1, got, 4096);
	m = compiled_insns(wx, want, 4096);
	cr_assert_eq(n, m);
	cr_assert_eq(memcmp(got, want, n * sizeof(*got)), 0, "filter 1 is not wx");
	json_object_put(doc);
	cr_assert_eq(secbpf("dump -j -o /tmp/x.o 1"), 2, "%s", out);
	cr_assert(strstr(out, "give one"), "%s", out);
}

Test(dump, a_process_without_filters_lists_none)
{
	pid_t pid;
	int rc;

	if (geteuid() != 0)
		test_skip_unless_ci("PTRACE_SECCOMP_GET_FILTER needs CAP_SYS_ADMIN");
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	rc = secbpf("dump %d", (int)pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(strstr(out, ": 0 seccomp filters"), "%s", out);
}

Test(dump, errors_exit_2_with_a_reason)
{
	cr_assert_eq(secbpf("dump"), 2, "%s", out);
	cr_assert(strstr(out, "expected exactly one PID"), "%s", out);
	cr_assert_eq(secbpf("dump abc"), 2, "%s", out);
	cr_assert(strstr(out, "not a process id"), "%s", out);
	/* pid_max is at most 4194304 */
	cr_assert_eq(secbpf("dump 999999999"), 2, "%s", out);
	cr_assert(strstr(out, "no such process"), "%s", out);
	cr_assert_eq(secbpf("dump --help"), 0, "%s", out);
	cr_assert(strstr(out, "usage: secbpf dump PID"), "%s", out);
}

Test(dump, a_process_traced_by_another_is_refused)
{
	pid_t pid;
	int rc, st;

	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* traced by its parent (us): nobody else may seize it; the
		 * stop tells the parent that the tracing is in place */
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(1);
		raise(SIGSTOP);
		pause();
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSTOPPED(st), "the child did not stop traced (status %#x)", st);
	rc = secbpf("dump %d", (int)pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert(strstr(out, "cannot trace it"), "%s", out);
}

Test(dump, names_syscalls_and_labels_the_listener_guard)
{
	char seed[4096], lockdown[4096], pidfile[256];
	const char *guard, *filter;
	pid_t pid;
	int rc;

	if (geteuid() != 0)
		test_skip_unless_ci("PTRACE_SECCOMP_GET_FILTER needs CAP_SYS_ADMIN");
	sample(seed, sizeof(seed), "seed_close");
	sample(lockdown, sizeof(lockdown), "startup_lockdown");
	/* startup_lockdown is stateful: its filter starts with the guard. */
	pid = start_filtered(seed, lockdown, pidfile, sizeof(pidfile));
	rc = secbpf("dump %d", (int)pid);
	kill(pid, SIGKILL);
	unlink(pidfile);
	cr_assert_eq(rc, 0, "%s", out);
	guard = strstr(out, "  # listener guard (0000-");
	cr_assert_not_null(guard, "%s", out);
	filter = strstr(guard, "  # the filter\n");
	cr_assert_not_null(filter, "%s", out);
	/* In the guard, seccomp on x86_64 (317); in the filter, execve. */
	cr_expect(strstr(guard, "jeq #0x13d  true:"), "%s", out);
	cr_expect(strstr(guard, "; seccomp\n"), "%s", out);
	cr_expect(strstr(filter, "jge #0x3b  true:") && strstr(filter, "; execve\n"), "%s", out);
	cr_expect(strstr(filter, "jeq #0xc000003e  true:") && strstr(filter, "; x86_64\n"), "%s",
		  out);
	/* The seed's filter has no guard: filter 0 has no such line. */
	cr_expect(strstr(out, "filter 1: classic") < guard, "%s", out);
}
