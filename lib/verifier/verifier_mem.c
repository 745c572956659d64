// SPDX-License-Identifier: MIT
/*
 * Memory rules of the verifier: what a load, store or atomic operation may
 * touch through each pointer type (the read-only seccomp_data context, the
 * 512-byte stack of each frame, map values, ringbuf records), and the same
 * rules for memory a helper reads or writes on the program's behalf.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/verifier_internal.h"

#define MAX_VAR_OFF (1 << 29)

struct stack_slot *stack_slot_get(struct func_state *f, uint32_t spi, bool grow)
{
	if (spi < f->nslots)
		return &f->slots[spi];
	if (!grow || spi >= VERIFIER_STACK_SIZE / 8)
		return NULL;
	{
		struct stack_slot *s = realloc(f->slots, (spi + 1) * sizeof(*s));

		if (!s)
			return NULL;
		memset(&s[f->nslots], 0, (spi + 1 - f->nslots) * sizeof(*s));
		f->slots = s;
		f->nslots = spi + 1;
	}
	return &f->slots[spi];
}

/* Slot and byte of the stack address fp+o (o < 0). */
static uint32_t spi_of(int64_t o)
{
	return (uint32_t)((-o - 1) / 8);
}

static int byte_of(int64_t o)
{
	return (int)(o + 8 * ((int64_t)spi_of(o) + 1));
}

static bool slot_is_spill(const struct stack_slot *s)
{
	return s && s->bytes[0] == STACK_SPILL;
}

static bool slot_holds_pointer(const struct stack_slot *s)
{
	return slot_is_spill(s) && s->spilled.type != REG_SCALAR;
}

/* Forget a spilled register, keeping "these bytes were written". A spilled
 * pointer may only be destroyed this way where pointer leaks are allowed. */
static int slot_to_misc(struct verifier_env *env, struct stack_slot *s, int64_t o)
{
	int k;

	if (!slot_is_spill(s))
		return 0;
	if (slot_holds_pointer(s) && s->spilled.type != REG_NOT_INIT &&
	    env->opts.tier < SECBPF_TIER_PRIVILEGED)
		return verr(env, EACCES,
			    "partial overwrite of the pointer spilled at "
			    "fp%" PRId64 " would leave part of its address readable",
			    -(int64_t)(spi_of(o) + 1) * 8);
	for (k = 0; k < 8; k++)
		s->bytes[k] = STACK_MISC;
	return 0;
}

static int check_stack_bounds(struct verifier_env *env, uint32_t regno, int64_t lo, int64_t hi)
{
	if (lo < -VERIFIER_STACK_SIZE || hi > 0 || lo >= hi)
		return verr(env, EACCES,
			    "R%u: stack access [fp%+" PRId64 ", fp%+" PRId64
			    ") is outside the %d-byte stack below r10",
			    regno, lo, hi, VERIFIER_STACK_SIZE);
	return 0;
}

static int stack_write(struct verifier_env *env, struct func_state *f, uint32_t regno,
		       const struct reg_state *ptr, int32_t off, uint32_t size,
		       const struct reg_state *val)
{
	int64_t lo, hi, o;
	struct stack_slot *s;
	int ret;

	if (!tnum_is_const(ptr->var_off)) {
		/* Some bytes in the range are written, we do not know which. */
		if (reg_is_pointer(val))
			return verr(env, EACCES,
				    "R%u: storing a pointer at a variable "
				    "stack offset is not allowed",
				    regno);
		lo = (int64_t)ptr->off + off + ptr->smin;
		hi = (int64_t)ptr->off + off + ptr->smax + size;
		ret = check_stack_bounds(env, regno, lo, hi);
		if (ret)
			return ret;
		for (o = lo; o < hi; o++) {
			s = stack_slot_get(f, spi_of(o), true);
			if (!s)
				return -ENOMEM;
			ret = slot_to_misc(env, s, o);
			if (ret)
				return ret;
			if (s->bytes[byte_of(o)] != STACK_INVALID)
				s->bytes[byte_of(o)] = STACK_MISC;
		}
		return 0;
	}
	lo = (int64_t)ptr->off + (int64_t)ptr->var_off.value + off;
	hi = lo + size;
	ret = check_stack_bounds(env, regno, lo, hi);
	if (ret)
		return ret;

	if (reg_is_pointer(val)) {
		if (size != 8 || lo % 8)
			return verr(env, EACCES,
				    "storing part of a pointer (%u bytes at "
				    "fp%+" PRId64 ") would leak it; pointers are "
				    "spilled with 8-byte aligned stores",
				    size, lo);
		if (val->type == REG_PTR_TO_STACK && val->frameno > f->frameno)
			return verr(env, EACCES,
				    "a pointer to a callee's stack cannot be "
				    "stored in its caller's stack: it would outlive "
				    "the frame");
	}
	if (size == 8 && lo % 8 == 0 && val->type != REG_NOT_INIT) {
		/* A whole register spilled: remember it, with its bounds. */
		s = stack_slot_get(f, spi_of(lo), true);
		if (!s)
			return -ENOMEM;
		memset(s->bytes, STACK_SPILL, sizeof(s->bytes));
		s->spilled = *val;
		return 0;
	}
	for (o = lo; o < hi; o++) {
		bool zero = val->type == REG_SCALAR && tnum_is_const(val->var_off) &&
			    val->var_off.value == 0;

		s = stack_slot_get(f, spi_of(o), true);
		if (!s)
			return -ENOMEM;
		ret = slot_to_misc(env, s, o);
		if (ret)
			return ret;
		s->bytes[byte_of(o)] = zero ? STACK_ZERO : STACK_MISC;
	}
	return 0;
}

