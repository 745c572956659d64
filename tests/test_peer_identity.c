// SPDX-License-Identifier: MIT
/*
 * Tests of who is believed to be on the other end of a socket: a handle
 * (handle_check, lib/service/handle_client.c) forged by the root of a
 * user namespace is refused, and a supervisor's control socket
 * (lib/supervisor/control.c) refuses a caller that exited between its
 * connect and our accept, even when a process not under seccomp took its
 * pid meanwhile (SO_PEERPIDFD, lib/common/pidfd.c).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "service/protocol.h"

static char dir[4096];
static char out[65536];

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-peer");
	chmod(dir, 0755);
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(peer_identity, .init = setup, .fini = teardown, .timeout = 60);

static void need_root(void)
{
	if (geteuid() != 0)
		test_skip_unless_ci("the tests map root into a user namespace and reuse a pid");
}

/* Write text to path, in a child about to exec: 0 or -1. */
static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Serve sock as a forged handle: every filter request gets an image of
 * one filter that allows everything, anything else an OK. */
static void serve_forged_handle(int sock)
{
	struct {
		struct svc_filter_image hdr;
		struct svc_filter_entry entry;
		struct sock_filter insn;
	} image = {
		.hdr = { .magic = SVC_FILTER_MAGIC, .nfilters = 1 },
		.entry = { .len = 1 },
		.insn = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct svc_msg *m = malloc(sizeof(*m));
	struct secbpf_err err;
	int fd;

	while (m && svc_recv(sock, m, &err) == 0) {
		if (m->fd >= 0)
			close(m->fd);
		if (m->hdr.type != SVC_REQ_FILTER) {
			svc_send(sock, SVC_REP_OK, NULL, 0, -1, &err);
			continue;
		}
		fd = svc_memfd_sealed("forged", &image, sizeof(image), &err);
		if (fd < 0 || svc_send(sock, SVC_REP_FILTER, NULL, 0, fd, &err))
			break;
		close(fd);
	}
	_exit(0);
}

Test(peer_identity, a_handle_forged_in_a_user_namespace_is_refused)
{
	char log[4200];
	pid_t pid;
	int st, fd;

	need_root();
	snprintf(log, sizeof(log), "%s/run.log", dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int sv[2];

		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(120);
		/* As `unshare -Ur`: root of a namespace of our own, where
		 * our uid (0 here, any uid for an unprivileged user) is 0. */
		if (unshare(CLONE_NEWUSER))
			_exit(errno == EINVAL ? 121 : 122);
		if (put("/proc/self/setgroups", "deny") || put("/proc/self/uid_map", "0 0 1\n") ||
		    put("/proc/self/gid_map", "0 0 1\n"))
			_exit(123);
		if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv))
			_exit(124);
		pid = fork();
		if (pid < 0)
			_exit(124);
		if (pid == 0) {
			close(sv[1]);
			serve_forged_handle(sv[0]);
		}
		close(sv[0]);
		if (dup2(sv[1], 7) != 7)
			_exit(124);
		execl(getenv("SECBPF"), "secbpf", "run", "--fd", "7", "--", "/bin/true",
		      (char *)NULL);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	test_shell(out, sizeof(out), "cat '%s'", log);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 121)
		cr_skip_test("the kernel has no user namespaces (CONFIG_USER_NS)");
	cr_assert(WIFEXITED(st) && (WEXITSTATUS(st) < 120 || WEXITSTATUS(st) == 125),
		  "the forger could not be set up (status %#x): %s", st, out);
	cr_expect_eq(WEXITSTATUS(st), 125, "secbpf run took the forged handle (status %d):\n%s",
		     WEXITSTATUS(st), out);
	cr_expect(strstr(out, "user namespace"), "the refusal does not say why:\n%s", out);
}

/* ---- the control socket: the caller is the process that connected ---- */

/* `secbpf run -f counter -- ctl_probe`: the supervisor's pid, and the
 * pipe that keeps the probe alive (closing it ends the run). */
struct run {
	pid_t pid;
	FILE *to, *from;
};

