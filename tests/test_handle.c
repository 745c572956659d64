// SPDX-License-Identifier: MIT
/*
 * Tests of secbpfd's handles from the client side (docs/handles.md):
 * secbpf_handle_attach() and `secbpf run --prog/--fd` against a real
 * secbpfd started by the test as root, used by uid 65534: a privileged
 * helper that works for nobody only through the service, a handle passed
 * over a unix socket, a counter shared by two processes; and handles that
 * are not (a memfd, another user's socket pair, a peer serving malformed
 * images, a handle attached twice), refused with a clear error.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "secbpf.h"
#include "service/protocol.h"

#define NOBODY 65534

static char out[65536];
static char dir[4096];	      /* scratch: config, socket, objects (0755) */
static char probe[4200];      /* notify_probe, as meson built it */
static char sock_path[4200];  /* the service's socket */
static char stage_tool[4096]; /* staged copies nobody can run */
static char stage_probe[4096];
static char tool[4200], nprobe[4200];
static pid_t service = -1;

/* The comm program: getpriority fails with the first byte of the caller's
 * comm as errno, read with a helper of the privileged tier. */
static const char comm_src[] = "SEC(\"seccomp\")\n"
			       "int comm(struct seccomp_data *ctx)\n"
			       "{\n"
			       "	char c[16];\n"
			       "	if (ctx->nr != __NR_getpriority)\n"
			       "		return SECCOMP_RET_ALLOW;\n"
			       "	if (bpf_get_current_comm(c, sizeof(c)))\n"
			       "		return SECCOMP_RET_ERRNO | 1;\n"
			       "	return SECCOMP_RET_ERRNO | (c[0] & 0xff);\n"
			       "}\n";

/* A stateless program: the kernel runs all of it, no listener. */
static const char deny_src[] = "SEC(\"seccomp\")\n"
			       "int deny(struct seccomp_data *ctx)\n"
			       "{\n"
			       "	if (ctx->nr == __NR_getpriority)\n"
			       "		return SECCOMP_RET_ERRNO | 7;\n"
			       "	return SECCOMP_RET_ALLOW;\n"
			       "}\n";

/* The count program of notify_probe (tests/test_supervisor.c): counts
 * getppid(0xc0) in a global, answers getppid(0x5ecb, i) with ERRNO(1 +
 * bits 10i.. of the count). */
static const char count_src[] = "__u64 calls;\n"
				"SEC(\"seccomp\")\n"
				"int count(struct seccomp_data *ctx)\n"
				"{\n"
				"	if (ctx->nr != __NR_getppid)\n"
				"		return SECCOMP_RET_ALLOW;\n"
				"	if (ctx->args[0] == 0x5ecb)\n"
				"		return SECCOMP_RET_ERRNO | (((calls >> "
				"(ctx->args[1] * 10)) & 0x3ff) + 1);\n"
				"	if (ctx->args[0] != 0xc0)\n"
				"		return SECCOMP_RET_ALLOW;\n"
				"	__sync_fetch_and_add(&calls, 1);\n"
				"	return SECCOMP_RET_ALLOW;\n"
				"}\n";

#define shell(fmt, ...) test_shell(out, sizeof(out), "cd '%s' && " fmt, dir, ##__VA_ARGS__)
/* As uid 65534; LeakSanitizer cannot stop a non-dumpable process unprivileged. */
#define AS_NOBODY "ASAN_OPTIONS=detect_leaks=0 setpriv --reuid=65534 --regid=65534 --clear-groups "

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-handle");
	chmod(dir, 0755);
	test_probe(probe, sizeof(probe), "SECBPF_NOTIFY_PROBE", dir, "notify_probe", "-pthread ");
}

static void teardown(void)
{
	if (service > 0) {
		kill(service, SIGTERM);
		waitpid(service, NULL, 0);
		service = -1;
	}
	if (stage_tool[0])
		test_remove_tree(stage_tool);
	if (stage_probe[0])
		test_remove_tree(stage_probe);
	test_remove_tree(dir);
}

TestSuite(handle, .init = setup, .fini = teardown);

