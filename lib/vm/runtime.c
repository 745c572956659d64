// SPDX-License-Identifier: MIT
/*
 * A program made runnable (see runtime.h): every map of the object created
 * with lib/vm/maps.c, an interpreter per program that may run (the entry
 * program, plus every program of the object when it has a program array,
 * since user space may store any of them there), and the helper table of
 * lib/vm/helpers.c. After runtime_new() nothing in the runtime changes but the
 * maps' contents, so worker threads may run it concurrently, each with its
 * own worker slot; the state of one run lives on that run's stack.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/helpers.h"
#include "vm/interp.h"
#include "vm/maps.h"
#include "vm/runtime.h"

/* PIDs are below PID_MAX_LIMIT, 2^22 (include/linux/threads.h). */
#define RUNTIME_OWNER_PAGE 4096u
#define RUNTIME_OWNER_PAGES ((1u << 22) / RUNTIME_OWNER_PAGE)

struct runtime {
	const struct object *obj;
	struct runtime_opts opts;
	struct interp_map_ref *refs; /* by object map index */
	struct helper_map *maps;     /* by object map index */
	struct helper_env env;	     /* the config user of every interp */
	/* By object program index; NULL for programs no tail call reaches.
	 * entry is the program runtime_new was given, which need not be one
	 * of obj->progs (tests build programs on their own). */
	struct interp **interps;
	bool *prog_ready;
	struct interp *entry;
	bool entry_owned; /* entry is not also in interps[] */
	/* Which process owns the task storage of each PID: its identity
	 * (runtime.h) + 1 (0: none), in pages of RUNTIME_OWNER_PAGE PIDs made on first
	 * use. Supervisors that share this runtime (secbpfd's attachments of
	 * one program) agree through it on when a PID's state is stale. */
	pthread_mutex_t owners_lock;
	uint64_t *owners[RUNTIME_OWNER_PAGES];
	/* Held shared by the task storage helpers from their validity check
	 * to the end of their map operation, and exclusively while a PID's
	 * state is freed (helper_task_storage_release): a run never touches
	 * the state of another process with its PID. */
	pthread_rwlock_t task_storage_lock;
};

void runtime_free(struct runtime *rt)
{
	uint32_t i;

	if (!rt)
		return;
	if (rt->entry_owned)
		interp_free(rt->entry);
	for (i = 0; rt->interps && i < rt->obj->prog_cnt; i++)
		interp_free(rt->interps[i]);
	free(rt->interps);
	free(rt->prog_ready);
	for (i = 0; rt->maps && i < rt->obj->map_cnt; i++)
		map_free(rt->maps[i].map);
	free(rt->maps);
	free(rt->refs);
	for (i = 0; i < RUNTIME_OWNER_PAGES; i++)
		free(rt->owners[i]);
	pthread_mutex_destroy(&rt->owners_lock);
	pthread_rwlock_destroy(&rt->task_storage_lock);
	free(rt);
}

/*
 * The spec of the map that backs a TASK_STORAGE map: a HASH from the u32
 * tgid to the value (maps.c has no task storage; seed 011 only ever names
 * the calling process, so a process is all a key needs to say).
 */
static int task_storage_spec(const struct object_map *m, struct object_map *hash,
			     struct secbpf_err *err)
{
	if (m->key_size != 4 || !m->value_size || m->max_entries ||
	    m->map_flags != BPF_F_NO_PREALLOC)
		return err_set(err, EINVAL,
			       "map %s: a task storage map needs an int key, a value, "
			       "max_entries 0 and map_flags BPF_F_NO_PREALLOC",
			       m->name);
	*hash = *m;
	hash->type = BPF_MAP_TYPE_HASH;
	hash->max_entries = HELPER_TASK_STORAGE_ENTRIES;
	return 0;
}

