// SPDX-License-Identifier: MIT
/*
 * Tests of the supervisors' control socket (lib/supervisor/control.c) and
 * of what uses it: `secbpf ps`, `secbpf map dump`, `secbpf dump -o` and the
 * restore of its checkpoint (lib/object/state.c), with real processes
 * under `secbpf run`, as root and as uid 65534; and the state section's
 * checks at load.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "object/object.h"
#include "service/protocol.h"
#include "vm/maps.h"
#include "vm/runtime.h"

/* `ps -j` lists every filtered process of the machine: room for the
 * thousands another test (test_secbpfd) may run meanwhile. */
static char out[1 << 23];
static char dir[1024], counter[4096], allow_all[4096];

/* A filter that allows everything and needs no supervisor. */
static const char allow_all_body[] = "SEC(\"seccomp\")\n"
				     "int allow_all(struct seccomp_data *ctx)\n"
				     "{\n"
				     "	return SECCOMP_RET_ALLOW;\n"
				     "}\n";

static void compile(const char *name, const char *body, char *obj, size_t size)
{
	const char *src = test_write_filter(dir, name, body);

	snprintf(obj, size, "%s/%s.o", dir, name);
	cr_assert_eq(
		test_shell(out, sizeof(out), "'%s' cc '%s' -o '%s'", getenv("SECBPF"), src, obj), 0,
		"%s", out);
}

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-control");
	compile("count_closes", test_count_closes_body, counter, sizeof(counter));
	compile("allow_all", allow_all_body, allow_all, sizeof(allow_all));
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(control, .init = setup, .fini = teardown, .timeout = 60);

/* A command running ctl_probe under filters: sh execs the command, so
 * sh's pid is that of `secbpf run` (the supervisor); target is the probe. */
struct run {
	pid_t pid;
	pid_t target;
	FILE *to, *from;
};

