// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the verifier's soundness (issue 3): programs made
 * from the input (raw instructions, or a generator biased towards plausible
 * filters) go through verifier_check at the privileged and unprivileged
 * tiers; every accepted program then runs in the memory-safe interpreter on
 * several random contexts, with maps and helpers that check each argument
 * the verifier vouched for. Any fault the interpreter or a helper reports,
 * a runaway loop, a leaked ringbuf record or an exit value outside the
 * verifier's facts is a verifier bug, and aborts.
 *
 * Input: byte 0 flags (bit 0 raw, bit 1 strict, bit 2 no stack prologue),
 * bytes 1-2 the map palette (a nibble per map), byte 3 a seed, then the
 * program. SECBPF_FUZZ_WRITE_SEEDS=SRC_DIR:OUT_DIR turns the assembly of
 * SRC_DIR/ *.s (tests/verifier) into raw inputs in OUT_DIR, then exits.
 * SECBPF_FUZZ_KNOWN=rodata-write,dead-map-value tolerates those findings
 * (comma-separated), to look for others until they are fixed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/helper_protos.h"
#include "vm/asm.h"
#include "vm/insn.h"
#include "vm/interp.h"
#include "object/object.h"
#include "verifier/verifier.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_HDR 4
#define FUZZ_MAPS 4
#define FUZZ_MAX_SLOTS 1024
#define FUZZ_RAW_MAX 256
#define FUZZ_RUNS 4
#define FUZZ_INSN_LIMIT (1ULL << 26)
#define FUZZ_COMPLEXITY 20000
#define FUZZ_CB_BUDGET 2048 /* callback runs per program run */
#define FUZZ_ELEMS 16
#define FUZZ_VALUE_MAX 64
#define FUZZ_RINGBUF 4096
#define FUZZ_RECORDS 16
#define FUZZ_REGIONS 48 /* of INTERP_MAX_REGIONS, the rest for the context */

/* ---- maps ---------------------------------------------------------------- */

struct map_spec {
	const char *name;
	uint32_t type, key_size, value_size, max_entries;
	enum object_map_kind kind;
	const uint8_t *init;
};

static const uint8_t rodata16[16] = { 5, 0, 0, 0, '/', 'e', 't', 'c', 0, 0, 0, 0, 1, 0, 0, 0 };
static const uint8_t rodata8[8] = { 'A', 'B', 'C', 'D', 0, 0, 0, 0 };

/* Map i of a program is palette[(nibble i + i) % 16]: all-zero nibbles give
 * an ARRAY with 16-byte values, a HASH, .rodata and .data. */
static const struct map_spec palette[16] = {
	{ "arr", BPF_MAP_TYPE_ARRAY, 4, 16, 4, OBJECT_MAP_BTF, NULL },
	{ "counts", BPF_MAP_TYPE_HASH, 4, 8, 16, OBJECT_MAP_BTF, NULL },
	{ ".rodata", BPF_MAP_TYPE_ARRAY, 4, 16, 1, OBJECT_MAP_RODATA, rodata16 },
	{ ".data", BPF_MAP_TYPE_ARRAY, 4, 16, 1, OBJECT_MAP_DATA, NULL },
	{ "table", BPF_MAP_TYPE_ARRAY, 4, 64, 1, OBJECT_MAP_BTF, NULL },
	{ ".bss", BPF_MAP_TYPE_ARRAY, 4, 8, 1, OBJECT_MAP_BSS, NULL },
	{ "h16", BPF_MAP_TYPE_HASH, 4, 16, 16, OBJECT_MAP_BTF, NULL },
	{ "events", BPF_MAP_TYPE_RINGBUF, 0, 0, FUZZ_RINGBUF, OBJECT_MAP_BTF, NULL },
	{ "st", BPF_MAP_TYPE_TASK_STORAGE, 4, 8, 0, OBJECT_MAP_BTF, NULL },
	{ "q", BPF_MAP_TYPE_QUEUE, 0, 8, 16, OBJECT_MAP_BTF, NULL },
	{ "vals", BPF_MAP_TYPE_ARRAY, 4, 8, 8, OBJECT_MAP_BTF, NULL },
	{ "lru", BPF_MAP_TYPE_LRU_HASH, 4, 8, 16, OBJECT_MAP_BTF, NULL },
	{ "progs", BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, OBJECT_MAP_BTF, NULL },
	{ "pc", BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1, OBJECT_MAP_BTF, NULL },
	{ "s", BPF_MAP_TYPE_STACK, 0, 4, 16, OBJECT_MAP_BTF, NULL },
	{ ".rodata.str", BPF_MAP_TYPE_ARRAY, 4, 8, 1, OBJECT_MAP_RODATA, rodata8 },
};

/* The run-time side of one map: keys and values of its elements. */
struct fuzz_map {
	const struct map_spec *spec;
	bool used[FUZZ_ELEMS];
	uint32_t keys[FUZZ_ELEMS];
	uint8_t values[FUZZ_ELEMS][FUZZ_VALUE_MAX] __attribute__((aligned(8)));
};

struct ringbuf_record {
	uint64_t addr;
	bool live;
};

/* Everything one input works on; the helpers reach it through the user
 * pointer of the interpreter. */
struct fuzz_env {
	struct object_map omaps[FUZZ_MAPS];
	struct fuzz_map maps[FUZZ_MAPS];
	struct interp_map_ref refs[FUZZ_MAPS];
	uint64_t rng;
	uint64_t ctx_addr;
	/* SECBPF_FUZZ_KNOWN=rodata-write: a helper writing .rodata is refused
	 * at run time instead of aborting, to look for other bugs meanwhile. */
	bool known_rodata_write;
	/* SECBPF_FUZZ_KNOWN=dead-map-value: interp_new refusing a direct
	 * value of a map that has none (in code the verifier found dead). */
	bool known_dead_map_value;
	/* per run */
	const void *added[FUZZ_REGIONS];
	bool added_w[FUZZ_REGIONS];
	uint32_t nadded;
	uint32_t cb_runs;
	bool cut_short; /* a helper stopped early: no exit value to check */
	uint8_t ringbuf[FUZZ_RINGBUF] __attribute__((aligned(8)));
	uint32_t ringbuf_used;
	struct ringbuf_record records[FUZZ_RECORDS];
	uint32_t nrecords;
};

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x ? x : 0x9e3779b97f4a7c15ULL;
	return x * 0x2545f4914f6cdd1dULL;
}

static void maps_init(struct fuzz_env *env, const uint8_t *hdr)
{
	uint32_t i, j;

	for (i = 0; i < FUZZ_MAPS; i++) {
		unsigned nib = (hdr[1 + i / 2] >> (4 * (i % 2))) & 15;
		const struct map_spec *s = &palette[(nib + i) & 15];
		struct fuzz_map *m = &env->maps[i];
		struct object_map *om = &env->omaps[i];

		memset(m, 0, sizeof(*m));
		m->spec = s;
		*om = (struct object_map){ .name = (char *)s->name,
					   .kind = s->kind,
					   .type = s->type,
					   .key_size = s->key_size,
					   .value_size = s->value_size,
					   .max_entries = s->max_entries,
					   .init_data = (uint8_t *)s->init };
		for (j = 0; j < FUZZ_ELEMS; j++) {
			m->keys[j] = j;
			for (uint32_t b = 0; b < FUZZ_VALUE_MAX; b++)
				m->values[j][b] = (uint8_t)rng_next(&env->rng);
		}
		if (s->init)
			memcpy(m->values[0], s->init, s->value_size);
		if (s->kind == OBJECT_MAP_BSS)
			memset(m->values[0], 0, FUZZ_VALUE_MAX);
		/* Hash maps start with keys 0..3, arrays have all their elements. */
		for (j = 0; j < FUZZ_ELEMS; j++)
			m->used[j] = s->type == BPF_MAP_TYPE_HASH || s->type == BPF_MAP_TYPE_LRU_HASH
					     ? j < 4
					     : j < s->max_entries;
		env->refs[i] = (struct interp_map_ref){
			.handle = (uint64_t)(uintptr_t)m,
			.value = s->type == BPF_MAP_TYPE_ARRAY && s->max_entries == 1 ? m->values[0]
											: NULL,
			.value_size = s->value_size,
			.writable = s->kind != OBJECT_MAP_RODATA,
		};
	}
}