/* Create map idx and the reference the interpreter resolves ld_imm64 to. */
static int runtime_map_init(struct runtime *rt, uint32_t idx, struct secbpf_err *err)
{
	const struct object_map *m = &rt->obj->maps[idx];
	struct interp_map_ref *ref = &rt->refs[idx];
	struct object_map hash;
	struct map *map;
	void *value;
	int rc;

	ref->handle = helper_map_handle(idx);
	if (m->type == BPF_MAP_TYPE_TASK_STORAGE) {
		if (task_storage_spec(m, &hash, err))
			return -EINVAL;
		map = map_create(&hash, rt->opts.ncpus, err);
	} else {
		map = map_create(m, rt->opts.ncpus, err);
	}
	if (!map)
		return -errno;
	rt->maps[idx].map = map;
	rt->maps[idx].type = m->type;
	if (m->kind == OBJECT_MAP_BTF)
		return 0;
	/* Global data: the program addresses the single value directly. */
	rc = map_direct_value(map, &value);
	if (rc)
		return err_set(err, -rc, "map %s: global data without a direct value", m->name);
	ref->value = value;
	ref->value_size = m->value_size;
	ref->writable = map_prog_writable(map);
	/* libbpf freezes .rodata after loading: user space cannot change a
	 * constant the verifier and the cBPF compiler may have folded. */
	if (m->kind == OBJECT_MAP_RODATA) {
		rc = map_freeze(map);
		if (rc)
			return err_set(err, -rc, "map %s: cannot freeze .rodata", m->name);
	}
	return 0;
}

/*
 * Write the saved entries of a map (OBJECT_STATE_SECTION) into it, as
 * bpf() would from user space. Per-CPU values need as many worker slots as
 * the run that saved them: a counter split over slots cannot be folded
 * into fewer without knowing what it counts.
 */
static int runtime_restore_map(struct runtime *rt, const struct object_map_state *s,
			       struct secbpf_err *err)
{
	const struct object_map *m = &rt->obj->maps[s->map];
	struct map *map = rt->maps[s->map].map;
	size_t ksz = (m->key_size + 7) & ~(size_t)7;
	size_t vsz = map_user_value_size(map);
	const uint8_t *p = s->entries;
	uint32_t i;
	int rc;

	if (s->ncpus != (object_map_percpu(m) ? rt->opts.ncpus : 1))
		return err_set(err, EINVAL,
			       "map %s: its saved state has %u worker slots per value, this run "
			       "has %u; run with --workers %u",
			       m->name, s->ncpus, rt->opts.ncpus, s->ncpus);
	for (i = 0; i < s->nentries; i++, p += ksz + vsz) {
		rc = map_update_user(map, p, p + ksz, BPF_ANY);
		if (rc)
			return err_set(err, -rc, "map %s: cannot restore saved entry %u: %s",
				       m->name, i, strerror(-rc));
	}
	return 0;
}

static struct interp *prepare(struct runtime *rt, const struct object_prog *prog,
			      struct secbpf_err *err)
{
	struct interp_config cfg = { 0 };
	struct interp *in;

	cfg.insns = prog->insns;
	cfg.cnt = prog->insn_cnt;
	cfg.maps = rt->refs;
	cfg.nmaps = rt->obj->map_cnt;
	cfg.calls = &helper_call_table;
	cfg.user = &rt->env;
	in = interp_new(&cfg, err);
	if (!in)
		err_prefix(err, "%s", prog->name);
	return in;
}

/* Tail calls can reach any program of the object once it has a program
 * array: user space fills those with program indices at any time. */
static bool has_prog_array(const struct object *obj)
{
	uint32_t i;

	for (i = 0; i < obj->map_cnt; i++)
		if (obj->maps[i].type == BPF_MAP_TYPE_PROG_ARRAY)
			return true;
	return false;
}

static int prepare_programs(struct runtime *rt, const struct object_prog *entry,
			    struct secbpf_err *err)
{
	const struct object *obj = rt->obj;
	bool all = has_prog_array(obj);
	uint32_t i;