/* Compile the filter NAME to DIR/programs.d/NAME.o. */
static void approve(const char *name, const char *body)
{
	const char *src = test_write_filter(dir, name, body);

	cr_assert_eq(shell("mkdir -p programs.d && ASAN_OPTIONS=detect_leaks=0 '%s' cc '%s' -o "
			   "programs.d/%s.o && chmod 0644 programs.d/%s.o",
			   getenv("SECBPF"), src, name, name),
		     0, "%s", out);
}

static bool socket_exists(void *arg)
{
	(void)arg;
	return access(sock_path, F_OK) == 0 || waitpid(service, NULL, WNOHANG) == service;
}

/*
 * As root, with nobody to run things: a secbpfd serving comm (privileged,
 * for nobody) and count (unprivileged, for nobody and root), its socket in
 * the scratch directory; the tool and the probe staged where nobody can
 * run them.
 */
static void start_service(void)
{
	const char *env = getenv("SECBPFD");
	char daemon[4200], conf[4200];
	FILE *f;

	if (geteuid() != 0) {
		test_skip_unless_ci("secbpfd and uid 65534 need root");
		return;
	}
	if (access("/usr/bin/setpriv", X_OK)) {
		test_skip_unless_ci("setpriv(1) is needed to run as uid 65534");
		return;
	}
	snprintf(daemon, sizeof(daemon), "%s/secbpfd", getenv("SECBPF_BUILD_DIR"));
	if (env && *env)
		snprintf(daemon, sizeof(daemon), "%s", env);
	cr_assert_eq(access(daemon, X_OK), 0, "%s: not built", daemon);
	approve("comm", comm_src);
	approve("count", count_src);
	approve("deny", deny_src);
	/* The service's tier cap: privileged (the system's file is not
	 * consulted, so the test does not depend on it). */
	snprintf(conf, sizeof(conf), "%s/policy.conf", dir);
	f = fopen(conf, "w");
	cr_assert_not_null(f);
	fprintf(f, "max_tier = privileged\n");
	fclose(f);
	snprintf(conf, sizeof(conf), "%s/secbpfd.conf", dir);
	f = fopen(conf, "w");
	cr_assert_not_null(f);
	fprintf(f, "# test_handle.c\n"
		   "allow comm user=nobody tier=privileged\n"
		   "allow count user=nobody\n"
		   "allow count user=root\n"
		   "allow deny user=nobody\n");
	fclose(f);
	snprintf(sock_path, sizeof(sock_path), "%s/secbpfd.sock", dir);
	fflush(NULL);
	service = fork();
	cr_assert(service >= 0);
	if (service == 0) {
		char log[4300];
		int fd;

		snprintf(log, sizeof(log), "%s/secbpfd.log", dir);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		snprintf(log, sizeof(log), "%s/policy.conf", dir);
		execl(daemon, daemon, "--foreground", "--config", dir, "--socket", sock_path,
		      "--policy", log, (char *)NULL);
		_exit(127);
	}
	cr_assert(test_wait_for(socket_exists, NULL, 20000), "secbpfd did not start");
	if (access(sock_path, F_OK)) {
		shell("cat secbpfd.log");
		service = -1;
		cr_assert_fail("secbpfd exited before serving: %s", out);
	}
	test_stage_for_other_users(getenv("SECBPF"), stage_tool, sizeof(stage_tool), tool,
				   sizeof(tool));
	test_stage_for_other_users(probe, stage_probe, sizeof(stage_probe), nprobe, sizeof(nprobe));
}

/* A handle for prog from the service, or a negative errno (message in err). */
static int get_handle(const char *prog, struct secbpf_err *err)
{
	struct svc_msg m;
	int sock, rc;

	sock = svc_connect(sock_path, err);
	if (sock < 0)
		return sock;
	rc = svc_call(sock, SVC_REQ_HANDLE, prog, strlen(prog), -1, &m, err);
	close(sock);
	if (rc)
		return rc;
	if (m.hdr.type != SVC_REP_HANDLE || m.fd < 0)
		return err_set(err, EBADMSG, "reply %u is not a handle", m.hdr.type);
	return m.fd;
}

