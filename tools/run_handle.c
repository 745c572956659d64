// SPDX-License-Identifier: MIT
/*
 * `secbpf run --prog NAME` and `secbpf run --fd N` (docs/handles.md): CMD
 * runs under a program secbpfd loaded. The handle comes from the service
 * (--prog) or was inherited (--fd); its filters are checked here, then
 * installed in the child right before CMD's execve, and the listener of a
 * stateful program goes to the service, which supervises it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Internal headers: the handle's client side and the service's protocol,
 * which the public API (it attaches to the calling process) hides. */
#include "run.h"
#include "service/handle_client.h"
#include "service/protocol.h"

struct run_handle_state {
	int handle;
	struct handle_stack stack;
	char *path; /* CMD resolved with PATH */
};

static void run_handle_release(void *arg)
{
	struct run_handle_state *s = arg;

	handle_stack_free(&s->stack);
	if (s->handle >= 0)
		close(s->handle);
	s->handle = -1;
	free(s->path);
	s->path = NULL;
}

/* --prog NAME: a handle from the service. Returns it, or -1 after printing
 * why. */
int run_ask_service(const char *prog, const char *daemon_path)
{
	const char *path = daemon_path ? daemon_path : SVC_DEFAULT_SOCKET;
	struct secbpf_err err = { { 0 } };
	struct svc_msg *reply;
	int sock, rc, handle = -1;

	sock = svc_connect(path, &err);
	if (sock < 0) {
		cli_error("run",
			  "cannot reach secbpfd: %s (is the service running? --daemon names "
			  "its socket)",
			  err.msg);
		return -1;
	}
	reply = malloc(sizeof(*reply));
	if (!reply) {
		close(sock);
		cli_error("run", "out of memory");
		return -1;
	}
	rc = svc_call(sock, SVC_REQ_HANDLE, prog, strlen(prog), -1, reply, &err);
	if (rc)
		cli_error("run", "secbpfd refused --prog %s: %s", prog, err.msg);
	else if (reply->hdr.type != SVC_REP_HANDLE || reply->fd < 0)
		cli_error("run",
			  "--prog %s: secbpfd answered with a message of type %u%s, not a "
			  "handle",
			  prog, reply->hdr.type, reply->fd < 0 ? " and no fd" : "");
	else {
		handle = reply->fd;
		reply->fd = -1;
	}
	if (reply->fd >= 0)
		close(reply->fd);
	free(reply);
	close(sock);
	return handle;
}

/* The handle, from the service or inherited (then kept from CMD, as the
 * listener is). Returns it, or -1 after printing why. */
static int run_get_handle(const struct run_options *o)
{
	if (o->prog)
		return run_ask_service(o->prog, o->daemon_path);
	if (fcntl(o->handle_fd, F_SETFD, FD_CLOEXEC)) {
		cli_error("run", "--fd %d: %s", o->handle_fd, strerror(errno));
		return -1;
	}
	return o->handle_fd;
}

int run_with_handle(const struct run_options *o)
{
	struct run_handle_state s = { .handle = -1 };
	struct secbpf_err err = { { 0 } };
	struct run_child child = { .service_handle = -1 };
	int status = EXIT_RUN_FAILED;

	s.handle = run_get_handle(o);
	if (s.handle < 0)
		return EXIT_RUN_FAILED;
	if (handle_fetch_stack(s.handle, 0, &s.stack, &err)) {
		if (o->prog)
			cli_error("run", "--prog %s: %s", o->prog, err.msg);
		else
			cli_error("run", "--fd %d: %s", o->handle_fd, err.msg);
		goto out;
	}
	s.path = cli_resolve_command("run", o->cmd_argv[0], &status);
	if (!s.path)
		goto out;
	child.path = s.path;
	child.argv = o->cmd_argv;
	child.progs = s.stack.progs;
	child.nprogs = s.stack.n;
	child.listener = s.stack.listener;
	child.service_handle = s.handle;
	/* No supervision here: the service supervises, and the child hands
	 * it the listener itself (lib/supervisor/supervisor_spawn.c). */
	status = run_and_wait(&child, o->cmd_argv[0], NULL, run_handle_release, &s);
out:
	run_handle_release(&s);
	return status;
}
