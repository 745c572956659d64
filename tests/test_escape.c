// SPDX-License-Identifier: MIT
/*
 * No escape through the processes secbpf leaves running (docs/threat-model.md,
 * "The processes around the filtered tree"): as uid 65534, under a filter
 * that allows ptrace, tests/progs/escape_probe.c tries to ptrace, write the
 * memory of, or take an fd from every secbpf, secbpfd and secbpf-supervisor
 * around it, in each way of running a command: run -f (stateless and
 * stateful), run --prog and --fd through a secbpfd started here, the attach
 * API's supervisor, and record. Every attempt must be refused, while the
 * same attempts on a child of the probe's own are granted.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "secbpf.h"
#include "service/protocol.h"

#define NOBODY 65534
/* As uid 65534; LeakSanitizer cannot stop a non-dumpable process unprivileged. */
#define AS_NOBODY "ASAN_OPTIONS=detect_leaks=0 setpriv --reuid=65534 --regid=65534 --clear-groups "
#define YAMA "/proc/sys/kernel/yama/ptrace_scope"

static char out[262144];
static char dir[4096];	 /* scratch: programs, config, socket, outputs (0755) */
static char probe[4200]; /* escape_probe, as meson built it */
static char sock_path[4200];
static char stage_tool[64], stage_probe[64], stage_sup[64]; /* staged for nobody */
static char tool[4200], nprobe[4200], sup[4200];
static char yama_saved[16]; /* the ptrace_scope to restore, or "" */
static pid_t service = -1;

/* Stateless: the kernel runs all of it; ptrace and the rest are allowed. */
static const char open_src[] = "SEC(\"seccomp\")\n"
			       "int open_door(struct seccomp_data *ctx)\n"
			       "{\n"
			       "	if (ctx->arch != AUDIT_ARCH_X86_64)\n"
			       "		return SECCOMP_RET_KILL_PROCESS;\n"
			       "	if (ctx->nr >= 0x40000000)\n"
			       "		return SECCOMP_RET_KILL_PROCESS;\n"
			       "	if (ctx->nr == __NR_getpriority)\n"
			       "		return SECCOMP_RET_ERRNO | 7;\n"
			       "	return SECCOMP_RET_ALLOW;\n"
			       "}\n";

#define shell(fmt, ...) test_shell(out, sizeof(out), "cd '%s' && " fmt, dir, ##__VA_ARGS__)

/* Yama's ptrace_scope, where there is one, at 0 (classic ptrace
 * permissions) for the test: the probe must be refused by secbpf's own
 * protection, not by Yama. Restored by teardown. */
static void yama_relax(void)
{
	FILE *f = fopen(YAMA, "re");

	if (!f)
		return; /* no Yama: classic permissions already */
	cr_assert_not_null(fgets(yama_saved, sizeof(yama_saved), f));
	fclose(f);
	f = fopen(YAMA, "we");
	if (!f || fputs("0\n", f) < 0 || fclose(f)) {
		/* ptrace_scope 3 cannot be lowered until reboot. */
		yama_saved[0] = '\0';
		test_skip_unless_ci("cannot set " YAMA " to 0: %s", strerror(errno));
	}
}

static void yama_restore(void)
{
	FILE *f;

	if (!yama_saved[0])
		return;
	f = fopen(YAMA, "we");
	if (f) {
		fputs(yama_saved, f);
		fclose(f);
	}
	yama_saved[0] = '\0';
}

/* Compile the filter NAME to DIR/programs.d/NAME.o, readable by nobody. */
static void compile_filter(const char *name, const char *body)
{
	const char *src = test_write_filter(dir, name, body);

	cr_assert_eq(shell("mkdir -p programs.d && ASAN_OPTIONS=detect_leaks=0 '%s' cc '%s' -o "
			   "programs.d/%s.o && chmod 0644 programs.d/%s.o",
			   getenv("SECBPF"), src, name, name),
		     0, "%s", out);
}

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-escape");
	chmod(dir, 0755);
	if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK))
		return; /* each test skips, saying why */
	test_probe(probe, sizeof(probe), "SECBPF_ESCAPE_PROBE", dir, "escape_probe", "");
	yama_relax();
	compile_filter("open_door", open_src);
	compile_filter("count_closes", test_count_closes_body);
	cr_assert(getenv("SECBPF_SUPERVISOR"), "SECBPF_SUPERVISOR is not set (run through meson)");
	test_stage_for_other_users(getenv("SECBPF"), stage_tool, sizeof(stage_tool), tool,
				   sizeof(tool));
	test_stage_for_other_users(probe, stage_probe, sizeof(stage_probe), nprobe, sizeof(nprobe));
	test_stage_for_other_users(getenv("SECBPF_SUPERVISOR"), stage_sup, sizeof(stage_sup), sup,
				   sizeof(sup));
	/* The API's supervisor outlives the helper that forked it: reparented
	 * to us, it stays among the processes the probe looks at. */
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
}