static int stack_read(struct verifier_env *env, struct func_state *f, uint32_t regno,
		      const struct reg_state *ptr, int32_t off, uint32_t size,
		      struct reg_state *dst, bool sign_ext)
{
	struct stack_slot *s;
	int64_t lo, hi, o;
	bool all_zero = true;
	int ret;

	if (tnum_is_const(ptr->var_off)) {
		lo = (int64_t)ptr->off + (int64_t)ptr->var_off.value + off;
	} else {
		lo = (int64_t)ptr->off + off + ptr->smin;
		all_zero = false;
	}
	hi = (tnum_is_const(ptr->var_off) ? lo : (int64_t)ptr->off + off + ptr->smax) + size;
	ret = check_stack_bounds(env, regno, lo, hi);
	if (ret)
		return ret;

	s = stack_slot_get(f, spi_of(lo), false);
	if (tnum_is_const(ptr->var_off) && slot_is_spill(s)) {
		if (size == 8 && lo % 8 == 0) {
			/* A fill: the register comes back as it was spilled. */
			if (dst)
				*dst = s->spilled;
			return 0;
		}
		if (s->spilled.type == REG_SCALAR && hi <= lo - byte_of(lo) + 8 &&
		    tnum_is_const(s->spilled.var_off) && !sign_ext) {
			/* Part of a known constant is a known constant. */
			uint64_t v = s->spilled.var_off.value >> (8 * byte_of(lo));

			if (dst)
				reg_mark_const(dst, size == 8 ? v : v & ((1ULL << (size * 8)) - 1));
			return 0;
		}
	}
	for (o = lo; o < hi; o++) {
		s = stack_slot_get(f, spi_of(o), false);
		if (slot_holds_pointer(s))
			return verr(env, EACCES,
				    "reading part of the pointer spilled at "
				    "fp%" PRId64 " would leak its address",
				    -(int64_t)(spi_of(o) + 1) * 8);
		if (slot_is_spill(s)) {
			all_zero = false;
			continue;
		}
		if (!s || s->bytes[byte_of(o)] == STACK_INVALID)
			return verr(env, EACCES,
				    "invalid read from stack: fp%+" PRId64
				    " is not initialized; write it before reading "
				    "it (e.g. initialize the variable)",
				    o);
		if (s->bytes[byte_of(o)] != STACK_ZERO)
			all_zero = false;
	}
	if (!dst)
		return 0;
	if (all_zero)
		reg_mark_const(dst, 0);
	else if (sign_ext)
		reg_mark_unknown_sext(dst, size);
	else
		reg_mark_unknown_size(dst, size);
	return 0;
}

