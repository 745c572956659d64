// SPDX-License-Identifier: MIT
/*
 * Asking the supervisors (ctl_client.h): their control sockets are found
 * in /proc/net/unix by name, and an answer is believed only from the
 * process the name says (SO_PEERCRED), so nobody can pose as a supervisor
 * by binding a name first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "common/proc_status.h"
#include "ctl_client.h"

/* __SO_ACCEPTCON in /proc/net/unix's flags: a listening socket. */
#define UNIX_FLAG_LISTENING 0x10000
#define MAX_SUPERVISORS 4096
/* How long to wait for a supervisor's answer (a checkpoint of large maps
 * takes a while; a supervisor serving someone else may not answer). */
#define CTL_TIMEOUT_S 10

/* The pid in "@secbpf/ctl/PID/TAG", or 0. */
static pid_t name_pid(const char *name)
{
	const char *p = name + strlen(SVC_CTL_PREFIX);
	char *end;
	long v;

	if (strncmp(name, SVC_CTL_PREFIX, strlen(SVC_CTL_PREFIX)))
		return 0;
	v = strtol(p, &end, 10);
	if (end == p || *end != '/' || v <= 0 || v > 0x3fffffff)
		return 0;
	return (pid_t)v;
}

int ctl_connect(const struct ctl_supervisor *s, struct secbpf_err *err)
{
	struct timeval timeout = { .tv_sec = CTL_TIMEOUT_S };
	struct ucred uc;
	socklen_t len = sizeof(uc);
	int fd = svc_connect(s->name, err);

	if (fd < 0)
		return fd;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) || uc.pid != s->pid) {
		close(fd);
		return err_set(err, EACCES, "%s is not served by process %d: ignored", s->name,
			       (int)s->pid);
	}
	/* A supervisor busy with another client (it serves one at a time)
	 * must not hang ps: give up on it after a while. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
	return fd;
}

int ctl_request(const struct ctl_supervisor *s, uint16_t type, const void *payload, size_t plen,
		char **data, size_t *len, struct secbpf_err *err)
{
	struct svc_msg *m = malloc(sizeof(*m));
	void *map = NULL;
	size_t mlen = 0;
	int fd, rc, error;

	*data = NULL;
	if (!m)
		return err_set(err, ENOMEM, "out of memory");
	fd = ctl_connect(s, err);
	if (fd < 0) {
		free(m);
		return fd;
	}
	rc = svc_call(fd, type, payload, plen, -1, m, err);
	close(fd);
	if (rc)
		goto out;
	if (m->hdr.type == SVC_REP_TEXT) {
		*len = m->hdr.len;
		*data = malloc(*len + 1);
		if (*data)
			memcpy(*data, m->payload, *len + 1);
	} else if (m->hdr.type == SVC_REP_DATA && m->fd >= 0) {
		map = svc_memfd_map(m->fd, SVC_CTL_MAX_DATA, &mlen, &error, err);
		if (!map) {
			rc = error;
			goto out;
		}
		*data = malloc(mlen + 1);
		if (*data) {
			memcpy(*data, map, mlen);
			(*data)[mlen] = '\0';
			*len = mlen;
		}
		munmap(map, mlen);
	} else {
		rc = err_set(err, EPROTO, "%s: unexpected reply %u", s->name, m->hdr.type);
		goto out;
	}
	if (!*data)
		rc = err_set(err, ENOMEM, "out of memory");
out:
	if (m->fd >= 0)
		close(m->fd);
	free(m);
	return rc;
}

/* Ask s for its info into s->info, or note why not. */
static void ask_info(struct ctl_supervisor *s)
{
	struct secbpf_err err = { { 0 } };
	char *text;
	size_t len;
	int rc;

	rc = ctl_request(s, SVC_REQ_CTL_INFO, NULL, 0, &text, &len, &err);
	if (!rc) {
		s->info = json_tokener_parse(text);
		free(text);
		if (s->info && json_object_is_type(s->info, json_type_object))
			return;
		json_object_put(s->info);
		s->info = NULL;
		rc = -EBADMSG;
		snprintf(err.msg, sizeof(err.msg), "its answer is not a JSON object");
	}
	s->error = -rc;
	snprintf(s->why, sizeof(s->why), "%s", err.msg);
}

int ctl_discover(struct ctl_supervisor **out)
{
	FILE *f = fopen("/proc/net/unix", "re");
	struct ctl_supervisor *v = NULL, *grown;
	size_t n = 0, cap = 0, i;
	char line[512], path[256];
	unsigned int flags, type;
	int rc;

	*out = NULL;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		/* Num RefCount Protocol Flags Type St Inode Path */
		rc = sscanf(line, "%*s %*s %*s %x %x %*s %*s %255s", &flags, &type, path);
		if (rc != 3 || type != 5 /* SOCK_SEQPACKET */ || !(flags & UNIX_FLAG_LISTENING) ||
		    !name_pid(path) || strlen(path) >= sizeof(v->name))
			continue;
		for (i = 0; i < n && strcmp(v[i].name, path); i++)
			;
		if (i < n || n == MAX_SUPERVISORS)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				fclose(f);
				ctl_free(v, n);
				return -ENOMEM;
			}
			v = grown;
		}
		memset(&v[n], 0, sizeof(v[n]));
		snprintf(v[n].name, sizeof(v[n].name), "%s", path);
		v[n].pid = name_pid(path);
		n++;
	}
	fclose(f);
	for (i = 0; i < n; i++)
		ask_info(&v[i]);
	*out = v;
	return (int)n;
}