	rt->interps = calloc(obj->prog_cnt ? obj->prog_cnt : 1, sizeof(*rt->interps));
	rt->prog_ready = calloc(obj->prog_cnt ? obj->prog_cnt : 1, sizeof(*rt->prog_ready));
	if (!rt->interps || !rt->prog_ready)
		return err_set(err, ENOMEM, "out of memory");
	rt->env.prog_ready = rt->prog_ready;
	rt->env.nprogs = obj->prog_cnt;
	for (i = 0; i < obj->prog_cnt; i++) {
		if (!all && &obj->progs[i] != entry)
			continue;
		rt->interps[i] = prepare(rt, &obj->progs[i], err);
		if (!rt->interps[i])
			return -EINVAL;
		rt->prog_ready[i] = true;
		if (&obj->progs[i] == entry)
			rt->entry = rt->interps[i];
	}
	if (!rt->entry) {
		rt->entry = prepare(rt, entry, err);
		if (!rt->entry)
			return -EINVAL;
		rt->entry_owned = true;
	}
	return 0;
}

struct runtime *runtime_new_opts(const struct object *obj, const struct object_prog *prog,
				 const struct runtime_opts *opts, struct secbpf_err *err)
{
	pthread_rwlockattr_t lock_attr;
	struct runtime *rt;
	uint32_t i;

	if (!obj || !prog || !opts || opts->sz < sizeof(size_t)) {
		err_set(err, EINVAL, "runtime: no object, program or options");
		return NULL;
	}
	rt = calloc(1, sizeof(*rt));
	if (!rt) {
		err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&rt->owners_lock, NULL);
	/* Writers first: a steady stream of helper calls must not hold off
	 * the freeing of an exited process's state. */
	pthread_rwlockattr_init(&lock_attr);
	pthread_rwlockattr_setkind_np(&lock_attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&rt->task_storage_lock, &lock_attr);
	pthread_rwlockattr_destroy(&lock_attr);
	/* Options from an older caller (smaller sz) keep their defaults. */
	memcpy(&rt->opts, opts, opts->sz < sizeof(rt->opts) ? opts->sz : sizeof(rt->opts));
	rt->opts.sz = sizeof(rt->opts);
	if (!rt->opts.ncpus)
		rt->opts.ncpus = 1;
	if (!rt->opts.trace_log)
		rt->opts.trace_log = stderr;
	rt->obj = obj;
	rt->refs = calloc(obj->map_cnt ? obj->map_cnt : 1, sizeof(*rt->refs));
	rt->maps = calloc(obj->map_cnt ? obj->map_cnt : 1, sizeof(*rt->maps));
	if (!rt->refs || !rt->maps) {
		err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	rt->env.maps = rt->maps;
	rt->env.nmaps = obj->map_cnt;
	rt->env.loader_cap_sys_ptrace = rt->opts.loader_cap_sys_ptrace;
	rt->env.trace_log = rt->opts.trace_log;
	rt->env.task_storage_lock = &rt->task_storage_lock;
	for (i = 0; i < obj->map_cnt; i++)
		if (runtime_map_init(rt, i, err))
			goto fail;
	for (i = 0; i < obj->state_cnt; i++)
		if (runtime_restore_map(rt, &obj->states[i], err))
			goto fail;
	if (prepare_programs(rt, prog, err))
		goto fail;
	return rt;
fail:
	runtime_free(rt);
	return NULL;
}

struct runtime *runtime_new(const struct object *obj, const struct object_prog *prog,
			    struct secbpf_err *err)
{
	struct runtime_opts opts = { .sz = sizeof(opts), .ncpus = 1 };

	return runtime_new_opts(obj, prog, &opts, err);
}

/*
 * One run: the entry program, then each program it tail-calls, all inside
 * one RCU read-side section so that every map value a helper handed out
 * stays valid until the run ends (seed 001 takes rcu_read_lock the same
 * way).
 */
static int run_program(struct runtime *rt, const struct seccomp_data *sd,
		       const struct runtime_task *task, bool simulated, uint32_t *ret,
		       struct secbpf_err *err)
{
	struct seccomp_data copy = *sd;
	struct interp_region ctx = {
		.base = (uint64_t)(uintptr_t)&copy,
		.size = sizeof(copy),
		.writable = false,
	};
	uint64_t args[5] = { (uint64_t)(uintptr_t)&copy };
	const struct interp *in = rt->entry;
	struct helper_run run;
	uint64_t r0 = 0;
	int rc;

	if (task->cpu >= rt->opts.ncpus)
		return err_set(err, EINVAL, "worker slot %u, but the runtime has %u", task->cpu,
			       rt->opts.ncpus);
	helper_run_init(&run, &rt->env, task, ctx.base);
	run.simulated = simulated;
	map_rcu_read_lock();
	for (;;) {
		rc = interp_run_ctx(in, args, &ctx, 1, &run, &r0, err);
		if (rc || run.tail_target < 0)
			break;
		in = rt->interps[run.tail_target];
		run.tail_target = -1;
	}
	helper_run_finish(&run);
	map_rcu_read_unlock();
	if (rc)
		return rc;
	*ret = (uint32_t)r0;
	return 0;
}

int runtime_run_task(struct runtime *rt, const struct seccomp_data *sd,
		     const struct runtime_task *task, uint32_t *ret, struct secbpf_err *err)
{
	return run_program(rt, sd, task, false, ret, err);
}

/*
 * The calling thread itself is the task: helpers read this process's ids
 * and (with process_vm_readv) its memory. `secbpf test` runs a filter on a
 * syscall that is never made, so the run is marked simulated: helpers
 * with effects on the task (bpf_send_signal) report on the trace log
 * instead of acting.
 */
int runtime_run(struct runtime *rt, const struct seccomp_data *sd, uint32_t *ret,
		struct secbpf_err *err)
{
	struct runtime_task self = {
		.tid = gettid(),
		.tgid = getpid(),
		.mem_fd = -1,
	};

	return run_program(rt, sd, &self, true, ret, err);
}

/* The owner slot of tgid, its page made when create; NULL otherwise (or
 * without memory). Under owners_lock. */
static uint64_t *owner_slot(struct runtime *rt, pid_t tgid, bool create)
{
	uint32_t page = (uint32_t)tgid / RUNTIME_OWNER_PAGE;

	if (tgid <= 0 || page >= RUNTIME_OWNER_PAGES)
		return NULL;
	if (!rt->owners[page] && create)
		rt->owners[page] = calloc(RUNTIME_OWNER_PAGE, sizeof(uint64_t));
	return rt->owners[page] ? &rt->owners[page][(uint32_t)tgid % RUNTIME_OWNER_PAGE] : NULL;
}

int runtime_task_begin(struct runtime *rt, pid_t tgid, uint64_t ident)
{
	uint64_t *slot;
	int rc = 0;

	pthread_mutex_lock(&rt->owners_lock);
	slot = owner_slot(rt, tgid, true);
	if (!slot) {
		rc = tgid <= 0 ? -EINVAL : -ENOMEM;
	} else if (*slot != ident + 1) {
		/* Another process had this PID: what it left is not ours. */
		helper_task_storage_release(&rt->env, (uint32_t)tgid);
		*slot = ident + 1;
	}
	pthread_mutex_unlock(&rt->owners_lock);
	return rc;
}

void runtime_task_exit(struct runtime *rt, pid_t tgid, uint64_t ident)
{
	uint64_t *slot;

	pthread_mutex_lock(&rt->owners_lock);
	slot = owner_slot(rt, tgid, false);
	/* Only the process that owns the PID's state frees it: a later one
	 * with the PID may already have begun. */
	if (slot && *slot == ident + 1) {
		helper_task_storage_release(&rt->env, (uint32_t)tgid);
		*slot = 0;
	}
	pthread_mutex_unlock(&rt->owners_lock);
}

struct map *runtime_map(struct runtime *rt, const char *name)
{
	uint32_t i;

	for (i = 0; i < rt->obj->map_cnt; i++)
		if (!strcmp(rt->obj->maps[i].name, name))
			return rt->maps[i].map;
	return NULL;
}