static void become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		_exit(90);
}

/* Whether the calling process has a seccomp filter (Seccomp: 2). */
static bool filtered(void)
{
	char line[256];
	bool yes = false;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp:", 8))
			yes = strtol(line + 8, NULL, 10) == 2;
	if (f)
		fclose(f);
	return yes;
}

/* Attach fd in a forked child (opts as given, errbuf ours) and have it
 * report: the return value and errno in *rc, the message in msg, whether
 * a filter got installed in *installed. */
static void attach_in_child(int fd, bool as_nobody, unsigned int timeout_ms, int *rc, char *msg,
			    size_t size, bool *installed)
{
	struct report {
		int rc, err;
		bool installed;
		char msg[512];
	} *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;
	int st;

	cr_assert(r != MAP_FAILED);
	memset(r, 0, sizeof(*r));
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		struct secbpf_handle_attach_opts o = {
			.sz = sizeof(o),
			.timeout_ms = timeout_ms,
			.errbuf = r->msg,
			.errbuf_sz = sizeof(r->msg),
		};

		if (as_nobody)
			become_nobody();
		r->rc = secbpf_handle_attach(fd, &o);
		r->err = errno;
		r->installed = filtered();
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the attaching child failed: %#x", st);
	*rc = r->rc;
	if (r->rc)
		cr_expect_eq(r->err, -r->rc, "errno %d for %d", r->err, r->rc);
	snprintf(msg, size, "%s", r->msg);
	*installed = r->installed;
	munmap(r, sizeof(*r));
}

Test(handle, a_memfd_is_not_a_handle)
{
	char msg[512];
	bool installed;
	int fd = memfd_create("forged", MFD_CLOEXEC), rc;

	cr_assert(fd >= 0);
	attach_in_child(fd, false, 0, &rc, msg, sizeof(msg), &installed);
	cr_expect_eq(rc, -ENOTSOCK, "%d: %s", rc, msg);
	cr_expect(strstr(msg, "not a handle"), "%s", msg);
	cr_expect(!installed);
	close(fd);
}

/* A socket pair made by uid 65534, whose other end would serve any
 * filter it likes: refused before a byte is read from it. */