static struct fuzz_map *map_of(struct fuzz_env *env, uint64_t handle)
{
	for (uint32_t i = 0; i < FUZZ_MAPS; i++)
		if (handle == (uint64_t)(uintptr_t)&env->maps[i])
			return &env->maps[i];
	return NULL;
}

static bool map_is_array(const struct fuzz_map *m)
{
	return m->spec->type == BPF_MAP_TYPE_ARRAY || m->spec->type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

static bool map_rdonly(const struct fuzz_map *m)
{
	return m->spec->kind == OBJECT_MAP_RODATA;
}

/* ---- helpers ------------------------------------------------------------- */

/* Let the program use [base, base+size) for the rest of the run; once per
 * region, so that lookups in a loop do not exhaust the interpreter's table.
 * false (the run then stops cleanly) when the table is full. */
static bool region_add(struct interp_call *call, struct fuzz_env *env, const void *base,
		       uint64_t size, bool writable)
{
	for (uint32_t i = 0; i < env->nadded; i++)
		if (env->added[i] == base && env->added_w[i] == writable)
			return true;
	if (env->nadded == FUZZ_REGIONS || interp_call_add_region(call, (void *)base, size, writable)) {
		env->cut_short = true;
		interp_call_exit(call, 0);
		return false;
	}
	env->added[env->nadded] = base;
	env->added_w[env->nadded++] = writable;
	return true;
}

static uint64_t random_ret(struct fuzz_env *env, uint64_t umax)
{
	uint64_t r = rng_next(&env->rng), v;

	switch (r & 3) {
	case 0:
		v = (r >> 8) & 0xff;
		break;
	case 1:
		v = r;
		break;
	case 2:
		v = (uint64_t) - (int64_t)((r >> 8) % 133 + 1);
		break;
	default:
		v = 0;
		break;
	}
	if (umax && umax != UINT64_MAX)
		v %= umax + 1;
	return v;
}

static bool check_mem(struct interp_call *call, uint64_t addr, uint64_t size, bool write,
		      int32_t id, unsigned arg)
{
	if (!interp_call_check(call, addr, size, write))
		return true;
	interp_call_fail(call, EFAULT,
			 "UNSOUND: helper %s arg %u: %s of %llu bytes at 0x%llx not allowed",
			 helper_proto_name(id), arg + 1, write ? "write" : "read",
			 (unsigned long long)size, (unsigned long long)addr);
	return false;
}

/* Check every argument against what the prototype made the verifier
 * demand; on a violation the run fails with an "UNSOUND" message. */
static bool check_args(struct interp_call *call, struct fuzz_env *env, const uint64_t a[5],
		       int32_t id, struct fuzz_map **mapp)
{
	const struct helper_proto *p = helper_proto_find(id);
	struct fuzz_map *m = NULL;
	unsigned i;

	if (!p || p->refused) {
		interp_call_fail(call, EPERM, "UNSOUND: refused helper #%d was called", id);
		return false;
	}
	for (i = 0; i < 5; i++) {
		uint64_t v = a[i], n = i < 4 ? a[i + 1] : 0;
		bool ok = true;

		switch (p->args[i]) {
		case HELPER_ARG_CONST_MAP_PTR:
			m = map_of(env, v);
			if (!m || !(p->map_types & (1ULL << m->spec->type))) {
				interp_call_fail(call, EINVAL,
						 "UNSOUND: helper %s arg 1 0x%llx is not a map it takes",
						 helper_proto_name(id), (unsigned long long)v);
				return false;
			}
			break;
		case HELPER_ARG_MAP_KEY:
			ok = check_mem(call, v, m ? m->spec->key_size : 1, false, id, i);
			break;
		case HELPER_ARG_MAP_VALUE:
			ok = check_mem(call, v, m ? m->spec->value_size : 1, false, id, i);
			break;
		case HELPER_ARG_MAP_VALUE_OR_NULL:
			ok = !v || check_mem(call, v, m ? m->spec->value_size : 1, false, id, i);
			break;
		case HELPER_ARG_UNINIT_MAP_VALUE:
			ok = check_mem(call, v, m ? m->spec->value_size : 1, true, id, i);
			break;
		case HELPER_ARG_MEM:
			ok = check_mem(call, v, n, false, id, i);
			break;
		case HELPER_ARG_UNINIT_MEM:
			ok = check_mem(call, v, n, true, id, i);
			break;
		case HELPER_ARG_CONST_SIZE:
			if (!v) {
				interp_call_fail(call, EINVAL, "UNSOUND: helper %s arg %u size 0",
						 helper_proto_name(id), i + 1);
				return false;
			}
			break;
		case HELPER_ARG_TASK_OR_NULL:
			if (v) {
				interp_call_fail(call, EINVAL, "UNSOUND: helper %s task 0x%llx",
						 helper_proto_name(id), (unsigned long long)v);
				return false;
			}
			break;
		case HELPER_ARG_CTX:
			if (v != env->ctx_addr) {
				interp_call_fail(call, EINVAL, "UNSOUND: helper %s ctx 0x%llx",
						 helper_proto_name(id), (unsigned long long)v);
				return false;
			}
			break;
		case HELPER_ARG_CONST_STR:
			for (n = 0;; n++) {
				if (interp_call_check(call, v + n, 1, false)) {
					interp_call_fail(call, EFAULT,
							 "UNSOUND: helper %s string at 0x%llx "
							 "not terminated in memory",
							 helper_proto_name(id), (unsigned long long)v);
					return false;
				}
				if (!*(const char *)(uintptr_t)(v + n))
					break;
			}
			break;
		default:
			break;
		}
		if (!ok)
			return false;
	}
	if (mapp)
		*mapp = m;
	return true;
}

static uint64_t h_generic(struct interp_call *call, const uint64_t a[5], int32_t id)
{
	struct fuzz_env *env = interp_call_user(call);
	const struct helper_proto *p = helper_proto_find(id);

	if (!check_args(call, env, a, id, NULL))
		return 0;
	for (unsigned i = 0; i < 4; i++) {
		/* Fill what the helper would write, with junk the program must
		 * treat as unknown bytes. */
		if (p->args[i] == HELPER_ARG_UNINIT_MEM && a[i + 1]) {
			uint8_t *dst = (uint8_t *)(uintptr_t)a[i];

			for (uint64_t b = 0; b < a[i + 1]; b++)
				dst[b] = (uint8_t)rng_next(&env->rng);
			if (id == BPF_FUNC_probe_read_user_str || id == BPF_FUNC_get_current_comm)
				dst[a[i + 1] - 1] = 0;
		}
	}
	if (p->ret == HELPER_RET_VOID)
		return 0;
	return random_ret(env, p->ret_umax);
}

#define GENERIC_HELPERS(X)                                                                         \
	X(get_current_uid_gid)                                                                     \
	X(get_current_pid_tgid)                                                                    \
	X(probe_read_user)                                                                         \
	X(probe_read_user_str)                                                                     \
	X(task_storage_delete)                                                                     \
	X(ringbuf_output)                                                                          \
	X(ringbuf_query)                                                                           \
	X(get_prandom_u32)                                                                         \
	X(ktime_get_ns)                                                                            \
	X(ktime_get_boot_ns)                                                                       \
	X(ktime_get_coarse_ns)                                                                     \
	X(get_smp_processor_id)                                                                    \
	X(strncmp)                                                                                 \
	X(get_current_comm)                                                                        \
	X(send_signal)                                                                             \
	X(send_signal_thread)                                                                      \
	X(get_current_cgroup_id)                                                                   \
	X(trace_printk)

#define GENERIC_FN(name)                                                                           \
	static uint64_t h_##name(struct interp_call *call, const uint64_t a[5])                    \
	{                                                                                          \
		return h_generic(call, a, BPF_FUNC_##name);                                        \
	}
GENERIC_HELPERS(GENERIC_FN)
#undef GENERIC_FN

static int32_t hash_find(const struct fuzz_map *m, uint32_t key)
{
	for (uint32_t j = 0; j < FUZZ_ELEMS && j < m->spec->max_entries; j++)
		if (m->used[j] && m->keys[j] == key)
			return (int32_t)j;
	return -1;
}

/* The element key designates, or -1. */
static int32_t elem_find(const struct fuzz_map *m, uint64_t key_addr)
{
	uint32_t key = *(const uint32_t *)(uintptr_t)key_addr;

	if (map_is_array(m))
		return key < m->spec->max_entries && key < FUZZ_ELEMS ? (int32_t)key : -1;
	return hash_find(m, key);
}

static uint64_t elem_value(struct interp_call *call, struct fuzz_env *env, struct fuzz_map *m,
			   int32_t j)
{
	if (!region_add(call, env, m->values[j], m->spec->value_size, !map_rdonly(m)))
		return 0;
	return (uint64_t)(uintptr_t)m->values[j];
}

static uint64_t h_map_lookup_elem(struct interp_call *call, const uint64_t a[5])
{
	struct fuzz_env *env = interp_call_user(call);
	struct fuzz_map *m;
	int32_t j;

	if (!check_args(call, env, a, BPF_FUNC_map_lookup_elem, &m))
		return 0;
	j = elem_find(m, a[1]);
	return j < 0 ? 0 : elem_value(call, env, m, j);
}

static uint64_t h_map_update_elem(struct interp_call *call, const uint64_t a[5])
{
	struct fuzz_env *env = interp_call_user(call);
	struct fuzz_map *m;
	int32_t j;

	if (!check_args(call, env, a, BPF_FUNC_map_update_elem, &m))
		return 0;
	if (map_rdonly(m)) {
		if (env->known_rodata_write)
			return (uint64_t)-EPERM;
		interp_call_fail(call, EPERM, "UNSOUND: map_update_elem on read-only map %s",
				 m->spec->name);
		return 0;
	}
	if (a[3] > BPF_EXIST)
		return (uint64_t)-EINVAL;
	j = elem_find(m, a[1]);
	if (j < 0 && map_is_array(m))
		return (uint64_t)-E2BIG;
	if (j < 0) {
		for (uint32_t k = 0; k < FUZZ_ELEMS && k < m->spec->max_entries; k++)
			if (!m->used[k]) {
				j = (int32_t)k;
				break;
			}
		if (j < 0)
			return (uint64_t)-E2BIG;
		m->used[j] = true;
		m->keys[j] = *(const uint32_t *)(uintptr_t)a[1];
	}
	memmove(m->values[j], (const void *)(uintptr_t)a[2], m->spec->value_size);
	return 0;
}

static uint64_t h_map_delete_elem(struct interp_call *call, const uint64_t a[5])
{
	struct fuzz_env *env = interp_call_user(call);
	struct fuzz_map *m;
	int32_t j;

	if (!check_args(call, env, a, BPF_FUNC_map_delete_elem, &m))
		return 0;
	if (map_rdonly(m)) {
		if (env->known_rodata_write)
			return (uint64_t)-EPERM;
		interp_call_fail(call, EPERM, "UNSOUND: map_delete_elem on read-only map %s",
				 m->spec->name);
		return 0;
	}
	if (map_is_array(m))
		return (uint64_t)-EINVAL;
	j = elem_find(m, a[1]);
	if (j < 0)
		return (uint64_t)-ENOENT;
	m->used[j] = false; /* the memory stays: a pointer to it is still valid */
	return 0;
}

static uint64_t h_queue(struct interp_call *call, const uint64_t a[5], int32_t id)
{
	struct fuzz_env *env = interp_call_user(call);
	struct fuzz_map *m;

	if (!check_args(call, env, a, id, &m))
		return 0;
	if (id != BPF_FUNC_map_push_elem)
		memcpy((void *)(uintptr_t)a[1], m->values[rng_next(&env->rng) % FUZZ_ELEMS],
		       m->spec->value_size);
	return rng_next(&env->rng) & 1 ? 0 : (uint64_t)-ENOENT;
}

static uint64_t h_map_push_elem(struct interp_call *call, const uint64_t a[5])
{
	return h_queue(call, a, BPF_FUNC_map_push_elem);
}

static uint64_t h_map_pop_elem(struct interp_call *call, const uint64_t a[5])
{
	return h_queue(call, a, BPF_FUNC_map_pop_elem);
}

static uint64_t h_map_peek_elem(struct interp_call *call, const uint64_t a[5])
{
	return h_queue(call, a, BPF_FUNC_map_peek_elem);
}

static uint64_t h_task_storage_get(struct interp_call *call, const uint64_t a[5])
{
	struct fuzz_env *env = interp_call_user(call);
	struct fuzz_map *m;

	if (!check_args(call, env, a, BPF_FUNC_task_storage_get, &m))
		return 0;
	if (rng_next(&env->rng) & 1)
		return 0;
	return elem_value(call, env, m, 0);
}

static uint64_t h_tail_call(struct interp_call *call, const uint64_t a[5])
{
	struct fuzz_env *env = interp_call_user(call);

	if (!check_args(call, env, a, BPF_FUNC_tail_call, NULL))
		return 0;
	return (uint64_t)-ENOENT; /* an empty prog array: the caller goes on */
}

static uint64_t h_ringbuf_reserve(struct interp_call *call, const uint64_t a[5])
{
	struct fuzz_env *env = interp_call_user(call);
	uint64_t size = a[1], at = (env->ringbuf_used + 7) & ~7u;

	if (!check_args(call, env, a, BPF_FUNC_ringbuf_reserve, NULL))
		return 0;
	if (a[2] || (rng_next(&env->rng) & 1) || size > FUZZ_RINGBUF - at ||
	    env->nrecords == FUZZ_RECORDS)
		return 0;
	if (!region_add(call, env, env->ringbuf + at, size, true))
		return 0;
	env->ringbuf_used = (uint32_t)(at + size);
	env->records[env->nrecords++] =
		(struct ringbuf_record){ (uint64_t)(uintptr_t)(env->ringbuf + at), true };
	return (uint64_t)(uintptr_t)(env->ringbuf + at);
}

static uint64_t ringbuf_release(struct interp_call *call, const uint64_t a[5], int32_t id)
{
	struct fuzz_env *env = interp_call_user(call);

	if (!check_args(call, env, a, id, NULL))
		return 0;
	for (uint32_t i = 0; i < env->nrecords; i++)
		if (env->records[i].addr == a[0] && env->records[i].live) {
			env->records[i].live = false;
			return 0;
		}
	interp_call_fail(call, EINVAL, "UNSOUND: %s of 0x%llx, not a live record",
			 helper_proto_name(id), (unsigned long long)a[0]);
	return 0;
}

static uint64_t h_ringbuf_submit(struct interp_call *call, const uint64_t a[5])
{
	return ringbuf_release(call, a, BPF_FUNC_ringbuf_submit);
}

static uint64_t h_ringbuf_discard(struct interp_call *call, const uint64_t a[5])
{
	return ringbuf_release(call, a, BPF_FUNC_ringbuf_discard);
}

/* Run a callback; false when the run failed or the callback broke the
 * verifier's promise that it returns 0 or 1. */
static bool callback_run(struct interp_call *call, uint64_t func, const uint64_t args[5],
			 uint64_t *r0)
{
	if (interp_call_subprog(call, func, args, r0))
		return false;
	if (*r0 > 1) {
		interp_call_fail(call, EINVAL, "UNSOUND: callback returned 0x%llx, not 0 or 1",
				 (unsigned long long)*r0);
		return false;
	}
	return true;
}

/* bpf_loop(nr, cb, ctx, flags) as the kernel runs it, except that a run
 * makes at most FUZZ_CB_BUDGET callback calls in all (so nested loops of
 * 2^23 stay quick); the verifier must allow any count. */
static uint64_t h_loop(struct interp_call *call, const uint64_t a[5])
{
	struct fuzz_env *env = interp_call_user(call);
	uint32_t nr = (uint32_t)a[0], i;

	if (!check_args(call, env, a, BPF_FUNC_loop, NULL))
		return 0;
	if (a[3])
		return (uint64_t)-EINVAL;
	if (nr > (1u << 23))
		return (uint64_t)-E2BIG;
	for (i = 0; i < nr && env->cb_runs < FUZZ_CB_BUDGET; i++) {
		uint64_t args[5] = { i, a[2], rng_next(&env->rng), rng_next(&env->rng), 0 }, r0;

		env->cb_runs++;
		if (!callback_run(call, a[1], args, &r0))
			return 0;
		if (r0)
			return i + 1;
	}
	return i;
}

static uint64_t h_for_each_map_elem(struct interp_call *call, const uint64_t a[5])
{
	struct fuzz_env *env = interp_call_user(call);
	struct fuzz_map *m;
	uint64_t n = 0;

	if (!check_args(call, env, a, BPF_FUNC_for_each_map_elem, &m))
		return 0;
	if (a[3])
		return (uint64_t)-EINVAL;
	for (uint32_t j = 0; j < FUZZ_ELEMS && j < m->spec->max_entries; j++) {
		uint64_t args[5] = { a[0], (uint64_t)(uintptr_t)&m->keys[j], 0, a[2], 0 }, r0;

		if (!m->used[j] || env->cb_runs >= FUZZ_CB_BUDGET)
			continue;
		if (!region_add(call, env, &m->keys[j], sizeof(m->keys[j]), false))
			return 0;
		args[2] = elem_value(call, env, m, (int32_t)j);
		if (!args[2])
			return 0;
		env->cb_runs++;
		n++;
		if (!callback_run(call, a[1], args, &r0))
			return 0;
		if (r0)
			break;
	}
	return n;
}

static interp_helper_fn helper_lookup(void *user, int32_t id)
{
	(void)user;
	switch (id) {
#define GENERIC_CASE(name)                                                                         \
	case BPF_FUNC_##name:                                                                      \
		return h_##name;
		GENERIC_HELPERS(GENERIC_CASE)
#undef GENERIC_CASE
	case BPF_FUNC_map_lookup_elem:
		return h_map_lookup_elem;
	case BPF_FUNC_map_update_elem:
		return h_map_update_elem;
	case BPF_FUNC_map_delete_elem:
		return h_map_delete_elem;
	case BPF_FUNC_map_push_elem:
		return h_map_push_elem;
	case BPF_FUNC_map_pop_elem:
		return h_map_pop_elem;
	case BPF_FUNC_map_peek_elem:
		return h_map_peek_elem;
	case BPF_FUNC_task_storage_get:
		return h_task_storage_get;
	case BPF_FUNC_tail_call:
		return h_tail_call;
	case BPF_FUNC_ringbuf_reserve:
		return h_ringbuf_reserve;
	case BPF_FUNC_ringbuf_submit:
		return h_ringbuf_submit;
	case BPF_FUNC_ringbuf_discard:
		return h_ringbuf_discard;
	case BPF_FUNC_loop:
		return h_loop;
	case BPF_FUNC_for_each_map_elem:
		return h_for_each_map_elem;
	}
	return NULL;
}

/* ---- the program generator ----------------------------------------------- */

struct gen {
	const uint8_t *p, *end;
	struct bpf_insn insns[FUZZ_MAX_SLOTS];
	uint32_t n;
	/* Subprograms asked for (bpf_loop callbacks, calls): the slots that
	 * refer to them, patched once the bodies are placed after main. */
	struct gen_ref {
		uint32_t slot;
		uint32_t func;
	} refs[16];
	uint32_t nrefs, nfuncs;
	bool func_is_cb[8];
};

static uint8_t gbyte(struct gen *g)
{
	return g->p < g->end ? *g->p++ : 0;
}

static bool gen_full(const struct gen *g)
{
	return g->p >= g->end || g->n + 48 > FUZZ_MAX_SLOTS;
}

static void emit(struct gen *g, uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	if (g->n < FUZZ_MAX_SLOTS)
		g->insns[g->n++] = (struct bpf_insn){
			.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm
		};
}

static void emit_ld64(struct gen *g, uint8_t dst, uint8_t src, int32_t lo, int32_t hi)
{
	emit(g, BPF_LD | BPF_IMM | BPF_DW, dst, src, 0, lo);
	emit(g, 0, 0, 0, 0, hi);
}

static int32_t gen_imm(struct gen *g)
{
	static const int32_t vals[] = { 0,	   1,	       2,	   3,	   4,	  7,
					8,	   15,	       16,	   31,	   32,	  63,
					64,	   255,	       256,	   511,	   512,	  4096,
					0x7fff,	   0xffff,     0x7fffffff, INT32_MIN, -1,	  -2,
					-4,	   -8,	       -16,	   -64,	   -512,  -4096 };
	uint8_t b = gbyte(g);

	if (b < 0xf0)
		return vals[b % (sizeof(vals) / sizeof(vals[0]))];
	return (int32_t)((uint32_t)gbyte(g) | (uint32_t)gbyte(g) << 8 | (uint32_t)gbyte(g) << 16 |
			 (uint32_t)gbyte(g) << 24);
}

/* Registers: r0-r9, r6 holds the context by convention, r10 only read. */
static uint8_t gen_reg(struct gen *g)
{
	return gbyte(g) % 10;
}

static uint8_t gen_size(struct gen *g)
{
	static const uint8_t sizes[] = { BPF_DW, BPF_W, BPF_H, BPF_B };

	return sizes[gbyte(g) & 3];
}

static int16_t gen_stack_off(struct gen *g, uint8_t size)
{
	uint8_t b = gbyte(g);
	int16_t off = (int16_t)(-8 * (1 + (b & 7)));

	if (b & 0x80)
		off = (int16_t)(off + (b >> 3 & 7) / (size == BPF_DW ? 8 : size == BPF_W ? 4 : 1));
	if ((b & 0x78) == 0x78)
		off = (int16_t)(-512 + (b & 7) * 8 - (b >> 7));
	return off;
}

static uint32_t gen_func(struct gen *g, uint32_t slot, bool cb)
{
	uint32_t f;

	if (g->nfuncs < 8) {
		f = g->nfuncs++;
		g->func_is_cb[f] = cb;
	} else {
		f = gbyte(g) % 8;
	}
	if (g->nrefs < 16)
		g->refs[g->nrefs++] = (struct gen_ref){ slot, f };
	return f;
}

static void gen_block(struct gen *g, unsigned depth, unsigned snippets);

/* "if cond goto over; body; over:", the body one nesting level deeper. */
static void gen_guarded(struct gen *g, uint8_t code, uint8_t dst, uint8_t src, int32_t imm,
			unsigned depth)
{
	uint32_t j = g->n;

	emit(g, code, dst, src, 0, imm);
	gen_block(g, depth + 1, 1 + gbyte(g) % 3);
	if ((gbyte(g) & 3) == 3) { /* early exit */
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, gen_imm(g));
		emit(g, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	if (j < FUZZ_MAX_SLOTS)
		g->insns[j].off = (int16_t)(g->n - j - 1);
}

static uint8_t gen_cond(struct gen *g)
{
	static const uint8_t ops[] = { BPF_JEQ,	 BPF_JNE,  BPF_JGT,  BPF_JGE,  BPF_JLT,
				       BPF_JLE,	 BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE,
				       BPF_JSET, BPF_JEQ,  BPF_JNE,  BPF_JGT };

	return ops[gbyte(g) % (sizeof(ops) / sizeof(ops[0]))];
}

/* A load, store or atomic through ptr at a small offset. */
static void gen_access(struct gen *g, uint8_t ptr)
{
	uint8_t b = gbyte(g), size = gen_size(g), r = gen_reg(g);
	int16_t off = (int16_t)((int8_t)gbyte(g) % 72);

	switch (b % 6) {
	case 0:
	case 1:
		emit(g, BPF_LDX | BPF_MEM | size, r, ptr, off, 0);
		break;
	case 2:
		emit(g, BPF_STX | BPF_MEM | size, ptr, r, off, 0);
		break;
	case 3:
		emit(g, BPF_ST | BPF_MEM | size, ptr, 0, off, gen_imm(g));
		break;
	case 4: {
		static const int32_t ops[] = { BPF_ADD, BPF_OR,	      BPF_AND,
					       BPF_XOR, BPF_XCHG,     BPF_CMPXCHG,
					       BPF_ADD | BPF_FETCH, BPF_OR | BPF_FETCH };

		emit(g, BPF_STX | BPF_ATOMIC | (b & 8 ? BPF_W : BPF_DW), ptr, r, off,
		     ops[gbyte(g) % 8]);
		break;
	}
	default:
		emit(g, BPF_LDX | BPF_MEMSX | (size == BPF_DW ? BPF_W : size), r, ptr, off, 0);
		break;
	}
}

/* Key at fp-8 (initialized), r1 = map, r2 = key. */
static void gen_map_key(struct gen *g, uint8_t map)
{
	uint8_t b = gbyte(g);

	if (b & 1)
		emit(g, BPF_STX | BPF_MEM | BPF_W, 10, gen_reg(g), -8, 0);
	else
		emit(g, BPF_ST | BPF_MEM | BPF_DW, 10, 0, -8, (b >> 1) % 6);
	emit_ld64(g, 1, BPF_PSEUDO_MAP_FD, map, 0);
	emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -8);
}

static void gen_helper(struct gen *g)
{
	static const int32_t simple[] = { BPF_FUNC_get_prandom_u32,	BPF_FUNC_ktime_get_ns,
					  BPF_FUNC_get_smp_processor_id, BPF_FUNC_get_current_pid_tgid,
					  BPF_FUNC_get_current_uid_gid,	BPF_FUNC_ktime_get_boot_ns };
	uint8_t b = gbyte(g), map = gbyte(g) % FUZZ_MAPS;

	switch (b % 8) {
	case 0:
	case 1:
		emit(g, BPF_JMP | BPF_CALL, 0, 0, 0, simple[gbyte(g) % 6]);
		break;
	case 2: /* update: key fp-8, value fp-32..-16 */
		emit(g, BPF_ST | BPF_MEM | BPF_DW, 10, 0, -32, gen_imm(g));
		emit(g, BPF_STX | BPF_MEM | BPF_DW, 10, gen_reg(g), -24, 0);
		gen_map_key(g, map);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, b & 8 ? -24 : -32);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, (b >> 4) % 3);
		emit(g, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_update_elem);
		break;
	case 3:
		gen_map_key(g, map);
		emit(g, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_delete_elem);
		break;
	case 4: /* probe_read_user into the stack */
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -8 * (1 + (b >> 3) % 8));
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, (b >> 4) * 2);
		emit(g, BPF_LDX | BPF_MEM | BPF_DW, 3, 6, 16, 0);
		emit(g, BPF_JMP | BPF_CALL, 0, 0, 0,
		     b & 1 ? BPF_FUNC_probe_read_user : BPF_FUNC_probe_read_user_str);
		break;
	case 5: /* ringbuf reserve, use, submit */
	{
		uint32_t j;

		emit_ld64(g, 1, BPF_PSEUDO_MAP_FD, map, 0);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 8 * (1 + (b >> 4)));
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
		emit(g, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_reserve);
		j = g->n;
		emit(g, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0, 0);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 7, 0, 0, 0);
		gen_access(g, 7);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 7, 0, 0);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 0);
		emit(g, BPF_JMP | BPF_CALL, 0, 0, 0,
		     b & 1 ? BPF_FUNC_ringbuf_submit : BPF_FUNC_ringbuf_discard);
		if (j < FUZZ_MAX_SLOTS)
			g->insns[j].off = (int16_t)(g->n - j - 1);
		break;
	}
	case 6: /* strncmp(stack, n, rodata string) */
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -16);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 1 + (b >> 4) % 16);
		emit_ld64(g, 3, BPF_PSEUDO_MAP_VALUE, map, (b >> 3) % 8);
		emit(g, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_strncmp);
		break;
	default: /* for_each_map_elem with a callback */
		emit_ld64(g, 1, BPF_PSEUDO_MAP_FD, map, 0);
		gen_func(g, g->n, true);
		emit_ld64(g, 2, BPF_PSEUDO_FUNC, 0, 0);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0);
		emit(g, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_for_each_map_elem);
		break;
	}
}