void ctl_free(struct ctl_supervisor *s, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		json_object_put(s[i].info);
	free(s);
}

int ctl_ptable_read(struct ctl_ptable *t)
{
	DIR *d = opendir("/proc");
	char path[64], buf[PROC_STATUS_SIZE];
	struct dirent *e;
	size_t cap = 0;
	uint64_t ppid;

	memset(t, 0, sizeof(*t));
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		long pid = strtol(e->d_name, NULL, 10);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/status", pid);
		if (proc_status_read(AT_FDCWD, path, buf, sizeof(buf)) < 0 ||
		    proc_status_u64(buf, "PPid", 10, &ppid))
			continue;
		if (t->n == cap) {
			pid_t *a, *b;

			cap = cap ? 2 * cap : 256;
			a = realloc(t->pid, cap * sizeof(*a));
			if (a)
				t->pid = a;
			b = realloc(t->ppid, cap * sizeof(*b));
			if (b)
				t->ppid = b;
			if (!a || !b) {
				closedir(d);
				ctl_ptable_free(t);
				return -ENOMEM;
			}
		}
		t->pid[t->n] = (pid_t)pid;
		t->ppid[t->n] = (pid_t)ppid;
		t->n++;
	}
	closedir(d);
	return 0;
}

void ctl_ptable_free(struct ctl_ptable *t)
{
	free(t->pid);
	free(t->ppid);
	memset(t, 0, sizeof(*t));
}

bool ctl_is_descendant(const struct ctl_ptable *t, pid_t pid, pid_t ancestor)
{
	size_t depth, i;

	if (ancestor <= 0)
		return false;
	/* Bounded: a table read while processes come and go may hold a loop. */
	for (depth = 0; pid > 1 && depth < 4096; depth++) {
		if (pid == ancestor)
			return true;
		for (i = 0; i < t->n && t->pid[i] != pid; i++)
			;
		if (i == t->n)
			return false;
		pid = t->ppid[i];
	}
	return pid == ancestor;
}

struct ctl_supervisor *ctl_supervisor_of(struct ctl_supervisor *sup, size_t n,
					 const struct ctl_ptable *t, pid_t pid,
					 struct ctl_supervisor **refused)
{
	size_t i;

	*refused = NULL;
	for (i = 0; i < n; i++) {
		struct json_object *target;

		if (!sup[i].info) {
			/* Unreachable: its own children are likely its targets
			 * (`secbpf run`); nothing more can be said. */
			if (ctl_is_descendant(t, pid, sup[i].pid) && pid != sup[i].pid)
				*refused = &sup[i];
			continue;
		}
		if (json_object_object_get_ex(sup[i].info, "target", &target) &&
		    ctl_is_descendant(t, pid, (pid_t)json_object_get_int(target)))
			return &sup[i];
	}
	return NULL;
}

int ctl_seccomp_mode(pid_t pid)
{
	char path[64], buf[PROC_STATUS_SIZE];
	uint64_t mode;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (proc_status_read(AT_FDCWD, path, buf, sizeof(buf)) < 0 ||
	    proc_status_u64(buf, "Seccomp", 10, &mode))
		return -1;
	return (int)mode;
}

struct ctl_supervisor *ctl_find_for_pid(const char *cmd, pid_t pid, struct ctl_supervisor **sup,
					size_t *n)
{
	struct ctl_supervisor *found = NULL, *refused = NULL;
	struct ctl_ptable t;
	char what[64];
	int mode, rc;
	size_t i;

	*sup = NULL;
	*n = 0;
	snprintf(what, sizeof(what), "%s: pid %d", cmd, (int)pid);
	mode = ctl_seccomp_mode(pid);
	if (mode < 0) {
		cli_error(what, "no such process");
		return NULL;
	}
	rc = ctl_discover(sup);
	if (rc < 0) {
		cli_error(what, "cannot list the control sockets (/proc/net/unix): %s",
			  strerror(-rc));
		return NULL;
	}
	*n = (size_t)rc;
	rc = ctl_ptable_read(&t);
	if (rc) {
		cli_error(what, "cannot read the process table: %s", strerror(-rc));
		return NULL;
	}
	found = ctl_supervisor_of(*sup, *n, &t, pid, &refused);
	ctl_ptable_free(&t);
	if (found)
		return found;
	if (mode == 0) {
		cli_error(what, "not under seccomp: no filter to inspect");
		return NULL;
	}
	if (refused) {
		cli_error(what,
			  "not permitted: its supervisor %s (pid %d) refused: %s (only the "
			  "owner of the processes, or CAP_SYS_ADMIN outside seccomp, may ask)",
			  refused->name, (int)refused->pid, refused->why);
		return NULL;
	}
	for (i = 0, rc = 0; i < *n; i++)
		rc += !(*sup)[i].info;
	cli_error(what,
		  "not supervised by secbpf (a plain seccomp filter, or a stack that needs no "
		  "supervisor)%s: 'secbpf dump %d' shows its classic filters",
		  rc ? ", or by a supervisor that does not answer you" : "", (int)pid);
	return NULL;
}
