// SPDX-License-Identifier: MIT
/*
 * Tests of who can own secbpfd's sockets (lib/service/socket_path.c,
 * tools/secbpfd.c, svc_agent_open) and the agent socket path that `secbpf
 * oci` and `secbpf export-oci` hand to root's runtimes: a squatter running
 * as uid 65534 on the abstract agent name or behind a link in a directory
 * others can write never gets a runtime's listener, because secbpfd
 * refuses to start and the tools refuse to print such a path; a socket
 * secbpfd cannot bind stops it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define NOBODY 65534
#define PROTECTED_SYMLINKS "/proc/sys/fs/protected_symlinks"

static char dir[4096];	    /* scratch, 0755, root's */
static char cfg[4200];	    /* an empty configuration */
static char policy[4200];   /* the policy file the service is given */
static char logpath[4200];  /* the service's stderr */
static char safe_dir[4200]; /* dir/run: 0755, root's */
static char open_dir[4200]; /* dir/open: 01777, like /tmp */
static char counter[4200];  /* a stateful object (count_closes) */
static char out[65536];
static char saved_symlinks[16]; /* fs.protected_symlinks to restore, or "" */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static void setup(void)
{
	char path[4400];

	test_scratch_dir(dir, sizeof(dir), "secbpf-test-sockets");
	chmod(dir, 0755);
	snprintf(cfg, sizeof(cfg), "%s/config", dir);
	snprintf(policy, sizeof(policy), "%s/policy.conf", dir);
	snprintf(logpath, sizeof(logpath), "%s/secbpfd.log", dir);
	snprintf(safe_dir, sizeof(safe_dir), "%s/run", dir);
	snprintf(open_dir, sizeof(open_dir), "%s/open", dir);
	snprintf(path, sizeof(path), "%s/programs.d", cfg);
	cr_assert_eq(mkdir(cfg, 0755), 0);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/secbpfd.conf", cfg);
	write_file(path, "# no programs: only the sockets are tested\n");
	write_file(policy, "max_tier = unprivileged\n");
	cr_assert_eq(mkdir(safe_dir, 0755), 0);
	cr_assert_eq(mkdir(open_dir, 0755), 0);
	cr_assert_eq(chmod(open_dir, 01777), 0);
}

static void teardown(void)
{
	if (saved_symlinks[0]) {
		int fd = open(PROTECTED_SYMLINKS, O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, saved_symlinks, strlen(saved_symlinks)) < 0)
			fprintf(stderr, "cannot restore %s to %s", PROTECTED_SYMLINKS,
				saved_symlinks);
		if (fd >= 0)
			close(fd);
	}
	test_remove_tree(dir);
}

TestSuite(secbpfd_sockets, .init = setup, .fini = teardown, .timeout = 120);

static void need_root(void)
{
	if (geteuid() != 0)
		test_skip_unless_ci("secbpfd runs as root and the squatter as uid 65534");
}

/* count_closes (stateful: it needs secbpfd's agent) compiled into dir. */
static void make_counter(void)
{
	const char *src = test_write_filter(dir, "count_closes", test_count_closes_body);

	snprintf(counter, sizeof(counter), "%s/count_closes.o", dir);
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' cc '%s' -o '%s'", getenv("SECBPF"), src,
				counter),
		     0, "%s", out);
}

/*
 * Run secbpfd --foreground with the scratch configuration and the given
 * --socket and --agent-socket (NULL: none). Returns its exit status, or -1
 * if it was still running after 5 s (then stopped): it started serving.
 * Its log is left in out.
 */
