// SPDX-License-Identifier: MIT
/*
 * The table of helper prototypes the verifier checks calls against (see
 * helper_protos.h). The tier of each helper follows docs/design.md §2 and seeds
 * 001, 009 and 011; everything not listed is refused by name.
 */
#include <linux/bpf.h>
#include <stddef.h>

#include "vm/helper_protos.h"

#define MT(t) (1ULL << BPF_MAP_TYPE_##t)

/* Maps that hold key/value pairs the generic helpers work on. */
#define KV_MAPS                                                                                    \
	(MT(HASH) | MT(ARRAY) | MT(PERCPU_HASH) | MT(PERCPU_ARRAY) | MT(LRU_HASH) |                \
	 MT(LRU_PERCPU_HASH) | MT(LPM_TRIE))
#define ITER_MAPS                                                                                  \
	(MT(HASH) | MT(ARRAY) | MT(PERCPU_HASH) | MT(PERCPU_ARRAY) | MT(LRU_HASH) |                \
	 MT(LRU_PERCPU_HASH))

#define A_ANY HELPER_ARG_ANYTHING
#define A_MAP HELPER_ARG_CONST_MAP_PTR
#define R_INT HELPER_RET_INTEGER
#define UNPRIV SECBPF_TIER_UNPRIVILEGED
#define PRIV SECBPF_TIER_PRIVILEGED