/* An access [off, off+size) through reg into a region of limit bytes. */
static int check_region(struct verifier_env *env, uint32_t regno, const struct reg_state *reg,
			int32_t off, uint32_t size, uint32_t limit, const char *what)
{
	int64_t lo, hi;

	if (reg->smin < -MAX_VAR_OFF || reg->smax > MAX_VAR_OFF)
		return verr(env, EACCES,
			    "R%u: unbounded offset into %s; check the "
			    "index against the size first",
			    regno, what);
	lo = (int64_t)reg->off + off + reg->smin;
	hi = (int64_t)reg->off + off + reg->smax + size;
	if (lo < 0)
		return verr(env, EACCES,
			    "R%u: access at offset %" PRId64 " is before "
			    "the start of %s (the index may be negative: use an "
			    "unsigned index or check it is >= 0)",
			    regno, lo, what);
	if (hi > limit)
		return verr(env, EACCES,
			    "R%u: access to bytes [%" PRId64 ", %" PRId64
			    ") is past the end of %s (%u bytes) on some path; "
			    "check the index against the size first",
			    regno, lo, hi, what, limit);
	return 0;
}

/* The seccomp_data fields: nr, arch, instruction_pointer, args[6]. */
static int check_ctx_access(struct verifier_env *env, uint32_t regno, const struct reg_state *reg,
			    int32_t off, uint32_t size, enum mem_access kind)
{
	const char *field;
	uint32_t fsize;
	int64_t o;

	if (kind != MEM_READ)
		return verr(env, EACCES,
			    "the context (struct seccomp_data) is "
			    "read-only; copy the value to a variable to change it");
	if (!tnum_is_const(reg->var_off))
		return verr(env, EACCES, "R%u: variable offset into the context", regno);
	/* The kernel takes context loads only at a constant offset from the
	 * unmodified pointer ("dereference of modified ctx ptr"). */
	if (env->opts.strict && (reg->off || reg->var_off.value))
		return verr(env, EACCES,
			    "strict mode: R%u: the context pointer was moved by %" PRId64
			    "; load at an offset from the unmodified pointer, as the "
			    "kernel verifier requires",
			    regno, (int64_t)reg->off + (int64_t)reg->var_off.value);
	o = (int64_t)reg->off + (int64_t)reg->var_off.value + off;
	if (o < 0 || o + size > VERIFIER_CTX_SIZE)
		return verr(env, EACCES,
			    "context access at offset %" PRId64 " size %u "
			    "is outside struct seccomp_data (%d bytes)",
			    o, size, VERIFIER_CTX_SIZE);
	if (o % size)
		return verr(env, EACCES,
			    "misaligned context access at offset %" PRId64
			    " size %u: loads must be aligned to their size",
			    o, size);
	if (o < 4) {
		field = "nr";
		fsize = 4;
	} else if (o < 8) {
		field = "arch";
		fsize = 4;
	} else if (o < 16) {
		field = "instruction_pointer";
		fsize = 8;
	} else {
		field = "args[i]";
		fsize = 8;
	}
	if (env->opts.strict && size != fsize)
		return verr(env, EACCES,
			    "strict mode: %s must be read with a %u-byte "
			    "load, not %u bytes (the seed's context rules)",
			    field, fsize, size);
	if (size > fsize)
		return verr(env, EACCES,
			    "a %u-byte load at offset %" PRId64 " crosses "
			    "the %u-byte field %s",
			    size, o, fsize, field);
	return 0;
}

/* Read size bytes at off of a frozen .rodata value, little endian. */
static bool rodata_const(const struct object_map *m, int64_t off, uint32_t size, uint64_t *v)
{
	uint32_t i;

	if (m->kind != OBJECT_MAP_RODATA || !m->init_data || off < 0 || off + size > m->value_size)
		return false;
	*v = 0;
	for (i = 0; i < size; i++)
		*v |= (uint64_t)m->init_data[off + i] << (8 * i);
	return true;
}

/* What a load of size bytes from memory the program cannot predict puts
 * in dst: an unknown number, zero- or sign-extended. */
static void reg_mark_loaded(struct reg_state *dst, uint32_t size, bool sign_ext)
{
	if (sign_ext)
		reg_mark_unknown_sext(dst, size);
	else
		reg_mark_unknown_size(dst, size);
}

/* A load from the context: seccomp_data is read-only and its fields are
 * read whole or in aligned parts (check_ctx_access). */
static int check_ctx_mem(struct verifier_env *env, uint32_t insn_idx, uint32_t regno,
			 const struct reg_state *ptr, int32_t off, uint32_t size,
			 enum mem_access kind, struct reg_state *dst, bool sign_ext)
{
	int ret = check_ctx_access(env, regno, ptr, off, size, kind);

	if (ret)
		return ret;
	fact_flag(env, insn_idx, VERIFIER_INSN_CTX_LOAD);
	reg_mark_loaded(dst, size, sign_ext);
	return 0;
}