static int run_secbpfd(const char *sock, const char *agent)
{
	struct timespec pause = { .tv_nsec = 20 * 1000 * 1000 };
	int fd, st = 0, i;
	pid_t pid, done = 0;

	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		if (agent)
			execl(getenv("SECBPFD"), "secbpfd", "--foreground", "--config", cfg,
			      "--policy", policy, "--socket", sock, "--agent-socket", agent,
			      (char *)NULL);
		else
			execl(getenv("SECBPFD"), "secbpfd", "--foreground", "--config", cfg,
			      "--policy", policy, "--socket", sock, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 250 && done == 0; i++) {
		done = waitpid(pid, &st, WNOHANG);
		if (done == 0)
			nanosleep(&pause, NULL);
	}
	if (done == 0) {
		kill(pid, SIGTERM);
		waitpid(pid, &st, 0);
	}
	test_shell(out, sizeof(out), "cat '%s'", logpath);
	if (done == 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A unix address for path ("@NAME": abstract); its length in *len. */
static void unix_address(const char *path, struct sockaddr_un *sa, socklen_t *len)
{
	size_t plen = strlen(path);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	cr_assert_lt(plen, sizeof(sa->sun_path));
	memcpy(sa->sun_path, path, plen);
	if (path[0] == '@')
		sa->sun_path[0] = '\0';
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen + (path[0] != '@'));
}

/* A squatter: a process of uid 65534 listening where a runtime would
 * send its listener, counting the connections it gets. */
struct squatter {
	pid_t pid;
	int stop; /* write end: closing it ends the squatter */
};

/*
 * Start a squatter as uid 65534 listening (SOCK_STREAM, as crun and runc
 * dial) at path; if link is not NULL, it also plants a symbolic link
 * there to path. Returns once it listens.
 */
static void squatter_start(struct squatter *s, const char *path, const char *link)
{
	int ready[2], stop[2];
	char c;

	cr_assert_eq(pipe2(ready, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(stop, O_CLOEXEC), 0);
	s->pid = fork();
	cr_assert_geq(s->pid, 0);
	if (s->pid == 0) {
		struct pollfd p[2];
		struct sockaddr_un sa;
		socklen_t len;
		int fd, conns = 0;

		close(ready[0]);
		close(stop[1]);
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(120);
		unix_address(path, &sa, &len);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len) || listen(fd, 16))
			_exit(121);
		if (link && symlink(path, link))
			_exit(122);
		if (write(ready[1], "r", 1) != 1)
			_exit(123);
		p[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = stop[0], .events = POLLIN };
		while (poll(p, 2, -1) > 0 && !p[1].revents) {
			int conn = accept(fd, NULL, NULL);

			if (conn >= 0) {
				conns++;
				close(conn);
			}
		}
		_exit(conns ? 100 : 0);
	}
	close(ready[1]);
	close(stop[0]);
	s->stop = stop[1];
	cr_assert_eq(read(ready[0], &c, 1), 1, "the squatter could not listen at %s", path);
	close(ready[0]);
}