Test(handle, another_users_socket_pair_is_not_a_handle)
{
	pid_t pid;
	int st;

	if (geteuid() != 0) {
		test_skip_unless_ci("making a socket pair as uid 65534 needs root");
		return;
	}
	/* Made by nobody, attached by nobody. */
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		char msg[512] = "";
		struct secbpf_handle_attach_opts o = {
			.sz = sizeof(o), .timeout_ms = 300, .errbuf = msg, .errbuf_sz = sizeof(msg)
		};
		int sv[2], rc;

		become_nobody();
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
			_exit(91);
		rc = secbpf_handle_attach(sv[0], &o);
		printf("%d %s\n", rc, msg);
		fflush(stdout);
		_exit(rc == -EPERM && strstr(msg, "uid 65534") && !filtered() ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

/* What a fake peer (root, so that it passes the first check) answers to
 * SVC_REQ_FILTER. */
enum fake_answer {
	FAKE_BAD_MAGIC,
	FAKE_LISTENER_NOT_LAST,
	FAKE_CUT_SHORT,
	FAKE_TRAILING,
	FAKE_UNSEALED,
	FAKE_NO_FD,
	FAKE_SILENT,
};

/* The image of two one-instruction filters (RET ALLOW), before the
 * answer's defects. */
static size_t fake_image(enum fake_answer a, char *buf)
{
	struct svc_filter_image h = { .magic = SVC_FILTER_MAGIC, .nfilters = 2 };
	struct svc_filter_entry e = { .len = 1 };
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	size_t n = 0;
	int i;

	if (a == FAKE_BAD_MAGIC)
		h.magic = 0x12345678;
	memcpy(buf, &h, sizeof(h));
	n += sizeof(h);
	for (i = 0; i < 2; i++) {
		e.flags = a == FAKE_LISTENER_NOT_LAST && i == 0 ? SVC_FILTER_LISTENER : 0;
		memcpy(buf + n, &e, sizeof(e));
		n += sizeof(e);
		memcpy(buf + n, &allow, sizeof(allow));
		n += sizeof(allow);
	}
	if (a == FAKE_CUT_SHORT)
		n -= 4;
	if (a == FAKE_TRAILING)
		n += 8;
	return n;
}

/* The fake peer: answer one request as a told, then wait for the other
 * end to go. */
static void fake_peer(int sock, enum fake_answer a)
{
	struct secbpf_err err = { { 0 } };
	struct svc_msg m;
	char img[256] = { 0 };
	size_t len = fake_image(a, img);
	int fd = -1;

	if (svc_recv(sock, &m, &err))
		_exit(1);
	if (a == FAKE_UNSEALED) {
		fd = memfd_create("fake", MFD_CLOEXEC);
		if (fd < 0 || write(fd, img, len) != (ssize_t)len)
			_exit(1);
	} else if (a != FAKE_NO_FD && a != FAKE_SILENT) {
		fd = svc_memfd_sealed("fake", img, len, &err);
	}
	if (a != FAKE_SILENT)
		svc_send(sock, SVC_REP_FILTER, NULL, 0, fd, &err);
	while (!svc_recv(sock, &m, &err))
		if (m.fd >= 0)
			close(m.fd);
	_exit(0);
}

Test(handle, a_peer_serving_malformed_images_is_refused)
{
	static const struct {
		enum fake_answer a;
		int rc;
		const char *msg;
	} cases[] = {
		{ FAKE_BAD_MAGIC, -EBADMSG, "bad magic" },
		{ FAKE_LISTENER_NOT_LAST, -EBADMSG, "only the last may" },
		{ FAKE_CUT_SHORT, -EBADMSG, "cut short" },
		{ FAKE_TRAILING, -EBADMSG, "past its last filter" },
		{ FAKE_UNSEALED, -EBADF, "not a sealed memfd" },
		{ FAKE_NO_FD, -EBADMSG, "without an fd" },
		{ FAKE_SILENT, -ETIMEDOUT, "did not answer" },
	};
	size_t i;

	if (geteuid() != 0) {
		test_skip_unless_ci("a fake peer that passes as the service needs root");
		return;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char msg[512];
		bool installed;
		int sv[2], rc;
		pid_t peer;

		cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
		fflush(NULL);
		peer = fork();
		cr_assert(peer >= 0);
		if (peer == 0) {
			close(sv[0]);
			fake_peer(sv[1], cases[i].a);
		}
		close(sv[1]);
		attach_in_child(sv[0], false, 300, &rc, msg, sizeof(msg), &installed);
		close(sv[0]);
		waitpid(peer, NULL, 0);
		cr_expect_eq(rc, cases[i].rc, "case %zu: %d: %s", i, rc, msg);
		cr_expect(strstr(msg, cases[i].msg), "case %zu: %s", i, msg);
		cr_expect(!installed, "case %zu: a filter was installed", i);
	}
}

Test(handle, bad_options_are_refused)
{
	struct secbpf_handle_attach_opts o = { .sz = sizeof(o), .flags = SECBPF_ATTACH_NATIVE };
	struct {
		struct secbpf_handle_attach_opts o;
		int future;
	} newer = { .o = { .sz = sizeof(newer) }, .future = 1 };

	cr_expect_eq(secbpf_handle_attach(0, &o), -EINVAL);
	cr_expect_eq(secbpf_handle_attach(0, &newer.o), -EINVAL);
	cr_expect(!filtered());
}

/*
 * The article's use case: root's service loaded comm, which needs the
 * privileged tier; nobody runs with it through --prog and the helper
 * works (getpriority fails with 'n', notify_probe's first letter), while
 * nobody loading the same object itself is refused.
 */
Test(handle, nobody_runs_a_privileged_program_through_the_service)
{
	start_service();
	cr_assert_eq(shell(AS_NOBODY "'%s' run --prog comm --daemon '%s' -- '%s' call %d", tool,
			   sock_path, nprobe, __NR_getpriority),
		     0, "%s", out);
	cr_expect(strstr(out, "=-1/110\n"), "the helper did not run: %s", out);

	cr_expect_eq(shell(AS_NOBODY "'%s' run -f programs.d/comm.o -- '%s' call %d", tool, nprobe,
			   __NR_getpriority),
		     125, "%s", out);
	cr_expect(strstr(out, "privileged"), "%s", out);
}

/* A stateless program's handle: its filters are installed, no listener
 * goes to the service. */
Test(handle, nobody_runs_a_stateless_program_through_the_service)
{
	start_service();
	cr_assert_eq(shell(AS_NOBODY "'%s' run --prog deny --daemon '%s' -- '%s' call %d", tool,
			   sock_path, nprobe, __NR_getpriority),
		     0, "%s", out);
	cr_expect(strstr(out, "=-1/7\n"), "%s", out);
}

Test(handle, run_prog_refused_by_the_service_exits_125)
{
	start_service();
	cr_expect_eq(
		shell(AS_NOBODY "'%s' run --prog nosuch --daemon '%s' -- true", tool, sock_path),
		125, "%s", out);
	cr_expect(strstr(out, "secbpf: run: secbpfd refused --prog nosuch: "), "%s", out);
	cr_expect(strstr(out, "nosuch"), "%s", out);
	cr_expect_eq(
		shell("'%s' run --prog comm --daemon '%s' -- true", getenv("SECBPF"), sock_path),
		125, "root is not allowed comm: %s", out);
	cr_expect(strstr(out, "comm"), "%s", out);
	cr_expect_eq(
		shell("'%s' run --prog count --daemon '%s/nothing' -- true", getenv("SECBPF"), dir),
		125, "%s", out);
	cr_expect(strstr(out, "cannot reach secbpfd"), "%s", out);
}

/*
 * --fd: a process of nobody asks the service for comm and passes the
 * handle over a unix socket to another process of nobody, which runs
 * `secbpf run --fd 5`.
 */
Test(handle, nobody_runs_with_a_handle_passed_over_a_socket)
{
	int sv[2], pipefd[2], st;
	pid_t giver, runner;
	size_t len = 0;
	ssize_t n;
	char cmd[64];

	start_service();
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	fflush(NULL);
	giver = fork();
	cr_assert(giver >= 0);
	if (giver == 0) {
		struct secbpf_err err;
		int h;

		close(sv[1]);
		become_nobody();
		h = get_handle("comm", &err);
		if (h < 0) {
			fprintf(stderr, "giver: %s\n", err.msg);
			_exit(1);
		}
		_exit(svc_send(sv[0], SVC_REP_HANDLE, NULL, 0, h, &err) ? 2 : 0);
	}
	runner = fork();
	cr_assert(runner >= 0);
	if (runner == 0) {
		struct secbpf_err err;
		struct svc_msg m;

		close(sv[0]);
		become_nobody();
		if (svc_recv(sv[1], &m, &err) || m.fd < 0)
			_exit(93);
		if (dup2(m.fd, 5) != 5 || dup2(pipefd[1], 1) != 1 || dup2(pipefd[1], 2) != 2)
			_exit(94);
		snprintf(cmd, sizeof(cmd), "%d", __NR_getpriority);
		setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
		execl(tool, tool, "run", "--fd", "5", "--", nprobe, "call", cmd, (char *)NULL);
		_exit(95);
	}
	close(pipefd[1]);
	close(sv[0]);
	close(sv[1]);
	/* Everything the runner writes, to the end. */
	while (len < sizeof(out) - 1 && (n = read(pipefd[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = 0;
	close(pipefd[0]);
	cr_assert_eq(waitpid(giver, &st, 0), giver);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "giver: %#x", st);
	cr_assert_eq(waitpid(runner, &st, 0), runner);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "runner: %#x: %s", st, out);
	cr_expect(strstr(out, "=-1/110\n"), "the helper did not run: %s", out);
}

/* getppid(0xc0) n times, then the count the program answers. */
static unsigned long long count_calls(long n)
{
	unsigned long long v = 0;
	long i;

	for (i = 0; i < n; i++)
		syscall(__NR_getppid, 0xc0);
	for (i = 0; i < 4; i++) {
		errno = 0;
		syscall(__NR_getppid, 0x5ecb, i);
		v |= (unsigned long long)((errno - 1) & 0x3ff) << (10 * i);
	}
	return v;
}

/*
 * The maps live in the service: a process attached with the API counts
 * 100, then another, attached with `run --prog`, sees 100 more.
 */
Test(handle, a_counter_is_shared_by_two_processes)
{
	unsigned long long *seen;
	pid_t pid;
	int st;

	start_service();
	seen = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert(seen != MAP_FAILED);
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		struct secbpf_handle_attach_opts o = { .sz = sizeof(o) };
		struct secbpf_err err;
		char msg[512];
		int h;

		o.errbuf = msg;
		o.errbuf_sz = sizeof(msg);
		become_nobody();
		h = get_handle("count", &err);
		if (h < 0) {
			fprintf(stderr, "count: %s\n", err.msg);
			_exit(1);
		}
		if (secbpf_handle_attach(h, &o)) {
			fprintf(stderr, "secbpf_handle_attach: %s\n", msg);
			_exit(2);
		}
		seen[0] = count_calls(100);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	cr_expect_eq(seen[0], 100);
	cr_assert_eq(shell(AS_NOBODY "'%s' run --prog count --daemon '%s' -- '%s' count 1 100",
			   tool, sock_path, nprobe),
		     0, "%s", out);
	cr_expect(strstr(out, "count=200\n"), "%s", out);
	munmap(seen, 4096);
}

/*
 * A handle attaches once: a second process given the same handle (a
 * replay) is refused by the service, with its reason, and the filters it
 * installed fail closed.
 */
Test(handle, a_replayed_handle_is_refused)
{
	struct secbpf_err err;
	char msg[512];
	bool installed;
	int h, rc;

	start_service();
	h = get_handle("count", &err);
	cr_assert(h >= 0, "%s", err.msg);
	attach_in_child(h, false, 0, &rc, msg, sizeof(msg), &installed);
	cr_expect_eq(rc, 0, "%s", msg);
	cr_expect(installed);
	attach_in_child(h, false, 0, &rc, msg, sizeof(msg), &installed);
	cr_expect_eq(rc, -EALREADY, "%d: %s", rc, msg);
	cr_expect(strstr(msg, "the service refused the listener"), "%s", msg);
	cr_expect(strstr(msg, "once"), "%s", msg);
	close(h);
}

/* What run refuses with a handle, before asking anyone. */
Test(handle, run_refuses_options_that_do_not_go_with_a_handle)
{
	static const struct {
		const char *args;
		const char *msg;
	} cases[] = {
		{ "--prog a --fd 5", "--prog and --fd both" },
		{ "--prog a -f x.o", "either its own objects or a handle" },
		{ "--fd 5 --set X=1", "secbpfd loaded the program" },
		{ "--prog a --stats", "secbpfd loaded the program" },
		{ "--fd 5 --native", "secbpfd loaded the program" },
		{ "--daemon /x -f x.o", "--daemon names the service" },
		{ "--fd 2", "above 2" },
		{ "--fd x", "not a file descriptor" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_eq(shell("'%s' run %s -- true", getenv("SECBPF"), cases[i].args), 125,
			     "%s: %s", cases[i].args, out);
		cr_expect(strstr(out, cases[i].msg), "%s: %s", cases[i].args, out);
	}
	/* An fd that is not a handle: refused before CMD runs. */
	cr_expect_eq(shell("'%s' run --fd 7 -- echo ran 7</dev/null", getenv("SECBPF")), 125, "%s",
		     out);
	cr_expect(strstr(out, "secbpf: run: --fd 7: fd 7 is not a handle"), "%s", out);
	cr_expect(!strstr(out, "ran"), "%s", out);
}
