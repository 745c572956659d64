/* SPDX-License-Identifier: MIT */
/*
 * From loaded, verified programs to what is installed and what is served:
 * compile each program, give a runtime to each one with stateful paths,
 * and lay out the supervised stack (one listener for all of them). Shared
 * by `secbpf run`, the attach API and the spawned supervisor, which must
 * all arrive at the very same filters.
 */
#ifndef SECBPF_STACK_PLAN_H
#define SECBPF_STACK_PLAN_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cbpf/cbpf.h"
#include "common/err.h"
#include "object/object.h"
#include "vm/runtime.h"
#include "supervisor/supervisor.h"

/* One program of the stack, in installation order. */
struct stack_plan_target {
	const struct object *obj;
	const struct object_prog *prog;
	const char *name; /* for messages: "file.o:prog" */
};

struct stack_plan_opts {
	size_t sz;		    /* sizeof(struct stack_plan_opts) */
	unsigned int ncpus;	    /* supervisor workers = PERCPU slots; 0: default */
	bool loader_cap_sys_ptrace; /* probe_read_user may read non-dumpable targets */
	FILE *trace_log;	    /* bpf_trace_printk output; NULL: stderr */
	/* Supervise a filter that can return USER_NOTIF even when it needs
	 * no state (run --agent: its USER_NOTIF goes to the user agent). */
	bool supervise_user_notif;
};

struct stack_plan {
	size_t n;
	struct cbpf_prog *compiled;	  /* per target */
	struct runtime **runtimes;	  /* per target; NULL when stateless */
	/* Every compiled filter, target after target: one per target, or
	 * several for a program split by cells (cbpf_prog.filters; never
	 * in a stateful stack). */
	struct sock_fprog *plain;
	size_t nplain;
	struct supervisor_prog *sv_progs; /* per target, when stateful */
	struct supervisor_stack stack;	  /* when stateful */
	bool stateful;			  /* some target needs the supervisor */
	/* The filters to install, in order; with stateful set, the last one
	 * gets SUPERVISOR_LISTENER_FLAGS. */
	const struct sock_fprog *install;
	size_t ninstall;
};

/*
 * Compile targets[0..n-1] and plan their stack. The programs must have been
 * verified. Returns 0, or a negative errno with err naming the target.
 */
int stack_plan_build(struct stack_plan *plan, const struct stack_plan_target *targets, size_t n,
		     const struct stack_plan_opts *opts, struct secbpf_err *err);
void stack_plan_free(struct stack_plan *plan);

/*
 * A digest of the filters to install (their order, lengths and every
 * instruction): the caller and a spawned supervisor compare it, so that a
 * supervisor built from another version never serves filters it would not
 * have compiled itself.
 */
uint64_t stack_plan_digest(const struct stack_plan *plan);

/*
 * Whether a program of obj (any of them: tail calls reach the others)
 * calls a helper that reads the target's memory: the supervisor then opens
 * /proc/TID/mem for each notification. A hint for speed only.
 */
bool stack_plan_reads_memory(const struct object *obj);

#endif