/* Stop the squatter; returns how it ended: 0 when nobody connected. */
static int squatter_stop(struct squatter *s)
{
	int st;

	close(s->stop);
	cr_assert_eq(waitpid(s->pid, &st, 0), s->pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(secbpfd_sockets, an_abstract_agent_name_squatted_by_nobody_stops_secbpfd)
{
	char name[128], agent[160];
	struct squatter sq;
	int rc;

	need_root();
	make_counter();
	snprintf(name, sizeof(name), "@secbpf-test-sockets-%d", (int)getpid());
	snprintf(agent, sizeof(agent), "%s.agent", name);
	squatter_start(&sq, agent, NULL);
	/* The agent socket that goes with an abstract client socket. */
	rc = run_secbpfd(name, NULL);
	cr_expect_eq(rc, 2, "secbpfd went on with its agent name squatted (status %d):\n%s", rc,
		     out);
	cr_expect(strstr(out, agent) && strstr(out, "abstract"),
		  "the refusal does not name the abstract agent socket:\n%s", out);
	cr_expect(strstr(out, "--agent-socket PATH"), "no way out is named:\n%s", out);
	/* Or given outright. */
	rc = run_secbpfd(name, agent);
	cr_expect_eq(rc, 2, "secbpfd took --agent-socket %s (status %d):\n%s", agent, rc, out);
	/* And no tool tells a runtime to dial it. */
	rc = test_shell(out, sizeof(out), "'%s' oci annotations -f '%s' --daemon '%s'",
			getenv("SECBPF"), counter, name);
	cr_expect_neq(rc, 0, "oci annotations printed an abstract receiver:\n%s", out);
	cr_expect_null(strstr(out, "receiver=@"), "%s", out);
	cr_expect_eq(squatter_stop(&sq), 0, "the squatter got a connection");
}

/* Set fs.protected_symlinks to 0 for this test (teardown restores it):
 * the kernel's own guard against links in sticky directories, off. */
static void unprotect_symlinks(void)
{
	int fd = open(PROTECTED_SYMLINKS, O_RDWR | O_CLOEXEC);
	ssize_t n;

	cr_assert_geq(fd, 0, "%s: %s", PROTECTED_SYMLINKS, strerror(errno));
	n = read(fd, saved_symlinks, sizeof(saved_symlinks) - 1);
	cr_assert_gt(n, 0);
	saved_symlinks[n] = '\0';
	cr_assert_eq(pwrite(fd, "0", 1, 0), 1, "%s: %s", PROTECTED_SYMLINKS, strerror(errno));
	close(fd);
}

Test(secbpfd_sockets, a_link_planted_in_a_directory_others_can_write_stops_secbpfd)
{
	char sock[4300], agent[4300], evil[4300], why[4400];
	struct squatter sq;
	int rc;

	need_root();
	make_counter();
	unprotect_symlinks();
	snprintf(sock, sizeof(sock), "%s/secbpfd.sock", open_dir);
	snprintf(agent, sizeof(agent), "%s/agent.sock", open_dir);
	snprintf(evil, sizeof(evil), "%s/evil.sock", open_dir);
	squatter_start(&sq, evil, agent);
	snprintf(why, sizeof(why), "%s is writable by others", open_dir);
	rc = run_secbpfd(sock, NULL);
	cr_expect_eq(rc, 2, "secbpfd started in %s (status %d):\n%s", open_dir, rc, out);
	cr_expect(strstr(out, why), "the refusal does not name %s:\n%s", open_dir, out);
	/* The agent socket alone there, the client socket in a safe place. */
	snprintf(sock, sizeof(sock), "%s/secbpfd.sock", safe_dir);
	rc = run_secbpfd(sock, agent);
	cr_expect_eq(rc, 2, "secbpfd took --agent-socket %s (status %d):\n%s", agent, rc, out);
	cr_expect(strstr(out, why), "the refusal does not name %s:\n%s", open_dir, out);
	cr_expect_neq(access(sock, F_OK), 0, "the client socket of a refused start is left");
	rc = test_shell(out, sizeof(out), "'%s' oci annotations -f '%s' --listener '%s'",
			getenv("SECBPF"), counter, agent);
	cr_expect_neq(rc, 0, "oci annotations printed a receiver in %s:\n%s", open_dir, out);
	cr_expect(strstr(out, why), "%s", out);
	cr_expect_eq(squatter_stop(&sq), 0, "the squatter got a connection");
}

Test(secbpfd_sockets, a_socket_secbpfd_cannot_bind_stops_it)
{
	char sock[4300], agent[4300], name[128];
	struct sockaddr_un sa;
	socklen_t len;
	int fd, rc;

	need_root();
	/* Its agent socket's name is taken (here by a plain file). */
	snprintf(sock, sizeof(sock), "%s/secbpfd.sock", safe_dir);
	snprintf(agent, sizeof(agent), "%s/agent.sock", safe_dir);
	write_file(agent, "not a socket\n");
	rc = run_secbpfd(sock, NULL);
	cr_expect_eq(rc, 2, "secbpfd served without its agent socket (status %d):\n%s", rc, out);
	cr_expect(strstr(out, agent) && strstr(out, strerror(EADDRINUSE)),
		  "the failure does not say what could not be bound:\n%s", out);
	cr_expect_neq(access(sock, F_OK), 0, "the client socket of a refused start is left");
	/* Its abstract client socket's name is held by another process. */
	snprintf(name, sizeof(name), "@secbpf-test-sockets-held-%d", (int)getpid());
	unix_address(name, &sa, &len);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, len), 0, "%s", strerror(errno));
	unlink(agent);
	rc = run_secbpfd(name, agent);
	close(fd);
	cr_expect_eq(rc, 2, "secbpfd started on a held name (status %d):\n%s", rc, out);
	cr_expect(strstr(out, name) && strstr(out, "abstract name"), "%s", out);
	/* And a start that works, to show the refusals are about the paths:
	 * both sockets in a directory only root can write. */
	rc = run_secbpfd(sock, NULL);
	cr_expect_eq(rc, -1, "secbpfd did not start in %s (status %d):\n%s", safe_dir, rc, out);
}