static const struct helper_proto protos[] = {
	/* seed 001: allowed to every loader */
	{ .id = BPF_FUNC_get_current_uid_gid, .min_tier = UNPRIV, .ret = R_INT },
	{ .id = BPF_FUNC_get_current_pid_tgid, .min_tier = UNPRIV, .ret = R_INT },
	/* seed 009: reads the target's memory (dumpable check at run time) */
	{ .id = BPF_FUNC_probe_read_user,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { HELPER_ARG_UNINIT_MEM, HELPER_ARG_CONST_SIZE_OR_ZERO, A_ANY } },
	{ .id = BPF_FUNC_probe_read_user_str,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { HELPER_ARG_UNINIT_MEM, HELPER_ARG_CONST_SIZE_OR_ZERO, A_ANY } },
	/* seed 011: the task must be NULL, meaning the process */
	{ .id = BPF_FUNC_task_storage_get,
	  .min_tier = UNPRIV,
	  .ret = HELPER_RET_MAP_VALUE_OR_NULL,
	  .args = { A_MAP, HELPER_ARG_TASK_OR_NULL, HELPER_ARG_MAP_VALUE_OR_NULL, A_ANY },
	  .map_types = MT(TASK_STORAGE) },
	{ .id = BPF_FUNC_task_storage_delete,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { A_MAP, HELPER_ARG_TASK_OR_NULL },
	  .map_types = MT(TASK_STORAGE) },
	/* the base helpers (bpf_base_func_proto for unprivileged loaders) */
	{ .id = BPF_FUNC_map_lookup_elem,
	  .min_tier = UNPRIV,
	  .ret = HELPER_RET_MAP_VALUE_OR_NULL,
	  .args = { A_MAP, HELPER_ARG_MAP_KEY },
	  .map_types = KV_MAPS },
	{ .id = BPF_FUNC_map_update_elem,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { A_MAP, HELPER_ARG_MAP_KEY, HELPER_ARG_MAP_VALUE, A_ANY },
	  .map_types = KV_MAPS },
	{ .id = BPF_FUNC_map_delete_elem,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { A_MAP, HELPER_ARG_MAP_KEY },
	  .map_types = KV_MAPS },
	{ .id = BPF_FUNC_map_push_elem,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { A_MAP, HELPER_ARG_MAP_VALUE, A_ANY },
	  .map_types = MT(QUEUE) | MT(STACK) | MT(BLOOM_FILTER) },
	{ .id = BPF_FUNC_map_pop_elem,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { A_MAP, HELPER_ARG_UNINIT_MAP_VALUE },
	  .map_types = MT(QUEUE) | MT(STACK) },
	{ .id = BPF_FUNC_map_peek_elem,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { A_MAP, HELPER_ARG_UNINIT_MAP_VALUE },
	  .map_types = MT(QUEUE) | MT(STACK) | MT(BLOOM_FILTER) },
	{ .id = BPF_FUNC_ringbuf_output,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { A_MAP, HELPER_ARG_MEM, HELPER_ARG_CONST_SIZE_OR_ZERO, A_ANY },
	  .map_types = MT(RINGBUF) },
	{ .id = BPF_FUNC_ringbuf_reserve,
	  .min_tier = UNPRIV,
	  .ret = HELPER_RET_RINGBUF_MEM_OR_NULL,
	  .args = { A_MAP, HELPER_ARG_ALLOC_SIZE, A_ANY },
	  .map_types = MT(RINGBUF) },
	{ .id = BPF_FUNC_ringbuf_submit,
	  .min_tier = UNPRIV,
	  .ret = HELPER_RET_VOID,
	  .args = { HELPER_ARG_RINGBUF_MEM, A_ANY } },
	{ .id = BPF_FUNC_ringbuf_discard,
	  .min_tier = UNPRIV,
	  .ret = HELPER_RET_VOID,
	  .args = { HELPER_ARG_RINGBUF_MEM, A_ANY } },
	{ .id = BPF_FUNC_ringbuf_query,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { A_MAP, A_ANY },
	  .map_types = MT(RINGBUF) },
	{ .id = BPF_FUNC_get_prandom_u32,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .ret_umax = UINT32_MAX },
	{ .id = BPF_FUNC_ktime_get_ns, .min_tier = UNPRIV, .ret = R_INT },
	{ .id = BPF_FUNC_ktime_get_boot_ns, .min_tier = UNPRIV, .ret = R_INT },
	{ .id = BPF_FUNC_ktime_get_coarse_ns, .min_tier = UNPRIV, .ret = R_INT },
	{ .id = BPF_FUNC_get_smp_processor_id,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .ret_umax = UINT32_MAX },
	{ .id = BPF_FUNC_tail_call,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { HELPER_ARG_CTX, A_MAP, A_ANY },
	  .map_types = MT(PROG_ARRAY) },
	{ .id = BPF_FUNC_loop,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { A_ANY, HELPER_ARG_FUNC, HELPER_ARG_STACK_OR_NULL, A_ANY },
	  .callback = HELPER_CB_LOOP },
	{ .id = BPF_FUNC_for_each_map_elem,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { A_MAP, HELPER_ARG_FUNC, HELPER_ARG_STACK_OR_NULL, A_ANY },
	  .map_types = ITER_MAPS,
	  .callback = HELPER_CB_FOR_EACH_MAP_ELEM },
	{ .id = BPF_FUNC_strncmp,
	  .min_tier = UNPRIV,
	  .ret = R_INT,
	  .args = { HELPER_ARG_MEM, HELPER_ARG_CONST_SIZE, HELPER_ARG_CONST_STR } },
	/* privileged: the tracing helpers that mean something in user space */
	{ .id = BPF_FUNC_get_current_comm,
	  .min_tier = PRIV,
	  .ret = R_INT,
	  .args = { HELPER_ARG_UNINIT_MEM, HELPER_ARG_CONST_SIZE } },
	{ .id = BPF_FUNC_send_signal, .min_tier = PRIV, .ret = R_INT, .args = { A_ANY } },
	{ .id = BPF_FUNC_send_signal_thread, .min_tier = PRIV, .ret = R_INT, .args = { A_ANY } },
	{ .id = BPF_FUNC_get_current_cgroup_id, .min_tier = PRIV, .ret = R_INT },
	{ .id = BPF_FUNC_trace_printk,
	  .min_tier = PRIV,
	  .ret = R_INT,
	  .args = { HELPER_ARG_MEM, HELPER_ARG_CONST_SIZE, HELPER_ARG_ANYTHING_OPT,
		    HELPER_ARG_ANYTHING_OPT, HELPER_ARG_ANYTHING_OPT } },

	/* refused, with a reason more specific than the default */
	{ .id = BPF_FUNC_probe_read_kernel,
	  .refused = "no meaning for a seccomp filter in user space (there is no kernel memory to "
		     "read)" },
	{ .id = BPF_FUNC_probe_read_kernel_str,
	  .refused = "no meaning for a seccomp filter in user space (there is no kernel memory to "
		     "read)" },
	{ .id = BPF_FUNC_probe_read,
	  .refused = "ambiguous between user and kernel memory; use bpf_probe_read_user" },
	{ .id = BPF_FUNC_probe_read_str,
	  .refused = "ambiguous between user and kernel memory; use bpf_probe_read_user_str" },
	{ .id = BPF_FUNC_get_current_task,
	  .refused = "no meaning for a seccomp filter in user space (no kernel task pointers)" },
	{ .id = BPF_FUNC_get_current_task_btf,
	  .refused = "no meaning for a seccomp filter in user space (no kernel task pointers)" },
	{ .id = BPF_FUNC_probe_write_user,
	  .refused = "a filter must not change the memory of the process it filters" },
	{ .id = BPF_FUNC_override_return,
	  .refused = "no meaning for a seccomp filter (return an action such as SECCOMP_RET_ERRNO "
		     "instead)" },
	{ .id = BPF_FUNC_perf_event_output,
	  .refused = "no perf events in user space; use a ringbuf map with bpf_ringbuf_output" },
	{ .id = BPF_FUNC_ktime_get_tai_ns,
	  .refused = "not offered; use bpf_ktime_get_ns or bpf_ktime_get_boot_ns" },
	{ .id = BPF_FUNC_snprintf,
	  .refused = "not offered by secbpf yet; format in user space from a ringbuf record" },
	{ .id = BPF_FUNC_user_ringbuf_drain,
	  .refused = "not offered by secbpf; use a ringbuf map written by the filter" },
};

