// SPDX-License-Identifier: MIT
/*
 * secbpfd: the service that loads approved programs as root and hands them
 * to other users as handles, then supervises what they attach
 * (docs/secbpfd.md). This file is the command line, the socket and the
 * process settings; lib/service/ is the service.
 *
 *   secbpfd [--foreground] [--config DIR] [--socket PATH] [--agent-socket PATH]
 *           [--policy FILE] [--check]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

/* Internal headers: this is the library's privileged other half, not a
 * client of its API: service/ (config, catalog, serving), supervisor/
 * (process settings of a supervisor). */
#include "options.h"
#include "service/agent_oci.h"
#include "service/catalog.h"
#include "service/config.h"
#include "service/protocol.h"
#include "service/server.h"
#include "service/socket_path.h"
#include "supervisor/supervisor.h"

#define EXIT_REJECTED 1 /* --check: some program is not served */
#define EXIT_USAGE 2	/* usage, configuration or system error */

struct secbpfd_options {
	bool foreground, check;
	const char *config_dir, *socket_path, *policy_path;
	const char *agent_path; /* NULL: agent.sock next to socket_path */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: secbpfd [--foreground] [--config DIR] [--socket PATH]\n"
		"               [--agent-socket PATH] [--policy FILE] [--check]\n"
		"\n"
		"Load the programs DIR/secbpfd.conf approves (DIR/programs.d/NAME.o), verify\n"
		"and compile each once, and serve them on a unix socket: users list what\n"
		"they may use, get a handle, attach it to themselves without privilege,\n"
		"and the service supervises the stateful part (docs/secbpfd.md).\n"
		"\n"
		"  --foreground    do not expect systemd: create the socket even when\n"
		"                  LISTEN_FDS is set (secbpfd never forks)\n"
		"  --config DIR    the configuration directory (default " SVC_DEFAULT_CONFIG ")\n"
		"  --socket PATH   the client socket (default " SVC_DEFAULT_SOCKET ")\n"
		"  --agent-socket PATH  where container runtimes send listeners (root only;\n"
		"                  default: " SVC_AGENT_SOCKET_NAME " next to the client socket;\n"
		"                  docs/containers.md)\n"
		"  --policy FILE   the policy file capping tiers (default "
		"/etc/secbpf/policy.conf)\n"
		"  --check         verify the configuration and every program, print one line\n"
		"                  per program, and exit: 0 if all are served, 1 if not\n"
		"  -V, --version   print the version and exit\n"
		"  -h, --help      show this help\n"
		"\n"
		"SIGHUP rereads DIR and the policy: new requests get the new programs,\n"
		"attachments keep theirs; a configuration with an error changes nothing.\n"
		"\n"
		"Exit status: 0 stopped by SIGTERM or SIGINT (or --check: all good),\n"
		"1 (--check) some program rejected, 2 usage, configuration or system error.\n");
}

