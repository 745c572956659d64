// SPDX-License-Identifier: MIT
/*
 * The control socket every supervisor serves (docs/introspection.md): an
 * abstract SOCK_SEQPACKET socket speaking lib/service/protocol.h, for
 * `secbpf ps`, `map dump` and `dump -o`. One thread serves it, one client
 * at a time; it takes no lock a worker takes, so notifications never wait
 * for it. Who may ask (seed 002's rule): the owner of the supervised
 * processes or a holder of CAP_SYS_ADMIN in the initial user namespace,
 * and never a process under seccomp.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/pidfd.h"
#include "common/proc_status.h"
#include "service/protocol.h"
#include "supervisor/supervisor_internal.h"

#define CAP_SYS_ADMIN_BIT 21
/* How long a connected client may stay silent before it is dropped. */
#define CONTROL_IDLE_MS 2000
/* How long a refused client may take to send the request it is refused. */
#define CONTROL_REFUSED_MS 250

const char *supervisor_control_name(const struct supervisor *sv)
{
	return sv->control.started ? sv->control.name : NULL;
}

/* The real uid of process pid, or -1. */
static uid_t process_uid(pid_t pid)
{
	char path[64], buf[PROC_STATUS_SIZE];
	uint64_t ids[1];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (proc_status_read(AT_FDCWD, path, buf, sizeof(buf)) < 0 ||
	    proc_status_numbers(buf, "Uid", 10, UINT32_MAX, ids, 1))
		return (uid_t)-1;
	return (uid_t)ids[0];
}

void supervisor_control_init(struct supervisor *sv, const struct supervisor_opts *opts)
{
	struct supervisor_control *c = &sv->control;
	const char *kind = program_invocation_short_name;

	c->listen_fd = -1;
	c->stop_fd = -1;
	c->owner = geteuid();
	if (opts &&
	    opts->sz >= offsetof(struct supervisor_opts, target_pid) + sizeof(opts->target_pid)) {
		if (opts->kind)
			kind = opts->kind;
		if (opts->target_pid > 0) {
			c->target_pid = opts->target_pid;
			c->owner = process_uid(opts->target_pid);
		}
	}
	snprintf(c->kind, sizeof(c->kind), "%s", kind);
}

/* Bind and listen on a fresh abstract name. Returns the fd or -errno. */
static int control_listen(struct supervisor_control *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint64_t tag;
	socklen_t alen;
	size_t len;
	int fd;

	if (getrandom(&tag, sizeof(tag), 0) != sizeof(tag))
		return -EIO;
	snprintf(c->name, sizeof(c->name), SVC_CTL_PREFIX "%d/%016" PRIx64, (int)getpid(), tag);
	len = strlen(c->name);
	memcpy(sa.sun_path, c->name, len);
	sa.sun_path[0] = '\0';
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, alen) || listen(fd, 16)) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* Boot time in clock ticks, the unit of /proc/PID/stat's starttime. */
static uint64_t boot_ticks_now(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * (uint64_t)hz +
	       (uint64_t)ts.tv_nsec / (1000000000ull / (uint64_t)hz) + 1;
}