static void teardown(void)
{
	if (service > 0) {
		kill(service, SIGTERM);
		waitpid(service, NULL, 0);
		service = -1;
	}
	yama_restore();
	if (stage_tool[0])
		test_remove_tree(stage_tool);
	if (stage_probe[0])
		test_remove_tree(stage_probe);
	if (stage_sup[0])
		test_remove_tree(stage_sup);
	test_remove_tree(dir);
}

TestSuite(escape, .init = setup, .fini = teardown, .timeout = 180);

static void need_root(void)
{
	if (geteuid() != 0)
		test_skip_unless_ci("running the probe as uid 65534 needs root");
	if (access("/usr/bin/setpriv", X_OK))
		test_skip_unless_ci("setpriv(1) is needed to run as uid 65534");
}

static bool socket_ready(void *arg)
{
	(void)arg;
	return access(sock_path, F_OK) == 0 || waitpid(service, NULL, WNOHANG) == service;
}

/* As root: a secbpfd serving open_door and count_closes to nobody, its
 * socket in the scratch directory, its log in secbpfd.log. */
static void start_service(void)
{
	char daemon[4200], path[4200];
	const char *env = getenv("SECBPFD");
	FILE *f;
	int fd;

	snprintf(daemon, sizeof(daemon), "%s", env && *env ? env : "");
	if (!daemon[0])
		snprintf(daemon, sizeof(daemon), "%s/secbpfd", getenv("SECBPF_BUILD_DIR"));
	cr_assert_eq(access(daemon, X_OK), 0, "%s: not built", daemon);
	snprintf(path, sizeof(path), "%s/policy.conf", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "max_tier = privileged\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/secbpfd.conf", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "# tests/test_escape.c\n"
		   "allow open_door user=nobody\n"
		   "allow count_closes user=nobody\n");
	fclose(f);
	snprintf(sock_path, sizeof(sock_path), "%s/secbpfd.sock", dir);
	fflush(NULL);
	service = fork();
	cr_assert(service >= 0);
	if (service == 0) {
		snprintf(path, sizeof(path), "%s/secbpfd.log", dir);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) != 1 || dup2(fd, 2) != 2)
			_exit(126);
		snprintf(path, sizeof(path), "%s/policy.conf", dir);
		execl(daemon, daemon, "--foreground", "--config", dir, "--socket", sock_path,
		      "--policy", path, (char *)NULL);
		_exit(127);
	}
	cr_assert(test_wait_for(socket_ready, NULL, 20000), "secbpfd did not start");
	if (access(sock_path, F_OK)) {
		shell("cat secbpfd.log");
		service = -1;
		cr_assert_fail("secbpfd exited before serving: %s", out);
	}
}

/* Whether the probe's output names a process of kind it found. */
static bool probe_found(const char *kind)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), " %s\n", kind);
	for (p = strstr(out, "escape_probe: found "); p;
	     p = strstr(p + 1, "escape_probe: found ")) {
		const char *eol = strchr(p, '\n');

		if (eol && (size_t)(eol - p) >= strlen(want) - 1 &&
		    !strncmp(eol - (strlen(want) - 1), want, strlen(want)))
			return true;
	}
	return false;
}

/* The probe's verdict in out: it ran (status), its control attempts were
 * all granted (the filter lets them through), it found the processes of
 * each kind in kinds (NULL-terminated) and none let it in. */