static void gen_snippet(struct gen *g, unsigned depth)
{
	static const uint8_t alu_ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR,
					   BPF_AND, BPF_LSH, BPF_RSH, BPF_NEG, BPF_MOD,
					   BPF_XOR, BPF_MOV, BPF_ARSH, BPF_END, BPF_AND };
	uint8_t op = gbyte(g), r = gen_reg(g), s, fl = gbyte(g);
	uint32_t j;

	if (op == 0xff && (fl & 1))
		op = 23; /* one raw instruction, rarely: they are mostly invalid */
	else
		op = (uint8_t)(op % 22);
	switch (op) {
	case 0: /* context load */
	case 1: {
		static const int16_t offs[] = { 0, 4, 8, 16, 24, 32, 40, 48, 56, 12, 20, 2, 1, 60 };
		uint8_t b = gbyte(g);
		int16_t off = offs[b % (sizeof(offs) / sizeof(offs[0]))];
		uint8_t size = off < 8 ? BPF_W : BPF_DW;

		if (b & 0x40)
			size = gen_size(g);
		emit(g, BPF_LDX | BPF_MEM | size, r, b & 0x80 ? gen_reg(g) : 6, off, 0);
		break;
	}
	case 2:
		emit(g, (fl & 0x20 ? BPF_ALU : BPF_ALU64) | BPF_MOV | BPF_K, r, 0, 0, gen_imm(g));
		break;
	case 3:
		emit_ld64(g, r, 0, gen_imm(g), gen_imm(g));
		break;
	case 4: /* ALU */
	case 5:
	case 6: {
		uint8_t b = gbyte(g), aop = alu_ops[b % (sizeof(alu_ops) / sizeof(alu_ops[0]))];
		uint8_t cls = b & 0x80 ? BPF_ALU : BPF_ALU64;
		int16_t off = 0;

		if (aop == BPF_END) {
			static const int32_t widths[] = { 16, 32, 64 };

			emit(g, cls | BPF_END | (b & 0x40 ? BPF_TO_BE : BPF_TO_LE), r, 0, 0,
			     widths[gbyte(g) % 3]);
			break;
		}
		if ((aop == BPF_DIV || aop == BPF_MOD) && (b & 0x20))
			off = 1; /* signed */
		if (aop == BPF_MOV && (b & 0x60) == 0x60)
			off = (int16_t)(8 << (gbyte(g) % 3)); /* movsx */
		if (aop == BPF_NEG)
			emit(g, cls | aop | BPF_K, r, 0, 0, 0);
		else if (b & 0x40)
			emit(g, cls | aop | BPF_X, r, gen_reg(g), off, 0);
		else
			emit(g, cls | aop | BPF_K, r, 0, off,
			     aop == BPF_LSH || aop == BPF_RSH || aop == BPF_ARSH
				     ? gbyte(g) % (cls == BPF_ALU ? 32 : 64)
										 : gen_imm(g));
		break;
	}
	case 7: /* stack store */
		s = gen_size(g);
		if (fl & 0x40)
			emit(g, BPF_ST | BPF_MEM | s, 10, 0, gen_stack_off(g, s), gen_imm(g));
		else
			emit(g, BPF_STX | BPF_MEM | s, 10, gen_reg(g), gen_stack_off(g, s), 0);
		break;
	case 8: /* stack load */
		s = gen_size(g);
		emit(g, BPF_LDX | (fl & 0x40 && s != BPF_DW ? BPF_MEMSX : BPF_MEM) | s, r, 10,
		     gen_stack_off(g, s), 0);
		break;
	case 9: /* pointer to a map value, direct */
		emit_ld64(g, r, BPF_PSEUDO_MAP_VALUE, gbyte(g) % FUZZ_MAPS, gbyte(g) % 20);
		gen_access(g, r);
		break;
	case 10: /* lookup, NULL check, use */
	case 11: {
		uint8_t map = gbyte(g) % FUZZ_MAPS, b = gbyte(g);

		gen_map_key(g, map);
		emit(g, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
		r = 7 + b % 3;
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, r, 0, 0, 0);
		if ((b & 0x18) == 0x18) {
			gen_access(g, r); /* unchecked: must be rejected */
			break;
		}
		j = g->n;
		emit(g, (b & 0x20 ? BPF_JMP32 : BPF_JMP) | (b & 0x40 ? BPF_JNE : BPF_JEQ) | BPF_K,
		     b & 4 ? 0 : r, 0, 0, 0);
		if (b & 0x80) { /* a bounded variable offset */
			uint8_t idx = gen_reg(g);

			emit(g, BPF_ALU64 | BPF_AND | BPF_K, idx, 0, 0, gen_imm(g));
			emit(g, BPF_ALU64 | BPF_ADD | BPF_X, r, idx, 0, 0);
		}
		gen_access(g, r);
		gen_block(g, depth + 1, gbyte(g) % 3);
		if (j < FUZZ_MAX_SLOTS)
			g->insns[j].off = (int16_t)(g->n - j - 1);
		break;
	}
	case 12: /* memory access through any register */
		gen_access(g, r);
		break;
	case 13: /* guarded block on a comparison */
	case 14:
		s = gen_cond(g);
		if (fl & 0x40)
			gen_guarded(g, (fl & 0x80 ? BPF_JMP32 : BPF_JMP) | s | BPF_X, r, gen_reg(g),
				    0, depth);
		else
			gen_guarded(g, (fl & 0x80 ? BPF_JMP32 : BPF_JMP) | s | BPF_K, r, 0,
				    gen_imm(g), depth);
		break;
	case 15: /* variable offset added to a pointer */
		s = gen_reg(g);
		emit(g, BPF_ALU64 | BPF_AND | BPF_K, s, 0, 0, gen_imm(g));
		emit(g, BPF_ALU64 | (fl & 0x40 ? BPF_SUB : BPF_ADD) | BPF_X, r, s, 0, 0);
		break;
	case 16: /* bounded loop: r = 0; do body; r += 1; while r < N */
		if (depth > 2)
			break;
		r = 7 + r % 3;
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, r, 0, 0, 0);
		j = g->n;
		gen_block(g, depth + 1, 1 + gbyte(g) % 3);
		emit(g, BPF_ALU64 | BPF_ADD | BPF_K, r, 0, 0, 1);
		emit(g, (fl & 0x40 ? BPF_JMP32 : BPF_JMP) | (fl & 0x80 ? BPF_JLT : BPF_JNE) | BPF_K,
		     r, 0, (int16_t)((int32_t)j - (int32_t)g->n - 1), 1 + gbyte(g) % 24);
		break;
	case 17: /* bpf_loop(nr, cb, ctx on stack or NULL, 0) */
		if (fl & 0x40)
			emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, gen_imm(g));
		else
			emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 1, gen_reg(g), 0, 0);
		gen_func(g, g->n, true);
		emit_ld64(g, 2, BPF_PSEUDO_FUNC, 0, 0);
		if (fl & 0x80) {
			emit(g, BPF_ST | BPF_MEM | BPF_DW, 10, 0, -16, 0);
			emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0);
			emit(g, BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, -16);
		} else {
			emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
		}
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0);
		emit(g, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_loop);
		break;
	case 18:
	case 19:
		gen_helper(g);
		break;
	case 20: /* bpf-to-bpf call */
		gen_func(g, g->n, false);
		emit(g, BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0);
		break;
	case 21: /* spill and fill */
		s = gen_reg(g);
		{
			int16_t off = gen_stack_off(g, BPF_DW);

			emit(g, BPF_STX | BPF_MEM | BPF_DW, 10, r, off, 0);
			if (fl & 0x40)
				gen_snippet(g, depth + 1);
			emit(g, BPF_LDX | BPF_MEM | (fl & 0x80 ? gen_size(g) : BPF_DW), s, 10, off,
			     0);
		}
		break;
	default: { /* one raw instruction */
		struct bpf_insn in;

		for (size_t k = 0; k < sizeof(in); k++)
			((uint8_t *)&in)[k] = gbyte(g);
		if (insn_is_ld_imm64(&in))
			break;
		if ((BPF_CLASS(in.code) == BPF_JMP || BPF_CLASS(in.code) == BPF_JMP32) &&
		    (in.off < -4 || in.off > 4))
			in.off %= 4;
		emit(g, in.code, in.dst_reg, in.src_reg, in.off, in.imm);
		break;
	}
	}
}

