/* SPDX-License-Identifier: MIT */
/*
 * Attaching a stateful stack to the calling process (docs/design.md §1, "how the
 * supervisor is started"): the supervisor is a separate executable
 * (secbpf-supervisor), started before the filter is installed, and it gets
 * the listener without the caller making a single syscall the new filter
 * could notify or deny.
 *
 * The hand-over: a helper child shares the caller's fd table
 * (clone(CLONE_FILES)), makes itself non-dumpable and forks the supervisor,
 * which execs, makes itself non-dumpable too, loads and checks the plan and
 * reports READY on a shared page. Only then does the caller install the
 * filters (so that no filtered code ever runs while a process of ours can
 * be ptraced, docs/threat-model.md) and publish the listener fd number with
 * a plain store. The helper sends the listener to the supervisor over a
 * socket pair (the supervisor checks that it came from the helper), closes
 * it in the shared table (so the filtered process never holds its own
 * listener), and watches the supervisor until it reports that it serves,
 * or fails. The caller only spins on the page meanwhile.
 */
#ifndef SECBPF_SUPERVISOR_SPAWN_H
#define SECBPF_SUPERVISOR_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "object/object.h"
#include "install/stack_plan.h"
#include "verifier/verifier.h"

#define SPAWN_HANDOFF_MAGIC 0x5ecb5fa0u
#define SPAWN_HANDOFF_VERSION 2

/* Where the hand-over is; stages only move forward, each stored with
 * release semantics after the fields it publishes. */
enum spawn_stage {
	SPAWN_STAGE_WAIT,      /* the receiver of the listener is not ready yet */
	SPAWN_STAGE_READY,     /* it is, and out of reach: the caller installs (only
				* the caller moves the stage from here) */
	SPAWN_STAGE_INSTALLED, /* listener_fd is set */
	SPAWN_STAGE_ABORT,     /* the caller could not install: helper, quit */
	SPAWN_STAGE_SERVING,   /* the supervisor serves the listener */
	SPAWN_STAGE_FAILED,    /* fail_kind, error and msg say why */
};

enum spawn_fail {
	SPAWN_FAIL_NONE,
	SPAWN_FAIL_FORK,       /* the helper could not fork the supervisor */
	SPAWN_FAIL_EXEC,       /* execve of the supervisor failed: error */
	SPAWN_FAIL_EXITED,     /* the supervisor exited before serving: error = status */
	SPAWN_FAIL_SUPERVISOR, /* the supervisor said why, in msg */
	SPAWN_FAIL_SEND,       /* the listener could not reach the service: error */
	SPAWN_FAIL_SERVICE,    /* the service refused it: error and msg */
	SPAWN_FAIL_DUMPABLE,   /* the helper could not make itself non-dumpable: error */
	SPAWN_FAIL_PASS,       /* the listener could not be sent to the supervisor: error */
};

/* Who closes the listener in the caller's table: claimed with a
 * compare-and-swap from PENDING, so that it is closed exactly once and
 * never a later fd that reuses its number. */
enum spawn_close {
	SPAWN_CLOSE_PENDING,
	SPAWN_CLOSE_HELPER, /* the helper claimed it and is closing it */
	SPAWN_CLOSE_CALLER, /* the caller gave up waiting and closed it */
	SPAWN_CLOSE_DONE,   /* the helper closed it */
};

/* The shared page (a memfd, so that it survives the supervisor's execve). */
struct spawn_handoff {
	uint32_t magic;
	uint32_t version;
	int stage;
	int listener_fd; /* in the caller's fd table */
	int closed;	 /* SPAWN_CLOSE_*: who closes listener_fd in the caller's table */
	int fail_kind;
	int error;
	char msg[SECBPF_ERR_MAX];
};

/* The supervisor executable when neither the caller nor SECBPF_SUPERVISOR
 * names one. */
#ifndef SECBPF_SUPERVISOR_PATH
#define SECBPF_SUPERVISOR_PATH "/usr/local/libexec/secbpf-supervisor"
#endif

/* One program of the stack, as the supervisor must load it again. */
struct spawn_target {
	const struct object *obj; /* its image is passed in a memfd */
	const char *prog;	  /* function name */
	const char *const *sets;  /* "VAR=VALUE", applied in order */
	size_t nsets;
};

struct spawn_opts {
	size_t sz;		    /* sizeof(struct spawn_opts) */
	const char *exe;	    /* NULL: $SECBPF_SUPERVISOR, else SECBPF_SUPERVISOR_PATH */
	unsigned int seccomp_flags; /* TSYNC, LOG, SPEC_ALLOW */
	unsigned int workers;	    /* as plan was built with */
	enum secbpf_tier tier;	    /* the verifier tier the caller was granted */
	bool loader_cap_sys_ptrace;
	unsigned int timeout_ms; /* for the supervisor to start; 0: 30 s */
};

/*
 * Start the supervisor, install plan's filters on the calling process and
 * hand the listener over. Returns 0 once the supervisor serves; a negative
 * errno with err set otherwise. If the failure comes after the filters were
 * installed (err says so), they stay: every syscall that needs the
 * supervisor then fails with ENOSYS.
 */
int supervisor_spawn_attach(const struct stack_plan *plan, const struct spawn_target *targets,
			    size_t n, const struct spawn_opts *opts, struct secbpf_err *err);

/*
 * The same install and hand-over for a handle of secbpfd (docs/handles.md):
 * progs (the last with SUPERVISOR_LISTENER_FLAGS, the others with
 * seccomp_flags) go on the calling process, and the helper sends the
 * listener to the service over handle with SVC_REQ_ATTACH
 * (lib/service/protocol.h), then closes it. Returns 0 once the service
 * answered SVC_REP_OK; a negative errno with err set otherwise (after the
 * install, the filters stay, failing closed). timeout_ms 0: 30 s.
 */
int supervisor_service_attach(const struct sock_fprog *progs, size_t n, unsigned int seccomp_flags,
			      int handle, unsigned int timeout_ms, struct secbpf_err *err);

/*
 * The supervisor's side: report that it is ready for the listener (false if
 * the caller gave up first), that it serves (false if the page is no
 * longer waiting for it: the helper saw it fail first), or why it cannot
 * (not while READY: the caller is about to install, and the helper reports
 * the supervisor's exit once it has).
 */
bool spawn_report_ready(struct spawn_handoff *h);
bool spawn_report_serving(struct spawn_handoff *h);
void spawn_report_failure(struct spawn_handoff *h, const char *msg);

#endif