static void run_start(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_start(struct run *r, const char *fmt, ...)
{
	char cmd[8192], line[256];
	int in[2], outp[2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(pipe2(in, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(outp, O_CLOEXEC), 0);
	r->pid = fork();
	cr_assert(r->pid >= 0);
	if (r->pid == 0) {
		dup2(in[0], 0);
		dup2(outp[1], 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	r->to = fdopen(in[1], "w");
	r->from = fdopen(outp[0], "r");
	cr_assert(r->to && r->from);
	cr_assert_not_null(fgets(line, sizeof(line), r->from), "no probe started: %s", cmd);
	cr_assert_eq(sscanf(line, "ready %d", &r->target), 1, "%s", line);
}

/* Make the probe call close() n times; returns when it has. */
static void run_closes(struct run *r, long n)
{
	char line[64];
	long done = -1;

	fprintf(r->to, "%ld\n", n);
	fflush(r->to);
	cr_assert_not_null(fgets(line, sizeof(line), r->from));
	cr_assert_eq(sscanf(line, "done %ld", &done), 1, "%s", line);
	cr_assert_eq(done, n);
}

/* End the probe; returns the exit status of the command. */
static int run_stop(struct run *r)
{
	int st;

	fclose(r->to);
	while (fgets(out, sizeof(out), r->from))
		;
	fclose(r->from);
	cr_assert_eq(waitpid(r->pid, &st, 0), r->pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The control socket of supervisor pid, from /proc/net/unix, into name
 * (empty while there is none). */
struct control_lookup {
	pid_t pid;
	char name[256];
};

static bool find_control(void *arg)
{
	struct control_lookup *c = arg;
	char line[512], path[256], prefix[64];
	FILE *f = fopen("/proc/net/unix", "re");

	cr_assert_not_null(f);
	snprintf(prefix, sizeof(prefix), SVC_CTL_PREFIX "%d/", (int)c->pid);
	c->name[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %255s", path) == 1 &&
		    !strncmp(path, prefix, strlen(prefix)))
			snprintf(c->name, sizeof(c->name), "%s", path);
	fclose(f);
	return c->name[0] != '\0';
}

/* Wait for r's supervisor to serve its control socket: it starts it once
 * its workers run, which may be after the probe said it was ready. */
static void wait_control(const struct run *r, char *name, size_t size)
{
	struct control_lookup c = { .pid = r->pid };

	cr_assert(test_wait_for(find_control, &c, 5000), "no control socket for pid %d",
		  (int)r->pid);
	if (name)
		snprintf(name, size, "%s", c.name);
}

/* The stdout alone of the command formatted from fmt, into out. */
static int capture(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int capture(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return test_capture(out, sizeof(out), cmd);
}

/* Parse out as JSON (stdout of a -j command). */
static struct json_object *parse_out(void)
{
	struct json_object *doc = json_tokener_parse(out);

	cr_assert_not_null(doc, "not JSON: %s", out);
	return doc;
}

/* The counter's value, from `map dump PID counts -j` run by tool (with a
 * prefix such as setpriv, or none). */
static long long counter_value(const char *prefix, const char *tool, pid_t pid)
{
	struct json_object *doc, *e, *f, *v, *bytes;
	long long value;
	char low[8];
	int rc;

	rc = capture("%s '%s' map dump %d counts -j", prefix, tool, (int)pid);
	cr_assert_eq(rc, 0, "map dump failed: %s", out);
	doc = parse_out();
	cr_assert(json_object_is_type(doc, json_type_array), "%s", out);
	cr_assert_eq(json_object_array_length(doc), 1, "an array map of 1 entry: %s", out);
	e = json_object_array_get_idx(doc, 0);
	cr_assert(json_object_object_get_ex(e, "value", &bytes), "%s", out);
	cr_assert_eq(json_object_array_length(bytes), 8, "%s", out);
	cr_assert(json_object_object_get_ex(e, "formatted", &f), "BTF says u64: %s", out);
	cr_assert(json_object_object_get_ex(f, "value", &v), "%s", out);
	value = (long long)json_object_get_int64(v);
	/* The bytes say the same (little-endian host). */
	snprintf(low, sizeof(low), "0x%02llx", value & 0xff);
	cr_expect_str_eq(json_object_get_string(json_object_array_get_idx(bytes, 0)), low);
	json_object_put(doc);
	return value;
}

/* The entry of `ps -j` for pid, or NULL; *doc is to be put. */
static struct json_object *ps_entry(struct json_object **doc, const char *prefix, const char *tool,
				    pid_t pid)
{
	struct json_object *procs, *p, *v;
	size_t i;

	cr_assert_eq(capture("%s '%s' ps -j", prefix, tool), 0, "%s", out);
	*doc = parse_out();
	cr_assert(json_object_object_get_ex(*doc, "processes", &procs), "%s", out);
	for (i = 0; i < json_object_array_length(procs); i++) {
		p = json_object_array_get_idx(procs, i);
		if (json_object_object_get_ex(p, "pid", &v) && json_object_get_int(v) == pid)
			return p;
	}
	return NULL;
}

static const char *str_field(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

Test(control, ps_and_map_dump_show_live_values)
{
	struct json_object *doc, *p, *progs, *v;
	struct run r;
	long long before, after;

	run_start(&r, "exec '%s' run -f '%s' -- '%s'", getenv("SECBPF"), counter,
		  getenv("SECBPF_CTL_PROBE"));
	wait_control(&r, NULL, 0);
	before = counter_value("", getenv("SECBPF"), r.target);
	run_closes(&r, 25);
	after = counter_value("", getenv("SECBPF"), r.target);
	cr_expect_eq(after - before, 25, "the counter went from %lld to %lld", before, after);

	p = ps_entry(&doc, "", getenv("SECBPF"), r.target);
	cr_assert_not_null(p, "pid %d not in ps -j: %s", r.target, out);
	cr_expect_str_eq(str_field(p, "supervisor"), "secbpf run");
	cr_expect_str_eq(str_field(p, "command"), "ctl_probe");
	cr_assert(json_object_object_get_ex(p, "supervisor_pid", &v));
	cr_expect_eq(json_object_get_int(v), r.pid);
	cr_assert(json_object_object_get_ex(p, "programs", &progs));
	cr_assert_eq(json_object_array_length(progs), 1, "%s", out);
	cr_expect_str_eq(str_field(json_object_array_get_idx(progs, 0), "function"),
			 "count_closes");
	cr_assert(json_object_object_get_ex(p, "notifications", &v));
	cr_expect_geq(json_object_get_int64(v), after, "every counted close was notified");
	json_object_put(doc);

	/* The text forms. */
	cr_assert_eq(
		test_shell(out, sizeof(out), "'%s' map dump %d counts", getenv("SECBPF"), r.target),
		0, "%s", out);
	cr_expect(strstr(out, "key: 00 00 00 00  value: "), "%s", out);
	cr_expect(strstr(out, "Found 1 element\n"), "%s", out);
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' ps", getenv("SECBPF")), 0, "%s", out);
	cr_expect(strstr(out, "count_closes.o:count_closes"), "%s", out);
	cr_expect_eq(run_stop(&r), 0);
}

/* ps -j lists pid as supervised by kind. */
struct supervised_by {
	pid_t pid;
	const char *kind;
};

static bool listed_as(void *arg)
{
	struct supervised_by *s = arg;
	struct json_object *doc, *p;
	bool ok;

	p = ps_entry(&doc, "", getenv("SECBPF"), s->pid);
	ok = p && !strcmp(str_field(p, "supervisor"), s->kind);
	json_object_put(doc);
	return ok;
}

Test(control, the_attach_api_supervisor_answers_too)
{
	struct supervised_by by = { .kind = "attach API" };
	long long before;
	struct run r;

	/* samples/self_sandbox attaches the filter to itself with
	 * secbpf_attach(), then becomes the probe. */
	run_start(&r, "exec '%s/samples/self_sandbox' '%s' -- '%s'", getenv("SECBPF_BUILD_DIR"),
		  counter, getenv("SECBPF_CTL_PROBE"));
	by.pid = r.target;
	cr_assert(test_wait_for(listed_as, &by, 5000), "not listed as 'attach API': %s", out);
	before = counter_value("", getenv("SECBPF"), r.target);
	run_closes(&r, 9);
	cr_expect_eq(counter_value("", getenv("SECBPF"), r.target), before + 9);
	cr_expect_eq(run_stop(&r), 0);
}

Test(control, map_dump_errors)
{
	struct run r;

	run_start(&r, "exec '%s' run -f '%s' -- '%s'", getenv("SECBPF"), counter,
		  getenv("SECBPF_CTL_PROBE"));
	wait_control(&r, NULL, 0);
	cr_expect_eq(
		test_shell(out, sizeof(out), "'%s' map dump %d nosuch", getenv("SECBPF"), r.target),
		1);
	cr_expect(strstr(out, "no map 'nosuch'") && strstr(out, "count_closes:counts"),
		  "the error lists the maps: %s", out);
	cr_expect_eq(test_shell(out, sizeof(out), "'%s' map dump 1 counts", getenv("SECBPF")), 1);
	cr_expect(strstr(out, "pid 1: not under seccomp"), "%s", out);
	cr_expect_eq(
		test_shell(out, sizeof(out), "'%s' map dump 1073741823 counts", getenv("SECBPF")),
		1);
	cr_expect(strstr(out, "no such process"), "%s", out);
	cr_expect_eq(test_shell(out, sizeof(out), "'%s' map dump x counts", getenv("SECBPF")), 2);
	cr_expect_eq(run_stop(&r), 0);
}

Test(control, a_plain_filter_is_listed_without_supervisor)
{
	struct json_object *doc, *p;
	struct run r;

	run_start(&r, "exec '%s' run -f '%s' -- '%s'", getenv("SECBPF"), allow_all,
		  getenv("SECBPF_CTL_PROBE"));
	p = ps_entry(&doc, "", getenv("SECBPF"), r.target);
	cr_assert_not_null(p, "pid %d not in ps -j: %s", r.target, out);
	cr_expect_str_eq(str_field(p, "supervisor"), "-");
	cr_expect_str_eq(str_field(p, "seccomp"), "filter");
	json_object_put(doc);
	cr_expect_eq(
		test_shell(out, sizeof(out), "'%s' map dump %d counts", getenv("SECBPF"), r.target),
		1);
	cr_expect(strstr(out, "not supervised by secbpf"), "%s", out);
	cr_expect_eq(run_stop(&r), 0);
}

Test(control, dump_then_run_carries_the_maps)
{
	char ck[4096 + 16];
	long long saved, restored;
	struct run r, r2;

	run_start(&r, "exec '%s' run -f '%s' -- '%s'", getenv("SECBPF"), counter,
		  getenv("SECBPF_CTL_PROBE"));
	wait_control(&r, NULL, 0);
	run_closes(&r, 40);
	saved = counter_value("", getenv("SECBPF"), r.target);
	cr_assert_geq(saved, 40);
	snprintf(ck, sizeof(ck), "%s/ck.o", dir);
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' dump %d -o '%s'", getenv("SECBPF"),
				r.target, ck),
		     0, "%s", out);
	cr_expect(strstr(out, "program count_closes"), "%s", out);
	/* Without -o: the classic filters (ptrace, root), then the names. */
	if (getuid() == 0) {
		cr_expect_eq(
			test_shell(out, sizeof(out), "'%s' dump %d", getenv("SECBPF"), r.target), 0,
			"%s", out);
		cr_expect(strstr(out, "filter 0: classic"), "%s", out);
		cr_expect(strstr(out, "eBPF programs run by secbpf run") &&
				  strstr(out, "0: count_closes"),
			  "%s", out);
	}
	cr_expect_eq(run_stop(&r), 0);

	/* The checkpoint is a plain object: it verifies and restarts from the
	 * saved count, then keeps counting. */
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' verify '%s'", getenv("SECBPF"), ck), 0,
		     "%s", out);
	run_start(&r2, "exec '%s' run -f '%s' -- '%s'", getenv("SECBPF"), ck,
		  getenv("SECBPF_CTL_PROBE"));
	wait_control(&r2, NULL, 0);
	restored = counter_value("", getenv("SECBPF"), r2.target);
	cr_expect_geq(restored, saved, "restored at %lld, saved %lld", restored, saved);
	run_closes(&r2, 7);
	cr_expect_eq(counter_value("", getenv("SECBPF"), r2.target), restored + 7);
	cr_expect_eq(run_stop(&r2), 0);
}

/* The setpriv prefix that runs a staged copy as uid 65534. */
#define AS_NOBODY                                                                                  \
	"env ASAN_OPTIONS=detect_leaks=0 setpriv --reuid=65534 --regid=65534 --clear-groups"

static void stage(char *tool_dir, char *tool, char *probe_dir, char *probe, char *obj)
{
	test_stage_for_other_users(getenv("SECBPF"), tool_dir, 64, tool, 4096);
	test_stage_for_other_users(getenv("SECBPF_CTL_PROBE"), probe_dir, 64, probe, 4096);
	snprintf(obj, 4096, "%s/count_closes.o", probe_dir);
	cr_assert_eq(
		test_shell(out, sizeof(out), "cp '%s' '%s' && chmod 644 '%s'", counter, obj, obj),
		0, "%s", out);
}

Test(control, only_the_owner_and_root_reach_a_supervisor)
{
	char tool_dir[64], tool[4096], probe_dir[64], probe[4096], obj[4096];
	struct json_object *doc, *p;
	struct run root_run, nobody_run;
	int rc;

	if (getuid() != 0 || access("/usr/bin/setpriv", X_OK)) {
		test_skip_unless_ci("needs root and setpriv(1) to run as uid 65534");
		return;
	}
	stage(tool_dir, tool, probe_dir, probe, obj);
	run_start(&root_run, "exec '%s' run -f '%s' -- '%s'", tool, obj, probe);
	run_start(&nobody_run, "exec " AS_NOBODY " '%s' run -f '%s' -- '%s'", tool, obj, probe);
	wait_control(&root_run, NULL, 0);
	wait_control(&nobody_run, NULL, 0);
	run_closes(&nobody_run, 3);

	/* nobody cannot read root's supervisor. */
	rc = test_shell(out, sizeof(out), AS_NOBODY " '%s' map dump %d counts", tool,
			root_run.target);
	cr_expect_eq(rc, 1, "%s", out);
	cr_expect(strstr(out, "not permitted") && strstr(out, "uid 65534 may not inspect"), "%s",
		  out);
	p = ps_entry(&doc, AS_NOBODY, tool, root_run.target);
	cr_assert_not_null(p, "%s", out);
	cr_expect_str_eq(str_field(p, "supervisor"), "?", "root's supervisor is not shown");
	json_object_put(doc);
	rc = test_shell(out, sizeof(out), AS_NOBODY " '%s' dump %d -o /tmp/never.o", tool,
			root_run.target);
	cr_expect_eq(rc, 1, "%s", out);
	cr_expect(access("/tmp/never.o", F_OK) != 0);

	/* nobody reaches its own; root reaches it too (CAP_SYS_ADMIN). */
	cr_expect_geq(counter_value(AS_NOBODY, tool, nobody_run.target), 3);
	cr_expect_geq(counter_value("", tool, nobody_run.target), 3);
	p = ps_entry(&doc, AS_NOBODY, tool, nobody_run.target);
	cr_assert_not_null(p, "%s", out);
	cr_expect_str_eq(str_field(p, "supervisor"), "secbpf run");
	json_object_put(doc);

	cr_expect_eq(run_stop(&root_run), 0);
	cr_expect_eq(run_stop(&nobody_run), 0);
	test_remove_tree(tool_dir);
	test_remove_tree(probe_dir);
}

Test(control, a_caller_under_seccomp_is_refused)
{
	struct run r;
	int rc;

	run_start(&r, "exec '%s' run -f '%s' -- '%s'", getenv("SECBPF"), counter,
		  getenv("SECBPF_CTL_PROBE"));
	wait_control(&r, NULL, 0);
	/* The same request from a process under a filter that allows all. */
	rc = test_shell(out, sizeof(out), "'%s' run -f '%s' -- '%s' map dump %d counts",
			getenv("SECBPF"), allow_all, getenv("SECBPF"), r.target);
	cr_expect_eq(rc, 1, "%s", out);
	cr_expect(strstr(out, "runs under seccomp"), "%s", out);
	rc = test_shell(out, sizeof(out), "'%s' run -f '%s' -- '%s' dump %d -o '%s/x.o'",
			getenv("SECBPF"), allow_all, getenv("SECBPF"), r.target, dir);
	cr_expect_eq(rc, 1, "%s", out);
	cr_expect(strstr(out, "runs under seccomp"), "%s", out);
	/* And without the filter it works. */
	counter_value("", getenv("SECBPF"), r.target);
	cr_expect_eq(run_stop(&r), 0);
}

/* Send raw bytes (and maybe an fd) and expect an SVC_REP_ERROR back. */
static void expect_error_reply(int sock, const void *buf, size_t len, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct secbpf_err err;
	struct svc_msg *m = malloc(sizeof(*m));
	int rc;

	cr_assert_not_null(m);
	if (fd >= 0) {
		struct cmsghdr *c;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	cr_assert_eq(sendmsg(sock, &mh, MSG_NOSIGNAL), (ssize_t)len, "%s", strerror(errno));
	rc = svc_recv(sock, m, &err);
	cr_assert_eq(rc, 0, "no reply: %s", err.msg);
	cr_expect_eq(m->hdr.type, SVC_REP_ERROR, "a malformed request gets an error");
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}

Test(control, malformed_requests_get_errors_and_service_goes_on)
{
	struct svc_hdr h = { .magic = SVC_MAGIC, .version = SVC_VERSION };
	char name[256], big[64];
	struct secbpf_err err;
	struct svc_msg *m = malloc(sizeof(*m));
	struct timespec t0, t1;
	struct run r;
	int sock, i;

	cr_assert_not_null(m);
	run_start(&r, "exec '%s' run -f '%s' -- '%s'", getenv("SECBPF"), counter,
		  getenv("SECBPF_CTL_PROBE"));
	wait_control(&r, name, sizeof(name));
	sock = svc_connect(name, &err);
	cr_assert_geq(sock, 0, "%s", err.msg);

	expect_error_reply(sock, "x", 1, -1); /* shorter than a header */
	memset(big, 0xff, sizeof(big));
	expect_error_reply(sock, big, sizeof(big), -1); /* bad magic */
	h.version = 99;
	expect_error_reply(sock, &h, sizeof(h), -1);
	h.version = SVC_VERSION;
	h.len = 5000; /* longer than what came */
	expect_error_reply(sock, &h, sizeof(h), -1);
	h.len = 0;
	h.flags = 1;
	expect_error_reply(sock, &h, sizeof(h), -1);
	h.flags = 0;
	h.type = 999; /* no such request */
	expect_error_reply(sock, &h, sizeof(h), -1);
	h.type = SVC_REQ_LIST; /* secbpfd's, not a supervisor's */
	expect_error_reply(sock, &h, sizeof(h), -1);
	h.type = SVC_REQ_CTL_INFO; /* with an fd it does not take */
	expect_error_reply(sock, &h, sizeof(h), sock);
	/* A map dump without its "PROG\0MAP" payload, or of no map. */
	cr_expect_eq(svc_call(sock, SVC_REQ_CTL_MAP_DUMP, "counts", 6, -1, m, &err), -EINVAL);
	cr_expect_eq(svc_call(sock, SVC_REQ_CTL_MAP_DUMP, "\0nosuch", 7, -1, m, &err), -ENOENT);
	cr_expect(strstr(err.msg, "count_closes:counts"), "%s", err.msg);
	cr_expect_eq(svc_call(sock, SVC_REQ_CTL_MAP_DUMP, "nosuch\0counts", 13, -1, m, &err),
		     -ENOENT);
	/* Many more, then a valid request on the same connection. */
	for (i = 0; i < 500; i++)
		expect_error_reply(sock, big, (size_t)(i % sizeof(big)) + 1, -1);
	cr_assert_eq(svc_call(sock, SVC_REQ_CTL_INFO, NULL, 0, -1, m, &err), 0, "%s", err.msg);
	cr_expect_eq(m->hdr.type, SVC_REP_TEXT);
	cr_expect(strstr(m->payload, "\"supervisor\":\"secbpf run\""), "%s", m->payload);
	close(sock);

	/* A client that holds the control thread (connected, silent): the
	 * notifications do not wait for it. */
	sock = svc_connect(name, &err);
	cr_assert_geq(sock, 0, "%s", err.msg);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_closes(&r, 200);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_expect_lt((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000, 1500,
		     "200 notified closes took longer than the control thread's idle timeout");
	close(sock);

	/* A client that leaves mid-request, then the supervisor still serves
	 * its targets and other clients. */
	sock = svc_connect(name, &err);
	cr_assert_geq(sock, 0, "%s", err.msg);
	cr_assert_eq(send(sock, &h, 3, MSG_NOSIGNAL), 3);
	close(sock);
	run_closes(&r, 5);
	counter_value("", getenv("SECBPF"), r.target);
	cr_expect_eq(run_stop(&r), 0);
	free(m);
}

/* The checkpoint's state section is checked against the maps at load. */
Test(control, a_state_section_must_match_the_maps)
{
	struct secbpf_err err = { { 0 } };
	struct object_state_writer w;
	struct object *obj, *restored;
	struct object_map spec;
	struct runtime *rt;
	uint8_t *img;
	size_t len;
	uint64_t value = 1234, got = 0;
	uint32_t key = 0;

	obj = object_open_file(counter, &err);
	cr_assert_not_null(obj, "%s", err.msg);
	cr_assert_eq(obj->maps[0].type, BPF_MAP_TYPE_ARRAY);

	/* Matching: loaded, and the runtime starts from the saved value. */
	cr_assert_eq(object_state_writer_init(&w), 0);
	cr_assert_eq(object_state_add_map(&w, &obj->maps[0], 1), 0);
	cr_assert_eq(object_state_add_entry(&w, &key, &value), 0);
	cr_assert_eq(object_image_with_state(obj, &w, &img, &len), 0);
	object_state_writer_free(&w);
	restored = object_open_mem(img, len, "restored", &err);
	free(img);
	cr_assert_not_null(restored, "%s", err.msg);
	rt = runtime_new(restored, &restored->progs[0], &err);
	cr_assert_not_null(rt, "%s", err.msg);
	cr_assert_eq(map_lookup_user(runtime_map(rt, "counts"), &key, &got), 0);
	cr_expect_eq(got, 1234);
	runtime_free(rt);

	/* Saving again replaces the section rather than adding one. */
	cr_assert_eq(object_state_writer_init(&w), 0);
	cr_assert_eq(object_image_with_state(restored, &w, &img, &len), 0);
	object_state_writer_free(&w);
	object_free(restored);
	restored = object_open_mem(img, len, "resaved", &err);
	free(img);
	cr_assert_not_null(restored, "%s", err.msg);
	cr_expect_eq(restored->state_cnt, 0);
	object_free(restored);

	/* Another value size: refused, naming the map. */
	spec = obj->maps[0];
	spec.value_size = 4;
	cr_assert_eq(object_state_writer_init(&w), 0);
	cr_assert_eq(object_state_add_map(&w, &spec, 1), 0);
	cr_assert_eq(object_state_add_entry(&w, &key, &value), 0);
	cr_assert_eq(object_image_with_state(obj, &w, &img, &len), 0);
	object_state_writer_free(&w);
	restored = object_open_mem(img, len, "bad", &err);
	cr_expect_null(restored);
	cr_expect(strstr(err.msg, "map 'counts' was saved as"), "%s", err.msg);
	object_free(restored);
	free(img);

	/* A map the object does not define. */
	spec = obj->maps[0];
	spec.name = "other";
	cr_assert_eq(object_state_writer_init(&w), 0);
	cr_assert_eq(object_state_add_map(&w, &spec, 1), 0);
	cr_assert_eq(object_image_with_state(obj, &w, &img, &len), 0);
	object_state_writer_free(&w);
	restored = object_open_mem(img, len, "bad", &err);
	cr_expect_null(restored);
	cr_expect(strstr(err.msg, "'other' is not defined"), "%s", err.msg);
	object_free(restored);
	free(img);
	object_free(obj);
}