/* An atomic operation on the stack: the bytes must hold a number already,
 * and afterwards they hold an unknown one. */
static int stack_atomic(struct verifier_env *env, struct func_state *f, uint32_t regno,
			const struct reg_state *ptr, int32_t off, uint32_t size)
{
	int64_t lo, o;
	int ret;

	if (!tnum_is_const(ptr->var_off))
		return verr(env, EACCES, "R%u: atomic operation at a variable stack offset",
			    regno);
	ret = stack_read(env, f, regno, ptr, off, size, NULL, false);
	if (ret)
		return ret;
	/* The result is unknown; forget a spilled constant. */
	lo = (int64_t)ptr->off + (int64_t)ptr->var_off.value + off;
	for (o = lo; o < lo + size; o++) {
		struct stack_slot *s = stack_slot_get(f, spi_of(o), true);

		if (!s)
			return -ENOMEM;
		ret = slot_to_misc(env, s, o);
		if (ret)
			return ret;
		s->bytes[byte_of(o)] = STACK_MISC;
	}
	return 0;
}

/* An access to the stack of the frame ptr points into. */
static int check_stack_mem(struct verifier_env *env, uint32_t insn_idx, uint32_t regno,
			   const struct reg_state *ptr, int32_t off, uint32_t size,
			   enum mem_access kind, const struct reg_state *val,
			   struct reg_state *dst, bool sign_ext)
{
	struct func_state *f;

	if (ptr->frameno > env->cur->curframe)
		return verr(env, EFAULT, "internal error: pointer to a frame that is gone");
	f = env->cur->frames[ptr->frameno];
	fact_flag(env, insn_idx, VERIFIER_INSN_STACK_ACCESS);
	switch (kind) {
	case MEM_READ:
		return stack_read(env, f, regno, ptr, off, size, dst, sign_ext);
	case MEM_WRITE:
		return stack_write(env, f, regno, ptr, off, size, val);
	default:
		return stack_atomic(env, f, regno, ptr, off, size);
	}
}

/* An access to a map value: inside the value, no writes to a read-only
 * map, no pointer stored (it would leak); a load from frozen .rodata at a
 * constant offset is that constant. */
static int check_map_value_mem(struct verifier_env *env, uint32_t insn_idx, uint32_t regno,
			       const struct reg_state *ptr, int32_t off, uint32_t size,
			       enum mem_access kind, const struct reg_state *val,
			       struct reg_state *dst, bool sign_ext)
{
	const struct object_map *m = env_map(env, ptr->map);
	uint64_t v;
	int ret;

	if (!m)
		return verr(env, EFAULT, "internal error: bad map index");
	fact_flag(env, insn_idx, VERIFIER_INSN_MAP_ACCESS);
	if (kind != MEM_READ && (ptr->rdonly || map_is_rdonly(m)))
		return verr(env, EACCES,
			    "map %s is read-only (.rodata or "
			    "BPF_F_RDONLY_PROG): the filter may not write it",
			    m->name);
	if (kind != MEM_READ && reg_is_pointer(val))
		return verr(env, EACCES, "storing a pointer into map %s would leak its address",
			    m->name);
	ret = check_region(env, regno, ptr, off, size, m->value_size, "the map value");
	if (ret)
		return ret;
	if (kind == MEM_READ && tnum_is_const(ptr->var_off) &&
	    rodata_const(m, (int64_t)ptr->off + (int64_t)ptr->var_off.value + off, size, &v)) {
		/* frozen read-only data: a constant, like the kernel's frozen maps */
		if (sign_ext)
			v = (uint64_t)((int64_t)(v << (64 - 8 * size)) >> (64 - 8 * size));
		reg_mark_const(dst, v);
		return 0;
	}
	fact_flag(env, insn_idx, VERIFIER_INSN_NEEDS_STATE);
	if (kind == MEM_READ)
		reg_mark_loaded(dst, size, sign_ext);
	return 0;
}

/* An access to PTR_TO_MEM: a ringbuf record, or a map key or value handed
 * to a callback; mem_size bytes, read-only when rdonly. */
static int check_ptr_mem(struct verifier_env *env, uint32_t insn_idx, uint32_t regno,
			 const struct reg_state *ptr, int32_t off, uint32_t size,
			 enum mem_access kind, const struct reg_state *val,
			 struct reg_state *dst, bool sign_ext)
{
	int ret;