static const char *const helper_names[] = {
#define HELPER_NAME_FN(x, ...) [BPF_FUNC_##x] = "bpf_" #x
	__BPF_FUNC_MAPPER(HELPER_NAME_FN)
#undef HELPER_NAME_FN
};

const char *helper_proto_name(int32_t id)
{
	if (id < 0 || (size_t)id >= sizeof(helper_names) / sizeof(helper_names[0]))
		return NULL;
	return helper_names[id];
}

const struct helper_proto *helper_proto_find(int32_t id)
{
	/* The fallback for every known helper not in the table. */
	static const struct helper_proto generic_refused[] = {
		{ .refused = "no meaning for a seccomp filter in user space" },
	};
	size_t i;

	if (id == BPF_FUNC_unspec || !helper_proto_name(id))
		return NULL;
	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (protos[i].id == id)
			return &protos[i];
	return generic_refused;
}

const char *helper_map_type_name(uint32_t type)
{
	switch (type) {
	case BPF_MAP_TYPE_HASH:
		return "hash";
	case BPF_MAP_TYPE_ARRAY:
		return "array";
	case BPF_MAP_TYPE_PROG_ARRAY:
		return "prog_array";
	case BPF_MAP_TYPE_PERCPU_HASH:
		return "percpu_hash";
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return "percpu_array";
	case BPF_MAP_TYPE_LRU_HASH:
		return "lru_hash";
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return "lru_percpu_hash";
	case BPF_MAP_TYPE_LPM_TRIE:
		return "lpm_trie";
	case BPF_MAP_TYPE_QUEUE:
		return "queue";
	case BPF_MAP_TYPE_STACK:
		return "stack";
	case BPF_MAP_TYPE_RINGBUF:
		return "ringbuf";
	case BPF_MAP_TYPE_TASK_STORAGE:
		return "task_storage";
	case BPF_MAP_TYPE_BLOOM_FILTER:
		return "bloom_filter";
	default:
		return "unsupported type";
	}
}
