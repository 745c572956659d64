/* SPDX-License-Identifier: MIT */
/*
 * The helper prototype table: for every helper a seccomp filter may call, the
 * types the verifier demands of r1-r5, what r0 becomes, and the lowest tier
 * that may call it; for every other helper, the reason it is refused.
 */
#ifndef SECBPF_HELPER_PROTOS_H
#define SECBPF_HELPER_PROTOS_H

#include <stdint.h>

#include "verifier/verifier.h"

enum helper_arg {
	HELPER_ARG_NONE,	       /* unused: the register is not read */
	HELPER_ARG_ANYTHING,	       /* any initialized scalar */
	HELPER_ARG_ANYTHING_OPT,       /* a scalar or unset (variadic tail) */
	HELPER_ARG_CONST_MAP_PTR,      /* a map from ld_imm64, of an allowed type */
	HELPER_ARG_MAP_KEY,	       /* key_size readable bytes */
	HELPER_ARG_MAP_VALUE,	       /* value_size readable bytes */
	HELPER_ARG_MAP_VALUE_OR_NULL,  /* the same, or NULL */
	HELPER_ARG_UNINIT_MAP_VALUE,   /* value_size writable bytes */
	HELPER_ARG_MEM,		       /* readable memory; size in the next arg */
	HELPER_ARG_UNINIT_MEM,	       /* writable memory; size in the next arg */
	HELPER_ARG_CONST_SIZE,	       /* size of the previous arg, > 0 */
	HELPER_ARG_CONST_SIZE_OR_ZERO, /* size of the previous arg, >= 0 */
	HELPER_ARG_ALLOC_SIZE,	       /* a constant allocation size (ringbuf) */
	HELPER_ARG_FUNC,	       /* a subprogram from ld_imm64 BPF_PSEUDO_FUNC */
	HELPER_ARG_STACK_OR_NULL,      /* callback context: stack pointer or NULL */
	HELPER_ARG_TASK_OR_NULL,       /* a task: only NULL (the process) is accepted */
	HELPER_ARG_RINGBUF_MEM,	       /* a reserved ringbuf record, released */
	HELPER_ARG_CTX,		       /* the context pointer, unchanged */
	HELPER_ARG_CONST_STR,	       /* NUL-terminated string in read-only data */
};

enum helper_ret {
	HELPER_RET_INTEGER,
	HELPER_RET_VOID,
	HELPER_RET_MAP_VALUE_OR_NULL,	/* value of the map in r1 */
	HELPER_RET_RINGBUF_MEM_OR_NULL, /* record of the size in r2; acquired */
};

/* What the callback of a callback-running helper receives. */
enum helper_callback {
	HELPER_CB_NONE,
	HELPER_CB_LOOP,		     /* long cb(u32 index, void *ctx) */
	HELPER_CB_FOR_EACH_MAP_ELEM, /* long cb(map, key, value, ctx) */
};

struct helper_proto {
	int32_t id;
	enum secbpf_tier min_tier;
	enum helper_ret ret;
	enum helper_arg args[5];
	/* Map types (1ULL << BPF_MAP_TYPE_*) accepted for the map argument. */
	uint64_t map_types;
	/* Return value range when an integer is known to be narrower. */
	uint64_t ret_umax; /* 0 = any value */
	enum helper_callback callback;
	/* Non-NULL: the helper is refused, and this is why. */
	const char *refused;
};

/*
 * The prototype of helper id, or NULL if the id is not a helper the kernel
 * headers know. A helper secbpf does not offer has a prototype with
 * refused set, so that the message names it and says why.
 */
const struct helper_proto *helper_proto_find(int32_t id);

/* "bpf_map_lookup_elem" for id 1; NULL if the id is unknown. */
const char *helper_proto_name(int32_t id);

/* "hash", "array", ... for messages; "map type N" style when unknown. */
const char *helper_map_type_name(uint32_t type);

#endif
