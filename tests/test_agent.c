// SPDX-License-Identifier: MIT
/*
 * The user agent (docs/agent.md; lib/supervisor/agent.c, `secbpf run --agent`):
 * real processes under filters that return SECCOMP_RET_USER_NOTIF, with
 * samples/agent_example.c answering; without an agent; with an agent that
 * dies part-way; and with fake agents that answer wrongly or not at all,
 * which must all end in ENOSYS, never in the syscall running.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <secbpf/agent.h>

#include "common.h"

static char out[65536];
static char dir[4096]; /* this test's scratch directory */
static char sock[4200];

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-agent");
	snprintf(sock, sizeof(sock), "%s/agent.sock", dir);
	cr_assert_not_null(getenv("SECBPF_AGENT_EXAMPLE"), "run the tests with meson test");
	cr_assert_not_null(getenv("SECBPF_NOTIFY_PROBE"), "run the tests with meson test");
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(agent, .init = setup, .fini = teardown);

/* Run a shell command (printf-style) in the scratch directory, stderr
 * merged into stdout (kept in out); returns the exit status or -1. */
#define shell(fmt, ...) test_shell(out, sizeof(out), "cd '%s' && " fmt, dir, ##__VA_ARGS__)

/*
 * Compile a filter sending getppid, getpgid and getsid to the agent with
 * USER_NOTIF. stateful: it also counts them in a map, so it is supervised
 * with or without an agent; otherwise only --agent makes it supervised.
 */
static const char *notify_filter(bool stateful)
{
	static char path[4200];
	char src[4200];
	FILE *f;

	snprintf(src, sizeof(src), "%s/%s.c", dir, stateful ? "stateful" : "stateless");
	snprintf(path, sizeof(path), "%s/%s.o", dir, stateful ? "stateful" : "stateless");
	f = fopen(src, "w");
	cr_assert_not_null(f);
	fprintf(f, "#include <secbpf/filter.h>\n"
		   "struct {\n"
		   "	__uint(type, BPF_MAP_TYPE_ARRAY);\n"
		   "	__uint(max_entries, 1);\n"
		   "	__type(key, __u32);\n"
		   "	__type(value, __u64);\n"
		   "} seen SEC(\".maps\");\n"
		   "SEC(\"seccomp\")\n"
		   "int to_agent(struct seccomp_data *ctx)\n"
		   "{\n"
		   "	__u32 k = 0;\n"
		   "	__u64 *n;\n"
		   "	if (ctx->nr != __NR_getppid && ctx->nr != __NR_getpgid &&\n"
		   "	    ctx->nr != __NR_getsid)\n"
		   "		return SECCOMP_RET_ALLOW;\n");
	if (stateful)
		fprintf(f, "	n = bpf_map_lookup_elem(&seen, &k);\n"
			   "	if (n)\n"
			   "		__sync_fetch_and_add(n, 1);\n");
	fprintf(f, "	return SECCOMP_RET_USER_NOTIF | 7;\n"
		   "}\n"
		   "char _license[] SEC(\"license\") = \"GPL\";\n");
	fclose(f);
	cr_assert_eq(shell("ASAN_OPTIONS=detect_leaks=0 '%s' cc '%s' -o '%s'", getenv("SECBPF"),
			   src, path),
		     0, "%s", out);
	return path;
}

