// SPDX-License-Identifier: MIT
/*
 * An example user agent for `secbpf run --agent SOCKET` (docs/agent.md).
 * A filter returns SECCOMP_RET_USER_NOTIF for the syscalls it wants a
 * program outside the filtered tree to decide; secbpf's supervisor sends
 * each one here, and this agent answers by the syscall's name from rules
 * on its command line, and EPERM to anything else:
 *
 *   agent_example SOCKET [--max N] RULE...
 *   RULE: NAME=continue | NAME=errno:N | NAME=val:N   (NAME or a number)
 *
 * `continue` lets the syscall run; `errno:N` fails it with errno N;
 * `val:N` skips it and makes it return N. The socket appears (atomically)
 * once the agent listens, so a script can wait for it; the agent serves
 * one supervisor and exits when it goes, or after N answers with --max (a
 * way to see what an agent's death does: ENOSYS from then on).
 *
 * An agent decides what filtered processes may do: it makes itself
 * non-dumpable, so that a filtered process of the same user cannot ptrace
 * it into answering `continue`.
 */
#include <errno.h>
#include <limits.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <secbpf/agent.h>

#define MAX_RULES 64

enum verdict { V_CONTINUE, V_ERRNO, V_VAL };

struct rule {
	int nr;
	enum verdict verdict;
	long long n;
};

static void usage(void)
{
	fprintf(stderr, "usage: agent_example SOCKET [--max N] RULE...\n"
			"  RULE: NAME=continue | NAME=errno:N | NAME=val:N\n");
	exit(2);
}

static void die(const char *what)
{
	fprintf(stderr, "agent_example: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* NAME=VERDICT, NAME a syscall name of the native arch or a number. */
static int parse_rule(const char *arg, struct rule *r)
{
	char name[64], *end;
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name))
		return -1;
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	r->nr = (int)strtol(name, &end, 10);
	if (*end) {
		r->nr = seccomp_syscall_resolve_name(name);
		if (r->nr == __NR_SCMP_ERROR)
			return -1;
	}
	eq++;
	if (!strcmp(eq, "continue")) {
		r->verdict = V_CONTINUE;
		return 0;
	}
	if (!strncmp(eq, "errno:", 6)) {
		r->verdict = V_ERRNO;
		r->n = strtoll(eq + 6, &end, 0);
		return *end || r->n < 1 || r->n > 4095 ? -1 : 0;
	}
	if (!strncmp(eq, "val:", 4)) {
		r->verdict = V_VAL;
		r->n = strtoll(eq + 4, &end, 0);
		return *end ? -1 : 0;
	}
	return -1;
}

/* Listen on path; the name appears only once listen() has been called. */
static int listen_on(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) + 5 >= sizeof(addr.sun_path)) {
		errno = ENAMETOOLONG;
		die(path);
	}
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s.new", path);
	unlink(addr.sun_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket");
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 1))
		die(addr.sun_path);
	if (rename(addr.sun_path, path))
		die(path);
	return fd;
}

int main(int argc, char **argv)
{
	struct rule rules[MAX_RULES];
	struct secbpf_agent_request q;
	struct secbpf_agent_reply a;
	uint32_t native = seccomp_arch_native();
	long max = LONG_MAX, answered = 0;
	int nrules = 0, i, lfd, fd;
	const char *path;
	ssize_t n;

	if (argc < 2)
		usage();
	path = argv[1];
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--max") && i + 1 < argc) {
			max = atol(argv[++i]);
			continue;
		}
		if (nrules == MAX_RULES || parse_rule(argv[i], &rules[nrules]))
			usage();
		nrules++;
	}
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		die("prctl(PR_SET_DUMPABLE)");

	lfd = listen_on(path);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		die("accept");
	close(lfd);
	unlink(path); /* one supervisor only */

	while (answered < max) {
		/* One request per packet, exactly its size (one byte more
		 * would show a longer one). */
		n = recv(fd, &q, sizeof(q), MSG_TRUNC);
		if (n == 0)
			return 0; /* the supervisor is done */
		if (n < 0)
			die("recv");
		if (n != (ssize_t)sizeof(q) || q.hdr.magic != SECBPF_AGENT_MAGIC ||
		    q.hdr.version != SECBPF_AGENT_VERSION || q.hdr.size != sizeof(q) ||
		    q.hdr.type != SECBPF_AGENT_REQUEST) {
			fprintf(stderr, "agent_example: not a version %d request\n",
				SECBPF_AGENT_VERSION);
			return 1;
		}

		memset(&a, 0, sizeof(a));
		a.hdr.magic = SECBPF_AGENT_MAGIC;
		a.hdr.version = SECBPF_AGENT_VERSION;
		a.hdr.size = sizeof(a);
		a.hdr.type = SECBPF_AGENT_REPLY;
		a.id = q.id;
		a.error = -EPERM; /* anything without a rule */
		for (i = 0; q.data.arch == native && i < nrules; i++) {
			if (rules[i].nr != q.data.nr)
				continue;
			a.error = 0;
			if (rules[i].verdict == V_CONTINUE)
				a.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
			else if (rules[i].verdict == V_ERRNO)
				a.error = -(int)rules[i].n;
			else
				a.val = rules[i].n;
			break;
		}
		fprintf(stderr, "agent_example: pid %u (tgid %u) syscall %d: %s %lld\n", q.pid,
			q.tgid, q.data.nr,
			a.flags	  ? "continue"
			: a.error ? "errno"
				  : "val",
			a.flags	  ? 0
			: a.error ? (long long)-a.error
				  : (long long)a.val);
		if (send(fd, &a, sizeof(a), MSG_NOSIGNAL) != (ssize_t)sizeof(a))
			die("send");
		answered++;
	}
	return 0;
}
