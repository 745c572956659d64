// SPDX-License-Identifier: MIT
/*
 * Where `secbpf oci` and `secbpf export-oci` get the filter: -f OBJ
 * compiled here as `secbpf compile` does, or --prog NAME from a secbpfd
 * handle (the filter the service verified and compiled); and the names
 * a runtime needs: the program's, and secbpfd's agent socket.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbpf/cbpf.h"
#include "cli.h"
#include "oci_filter.h"
#include "run.h"
#include "service/agent_oci.h"
#include "service/config.h"
#include "service/handle_client.h"
#include "service/protocol.h"

bool oci_source_option(struct oci_source *s, int c, const char *arg)
{
	switch (c) {
	case 'f':
		s->object = arg;
		return true;
	case 'P':
		s->prog = arg;
		return true;
	case 'N':
		s->name = arg;
		return true;
	case 'D':
		s->daemon = arg;
		return true;
	case 'L':
		s->listener = arg;
		return true;
	}
	return false;
}

/* -f OBJ[:PROG]'s default name: the file name without .o and .bpf. */
static void default_name(const char *spec, char *out, size_t size)
{
	const char *base = strrchr(spec, '/');
	size_t n;

	base = base ? base + 1 : spec;
	n = strcspn(base, ":");
	if (n > 2 && !strncmp(base + n - 2, ".o", 2))
		n -= 2;
	if (n > 4 && !strncmp(base + n - 4, ".bpf", 4))
		n -= 4;
	snprintf(out, size, "%.*s", (int)n, base);
}

static int from_object(const char *what, const struct oci_source *s, struct oci_filter *f)
{
	struct cbpf_prog p = { 0 };
	struct cli_target t;
	int rc = -1;

	if (cli_open_target(s->object, &s->sets, &t))
		return -1;
	if (cli_compile_target(&t, &p))
		goto out;
	f->insns = malloc(p.len * sizeof(*f->insns));
	if (!f->insns) {
		cli_error(what, "out of memory");
		goto out;
	}
	memcpy(f->insns, p.insns, p.len * sizeof(*f->insns));
	f->len = p.len;
	f->stateful = p.needs_supervisor;
	if (s->name)
		snprintf(f->name, sizeof(f->name), "%s", s->name);
	else
		default_name(s->object, f->name, sizeof(f->name));
	rc = 0;
out:
	cbpf_prog_free(&p);
	cli_close(&t);
	return rc;
}

static int from_service(const char *what, const struct oci_source *s, struct oci_filter *f)
{
	struct secbpf_err err = { { 0 } };
	struct handle_stack st = { 0 };
	int handle = run_ask_service(s->prog, s->daemon), rc = -1;

	if (handle < 0)
		return -1;
	if (handle_fetch_stack(handle, 0, &st, &err)) {
		cli_error(what, "--prog %s: %s", s->prog, err.msg);
		goto out;
	}
	if (st.n != 1) {
		cli_error(what,
			  "--prog %s: its stack has %zu filters (several programs, or one past "
			  "4096 instructions split into stacked filters) and a runtime installs "
			  "one: serve one program per container, or export it with -f (one "
			  "filter, the cells that do not fit supervised)",
			  s->prog, st.n);
		goto out;
	}
	f->len = st.progs[0].len;
	f->insns = malloc(f->len * sizeof(*f->insns));
	if (!f->insns) {
		cli_error(what, "out of memory");
		goto out;
	}
	memcpy(f->insns, st.progs[0].filter, f->len * sizeof(*f->insns));
	f->stateful = st.listener;
	snprintf(f->name, sizeof(f->name), "%s", s->prog);
	rc = 0;
out:
	handle_stack_free(&st);
	close(handle);
	return rc;
}

int oci_filter_get(const char *what, const struct oci_source *s, struct oci_filter *f)
{
	memset(f, 0, sizeof(*f));
	if (!!s->object == !!s->prog) {
		cli_error(what, "give exactly one of -f OBJ and --prog NAME (see --help)");
		return -1;
	}
	if (s->prog && s->sets.n) {
		cli_error(what, "--set applies to -f only: secbpfd's programs are set in its "
				"configuration");
		return -1;
	}
	if (s->name && !s->object) {
		cli_error(what, "--name goes with -f (with --prog the name is NAME)");
		return -1;
	}
	if (s->listener)
		snprintf(f->agent, sizeof(f->agent), "%s", s->listener);
	else if (svc_agent_socket_for(s->daemon ? s->daemon : SVC_DEFAULT_SOCKET, f->agent,
				      sizeof(f->agent))) {
		cli_error(what,
			  "--daemon %s: too long to find the agent socket next to it; use "
			  "--listener",
			  s->daemon);
		return -1;
	}
	if (s->object ? from_object(what, s, f) : from_service(what, s, f))
		return -1;
	if (!svc_config_valid_name(f->name)) {
		cli_error(what, "'%s' is not a program name secbpfd accepts; use --name", f->name);
		oci_filter_free(f);
		return -1;
	}
	return 0;
}

void oci_filter_free(struct oci_filter *f)
{
	free(f->insns);
	f->insns = NULL;
}