/* `secbpf oci annotations|patch` and `export-oci` for count_closes with
 * --listener path: status, output in out. */
static int oci_tool(const char *tool, const char *path)
{
	char config[4300];

	if (!strcmp(tool, "patch")) {
		snprintf(config, sizeof(config), "%s/config.json", dir);
		return test_shell(out, sizeof(out), "'%s' oci patch '%s' -f '%s' --listener '%s'",
				  getenv("SECBPF"), config, counter, path);
	}
	if (!strcmp(tool, "annotations"))
		return test_shell(out, sizeof(out), "'%s' oci annotations -f '%s' --listener '%s'",
				  getenv("SECBPF"), counter, path);
	return test_shell(out, sizeof(out), "'%s' export-oci -f '%s' --listener '%s'",
			  getenv("SECBPF"), counter, path);
}

Test(secbpfd_sockets, oci_tools_print_no_agent_socket_another_user_could_hold)
{
	static const char *const tools[] = { "annotations", "patch", "export-oci" };
	static const char config_text[] = "{\"ociVersion\": \"1.0.2\"}\n";
	char config[4300], in_open[4300], in_safe[4300], in_new[4300], text[256];
	FILE *f;
	size_t i;
	int rc;

	make_counter();
	snprintf(config, sizeof(config), "%s/config.json", dir);
	snprintf(in_open, sizeof(in_open), "%s/agent.sock", open_dir);
	snprintf(in_safe, sizeof(in_safe), "%s/agent.sock", safe_dir);
	/* Not made yet, in a directory only root can write: only root can. */
	snprintf(in_new, sizeof(in_new), "%s/secbpf/agent.sock", safe_dir);
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		write_file(config, config_text);
		rc = oci_tool(tools[i], "@secbpf-agent");
		cr_expect_neq(rc, 0, "%s printed an abstract agent socket:\n%s", tools[i], out);
		cr_expect(strstr(out, "abstract"), "%s: %s", tools[i], out);
		rc = oci_tool(tools[i], in_open);
		cr_expect_neq(rc, 0, "%s printed %s:\n%s", tools[i], in_open, out);
		cr_expect(strstr(out, "writable by others") && strstr(out, open_dir), "%s: %s",
			  tools[i], out);
		rc = oci_tool(tools[i], "agent.sock");
		cr_expect_neq(rc, 0, "%s printed a relative agent socket:\n%s", tools[i], out);
		/* Nothing was written into the bundle's config. */
		f = fopen(config, "r");
		cr_assert_not_null(f);
		cr_assert_not_null(fgets(text, sizeof(text), f));
		fclose(f);
		cr_expect_str_eq(text, config_text, "%s changed the config", tools[i]);
		/* And where only root can write, it is printed. */
		rc = oci_tool(tools[i], in_safe);
		cr_expect_eq(rc, 0, "%s refused %s:\n%s", tools[i], in_safe, out);
		rc = oci_tool(tools[i], in_new);
		cr_expect_eq(rc, 0, "%s refused %s:\n%s", tools[i], in_new, out);
	}
}