/* Field 22 of dirfd's stat (the process start, in ticks), or 0. */
static uint64_t process_start_ticks(int dirfd)
{
	char buf[1024];
	const char *p;
	ssize_t n;
	int fd, field;

	fd = openat(dirfd, "stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The name (field 2) may hold anything but ends at the last ')'. */
	p = strrchr(buf, ')');
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* Whether dirfd's process has the whole uid range mapped to itself: the
 * initial user namespace, as /proc shows it to us. */
static bool in_initial_userns(int dirfd)
{
	char buf[256];
	unsigned long inside, outside, count;
	ssize_t n;
	int fd = openat(dirfd, "uid_map", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu %lu", &inside, &outside, &count) != 3)
		return false;
	/* One line only: another would be a second extent. */
	if (strchr(buf, '\n') != buf + n - 1)
		return false;
	return inside == 0 && outside == 0 && count == 4294967295ul;
}

/* Whether dirfd's process is under seccomp ("Seccomp:" not 0). Any doubt
 * (an unreadable status, a dead process) says it is. */
static bool peer_under_seccomp(int dirfd)
{
	char buf[PROC_STATUS_SIZE];
	uint64_t mode;

	if (proc_status_read(dirfd, "status", buf, sizeof(buf)) < 0 ||
	    proc_status_u64(buf, "Seccomp", 10, &mode))
		return true;
	return mode != 0;
}

/*
 * Open the /proc directory of the process that connected conn (pid, from
 * SO_PEERCRED) into *dirfd, or return false if that process is gone.
 * SO_PEERPIDFD (Linux 6.5+) names the very process that called connect:
 * once /proc/PID is open, its pidfd still alive proves the directory is
 * that process's, however long the connection waited in the backlog.
 * Before 6.5, the pidfd names whoever has the pid now, and only a process
 * started after accepted_at is told apart from the caller: a pid reused
 * while the connection waited in the backlog passes (docs/threat-model.md).
 */
static bool open_peer_dir(int conn, pid_t pid, uint64_t accepted_at, int *dirfd)
{
	char path[64];
	bool exact;
	int pidfd;

	pidfd = pidfd_of_peer(conn, pid, &exact);
	if (pidfd < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	*dirfd = open(path, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (*dirfd >= 0 && pidfd_alive(pidfd) &&
	    (exact || process_start_ticks(*dirfd) <= accepted_at)) {
		close(pidfd);
		return true;
	}
	close(pidfd);
	if (*dirfd >= 0)
		close(*dirfd);
	*dirfd = -1;
	return false;
}

/*
 * Decide whether the peer of conn may ask us anything: opens its /proc
 * directory into *dirfd (kept to re-check seccomp on every request).
 * Returns 0, or a positive errno with why[] set.
 */
static int control_check_peer(const struct supervisor *sv, int conn, uint64_t accepted_at,
			      int *dirfd, char *why, size_t n)
{
	char buf[PROC_STATUS_SIZE];
	struct ucred uc;
	socklen_t len = sizeof(uc);
	uint64_t cap[1];

	*dirfd = -1;
	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &uc, &len) || uc.pid <= 0) {
		snprintf(why, n, "cannot identify the caller (SO_PEERCRED)");
		return EACCES;
	}
	if (!open_peer_dir(conn, uc.pid, accepted_at, dirfd)) {
		snprintf(why, n, "the caller (pid %d) is gone", (int)uc.pid);
		return EACCES;
	}
	if (peer_under_seccomp(*dirfd)) {
		snprintf(why, n,
			 "the caller (pid %d) runs under seccomp: a filtered process may not "
			 "inspect filters (seed 002)",
			 (int)uc.pid);
		return EPERM;
	}
	if (uc.uid == sv->control.owner)
		return 0;
	if (proc_status_read(*dirfd, "status", buf, sizeof(buf)) >= 0 &&
	    !proc_status_numbers(buf, "CapEff", 16, UINT64_MAX, cap, 1) &&
	    (cap[0] >> CAP_SYS_ADMIN_BIT & 1) && in_initial_userns(*dirfd))
		return 0;
	snprintf(why, n,
		 "uid %u may not inspect processes of uid %u: it needs to be their owner or "
		 "to have CAP_SYS_ADMIN",
		 (unsigned)uc.uid, (unsigned)sv->control.owner);
	return EACCES;
}

/* Send buf[0..len-1] as SVC_REP_TEXT if it fits, else SVC_REP_DATA. */
static int reply_text_or_data(int conn, const char *buf, size_t len, bool force_data)
{
	struct secbpf_err err;
	int fd, rc;

	if (!force_data && len <= SVC_MAX_PAYLOAD)
		return svc_send(conn, SVC_REP_TEXT, buf, len, -1, &err);
	fd = svc_memfd_sealed("secbpf-control", buf, len ? len : 1, &err);
	if (fd < 0)
		return svc_send_error(conn, -fd, &err, "%s", err.msg);
	rc = svc_send(conn, SVC_REP_DATA, NULL, 0, fd, &err);
	close(fd);
	return rc;
}

/* Answer one valid request. Returns what svc_send returned. */
static int control_answer(struct supervisor *sv, int conn, const struct svc_msg *m)
{
	char msg[SECBPF_ERR_MAX];
	struct secbpf_err err;
	char *json = NULL;
	uint8_t *buf = NULL;
	size_t len = 0;
	const char *map;
	int rc;

	if (m->fd >= 0 || (m->hdr.type != SVC_REQ_CTL_MAP_DUMP && m->hdr.len))
		return svc_send_error(conn, EINVAL, &err, "this request takes no payload or fd");
	switch (m->hdr.type) {
	case SVC_REQ_CTL_INFO:
		rc = supervisor_control_info(sv, &json, msg, sizeof(msg));
		if (rc)
			return svc_send_error(conn, -rc, &err, "%s", msg);
		rc = reply_text_or_data(conn, json, strlen(json), false);
		free(json);
		return rc;
	case SVC_REQ_CTL_MAP_DUMP:
		/* "PROG\0MAP": svc_recv ended the payload with a NUL. */
		map = memchr(m->payload, '\0', m->hdr.len);
		if (!map || map + 1 >= m->payload + m->hdr.len)
			return svc_send_error(conn, EINVAL, &err,
					      "a map dump request is \"PROG\\0MAP\"");
		map++;
		rc = supervisor_control_map_dump(sv, m->payload, map, &json, msg, sizeof(msg));
		if (rc)
			return svc_send_error(conn, -rc, &err, "%s", msg);
		rc = reply_text_or_data(conn, json, strlen(json), true);
		free(json);
		return rc;
	case SVC_REQ_CTL_CHECKPOINT:
		rc = supervisor_checkpoint(sv, &buf, &len, msg, sizeof(msg));
		if (rc)
			return svc_send_error(conn, -rc, &err, "%s", msg);
		rc = reply_text_or_data(conn, (const char *)buf, len, true);
		free(buf);
		return rc;
	default:
		return svc_send_error(conn, EBADRQC, &err,
				      "request %u is not one a supervisor's control socket "
				      "answers",
				      m->hdr.type);
	}
}

/* Wait until conn is readable (1), stop was asked (0) or the client
 * stayed silent for ms (-1). */
static int wait_request(const struct supervisor *sv, int conn, int ms)
{
	struct pollfd p[2] = {
		{ .fd = conn, .events = POLLIN },
		{ .fd = sv->control.stop_fd, .events = POLLIN },
	};
	int n;

	do
		n = poll(p, 2, ms);
	while (n < 0 && errno == EINTR);
	if (n <= 0 || (p[1].revents & POLLIN))
		return n == 0 ? -1 : 0;
	return 1;
}

/* Serve one client until it closes, goes silent, or we stop. */
static void control_serve(struct supervisor *sv, int conn, uint64_t accepted_at)
{
	struct timeval tv = { .tv_sec = CONTROL_IDLE_MS / 1000 };
	struct svc_msg *m = malloc(sizeof(*m));
	struct secbpf_err err;
	char why[256];
	int dirfd, rc;

	/* A client that does not read its replies must not hold us. */
	setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	rc = control_check_peer(sv, conn, accepted_at, &dirfd, why, sizeof(why));
	if (rc || !m) {
		/* Say why at once, then take its first request if it comes
		 * soon: closing with a request unread would reset the
		 * connection before the client reads why. A refused client
		 * holds us for CONTROL_REFUSED_MS at most. */
		svc_send_error(conn, m ? rc : ENOMEM, &err, "%s", m ? why : "out of memory");
		if (m && wait_request(sv, conn, CONTROL_REFUSED_MS) > 0 &&
		    svc_recv(conn, m, &err) == 0 && m->fd >= 0)
			close(m->fd);
		goto out;
	}
	while (wait_request(sv, conn, CONTROL_IDLE_MS) > 0) {
		rc = svc_recv(conn, m, &err);
		if (rc == -ECONNRESET || rc == -EAGAIN || rc == -ECONNREFUSED)
			break;
		if (rc) {
			/* Malformed: say so and keep serving this client. */
			if (svc_send_error(conn, -rc, &err, "%s", err.msg))
				break;
			continue;
		}
		/* The caller may have entered seccomp since it connected. */
		if (peer_under_seccomp(dirfd)) {
			if (m->fd >= 0)
				close(m->fd);
			svc_send_error(conn, EPERM, &err,
				       "the caller runs under seccomp: a filtered process may not "
				       "inspect filters (seed 002)");
			break;
		}
		rc = control_answer(sv, conn, m);
		if (m->fd >= 0)
			close(m->fd);
		if (rc)
			break;
	}
out:
	if (dirfd >= 0)
		close(dirfd);
	free(m);
	close(conn);
}

static void *control_main(void *arg)
{
	struct supervisor *sv = arg;
	struct pollfd p[2] = {
		{ .fd = sv->control.listen_fd, .events = POLLIN },
		{ .fd = sv->control.stop_fd, .events = POLLIN },
	};
	int conn;

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents & POLLIN)
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		conn = accept4(sv->control.listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (conn < 0)
			continue;
		control_serve(sv, conn, boot_ticks_now());
	}
	return NULL;
}

void supervisor_control_start(struct supervisor *sv)
{
	struct supervisor_control *c = &sv->control;
	int rc;

	c->started_at = (uint64_t)time(NULL);
	c->stop_fd = eventfd(0, EFD_CLOEXEC);
	rc = c->stop_fd < 0 ? -errno : control_listen(c);
	if (rc >= 0) {
		c->listen_fd = rc;
		rc = -pthread_create(&c->thread, NULL, control_main, sv);
	}
	if (rc < 0) {
		supervisor_log(sv, "no control socket (secbpf ps and dump will not see us): %s",
			       strerror(-rc));
		return;
	}
	c->started = true;
}

void supervisor_control_stop(struct supervisor *sv)
{
	struct supervisor_control *c = &sv->control;
	uint64_t one = 1;

	if (c->started) {
		if (write(c->stop_fd, &one, sizeof(one)) == sizeof(one))
			pthread_join(c->thread, NULL);
		c->started = false;
	}
	if (c->listen_fd >= 0)
		close(c->listen_fd);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	c->listen_fd = -1;
	c->stop_fd = -1;
}