	fact_flag(env, insn_idx, VERIFIER_INSN_MAP_ACCESS | VERIFIER_INSN_NEEDS_STATE);
	if (kind != MEM_READ && ptr->rdonly)
		return verr(env, EACCES, "R%u points to read-only memory", regno);
	if (kind != MEM_READ && reg_is_pointer(val))
		return verr(env, EACCES,
			    "storing a pointer into a ringbuf record "
			    "would leak its address");
	ret = check_region(env, regno, ptr, off, size, ptr->mem_size,
			   ptr->ref_obj_id ? "the ringbuf record" : "the memory");
	if (ret)
		return ret;
	if (kind == MEM_READ)
		reg_mark_loaded(dst, size, sign_ext);
	return 0;
}

/* Why a register that points to no memory cannot be accessed through. */
static int reject_non_mem(struct verifier_env *env, uint32_t regno, enum reg_type type)
{
	switch (type) {
	case REG_PTR_TO_MAP_VALUE_OR_NULL:
	case REG_PTR_TO_MEM_OR_NULL:
		return verr(env, EACCES,
			    "R%u may be NULL: check the pointer against "
			    "NULL first (if (!p) return ...;)",
			    regno);
	case REG_CONST_PTR_TO_MAP:
		return verr(env, EACCES,
			    "R%u is a map, not a pointer to memory; use "
			    "bpf_map_lookup_elem() to get a value",
			    regno);
	case REG_PTR_TO_FUNC:
		return verr(env, EACCES, "R%u points to code, not memory", regno);
	case REG_SCALAR:
		return verr(env, EACCES,
			    "R%u is a number, not a pointer: memory "
			    "access through it is not allowed",
			    regno);
	default:
		return verr(env, EACCES, "R%u is not initialized", regno);
	}
}

/* The value a store writes: a register, or BPF_ST's immediate
 * sign-extended to the access size. */
static void store_value(const struct verifier_env *env, const struct reg_state *regs,
			uint32_t insn_idx, uint32_t size, int value_regno, struct reg_state *val)
{
	const struct bpf_insn *in = &env->insns[insn_idx];

	if (value_regno >= 0) {
		*val = regs[value_regno];
		return;
	}
	reg_mark_const(val, size == 8 ? (uint64_t)(int64_t)in->imm
				      : (uint64_t)(uint32_t)in->imm &
						(size == 4 ? 0xffffffffULL : (1ULL << (size * 8)) - 1));
}

/*
 * A load (into value_regno), store (of value_regno, or BPF_ST's immediate
 * when it is < 0) or atomic operation of size bytes at regno + off, checked
 * by what regno points to, as the kernel's check_mem_access() does.
 */
int check_mem_access(struct verifier_env *env, uint32_t insn_idx, uint32_t regno, int32_t off,
		     uint32_t size, enum mem_access kind, int value_regno, bool sign_ext)
{
	struct reg_state *regs = cur_regs(env);
	struct reg_state ptr = regs[regno];
	struct reg_state val = { .type = REG_NOT_INIT };
	struct reg_state *dst = NULL;

	if (kind == MEM_READ)
		dst = &regs[value_regno];
	else
		store_value(env, regs, insn_idx, size, value_regno, &val);

	if (kind == MEM_ATOMIC) {
		/* Atomic operations need natural alignment on every path (the
		 * hardware, and the interpreter, refuse anything else). */
		int64_t fixed = (int64_t)ptr.off + off + (int64_t)ptr.var_off.value;

		if ((fixed & (size - 1)) || (ptr.var_off.mask & (size - 1)))
			return verr(env, EACCES,
				    "R%u: misaligned atomic operation: %u-byte "
				    "atomics need a %u-byte aligned address",
				    regno, size, size);
	}

	switch (ptr.type) {
	case REG_PTR_TO_CTX:
		return check_ctx_mem(env, insn_idx, regno, &ptr, off, size, kind, dst, sign_ext);
	case REG_PTR_TO_STACK:
		return check_stack_mem(env, insn_idx, regno, &ptr, off, size, kind, &val, dst,
				       sign_ext);
	case REG_PTR_TO_MAP_VALUE:
		return check_map_value_mem(env, insn_idx, regno, &ptr, off, size, kind, &val, dst,
					   sign_ext);
	case REG_PTR_TO_MEM:
		return check_ptr_mem(env, insn_idx, regno, &ptr, off, size, kind, &val, dst,
				     sign_ext);
	default:
		return reject_non_mem(env, regno, ptr.type);
	}
}