static bool socket_exists(void *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Start the example agent with args in the background; wait for its
 * socket (it appears once the agent listens). */
static void start_example_agent(const char *args)
{
	cr_assert_eq(
		shell("'%s' '%s' %s >agent.log 2>&1 &", getenv("SECBPF_AGENT_EXAMPLE"), sock, args),
		0);
	cr_assert(test_wait_for(socket_exists, (void *)sock, 10000), "the agent did not start");
}

/* `secbpf run [--agent SOCK] -f OBJ -- notify_probe call NR...`. */
static int run_probe(const char *obj, bool agent, const char *nrs)
{
	char agent_opt[4300] = "";

	if (agent)
		snprintf(agent_opt, sizeof(agent_opt), "--agent '%s'", sock);
	return shell("ASAN_OPTIONS=detect_leaks=0 '%s' run %s -f '%s' -- '%s' call %s",
		     getenv("SECBPF"), agent_opt, obj, getenv("SECBPF_NOTIFY_PROBE"), nrs);
}

/* The "NR=RC/ERRNO" line the probe printed for the i-th call (0-based). */
static void call_result(int i, long nr, long *rc, int *err)
{
	char want[32];
	const char *p = out;
	int k;

	snprintf(want, sizeof(want), "%ld=", nr);
	for (k = 0;; k++) {
		p = strstr(p, want);
		cr_assert_not_null(p, "call %d of %ld not in: %s", i, nr, out);
		if ((p == out || p[-1] == '\n') && k == i)
			break;
		if (p != out && p[-1] != '\n')
			k--;
		p++;
	}
	cr_assert_eq(sscanf(p + strlen(want), "%ld/%d", rc, err), 2, "%s", out);
}

Test(agent, answers_continue_errno_and_val_for_a_stateless_filter)
{
	const char *obj = notify_filter(false);
	long rc;
	int e;

	start_example_agent("getppid=continue getpgid=val:4242 getsid=errno:13");
	cr_assert_eq(run_probe(obj, true, "110 121 124"), 0, "%s", out);
	call_result(0, __NR_getppid, &rc, &e);
	cr_expect(rc > 1 && e == 0, "getppid ran: %s", out);
	call_result(0, __NR_getpgid, &rc, &e);
	cr_expect(rc == 4242 && e == 0, "getpgid returned the agent's value: %s", out);
	call_result(0, __NR_getsid, &rc, &e);
	cr_expect(rc == -1 && e == EACCES, "getsid failed with the agent's errno: %s", out);
}

Test(agent, without_an_agent_user_notif_is_enosys)
{
	const char *obj = notify_filter(true);
	long rc;
	int e;

	cr_assert_eq(run_probe(obj, false, "121 110"), 0, "%s", out);
	call_result(0, __NR_getpgid, &rc, &e);
	cr_expect(rc == -1 && e == ENOSYS, "%s", out);
	call_result(0, __NR_getppid, &rc, &e);
	cr_expect(rc == -1 && e == ENOSYS, "%s", out);
}

Test(agent, an_agent_that_dies_leaves_enosys)
{
	const char *obj = notify_filter(true);
	long rc;
	int e;

	/* One answer, then the agent exits. */
	start_example_agent("--max 1 getpgid=val:4242 getppid=continue");
	cr_assert_eq(run_probe(obj, true, "121 121 110"), 0, "%s", out);
	call_result(0, __NR_getpgid, &rc, &e);
	cr_expect(rc == 4242 && e == 0, "%s", out);
	call_result(1, __NR_getpgid, &rc, &e);
	cr_expect(rc == -1 && e == ENOSYS, "%s", out);
	call_result(0, __NR_getppid, &rc, &e);
	cr_expect(rc == -1 && e == ENOSYS, "never CONTINUE once the agent is gone: %s", out);
	cr_expect_not_null(strstr(out, "user agent"), "the supervisor says why: %s", out);
}

Test(agent, run_fails_before_the_command_when_the_agent_is_absent)
{
	const char *obj = notify_filter(true);

	cr_expect_eq(run_probe(obj, true, "110"), 125, "%s", out);
	cr_expect_null(strstr(out, "110="), "the command never ran: %s", out);
	cr_expect_not_null(strstr(out, "--agent"), "%s", out);
}

/* How a fake agent answers the first request. */
enum fake {
	FAKE_WRONG_ID,
	FAKE_CONTINUE_WITH_ERROR,
	FAKE_ERROR_OUT_OF_RANGE,
	FAKE_POSITIVE_ERROR,
	FAKE_UNKNOWN_FLAGS,
	FAKE_SHORT,
	FAKE_LONG,
	FAKE_BAD_MAGIC,
	FAKE_BAD_VERSION,
	FAKE_SILENT, /* never answers: the supervisor's timeout */
	FAKE_COUNT,
};

/* A fake agent in a child process: listen on sock, answer the first
 * request as mode says (always asking to CONTINUE, or to return 0, so
 * that only ENOSYS shows the supervisor refused it), then answer later
 * requests with CONTINUE until the connection ends. */
static pid_t start_fake_agent(enum fake mode)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct secbpf_agent_request q;
	struct secbpf_agent_reply a;
	char buf[sizeof(a) + 8];
	int lfd, fd, first = 1;
	size_t len;
	pid_t pid;

	cr_assert_lt(strlen(sock), sizeof(addr.sun_path));
	memcpy(addr.sun_path, sock, strlen(sock) + 1);
	unlink(sock);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	cr_assert_geq(lfd, 0);
	cr_assert_eq(bind(lfd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	cr_assert_eq(listen(lfd, 1), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid > 0) {
		close(lfd);
		return pid;
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		_exit(1);
	while (recv(fd, &q, sizeof(q), 0) == (ssize_t)sizeof(q)) {
		memset(&a, 0, sizeof(a));
		a.hdr.magic = SECBPF_AGENT_MAGIC;
		a.hdr.version = SECBPF_AGENT_VERSION;
		a.hdr.size = sizeof(a);
		a.hdr.type = SECBPF_AGENT_REPLY;
		a.id = q.id;
		a.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		len = sizeof(a);
		if (first) {
			switch (mode) {
			case FAKE_WRONG_ID:
				a.id++;
				break;
			case FAKE_CONTINUE_WITH_ERROR:
				a.error = -1;
				break;
			case FAKE_ERROR_OUT_OF_RANGE:
				a.flags = 0;
				a.error = -4096;
				break;
			case FAKE_POSITIVE_ERROR:
				a.flags = 0;
				a.error = 1;
				break;
			case FAKE_UNKNOWN_FLAGS:
				a.flags = 3;
				break;
			case FAKE_SHORT:
				len = sizeof(a) - 4;
				break;
			case FAKE_LONG:
				len = sizeof(a) + 8;
				break;
			case FAKE_BAD_MAGIC:
				a.hdr.magic ^= 1;
				break;
			case FAKE_BAD_VERSION:
				a.hdr.version = 2;
				break;
			case FAKE_SILENT:
				pause();
				break;
			default:
				break;
			}
		}
		first = 0;
		memset(buf, 0, sizeof(buf));
		memcpy(buf, &a, sizeof(a));
		if (send(fd, buf, len, MSG_NOSIGNAL) < 0)
			break;
	}
	_exit(0);
}

Test(agent, malformed_or_missing_replies_give_enosys_never_continue, .timeout = 300)
{
	const char *obj = notify_filter(true);
	long rc;
	int e, mode, st;
	pid_t pid;

	for (mode = 0; mode < FAKE_COUNT; mode++) {
		pid = start_fake_agent((enum fake)mode);
		cr_assert_eq(run_probe(obj, true, "110 110"), 0, "mode %d: %s", mode, out);
		call_result(0, __NR_getppid, &rc, &e);
		cr_expect(rc == -1 && e == ENOSYS, "mode %d, first call: %s", mode, out);
		/* The agent is dropped: later calls fail too, although this
		 * one would now say CONTINUE. */
		call_result(1, __NR_getppid, &rc, &e);
		cr_expect(rc == -1 && e == ENOSYS, "mode %d, second call: %s", mode, out);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
}