static void gen_block(struct gen *g, unsigned depth, unsigned snippets)
{
	if (depth > 4)
		return;
	while (snippets-- && !gen_full(g))
		gen_snippet(g, depth);
}

static void gen_epilogue(struct gen *g, bool cb)
{
	uint8_t b = gbyte(g);

	if (cb || b < 0xc0)
		emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, cb ? (b & 1) : gen_imm(g));
	else if (b < 0xf0)
		emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 0, gen_reg(g), 0, 0);
	emit(g, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

/* Main, then the subprograms it (or they) asked for, then the patching. */
static void gen_program(struct gen *g, bool stack_prologue)
{
	uint32_t start[8] = { 0 }, f, i;

	emit(g, BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	if (stack_prologue) {
		for (i = 1; i <= 4; i++)
			emit(g, BPF_ST | BPF_MEM | BPF_DW, 10, 0, (int16_t)(-8 * (int)i), 0);
		for (i = 0; i < 10; i++)
			if (i != 1 && i != 6)
				emit(g, BPF_ALU64 | BPF_MOV | BPF_K, (uint8_t)i, 0, 0, gen_imm(g));
	}
	gen_block(g, 0, 24);
	gen_epilogue(g, false);
	for (f = 0; f < g->nfuncs && g->n + 8 < FUZZ_MAX_SLOTS; f++) {
		start[f] = g->n;
		if (g->func_is_cb[f]) /* the callback's r6 is not the context */
			emit(g, BPF_ALU64 | BPF_MOV | BPF_K, 6, 0, 0, 0);
		gen_block(g, 2, 1 + gbyte(g) % 4);
		gen_epilogue(g, g->func_is_cb[f]);
	}
	for (i = 0; i < g->nrefs; i++) {
		struct gen_ref *r = &g->refs[i];

		if (r->slot < g->n)
			g->insns[r->slot].imm = (int32_t)start[r->func] - (int32_t)r->slot - 1;
	}
}

/* ---- running an accepted program ----------------------------------------- */

/* Slots of the entry function: up to the first subprogram. */
static uint32_t main_end(const struct bpf_insn *insns, uint32_t cnt)
{
	uint32_t end = cnt;

	for (uint32_t i = 0; i < cnt; i++) {
		int64_t t;

		if (insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg == BPF_PSEUDO_CALL)
			t = (int64_t)i + insns[i].imm + 1;
		else if (insn_is_ld_imm64(&insns[i]) && insns[i].src_reg == BPF_PSEUDO_FUNC)
			t = (int64_t)i + insns[i].imm + 1;
		else
			continue;
		if (t > 0 && t < end)
			end = (uint32_t)t;
	}
	return end;
}

static bool fact_holds(const struct verifier_reg_fact *f, uint64_t v)
{
	if (f->type != VERIFIER_FACT_SCALAR)
		return true;
	return (v & ~f->mask) == f->value && v >= f->umin && v <= f->umax &&
	       (int64_t)v >= f->smin && (int64_t)v <= f->smax;
}

/* r0 of a finished run must fit the facts of some reachable exit of main. */
static bool exit_value_ok(const struct verifier_facts *facts, const struct bpf_insn *insns,
			  uint32_t cnt, uint64_t r0)
{
	uint32_t end = main_end(insns, cnt);
	bool any = false;

	for (uint32_t i = 0; i < end; i++) {
		if (insns[i].code != (BPF_JMP | BPF_EXIT) ||
		    !(facts->insns[i].flags & VERIFIER_INSN_REACHABLE))
			continue;
		any = true;
		if (fact_holds(&facts->insns[i].regs[BPF_REG_0], r0))
			return true;
	}
	return !any;
}

static void dump_prog(const struct bpf_insn *insns, uint32_t cnt)
{
	char buf[256];

	for (uint32_t i = 0; i < cnt; i++) {
		int n = insn_disasm(insns, cnt, i, buf, sizeof(buf));

		fprintf(stderr, "  %4u: %02x %x %x %6d %11d  %s\n", i, insns[i].code,
			insns[i].dst_reg, insns[i].src_reg, insns[i].off, insns[i].imm, buf);
		if (n == 2) {
			i++;
			fprintf(stderr, "  %4u: %02x %x %x %6d %11d\n", i, insns[i].code,
				insns[i].dst_reg, insns[i].src_reg, insns[i].off, insns[i].imm);
		}
	}
}

static void __attribute__((noreturn))
finding(const char *what, const char *msg, const struct object_prog *prog,
	const struct fuzz_env *env, const char *tier)
{
	fprintf(stderr, "\nVERIFIER SOUNDNESS BUG (%s, accepted at %s): %s\nmaps:", what, tier,
		msg);
	for (uint32_t i = 0; i < FUZZ_MAPS; i++)
		fprintf(stderr, " %u=%s", i, env->maps[i].spec->name);
	fprintf(stderr, "\nprogram:\n");
	dump_prog(prog->insns, prog->insn_cnt);
	abort();
}

static const struct interp_call_table fuzz_calls = { .resolve = helper_lookup };

static void run_accepted(struct fuzz_env *env, const struct object_prog *prog,
			 const struct verifier_facts *facts, const char *tier)
{
	static const uint32_t nrs[] = { 0, 1, 2, 59, 60, 231, 257, 435, 1000, 0xffffffff };
	struct interp_config cfg = { .insns = prog->insns,
				     .cnt = prog->insn_cnt,
				     .maps = env->refs,
				     .nmaps = FUZZ_MAPS,
				     .calls = &fuzz_calls,
				     .user = env,
				     .insn_limit = FUZZ_INSN_LIMIT };
	struct secbpf_err err = { { 0 } };
	struct interp *in = interp_new(&cfg, &err);
	uint64_t ctx[8];

	if (!in && env->known_dead_map_value && strstr(err.msg, "no directly addressable value"))
		return;
	if (!in)
		finding("interp_new refused it", err.msg, prog, env, tier);
	for (unsigned run = 0; run < FUZZ_RUNS; run++) {
		struct interp_region region = { (uint64_t)(uintptr_t)ctx, sizeof(ctx), false };
		uint64_t args[5], r0 = 0;
		int rc;

		for (unsigned k = 0; k < 8; k++)
			ctx[k] = rng_next(&env->rng);
		if (run & 1) {
			uint32_t *w = (uint32_t *)ctx;

			w[0] = nrs[ctx[7] % (sizeof(nrs) / sizeof(nrs[0]))];
			w[1] = 0xc000003e; /* AUDIT_ARCH_X86_64 */
			for (unsigned k = 2; k < 8; k++)
				ctx[k] = ctx[k] % 5 == 0 ? 0 : ctx[k] & ((1ULL << (ctx[k] % 64)) - 1);
		}
		env->ctx_addr = region.base;
		args[0] = region.base;
		for (unsigned k = 1; k < 5; k++)
			args[k] = rng_next(&env->rng);
		env->nadded = 0;
		env->cb_runs = 0;
		env->cut_short = false;
		env->ringbuf_used = 0;
		env->nrecords = 0;
		rc = interp_run(in, args, &region, 1, &r0, &err);
		if (rc)
			finding(rc == -E2BIG ? "runaway or too deep" : "interpreter fault", err.msg,
				prog, env, tier);
		if (env->cut_short)
			continue;
		for (uint32_t i = 0; i < env->nrecords; i++)
			if (env->records[i].live)
				finding("ringbuf record leaked", "reserved, never submitted", prog,
					env, tier);
		if (facts && !exit_value_ok(facts, prog->insns, prog->insn_cnt, r0)) {
			char msg[96];

			snprintf(msg, sizeof(msg), "r0 = 0x%llx at exit, outside every exit's facts",
				 (unsigned long long)r0);
			finding("exit value", msg, prog, env, tier);
		}
	}
	interp_free(in);
}

/* ---- seeds from tests/verifier/ *.s --------------------------------------- */

#define MAGIC_MAP 0x5ecb9001u
#define MAGIC_MAPVAL 0x5ecb9002u
#define MAGIC_FUNC 0x5ecb9004u
#define MAGIC_RAW 0x5ecb9005u

static int palette_match(const char *type, unsigned k, unsigned v, unsigned e, const char *kind)
{
	int best = -1;

	for (int i = 0; i < 16; i++) {
		const struct map_spec *s = &palette[i];
		const char *sk = s->kind == OBJECT_MAP_DATA	? "data"
				 : s->kind == OBJECT_MAP_RODATA ? "rodata"
				 : s->kind == OBJECT_MAP_BSS	? "bss"
								: "btf";
		const char *st = helper_map_type_name(s->type);

		if (strcmp(sk, kind) || !st || strcmp(st, type))
			continue;
		if (s->key_size == k && s->value_size == v && s->max_entries == e)
			return i;
		if (best < 0)
			best = i;
	}
	return best;
}

/* Assemble one corpus file the way tests/test_verifier.c reads it (pseudo
 * instructions become marked common syntax, then are patched) and write it
 * as a raw-mode input. */
static void seed_one(const char *path, const char *outdir, unsigned *written)
{
	struct secbpf_err err = { { 0 } };
	struct bpf_insn raw[16], *insns = NULL;
	uint8_t hdr[FUZZ_HDR] = { 1, 0, 0, 0 };
	unsigned nmaps = 0, nraw = 0, r = 0;
	size_t cnt = 0, len = 0;
	char line[512], *text, out[600];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	text = calloc(1, 1 << 20);
	while (text && fgets(line, sizeof(line), f) && len + 1024 < (1 << 20)) {
		char name[32], type[32], kind[16] = "btf", label[128];
		unsigned k, v, e, a, b;
		int code, dst, src, off;
		long long imm;
		char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (sscanf(p, "# map: %31s %31s %u %u %u %15s", name, type, &k, &v, &e, kind) >= 5) {
			int m = palette_match(type, k, v, e, kind);

			if (nmaps < FUZZ_MAPS && m >= 0)
				hdr[1 + nmaps / 2] |= (uint8_t)(((unsigned)(m - (int)nmaps) & 15)
								<< (4 * (nmaps % 2)));
			nmaps++;
		} else if (sscanf(p, "ldmap %%r%u, %u", &r, &a) == 2) {
			len += (size_t)sprintf(text + len, "lddw %%r%u, 0x%08x%08x\n", r, MAGIC_MAP, a);
		} else if (sscanf(p, "ldmapval %%r%u, %u, %u", &r, &a, &b) == 3) {
			len += (size_t)sprintf(text + len, "lddw %%r%u, 0x%08x%08x\n", r, MAGIC_MAPVAL,
					       (a << 16) | b);
		} else if (sscanf(p, "ldfunc %%r%u, %127s", &r, label) == 2) {
			len += (size_t)sprintf(text + len, "call local %s\nmov %%r%u, 0x%x\n", label, r,
					       MAGIC_FUNC);
		} else if (sscanf(p, "raw %i %i %i %i %lli", &code, &dst, &src, &off, &imm) == 5) {
			if (nraw < 16)
				raw[nraw++] = (struct bpf_insn){ .code = (uint8_t)code,
								 .dst_reg = (uint8_t)dst,
								 .src_reg = (uint8_t)src,
								 .off = (int16_t)off,
								 .imm = (int32_t)imm };
			len += (size_t)sprintf(text + len, "mov %%r0, 0x%x\n", MAGIC_RAW);
		} else {
			len += (size_t)snprintf(text + len, 600, "%s", line);
		}
	}
	fclose(f);
	if (!text || insn_assemble(text, &insns, &cnt, &err) || cnt > FUZZ_RAW_MAX) {
		free(text);
		free(insns);
		return;
	}
	free(text);
	for (size_t i = 0, nr = 0; i < cnt; i++) {
		if (insn_is_ld_imm64(&insns[i]) && i + 1 < cnt) {
			uint32_t lo = (uint32_t)insns[i].imm, hi = (uint32_t)insns[i + 1].imm;

			if (hi == MAGIC_MAP || hi == MAGIC_MAPVAL) {
				insns[i].src_reg = hi == MAGIC_MAP ? BPF_PSEUDO_MAP_FD
								   : BPF_PSEUDO_MAP_VALUE;
				insns[i].imm = (int32_t)(hi == MAGIC_MAP ? lo : lo >> 16);
				insns[i + 1].imm = hi == MAGIC_MAP ? 0 : (int32_t)(lo & 0xffff);
			}
			i++;
		} else if (insns[i].code == (BPF_JMP | BPF_CALL) &&
			   insns[i].src_reg == BPF_PSEUDO_CALL && i + 1 < cnt &&
			   insns[i + 1].code == (BPF_ALU64 | BPF_MOV | BPF_K) &&
			   (uint32_t)insns[i + 1].imm == MAGIC_FUNC) {
			uint8_t d = insns[i + 1].dst_reg;
			int32_t rel = insns[i].imm;

			insns[i] = (struct bpf_insn){ .code = BPF_LD | BPF_IMM | BPF_DW,
						      .dst_reg = d,
						      .src_reg = BPF_PSEUDO_FUNC,
						      .imm = rel };
			insns[i + 1] = (struct bpf_insn){ 0 };
			i++;
		} else if (insns[i].code == (BPF_ALU64 | BPF_MOV | BPF_K) &&
			   (uint32_t)insns[i].imm == MAGIC_RAW && nr < nraw) {
			insns[i] = raw[nr++];
		}
	}
	snprintf(out, sizeof(out), "%s/seed-%.500s", outdir, strrchr(path, '/') + 1);
	f = fopen(out, "wb");
	if (f) {
		fwrite(hdr, 1, sizeof(hdr), f);
		fwrite(insns, sizeof(*insns), cnt, f);
		fclose(f);
		(*written)++;
	}
	free(insns);
}

static void seeds_write(const char *spec)
{
	char src[512], *colon;
	unsigned written = 0;
	struct dirent *de;
	DIR *d;

	snprintf(src, sizeof(src), "%s", spec);
	colon = strchr(src, ':');
	if (!colon) {
		fprintf(stderr, "SECBPF_FUZZ_WRITE_SEEDS=SRC_DIR:OUT_DIR\n");
		exit(2);
	}
	*colon = 0;
	d = opendir(src);
	while (d && (de = readdir(d))) {
		char path[1024];
		size_t n = strlen(de->d_name);

		if (n < 3 || strcmp(de->d_name + n - 2, ".s"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", src, de->d_name);
		seed_one(path, colon + 1, &written);
	}
	if (d)
		closedir(d);
	fprintf(stderr, "secbpf: wrote %u seeds to %s\n", written, colon + 1);
	exit(0);
}

/* ---- the entry points ---------------------------------------------------- */

static bool known_rodata_write, known_dead_map_value;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seeds = getenv("SECBPF_FUZZ_WRITE_SEEDS");
	const char *known = getenv("SECBPF_FUZZ_KNOWN");

	known_rodata_write = known && strstr(known, "rodata-write");
	known_dead_map_value = known && strstr(known, "dead-map-value");

	(void)argc;
	(void)argv;
	if (seeds)
		seeds_write(seeds);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum secbpf_tier tiers[] = { SECBPF_TIER_PRIVILEGED,
						  SECBPF_TIER_UNPRIVILEGED };
	static struct fuzz_env env;
	static struct gen g;
	struct object_prog prog = { .name = "fuzz", .section = "seccomp" };
	struct object obj = { .path = "fuzz", .progs = &prog, .prog_cnt = 1 };
	uint64_t seed = 0xcbf29ce484222325ULL;

	if (size < FUZZ_HDR + sizeof(struct bpf_insn))
		return 0;
	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ULL;
	env.rng = seed | 1;
	memset(&g, 0, sizeof(g));
	if (data[0] & 1) {
		g.n = (uint32_t)((size - FUZZ_HDR) / sizeof(struct bpf_insn));
		if (g.n > FUZZ_RAW_MAX)
			return 0;
		memcpy(g.insns, data + FUZZ_HDR, g.n * sizeof(struct bpf_insn));
	} else {
		g.p = data + FUZZ_HDR;
		g.end = data + size;
		gen_program(&g, !(data[0] & 4));
	}
	maps_init(&env, data);
	env.known_rodata_write = known_rodata_write;
	env.known_dead_map_value = known_dead_map_value;
	obj.maps = env.omaps;
	obj.map_cnt = FUZZ_MAPS;
	prog.insns = g.insns;
	prog.insn_cnt = g.n;
	prog.main_cnt = g.n;
	for (size_t t = 0; t < sizeof(tiers) / sizeof(tiers[0]); t++) {
		struct verifier_opts opts = { .sz = sizeof(opts),
					      .tier = tiers[t],
					      .strict = data[0] & 2,
					      .complexity_limit = FUZZ_COMPLEXITY };
		struct secbpf_err err = { { 0 } };
		struct verifier_facts *facts = NULL;

		if (verifier_check(&obj, &prog, &opts, &facts, &err))
			continue;
		run_accepted(&env, &prog, facts, secbpf_tier_name(tiers[t]));
		verifier_facts_free(facts);
	}
	return 0;
}