static void expect_no_escape(const char *mode, int status, const char *const *kinds)
{
	int found = -1, granted = -1, control = -1, of = 0;
	const char *s = strstr(out, "escape_probe: summary ");

	cr_assert_eq(status, 0, "%s: exit status %d: %s", mode, status, out);
	cr_assert(s && sscanf(s, "escape_probe: summary found=%d granted=%d control=%d/%d", &found,
			      &granted, &control, &of) == 4,
		  "%s: the probe did not finish: %s", mode, out);
	cr_assert_eq(control, of, "%s: the filter stops the attempts themselves: %s", mode, out);
	cr_assert_gt(found, 0, "%s: no secbpf process found: %s", mode, out);
	for (; *kinds; kinds++)
		cr_expect(probe_found(*kinds), "%s: no %s found: %s", mode, *kinds, out);
	cr_expect_eq(granted, 0, "%s: the filtered tree got into a secbpf process: %s", mode, out);
}

Test(escape, run_with_a_stateless_filter)
{
	static const char *const kinds[] = { "secbpf", NULL };
	int rc;

	need_root();
	rc = shell(AS_NOBODY "'%s' run -f programs.d/open_door.o -- '%s' %d", tool, nprobe,
		   (int)getpid());
	expect_no_escape("run -f (stateless)", rc, kinds);
}

Test(escape, run_with_a_stateful_filter)
{
	static const char *const kinds[] = { "secbpf", NULL };
	int rc;

	need_root();
	rc = shell(AS_NOBODY "'%s' run -f programs.d/count_closes.o -- '%s' %d", tool, nprobe,
		   (int)getpid());
	expect_no_escape("run -f (stateful)", rc, kinds);
}

Test(escape, run_prog_stateless)
{
	static const char *const kinds[] = { "secbpf", "secbpfd", NULL };
	int rc;

	need_root();
	start_service();
	rc = shell(AS_NOBODY "'%s' run --prog open_door --daemon '%s' -- '%s' %d", tool, sock_path,
		   nprobe, (int)getpid());
	expect_no_escape("run --prog (stateless)", rc, kinds);
}

Test(escape, run_prog_stateful)
{
	static const char *const kinds[] = { "secbpf", "secbpfd", NULL };
	int rc;

	need_root();
	start_service();
	rc = shell(AS_NOBODY "'%s' run --prog count_closes --daemon '%s' -- '%s' %d", tool,
		   sock_path, nprobe, (int)getpid());
	expect_no_escape("run --prog (stateful)", rc, kinds);
}

/* Read all of path into out. */
static void read_output(const char *path)
{
	FILE *f = fopen(path, "re");
	size_t n;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
}

/* A child that writes to DIR/name.out (opened as root), becomes nobody
 * and runs fn; returns its exit status (or 128 + signal) with its output
 * in out. */