static void run_start(struct run *r, const char *counter)
{
	char line[256];
	int in[2], outp[2];

	cr_assert_eq(pipe2(in, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(outp, O_CLOEXEC), 0);
	r->pid = fork();
	cr_assert_geq(r->pid, 0);
	if (r->pid == 0) {
		dup2(in[0], 0);
		dup2(outp[1], 1);
		execl(getenv("SECBPF"), "secbpf", "run", "-f", counter, "--",
		      getenv("SECBPF_CTL_PROBE"), (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	r->to = fdopen(in[1], "w");
	r->from = fdopen(outp[0], "r");
	cr_assert(r->to && r->from);
	cr_assert_not_null(fgets(line, sizeof(line), r->from), "the probe did not start");
}

/* The control socket's name of supervisor pid, from /proc/net/unix. */
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

/* A connection to the abstract socket name ("@..."), or -1. */
static int connect_control(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0 || len >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, name, len);
	sa.sun_path[0] = '\0';
	if (connect(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * In a child, under a seccomp filter (which the control socket refuses:
 * seed 002), connect to name and send an info request; pass the
 * connection to us over pass (a socket pair: the child's end first) and
 * exit. Returns the child's pid, reaped,
 * and the connection in *conn: a caller that is gone, whose request waits.
 */
static pid_t connect_and_exit(const char *name, const int pass[2], int *conn)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	struct secbpf_err err;
	struct svc_msg *m = malloc(sizeof(*m));
	pid_t pid;
	int st;

	cr_assert_not_null(m);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(1);
		fd = connect_control(name);
		if (fd < 0 || svc_send(fd, SVC_REQ_CTL_INFO, NULL, 0, -1, &err) ||
		    svc_send(pass[0], SVC_REP_OK, NULL, 0, fd, &err))
			_exit(2);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the caller failed (status %#x)", st);
	cr_assert_eq(svc_recv(pass[1], m, &err), 0, "%s", err.msg);
	cr_assert_geq(m->fd, 0, "the caller passed no connection");
	*conn = m->fd;
	free(m);
	return pid;
}

/* A child whose pid is pid (clone3 with set_tid: CAP_SYS_ADMIN), not
 * under seccomp, waiting to be killed. Returns its pid, or -errno. */
static pid_t take_pid(pid_t pid)
{
	struct clone_args args = {
		.exit_signal = SIGCHLD,
		.set_tid = (uint64_t)(uintptr_t)&pid,
		.set_tid_size = 1,
	};
	long got = syscall(SYS_clone3, &args, sizeof(args));

	if (got == 0) {
		for (;;)
			pause();
	}
	return got < 0 ? -errno : (pid_t)got;
}

/* The answer on conn to the request it sent: its type, payload in out. */
static uint16_t answer_of(int conn)
{
	struct timeval tv = { .tv_sec = 10 };
	struct secbpf_err err;
	struct svc_msg *m = malloc(sizeof(*m));
	uint16_t type;
	size_t i;

	cr_assert_not_null(m);
	setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	cr_assert_eq(svc_recv(conn, m, &err), 0, "no answer: %s", err.msg);
	type = m->hdr.type;
	/* An error's payload starts with its errno: keep the text. */
	for (i = 0; i < m->hdr.len && i + 1 < sizeof(out); i++)
		out[i] = m->payload[i] ? m->payload[i] : ' ';
	out[i] = '\0';
	if (m->fd >= 0)
		close(m->fd);
	free(m);
	return type;
}

/* Whether the kernel has SO_PEERPIDFD (Linux 6.5+). */
static bool have_peer_pidfd(void)
{
	int sv[2], pidfd = -1;
	socklen_t len = sizeof(pidfd);
	bool have;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	have = getsockopt(sv[0], SOL_SOCKET, 77 /* SO_PEERPIDFD */, &pidfd, &len) == 0;
	if (pidfd >= 0)
		close(pidfd);
	close(sv[0]);
	close(sv[1]);
	return have;
}

/*
 * Keep the control thread (one client at a time) busy with a connection
 * of ours, served once and then silent, so that the next connection waits
 * in the backlog until we close it. Returns it.
 */
static int hold_control(const char *name)
{
	struct svc_msg *m = malloc(sizeof(*m));
	struct secbpf_err err;
	int busy = connect_control(name);

	cr_assert_not_null(m);
	cr_assert_geq(busy, 0);
	cr_assert_eq(svc_call(busy, SVC_REQ_CTL_INFO, NULL, 0, -1, m, &err), 0, "%s", err.msg);
	cr_assert_neq(m->hdr.type, SVC_REP_ERROR, "root was refused: %s", m->payload);
	if (m->fd >= 0)
		close(m->fd);
	free(m);
	return busy;
}

Test(peer_identity, a_control_caller_gone_before_accept_is_refused_even_with_its_pid_reused)
{
	struct control_lookup c = { 0 };
	char counter[4200];
	const char *src;
	struct run r;
	int pass[2], busy, conn, st;
	pid_t gone, impostor;

	need_root();
	src = test_write_filter(dir, "count_closes", test_count_closes_body);
	snprintf(counter, sizeof(counter), "%s/count_closes.o", dir);
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' cc '%s' -o '%s'", getenv("SECBPF"), src,
				counter),
		     0, "%s", out);
	run_start(&r, counter);
	c.pid = r.pid;
	cr_assert(test_wait_for(find_control, &c, 5000), "no control socket for pid %d",
		  (int)r.pid);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pass), 0);

	/* A caller (under seccomp) that exited before it was accepted. */
	busy = hold_control(c.name);
	connect_and_exit(c.name, pass, &conn);
	close(busy);
	cr_expect_eq(answer_of(conn), SVC_REP_ERROR, "a caller that is gone was answered: %s", out);
	cr_expect(strstr(out, "is gone"), "%s", out);
	close(conn);

	/* The same, with a process not under seccomp on its pid by the
	 * time the supervisor accepts. Before SO_PEERPIDFD, a pid reused
	 * in the backlog passes (docs/threat-model.md). */
	if (!have_peer_pidfd())
		cr_skip_test("the kernel has no SO_PEERPIDFD (Linux 6.5+)");
	busy = hold_control(c.name);
	gone = connect_and_exit(c.name, pass, &conn);
	impostor = take_pid(gone);
	if (impostor == -ENOSYS)
		cr_skip_test("the kernel has no clone3 (Linux 5.3+; set_tid: 5.5+)");
	cr_assert_eq(impostor, gone, "pid %d could not be taken again: %s", (int)gone,
		     impostor < 0 ? strerror(-impostor) : "another pid came");
	close(busy);
	cr_expect_eq(answer_of(conn), SVC_REP_ERROR,
		     "the supervisor answered the caller's request for pid %d, now another "
		     "process's: %s",
		     (int)gone, out);
	cr_expect(strstr(out, "is gone"), "%s", out);
	close(conn);
	kill(impostor, SIGKILL);
	cr_assert_eq(waitpid(impostor, &st, 0), impostor);
	fclose(r.to);
	while (fgets(out, sizeof(out), r.from))
		;
	fclose(r.from);
	cr_assert_eq(waitpid(r.pid, &st, 0), r.pid);
}