static void fail_msg(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_msg(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "secbpfd: %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int parse_options(int argc, char **argv, struct secbpfd_options *o)
{
	static const struct option longopts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "policy", required_argument, NULL, 'p' },
		{ "agent-socket", required_argument, NULL, 'a' },
		{ "check", no_argument, NULL, 'C' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	struct cli_options co;
	int c;

	memset(o, 0, sizeof(*o));
	o->config_dir = SVC_DEFAULT_CONFIG;
	o->socket_path = SVC_DEFAULT_SOCKET;
	cli_options_init(&co, argc, argv, "+V", longopts, usage, NULL);
	co.program = "secbpfd";
	while ((c = cli_options_next(&co)) > 0) {
		switch (c) {
		case 'V':
			/* SECBPF_VERSION: meson's project version, as secbpf's. */
			printf("secbpfd %s\n", SECBPF_VERSION);
			return 1;
		case 'f':
			o->foreground = true;
			break;
		case 'c':
			o->config_dir = optarg;
			break;
		case 's':
			o->socket_path = optarg;
			break;
		case 'p':
			o->policy_path = optarg;
			break;
		case 'a':
			o->agent_path = optarg;
			break;
		case 'C':
			o->check = true;
			break;
		}
	}
	if (c < 0)
		return c == CLI_OPTIONS_HELP ? 1 : -1;
	if (optind != argc) {
		fail_msg("usage", "unexpected argument '%s' (see secbpfd --help)", argv[optind]);
		return -1;
	}
	/* An absent policy file reads as the defaults; one named on purpose
	 * must exist (a typo must not serve at the default tiers). */
	if (o->policy_path && access(o->policy_path, F_OK)) {
		fail_msg("usage", "--policy %s: %s", o->policy_path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Remove a socket of ours left at path by an earlier instance that is
 * gone (nobody answers it); anything else at path (a link, another
 * user's socket) is left for bind to refuse. */
static void remove_stale_socket(const char *path)
{
	struct secbpf_err err;
	struct stat st;
	int fd;

	if (lstat(path, &st) || !S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
		return;
	fd = svc_connect(path, &err);
	if (fd >= 0) {
		close(fd);
		return;
	}
	if (fd == -ECONNREFUSED)
		unlink(path);
}

/* The client socket at path: any local user may connect (what each may
 * do is decided from its SO_PEERCRED), so it is 0666. A filesystem path
 * must be in a directory only we can write (svc_socket_path_trusted); an
 * abstract name anyone may squat, which only keeps us from starting (a
 * squatter's handles are refused: handle_check). */
static int open_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct secbpf_err err;
	size_t plen = strlen(path);
	socklen_t alen;
	int fd;

	if (!plen || plen >= sizeof(sa.sun_path)) {
		fail_msg(path, "not a usable socket path (1 to %zu bytes)",
			 sizeof(sa.sun_path) - 1);
		return -1;
	}
	memcpy(sa.sun_path, path, plen);
	if (!strcmp(path, SVC_DEFAULT_SOCKET))
		mkdir("/run/secbpf", 0755);
	if (path[0] == '@') {
		sa.sun_path[0] = 0;
	} else if (svc_socket_path_trusted(path, geteuid(), &err)) {
		fail_msg("socket", "%s", err.msg);
		return -1;
	} else {
		remove_stale_socket(path);
	}
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen + (path[0] != '@'));
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fail_msg("socket", "%s", strerror(errno));
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sa, alen) || (path[0] != '@' && chmod(path, 0666)) ||
	    listen(fd, 128)) {
		fail_msg(path, "cannot serve it: %s (%s)", strerror(errno),
			 path[0] == '@' ? "another process holds this abstract name: another "
					  "secbpfd, or any user who bound it first"
					: "another secbpfd serving it? else remove it");
		close(fd);
		return -1;
	}
	return fd;
}

/* Undo open_socket when the service cannot start after all. */
static void close_socket(int fd, const char *path)
{
	close(fd);
	if (path[0] != '@')
		unlink(path);
}

/* The sockets systemd passed (secbpfd.socket), or 0 if none; the agent
 * socket (secbpfd-agent.socket, SOCK_STREAM) in *agent_fd if it came. */
static int activated_sockets(int *fds, int max, int *agent_fd)
{
#ifdef HAVE_LIBSYSTEMD
	int n = sd_listen_fds(1), i, k = 0;

	for (i = 0; i < n && k < max; i++)
		if (sd_is_socket_unix(SD_LISTEN_FDS_START + i, SOCK_SEQPACKET, 1, NULL, 0) > 0)
			fds[k++] = SD_LISTEN_FDS_START + i;
		else if (*agent_fd < 0 &&
			 sd_is_socket_unix(SD_LISTEN_FDS_START + i, SOCK_STREAM, 1, NULL, 0) > 0)
			*agent_fd = SD_LISTEN_FDS_START + i;
		else
			fail_msg("socket activation",
				 "fd %d is not a listening unix socket of ours: ignored",
				 SD_LISTEN_FDS_START + i);
	return k;
#else
	(void)agent_fd;
	if (getenv("LISTEN_FDS"))
		fail_msg("socket activation",
			 "this secbpfd was built without libsystemd: LISTEN_FDS ignored");
	return 0;
#endif
}

static void notify_ready(void)
{
#ifdef HAVE_LIBSYSTEMD
	sd_notify(0, "READY=1");
#endif
}

int main(int argc, char **argv)
{
	struct secbpf_err err = { { 0 } };
	struct secbpfd_options o;
	struct svc_config config;
	struct svc_catalog cat;
	struct svc_server srv;
	char agent_path[sizeof(((struct sockaddr_un *)0)->sun_path)] = "";
	int agent_fd = -1;
	bool agent_created = false;
	int fds[SVC_MAX_LISTEN], nfds = 0, rc, rejected;
	bool created = false; /* the socket is ours to remove (not systemd's) */

	rc = parse_options(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : EXIT_USAGE;
	/* Before anything: a client must never ptrace us or read our memory,
	 * and ^Z or a closed log pipe must not stop supervision. */
	if (!o.check && (supervisor_make_undumpable() || supervisor_ignore_stop_signals())) {
		fail_msg("setup", "cannot make the service non-dumpable or ignore stop signals");
		return EXIT_USAGE;
	}
	if (!o.check)
		svc_raise_fd_limit(stderr); /* a pidfd per supervised process */
	rc = svc_config_load(&config, o.config_dir, &err);
	if (rc) {
		fail_msg("config", "%s", err.msg);
		svc_config_free(&config);
		return EXIT_USAGE;
	}
	rejected = svc_catalog_load(&cat, &config, o.policy_path, stderr, &err);
	if (rejected < 0) {
		fail_msg("policy", "%s", err.msg);
		svc_config_free(&config);
		return EXIT_USAGE;
	}
	if (o.check) {
		printf("%zu program%s, %zu served, %d rejected\n", cat.n, cat.n == 1 ? "" : "s",
		       cat.n - (size_t)rejected, rejected);
		rc = rejected ? EXIT_REJECTED : 0;
		goto out;
	}
	/* From here a SIGHUP or SIGTERM waits for the event loop (a reload
	 * as soon as the socket answers must not kill the service). */
	if (svc_block_signals()) {
		fail_msg("setup", "cannot block SIGTERM, SIGINT and SIGHUP: %s", strerror(errno));
		rc = EXIT_USAGE;
		goto out;
	}
	if (!o.foreground)
		nfds = activated_sockets(fds, SVC_MAX_LISTEN, &agent_fd);
	if (nfds == 0) {
		fds[0] = open_socket(o.socket_path);
		if (fds[0] < 0) {
			rc = EXIT_USAGE;
			goto out;
		}
		nfds = 1;
		created = true;
	}
	/* The agent socket: systemd's, or ours (next to a socket of ours, or
	 * --agent-socket). One we should create and cannot (an abstract or
	 * untrusted path, a name already bound) is fatal: root's runtimes
	 * would hand their listeners to whoever holds it. */
	if (agent_fd >= 0) {
		int flags = fcntl(agent_fd, F_GETFL);

		snprintf(agent_path, sizeof(agent_path), "the activated agent socket");
		if (flags < 0 || fcntl(agent_fd, F_SETFL, flags | O_NONBLOCK)) {
			fail_msg("agent socket", "%s: container runtimes are not served",
				 strerror(errno));
			agent_fd = -1;
		}
	} else if (o.agent_path)
		snprintf(agent_path, sizeof(agent_path), "%s", o.agent_path);
	else if (created && svc_agent_socket_for(o.socket_path, agent_path, sizeof(agent_path))) {
		fail_msg(o.socket_path, "too long to put the agent socket next to it: give "
					"--agent-socket PATH");
		close_socket(fds[0], o.socket_path);
		rc = EXIT_USAGE;
		goto out;
	}
	if (agent_fd < 0 && agent_path[0] && (o.agent_path || created)) {
		agent_fd = svc_agent_open(agent_path, &err);
		if (agent_fd < 0) {
			fail_msg("agent socket", "%s%s", err.msg,
				 o.agent_path ? ""
					      : "; it goes next to --socket unless --agent-socket "
						"PATH says where");
			if (created)
				close_socket(fds[0], o.socket_path);
			rc = EXIT_USAGE;
			goto out;
		}
		agent_created = true;
	}
	memset(&srv, 0, sizeof(srv));
	srv.has_agent = agent_fd >= 0;
	srv.agent_ep.fd = agent_fd;
	srv.cat = &cat;
	srv.config_dir = o.config_dir; /* reread on SIGHUP */
	srv.policy_path = o.policy_path;
	srv.log = stderr;
	setvbuf(stderr, NULL, _IOLBF, 0);
	fprintf(stderr, "secbpfd: serving %zu program%s on %s, runtimes on %s\n",
		cat.n - (size_t)rejected, cat.n - (size_t)rejected == 1 ? "" : "s",
		nfds == 1 && o.foreground ? o.socket_path : "the activated sockets",
		srv.has_agent ? agent_path : "(none)");
	notify_ready();
	rc = svc_serve(&srv, fds, (size_t)nfds) ? EXIT_USAGE : 0;
	if (created && o.socket_path[0] != '@')
		unlink(o.socket_path);
	if (agent_created && agent_path[0] != '@')
		unlink(agent_path);
	if (srv.attachments) {
		/* Their supervisors are threads of this process: the filtered
		 * processes fail closed (ENOSYS) as we exit. */
		fprintf(stderr,
			"secbpfd: %zu supervised filter%s left: their processes now get ENOSYS "
			"for what the service decided\n",
			srv.nattachments, srv.nattachments == 1 ? "" : "s");
		fflush(stderr);
		_exit(rc);
	}
out:
	svc_catalog_free(&cat);
	svc_config_free(&config);
	return rc;
}