int check_helper_mem(struct verifier_env *env, uint32_t regno, uint64_t max_size, bool write,
		     const char *what)
{
	struct reg_state *reg = &cur_regs(env)[regno];
	const struct object_map *m;
	int ret;

	if (max_size > MAX_VAR_OFF)
		return verr(env, EACCES, "R%u: %s size is unbounded", regno, what);
	switch (reg->type) {
	case REG_PTR_TO_STACK: {
		struct func_state *f;
		int64_t lo, hi, o;

		if (reg->frameno > env->cur->curframe)
			return verr(env, EFAULT,
				    "internal error: pointer to a frame "
				    "that is gone");
		f = env->cur->frames[reg->frameno];
		if (!max_size)
			return 0;
		lo = (int64_t)reg->off + reg->smin;
		hi = (int64_t)reg->off + reg->smax + (int64_t)max_size;
		if (tnum_is_const(reg->var_off)) {
			lo = (int64_t)reg->off + (int64_t)reg->var_off.value;
			hi = lo + (int64_t)max_size;
		}
		ret = check_stack_bounds(env, regno, lo, hi);
		if (ret)
			return ret;
		for (o = lo; o < hi; o++) {
			struct stack_slot *s = stack_slot_get(f, spi_of(o), write);

			if (write) {
				int64_t slot_lo = -(int64_t)(spi_of(o) + 1) * 8;

				if (!s)
					return -ENOMEM;
				/* A spilled register the helper overwrites
				 * entirely is gone; one it may overwrite in
				 * part would stay half readable. */
				if (slot_is_spill(s)) {
					if (tnum_is_const(reg->var_off) && slot_lo >= lo &&
					    slot_lo + 8 <= hi) {
						memset(s->bytes, STACK_MISC, sizeof(s->bytes));
					} else {
						ret = slot_to_misc(env, s, o);
						if (ret)
							return ret;
					}
				}
				/* at a variable offset we do not know which
				 * bytes get written: none count as initialized */
				if (tnum_is_const(reg->var_off) ||
				    s->bytes[byte_of(o)] != STACK_INVALID)
					s->bytes[byte_of(o)] = STACK_MISC;
				continue;
			}
			if (slot_holds_pointer(s))
				return verr(env, EACCES,
					    "R%u: %s would read the pointer "
					    "spilled at fp%" PRId64 " and leak it",
					    regno, what, -(int64_t)(spi_of(o) + 1) * 8);
			if (slot_is_spill(s))
				continue;
			if (!s || s->bytes[byte_of(o)] == STACK_INVALID)
				return verr(env, EACCES,
					    "R%u: %s reads fp%+" PRId64 ", which "
					    "is not initialized; initialize all %" PRIu64
					    " bytes first",
					    regno, what, o, max_size);
		}
		return 0;
	}
	case REG_PTR_TO_MAP_VALUE:
		m = env_map(env, reg->map);
		if (!m)
			return verr(env, EFAULT, "internal error: bad map index");
		if (write && (reg->rdonly || map_is_rdonly(m)))
			return verr(env, EACCES, "R%u: %s would write read-only map %s", regno,
				    what, m->name);
		if (!max_size)
			return 0;
		return check_region(env, regno, reg, 0, (uint32_t)max_size, m->value_size,
				    "the map value");
	case REG_PTR_TO_MEM:
		if (write && reg->rdonly)
			return verr(env, EACCES, "R%u: %s would write read-only memory", regno,
				    what);
		if (!max_size)
			return 0;
		return check_region(env, regno, reg, 0, (uint32_t)max_size, reg->mem_size,
				    "the ringbuf record");
	case REG_PTR_TO_MAP_VALUE_OR_NULL:
	case REG_PTR_TO_MEM_OR_NULL:
		return verr(env, EACCES,
			    "R%u may be NULL: check the pointer against "
			    "NULL before passing it as %s",
			    regno, what);
	case REG_NOT_INIT:
		return verr(env, EACCES, "R%u (%s) is not initialized", regno, what);
	default:
		return verr(env, EACCES,
			    "R%u: %s must point to the stack, a map "
			    "value or a ringbuf record, not %s",
			    regno, what, reg_type_name(reg->type));
	}
}
