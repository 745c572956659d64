// SPDX-License-Identifier: MIT
/*
 * `secbpf ps [-j]`: the processes under seccomp on this machine, each with
 * the secbpf supervisor that answers for it (docs/introspection.md): its
 * kind, programs and notification count, from its control socket.
 * Processes under a filter no secbpf supervisor claims are listed too.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/proc_status.h"
#include "ctl_client.h"

static void ps_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf ps [-j]\n"
		"\n"
		"List the processes under seccomp: pid, command, the supervisor that runs\n"
		"their eBPF programs (secbpfd, 'secbpf run' or the attach API; '-' for a\n"
		"filter no secbpf supervisor claims, '?' for one whose supervisor does not\n"
		"answer you), its programs and how many notifications it has answered. A\n"
		"supervisor answers its processes' owner and CAP_SYS_ADMIN, never a caller\n"
		"under seccomp (docs/introspection.md).\n"
		"\n"
		"  -j, --json  one JSON document: {\"processes\": [...], \"supervisors\": [...]}\n"
		"  -h, --help  show this help\n");
}

/* One filtered process, as /proc shows it. */
struct ps_proc {
	pid_t pid;
	char comm[64];
	int mode;		/* Seccomp: 1 strict, 2 filter */
	unsigned long nfilters; /* Seccomp_filters */
};

static int read_proc(pid_t pid, struct ps_proc *p)
{
	char path[64], buf[PROC_STATUS_SIZE];
	const char *name;
	uint64_t v;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (proc_status_read(AT_FDCWD, path, buf, sizeof(buf)) < 0 ||
	    proc_status_u64(buf, "Seccomp", 10, &v))
		return -1;
	p->pid = pid;
	p->mode = (int)v;
	p->nfilters = proc_status_u64(buf, "Seccomp_filters", 10, &v) ? 0 : (unsigned long)v;
	p->comm[0] = '\0';
	if (!proc_status_field(buf, "Name", &name, &len)) {
		while (len && (*name == '\t' || *name == ' ')) {
			name++;
			len--;
		}
		snprintf(p->comm, sizeof(p->comm), "%.*s", (int)len, name);
	}
	return 0;
}

/* Every process with Seccomp not 0, in /proc order. */
static int list_filtered(struct ps_proc **out, size_t *n)
{
	DIR *d = opendir("/proc");
	struct ps_proc p, *v = NULL, *grown;
	struct dirent *e;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		long pid = strtol(e->d_name, NULL, 10);

		if (pid <= 0 || read_proc((pid_t)pid, &p) || p.mode == 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 32;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = grown;
		}
		v[(*n)++] = p;
	}
	closedir(d);
	*out = v;
	return 0;
}

/* "a.o:prog,b.o:prog" from an info's programs. */
static void program_names(struct json_object *info, char *buf, size_t size)
{
	struct json_object *progs, *p, *name, *func;
	const char *file, *slash;
	size_t i, used = 0;

	buf[0] = '\0';
	if (!info || !json_object_object_get_ex(info, "programs", &progs))
		return;
	/* FILE:FUNCTION, the file without its directory. */
	for (i = 0; i < json_object_array_length(progs) && used < size; i++) {
		p = json_object_array_get_idx(progs, i);
		if (!json_object_object_get_ex(p, "name", &name))
			continue;
		file = json_object_get_string(name);
		slash = strrchr(file, '/');
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "",
					 slash ? slash + 1 : file);
		if (json_object_object_get_ex(p, "function", &func) && used < size)
			used += (size_t)snprintf(buf + used, size - used, ":%s",
						 json_object_get_string(func));
	}
}

static const char *info_str(struct json_object *info, const char *key, const char *dflt)
{
	struct json_object *v;

	return info && json_object_object_get_ex(info, key, &v) ? json_object_get_string(v) : dflt;
}