static int as_nobody_child(const char *name, void (*fn)(void))
{
	char path[4300];
	int st, fd;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s.out", dir, name);
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) != 1 || dup2(fd, 2) != 2)
			_exit(90);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(91);
		setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
		fn();
		_exit(92);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	read_output(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static pid_t test_pid;

/* --fd 5: a handle nobody asked the service for, passed to run. */
static void run_with_fd(void)
{
	struct secbpf_err err = { { 0 } };
	char root[16];
	struct svc_msg m;
	int sock;

	sock = svc_connect(sock_path, &err);
	if (sock < 0 ||
	    svc_call(sock, SVC_REQ_HANDLE, "open_door", strlen("open_door"), -1, &m, &err) ||
	    m.hdr.type != SVC_REP_HANDLE || m.fd < 0) {
		fprintf(stderr, "no handle: %s\n", err.msg);
		_exit(93);
	}
	close(sock);
	if (dup2(m.fd, 5) != 5)
		_exit(94);
	snprintf(root, sizeof(root), "%d", (int)test_pid);
	execl(tool, tool, "run", "--fd", "5", "--", nprobe, root, (char *)NULL);
	_exit(95);
}

Test(escape, run_fd)
{
	static const char *const kinds[] = { "secbpf", "secbpfd", NULL };
	int rc;

	need_root();
	start_service();
	test_pid = getpid();
	rc = as_nobody_child("fd", run_with_fd);
	expect_no_escape("run --fd", rc, kinds);
}

/* The attach API: a stateful program attached to ourselves, its
 * supervisor spawned, then the probe executed under it. */
static void attach_and_exec(void)
{
	struct secbpf_attach_opts o = { .sz = sizeof(o), .supervisor = sup };
	char path[4300], root[16];
	struct secbpf_object *obj;
	struct secbpf_program *p;
	int rc;

	snprintf(path, sizeof(path), "%s/programs.d/count_closes.o", dir);
	obj = secbpf_object__open_file(path, NULL);
	p = obj ? secbpf_object__find_program(obj, NULL) : NULL;
	if (!p)
		_exit(93);
	/* Dumpable, as a process that never changed its uid is. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		_exit(94);
	rc = secbpf_program__attach(p, &o);
	if (rc) {
		fprintf(stderr, "attach: %s\n", secbpf_object__last_error(obj));
		_exit(95);
	}
	snprintf(root, sizeof(root), "%d", (int)test_pid);
	execl(nprobe, nprobe, root, (char *)NULL);
	_exit(96);
}

Test(escape, attach_api_supervisor)
{
	static const char *const kinds[] = { "secbpf-supervisor", NULL };
	int rc;

	need_root();
	test_pid = getpid();
	rc = as_nobody_child("api", attach_and_exec);
	expect_no_escape("the attach API", rc, kinds);
}

Test(escape, record)
{
	static const char *const kinds[] = { "secbpf", NULL };
	int rc;

	need_root();
	rc = shell(AS_NOBODY "'%s' record -- '%s' %d", tool, nprobe, (int)getpid());
	expect_no_escape("record", rc, kinds);
}

/* The fake supervisor of the next test: it writes down what it sees of
 * the caller (--caller PID) and of the helper (its parent), then exits. */
static const char spy_script[] = "#!/bin/sh\n"
				 "caller=\n"
				 "while [ $# -gt 0 ]; do\n"
				 "	[ \"$1\" = --caller ] && caller=$2\n"
				 "	shift\n"
				 "done\n"
				 "{ grep '^Seccomp:' /proc/$caller/status; echo \"helper_uid "
				 "$(stat -c %u /proc/$PPID/status)\"; }"
				 " > \"$(dirname \"$0\")/out/seen\"\n"
				 "exit 1\n";

static void attach_with_spy(void)
{
	char path[4300];
	struct secbpf_attach_opts o = { .sz = sizeof(o), .supervisor = path };
	struct secbpf_object *obj;
	struct secbpf_program *p;
	int rc;

	snprintf(path, sizeof(path), "%s/programs.d/count_closes.o", dir);
	obj = secbpf_object__open_file(path, NULL);
	p = obj ? secbpf_object__find_program(obj, NULL) : NULL;
	if (!p)
		_exit(93);
	/* Dumpable, as a process that never changed its uid is (setuid
	 * made us not): the helper is a copy of us. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		_exit(94);
	snprintf(path, sizeof(path), "%s/spy/spy.sh", dir);
	rc = secbpf_program__attach(p, &o);
	printf("attach %d: %s\n", rc, secbpf_object__last_error(obj));
	fflush(stdout);
	_exit(0);
}

/*
 * The attach API's supervisor is started, and its helper non-dumpable,
 * before anything is installed: no filtered code (a TSYNC thread, a caller
 * that gave up waiting) ever runs while either could be ptraced. A fake
 * supervisor looks at the caller's Seccomp: line and at who owns the
 * helper's /proc entry (its files are root's while it is non-dumpable).
 */
Test(escape, the_api_supervisor_starts_before_the_install)
{
	char path[4300];
	FILE *f;
	int rc;

	need_root();
	cr_assert_eq(shell("mkdir -p spy/out && chown %d spy/out", NOBODY), 0, "%s", out);
	snprintf(path, sizeof(path), "%s/spy/spy.sh", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(spy_script, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(path, 0755), 0);
	rc = as_nobody_child("spy", attach_with_spy);
	cr_assert_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "attach -10: ") && strstr(out, "exited with status 1"), "%s", out);
	cr_expect(strstr(out, "nothing was installed"), "%s", out);
	snprintf(path, sizeof(path), "%s/spy/out/seen", dir);
	read_output(path);
	cr_expect(strstr(out, "Seccomp:\t0\n"), "the caller was filtered already: %s", out);
	cr_expect(strstr(out, "helper_uid 0\n"), "the helper was dumpable: %s", out);
}
