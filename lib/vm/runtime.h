/* SPDX-License-Identifier: MIT */
/*
 * A program made runnable: the object's maps instantiated (global data
 * sections as one-element arrays holding their initial bytes) and an
 * interpreter prepared for one SEC("seccomp") program. `secbpf test` and the
 * conformance runner use it; the supervisor will share one per filter.
 */
#ifndef SECBPF_RUNTIME_H
#define SECBPF_RUNTIME_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdint.h>

#include "common/err.h"
#include "object/object.h"

struct runtime;

/*
 * Instantiate obj's maps and prepare prog. obj must outlive the runtime.
 * Fails (NULL, err set) if the program references a map kind or helper
 * this runtime cannot provide.
 */
struct runtime *runtime_new(const struct object *obj, const struct object_prog *prog,
			    struct secbpf_err *err);
void runtime_free(struct runtime *rt);

/* How a runtime is set up for the supervisor (runtime_new uses defaults:
 * one worker slot, no CAP_SYS_PTRACE, trace output to stderr). */
struct runtime_opts {
	size_t sz;			/* sizeof(struct runtime_opts) */
	unsigned int ncpus;		/* worker slots for PERCPU maps, >= 1 */
	bool loader_cap_sys_ptrace;	/* probe_read_user skips the dumpable
					 * check (seed 009) */
	FILE *trace_log;		/* bpf_trace_printk output; NULL = stderr */
};

struct runtime *runtime_new_opts(const struct object *obj, const struct object_prog *prog,
				 const struct runtime_opts *opts, struct secbpf_err *err);

/*
 * The task a syscall came from, for helpers (lib/vm/helpers.c). Filled by the
 * supervisor from a seccomp notification; `secbpf test` uses the calling
 * process itself.
 */
struct runtime_task {
	pid_t tid;		/* notif.pid: the thread, in the supervisor's pid ns */
	/* Its thread group, or 0 when the supervisor defers finding it (it
	 * costs a syscall most programs do not need): helpers that need it
	 * call get_tgid(get_tgid_ctx, &tgid) once per run, which returns 0
	 * or a negative errno (the run then fails). */
	pid_t tgid;
	int (*get_tgid)(void *ctx, pid_t *tgid);
	void *get_tgid_ctx;
	/* /proc/TID/mem opened before the notification was checked with
	 * SECCOMP_IOCTL_NOTIF_ID_VALID, so a recycled TID is never read;
	 * -1 when it could not be opened: helpers then read with
	 * process_vm_readv() on tid (which fails with EPERM where the open
	 * did) and check still_valid() after reading. */
	int mem_fd;
	/* Checks that the notification is still valid (the task has not
	 * died and its TID not been reused) after reading anything about the
	 * task; returns 0 if valid. NULL: no notification (secbpf test). */
	int (*still_valid)(void *ctx);
	void *still_valid_ctx;
	unsigned int cpu;	/* worker slot, for PERCPU maps (0..ncpus-1) */
};

/*
 * Run the program on sd, which it sees read-only. *ret is the 32-bit value
 * the program returned (the kernel truncates r0 to 32 bits). Returns 0, or
 * a negative errno with err naming the fault.
 */
int runtime_run(struct runtime *rt, const struct seccomp_data *sd, uint32_t *ret,
		struct secbpf_err *err);

/* The same for a syscall of task (helpers act on that task). Several
 * threads may run one runtime at once, each with its own task->cpu. A
 * failed run (a negative return) must be answered with an error, never
 * with ALLOW: helpers fail the run whenever they cannot act exactly. */
int runtime_run_task(struct runtime *rt, const struct seccomp_data *sd,
		     const struct runtime_task *task, uint32_t *ret, struct secbpf_err *err);

/*
 * Task storage lives as long as its process (seed 011 keeps it on the
 * thread-group leader, which the kernel frees with the process). A process
 * is its PID and an identity that tells it from a later process with the
 * same PID: the inode of its pidfd where pidfds live in pidfs (Linux 6.9+:
 * unique for the boot), with bit 63 set, or else its start time in clock
 * ticks (/proc/PID/stat), which two processes started in one tick share.
 *
 * runtime_task_begin: process (tgid, ident) is about to run programs; if
 * the PID's storage belongs to another process (one that exited, seen by
 * this or another supervisor of the runtime), it is freed first. Returns
 * 0 or -ENOMEM (the caller fails the syscall).
 *
 * runtime_task_exit: process (tgid, ident) has exited (its pidfd became
 * readable): its task storage is freed, unless a later process with the
 * PID has begun since. Both are safe to call concurrently with runs.
 */
int runtime_task_begin(struct runtime *rt, pid_t tgid, uint64_t ident);
void runtime_task_exit(struct runtime *rt, pid_t tgid, uint64_t ident);

struct map;

/* The map the object declares as name (a variable or section name), for
 * the user side: filling a PROG_ARRAY with program indices of the object,
 * consuming a ring buffer, dumping. A TASK_STORAGE map is the HASH from
 * u32 tgid to value that backs it. NULL if there is none. */
struct map *runtime_map(struct runtime *rt, const char *name);

#endif