static struct json_object *process_json(const struct ps_proc *p, const struct ctl_supervisor *s,
					const struct ctl_supervisor *refused)
{
	struct json_object *o = json_object_new_object(), *v;

	json_object_object_add(o, "pid", json_object_new_int(p->pid));
	json_object_object_add(o, "command", json_object_new_string(p->comm));
	json_object_object_add(o, "seccomp",
			       json_object_new_string(p->mode == 1 ? "strict" : "filter"));
	json_object_object_add(o, "filters", json_object_new_int64((int64_t)p->nfilters));
	json_object_object_add(o, "supervisor",
			       json_object_new_string(s ? info_str(s->info, "supervisor", "?")
						      : refused ? "?"
								: "-"));
	if (s || refused)
		json_object_object_add(o, "supervisor_pid",
				       json_object_new_int(s ? s->pid : refused->pid));
	if (s && json_object_object_get_ex(s->info, "programs", &v))
		json_object_object_add(o, "programs", json_object_get(v));
	else
		json_object_object_add(o, "programs", json_object_new_array());
	if (s && json_object_object_get_ex(s->info, "notifications", &v))
		json_object_object_add(o, "notifications", json_object_get(v));
	return o;
}

static void print_text(const struct ps_proc *p, const struct ctl_supervisor *s,
		       const struct ctl_supervisor *refused)
{
	char progs[1024], sup[64];
	const char *kind = s ? info_str(s->info, "supervisor", "?") : refused ? "?" : "-";

	program_names(s ? s->info : NULL, progs, sizeof(progs));
	if (s || refused)
		snprintf(sup, sizeof(sup), "%s (%d)", kind, (int)(s ? s->pid : refused->pid));
	else
		snprintf(sup, sizeof(sup), "%s", kind);
	printf("%-8d %-16s %-7s %-24s %-8s %s\n", (int)p->pid, p->comm,
	       p->mode == 1 ? "strict" : "filter", sup,
	       s ? info_str(s->info, "notifications", "-") : "-", progs[0] ? progs : "-");
}

int cmd_ps(int argc, char **argv)
{
	static const struct option longopts[] = { { "json", no_argument, NULL, 'j' }, { 0 } };
	struct json_object *doc = NULL, *procs = NULL, *sups = NULL;
	struct ctl_supervisor *sup = NULL, *s, *refused;
	struct ps_proc *v = NULL;
	struct ctl_ptable t;
	struct cli_options o;
	bool json = false;
	size_t n = 0, nsup = 0, i;
	int c, rc;

	cli_options_init(&o, argc, argv, "j", longopts, ps_usage, NULL);
	while ((c = cli_options_next(&o)) > 0)
		if (c == 'j')
			json = true;
	if (c < 0)
		return c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
	if (optind != argc) {
		cli_error("ps", "takes no operand (see secbpf ps --help)");
		return EXIT_USAGE;
	}
	rc = list_filtered(&v, &n);
	if (!rc)
		rc = ctl_ptable_read(&t);
	if (rc) {
		cli_error("ps", "cannot read /proc: %s", strerror(-rc));
		free(v);
		return EXIT_USAGE;
	}
	rc = ctl_discover(&sup);
	if (rc < 0) {
		cli_error("ps", "cannot list the control sockets (/proc/net/unix): %s",
			  strerror(-rc));
		rc = 0;
	}
	nsup = (size_t)rc;
	if (json) {
		doc = json_object_new_object();
		procs = json_object_new_array();
		sups = json_object_new_array();
	} else {
		printf("%-8s %-16s %-7s %-24s %-8s %s\n", "PID", "COMMAND", "SECCOMP", "SUPERVISOR",
		       "NOTIFS", "PROGRAMS");
	}
	for (i = 0; i < n; i++) {
		s = ctl_supervisor_of(sup, nsup, &t, v[i].pid, &refused);
		if (json)
			json_object_array_add(procs, process_json(&v[i], s, refused));
		else
			print_text(&v[i], s, refused);
	}
	if (json) {
		for (i = 0; i < nsup; i++)
			if (sup[i].info)
				json_object_array_add(sups, json_object_get(sup[i].info));
		json_object_object_add(doc, "processes", procs);
		json_object_object_add(doc, "supervisors", sups);
		printf("%s\n",
		       json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(doc);
	}
	ctl_ptable_free(&t);
	ctl_free(sup, nsup);
	free(v);
	return 0;
}
