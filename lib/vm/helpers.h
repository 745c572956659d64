/* SPDX-License-Identifier: MIT */
/*
 * The helper functions a filter calls (lib/vm/helpers.c), acting on the task a
 * syscall came from rather than on the supervisor that runs the filter. The
 * runtime (lib/vm/runtime.c) owns the maps and hands each run its own
 * struct helper_run; helpers keep no state of their own between runs except
 * the per-thread bpf_get_prandom_u32 generator.
 */
#ifndef SECBPF_HELPERS_H
#define SECBPF_HELPERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vm/interp.h"
#include "vm/maps.h"
#include "vm/runtime.h"

/* MAX_TAIL_CALL_CNT in the kernel: at most this many tail calls per run. */
#define HELPER_MAX_TAIL_CALLS 33
/* BPF_MAX_LOOPS in the kernel: the nr_loops limit of bpf_loop. */
#define HELPER_MAX_LOOPS (1U << 23)
/* Ring buffer records one run may hold reserved at once. */
#define HELPER_MAX_RESERVED 16
/* Entries of the hash behind a TASK_STORAGE map: processes with storage. */
#define HELPER_TASK_STORAGE_ENTRIES 65536

/* One map of the object as the helpers see it. */
struct helper_map {
	struct map *map;	/* for TASK_STORAGE: a HASH keyed by u32 tgid */
	uint32_t type;		/* the object's BPF_MAP_TYPE_* (TASK_STORAGE kept) */
};

/* What all runs of a runtime share; read-only once the runtime is built. */
struct helper_env {
	struct helper_map *maps;	/* by object map index */
	uint32_t nmaps;
	/* Tail call targets: prog_ready[i] says program i of the object has
	 * an interpreter (a PROG_ARRAY value is such an index). */
	const bool *prog_ready;
	uint32_t nprogs;
	bool loader_cap_sys_ptrace;
	FILE *trace_log;
	/* The runtime's lock between the task storage helpers (shared, from
	 * their validity check through their map operation) and
	 * helper_task_storage_release (exclusive); NULL: no notifications,
	 * nothing to order. */
	pthread_rwlock_t *task_storage_lock;
};

/* A reserved ring buffer record and the map it belongs to. */
struct helper_reservation {
	struct map *map;
	void *sample;
};

/* The state of one run, from its first program through its tail calls. */
struct helper_run {
	const struct helper_env *env;
	const struct runtime_task *task;
	uint64_t ctx;			/* address of the run's seccomp_data */
	int64_t tail_target;		/* program to continue in, or -1 */
	unsigned int tail_calls;
	/* runtime_run: no syscall is being made, so helpers with effects on
	 * the task (signals) only say what they would have done. */
	bool simulated;
	/* /proc/TID, opened on first use and kept for the run. */
	int proc_dirfd;
	/* The task's tgid once task->get_tgid found it (task_tgid). */
	pid_t tgid;
	/* Facts read from /proc/TID/status, cached for the run. */
	bool have_status;
	uint32_t uid, gid, euid, egid;
	int dumpable;			/* -1 not known yet, 0, 1 */
	struct helper_reservation reserved[HELPER_MAX_RESERVED];
	unsigned int nreserved;
};

/* A map handle as the program sees it (never a host address). */
uint64_t helper_map_handle(uint32_t idx);

/* The interpreter's call table of every helper secbpf implements, for a
 * config whose user is a struct helper_env. */
extern const struct interp_call_table helper_call_table;

/* Start a run for task; ctx is the address of its seccomp_data copy. */
void helper_run_init(struct helper_run *run, const struct helper_env *env,
		     const struct runtime_task *task, uint64_t ctx);

/* Clear what a run left behind after it ends or fails: discard records it
 * still holds reserved (else the ring's consumer would wait on them
 * forever) and close the files it opened. */
void helper_run_finish(struct helper_run *run);

/* Forget a process's task storage in every TASK_STORAGE map. */
void helper_task_storage_release(const struct helper_env *env, uint32_t tgid);

#endif
