// SPDX-License-Identifier: MIT
/*
 * The eBPF interpreter. interp_new() checks a program and pre-decodes it into
 * slots whose first word is the address of the code that executes them
 * (threaded dispatch with computed goto); interp_run() executes the slots with
 * every load and store checked against the memory the run may touch.
 *
 * Invariants the hot loop relies on, all established by interp_new(): every
 * register number is <= 10, every jump and call target is a slot that starts
 * an instruction, and slot cnt is a sentinel that stops a program falling off
 * its end. The interp is immutable after interp_new(); all run state lives in
 * a struct interp_call on the caller's stack, so runs may be concurrent.
 * Stack frames are zeroed on entry: a program never sees stale host data.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/alu.h"
#include "vm/insn.h"
#include "vm/interp.h"

#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80	/* sign-extending load; newer than our uapi headers */
#endif

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the interpreter assumes a little-endian host (BPF_END, ld_imm64)"
#endif

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define INTERP_DEFAULT_INSN_LIMIT (1ULL << 24)

/* A BPF_PSEUDO_FUNC value is this tag in the upper half and the slot index
 * of the subprogram in the lower half: never a plausible pointer or small
 * number, and checked against the function entry table before any use. */
#define INTERP_FUNC_TAG 0xbf5ec0de00000000ULL
#define INTERP_FUNC_TAG_MASK 0xffffffff00000000ULL

/*
 * Internal operations, one per handler in exec(). The four-way families
 * must keep the order 64_X, 64_K, 32_X, 32_K: the decoder adds to the first.
 */
#define FAMILY4(X, N) X(N##64_X) X(N##64_K) X(N##32_X) X(N##32_K)
#define INTERP_OPS(X)							\
	X(END_OF_PROG)							\
	FAMILY4(X, ADD) FAMILY4(X, SUB) FAMILY4(X, MUL)			\
	FAMILY4(X, DIV) FAMILY4(X, SDIV) FAMILY4(X, MOD)		\
	FAMILY4(X, SMOD) FAMILY4(X, OR) FAMILY4(X, AND)			\
	FAMILY4(X, XOR) FAMILY4(X, LSH) FAMILY4(X, RSH)			\
	FAMILY4(X, ARSH) FAMILY4(X, MOV)				\
	X(NEG64) X(NEG32)						\
	X(MOVSX64_8) X(MOVSX64_16) X(MOVSX64_32)			\
	X(MOVSX32_8) X(MOVSX32_16)					\
	X(LE16) X(LE32) X(LE64) X(BE16) X(BE32) X(BE64)			\
	X(JA) X(JA32)							\
	FAMILY4(X, JEQ) FAMILY4(X, JNE) FAMILY4(X, JGT)			\
	FAMILY4(X, JGE) FAMILY4(X, JLT) FAMILY4(X, JLE)			\
	FAMILY4(X, JSGT) FAMILY4(X, JSGE) FAMILY4(X, JSLT)		\
	FAMILY4(X, JSLE) FAMILY4(X, JSET)				\
	X(CALL_HELPER) X(CALL_LOCAL) X(CALLX) X(EXIT)			\
	X(LDDW)								\
	X(LDX_B) X(LDX_H) X(LDX_W) X(LDX_DW)				\
	X(LDXSX_B) X(LDXSX_H) X(LDXSX_W)				\
	X(ST_B) X(ST_H) X(ST_W) X(ST_DW)				\
	X(STX_B) X(STX_H) X(STX_W) X(STX_DW)				\
	X(AADD_W) X(AOR_W) X(AAND_W) X(AXOR_W)				\
	X(AFADD_W) X(AFOR_W) X(AFAND_W) X(AFXOR_W)			\
	X(AXCHG_W) X(ACMPXCHG_W)					\
	X(AADD_DW) X(AOR_DW) X(AAND_DW) X(AXOR_DW)			\
	X(AFADD_DW) X(AFOR_DW) X(AFAND_DW) X(AFXOR_DW)			\
	X(AXCHG_DW) X(ACMPXCHG_DW)

#define OP_ENUM(n) OP_##n,
enum interp_op { INTERP_OPS(OP_ENUM) OP__COUNT };
#undef OP_ENUM

/*
 * One pre-decoded instruction slot. The second slot of an ld_imm64 holds the
 * resolved 64-bit constant instead of a handler (nothing can jump there).
 * For CALL_HELPER, imm is an index into interp.helpers.
 */
struct islot {
	union {
		const void *op;		/* handler label in exec() */
		uintptr_t opn;		/* enum interp_op, before labels */
		uint64_t k;		/* ld_imm64 constant (second slot) */
	};
	uint8_t dst;
	uint8_t src;
	int16_t off;
	int32_t imm;
};

struct interp {
	struct islot *slots;		/* cnt + 1 (sentinel) */
	uint32_t cnt;
	uint8_t *is_func;		/* slot is a call or callback target */
	interp_helper_fn *helpers;	/* per helper call site */
	uint32_t nhelpers;
	struct interp_region *map_regions; /* BPF_PSEUDO_MAP_VALUE targets */
	uint32_t nmap_regions;
	const struct interp_call_table *calls;	/* NULL: no helpers */
	void *user;
	uint64_t insn_limit;
	uint32_t frame_size;		/* stack bytes per frame, see frame_size() */
};

/* The saved state of a caller while a subprogram runs. */
struct interp_frame {
	const struct islot *ret;
	uint64_t saved[4];		/* r6..r9 */
};

/*
 * The state of one run (helpers see it as struct interp_call). With fs the
 * interp's frame_size, frame d uses the fs bytes below top - d * fs, so the
 * frames in use are always one contiguous range ending at the top of stack.
 */
struct interp_call {
	const struct interp *in;
	const struct interp_region *regions;
	size_t nregions;
	size_t nadded;
	unsigned int depth;		/* frames in use */
	uint32_t cur_pc;		/* helper call being served */
	int64_t budget;			/* insns left, synced around helpers */
	bool stopped;
	int status;			/* 0 = stopped by interp_call_exit */
	uint64_t exit_value;
	struct secbpf_err *err;
	void *run_ctx;			/* interp_run_ctx(), for helpers */
	struct interp_frame frames[INTERP_MAX_FRAMES];
	struct interp_region added[INTERP_MAX_REGIONS];
	uint8_t stack[INTERP_MAX_FRAMES * INTERP_STACK_SIZE]
		__attribute__((aligned(16)));
};

#define STACK_TOP(run) \
	((uint64_t)(uintptr_t)((run)->stack + sizeof((run)->stack)))

/* Stop the run with an error; the first stop wins. Returns -errnum. */
static int run_stop(struct interp_call *run, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int run_stop(struct interp_call *run, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (run->stopped)
		return run->status ? run->status : -ECANCELED;
	run->stopped = true;
	run->status = -errnum;
	if (run->err) {
		va_start(ap, fmt);
		vsnprintf(run->err->msg, sizeof(run->err->msg), fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

static bool region_contains(const struct interp_region *r, uint64_t addr,
			    uint64_t size)
{
	uint64_t off = addr - r->base;	/* wraps to huge when addr < base */

	return off <= r->size && size <= r->size - off;
}

/* Search one region list: 1 = accessible, -1 = there but read-only, 0 = not
 * there. */
static int region_search(const struct interp_region *r, size_t n,
			 uint64_t addr, uint64_t size, bool write)
{
	int found = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!region_contains(&r[i], addr, size))
			continue;
		if (!write || r[i].writable)
			return 1;
		found = -1;
	}
	return found;
}

/*
 * The slow path of an access check, after the stack: the caller's regions
 * (the context first, the common case), map values, then helper-added
 * regions. Same return convention as region_search().
 */
static int region_find(const struct interp_call *run, uint64_t addr,
		       uint64_t size, bool write)
{
	int rc, ro = 0;

	rc = region_search(run->regions, run->nregions, addr, size, write);
	if (rc > 0)
		return rc;
	ro |= rc;
	rc = region_search(run->in->map_regions, run->in->nmap_regions, addr,
			   size, write);
	if (rc > 0)
		return rc;
	ro |= rc;
	rc = region_search(run->added, run->nadded, addr, size, write);
	if (rc > 0)
		return rc;
	return ro | rc;
}

static int fault(struct interp_call *run, uint32_t pc, uint64_t addr,
		 uint32_t size, bool write, bool atomic)
{
	const char *what = write ? "write" : "read";

	if (atomic && (addr & (size - 1)))
		return run_stop(run, EFAULT,
				"insn %u: misaligned atomic access of %u bytes at 0x%llx",
				pc, size, (unsigned long long)addr);
	if (region_find(run, addr, size, false) > 0)
		return run_stop(run, EFAULT,
				"insn %u: invalid %s of %u bytes at 0x%llx (read-only memory)",
				pc, what, size, (unsigned long long)addr);
	return run_stop(run, EFAULT,
			"insn %u: invalid %s of %u bytes at 0x%llx (not in the stack, the context or a map value)",
			pc, what, size, (unsigned long long)addr);
}

/*
 * Zero a new frame, so a program never reads what an earlier run or the host
 * left there. Plain vector stores: for 512 bytes gcc's memset becomes a
 * rep stos, whose startup cost is larger than a whole seccomp filter run.
 */
static inline void frame_clear(uint64_t lo, uint32_t size)
{
	typedef uint64_t v16 __attribute__((vector_size(16), may_alias));
	v16 *p = (v16 *)(uintptr_t)lo;
	const v16 zero = { 0, 0 };
	uint32_t i;

	for (i = 0; i < size / 16; i++) {
		p[i] = zero;
		/* keeps gcc from turning the loop back into a memset call */
		__asm__("" : : "r"(p) : "memory");
	}
}

static bool func_value_slot(const struct interp *in, uint64_t v, uint32_t *slot)
{
	uint64_t idx = v & ~INTERP_FUNC_TAG_MASK;

	if ((v & INTERP_FUNC_TAG_MASK) != INTERP_FUNC_TAG || idx >= in->cnt ||
	    !in->is_func[idx])
		return false;
	*slot = (uint32_t)idx;
	return true;
}

/*
 * Execute from entry in a new frame until that frame exits. Returns 0 with
 * *r0 set, or a negative errno when the run stopped (run->stopped is then
 * set; run->status 0 means a helper ended the run with interp_call_exit).
 * Called with labels_out != NULL it only hands out its label table, which
 * interp_new() uses to turn enum interp_op into handler addresses.
 */
static int exec(struct interp_call *run, const struct islot *entry,
		const uint64_t args[5], uint64_t *r0,
		const void *const **labels_out)
{
#define OP_LABEL(n) [OP_##n] = &&L_##n,
	static const void *const labels[OP__COUNT] = { INTERP_OPS(OP_LABEL) };
#undef OP_LABEL
	const struct interp *in;
	const struct islot *slots, *ip, *block_start, *target;
	struct interp_frame *f;
	uint64_t reg[11];
	uint64_t stack_lo, stack_span, ctx_lo = 0, ctx_span = 0;
	uint32_t fs;
	uint64_t fault_addr = 0;
	uint32_t fault_size = 0;
	bool fault_write = false, fault_atomic = false;
	unsigned int base_depth;
	interp_helper_fn fn;
	int64_t budget;
	uint32_t slot;

	if (labels_out) {
		*labels_out = labels;
		return 0;
	}
	in = run->in;
	slots = in->slots;
	base_depth = run->depth;
	if (base_depth >= INTERP_MAX_FRAMES)
		return run_stop(run, E2BIG, "insn %u: more than %d nested frames",
				run->cur_pc, INTERP_MAX_FRAMES);
	run->depth++;
	fs = in->frame_size;
	stack_span = (uint64_t)run->depth * fs;
	stack_lo = STACK_TOP(run) - stack_span;
	frame_clear(stack_lo, fs);
	if (run->nregions) {	/* the context: loads from it skip the call */
		ctx_lo = run->regions[0].base;
		ctx_span = run->regions[0].size;
	}
	reg[0] = 0;
	memcpy(&reg[1], args, 5 * sizeof(reg[0]));
	reg[6] = reg[7] = reg[8] = reg[9] = 0;
	reg[10] = stack_lo + fs;
	budget = run->budget;
	ip = entry;
	block_start = ip;
	goto *ip->op;

#define R(f) reg[ip->f]
#define NEXT do { ip++; goto *ip->op; } while (0)
/* A taken branch ends a straight-line block: charge its slots now. Only
 * taken control transfers are counted, which keeps the count exact at a
 * cost of a few instructions per jump instead of per instruction. */
#define CHARGE() do {							\
		budget -= ip - block_start + 1;				\
		if (unlikely(budget < 0))				\
			goto limit;					\
	} while (0)
#define TAKE(t) do {							\
		const struct islot *t_ = (t);				\
		CHARGE();						\
		ip = t_;						\
		block_start = ip;					\
		goto *ip->op;						\
	} while (0)
/* The stack of the active frames first: one compare, no call (stack_span
 * is never below 16, so stack_span - n cannot wrap). Loads also try the
 * context inline. */
#define ACCESS_OK(a, n, w)						\
	(likely((a) - stack_lo <= stack_span - (n)) ||			\
	 (!(w) && ctx_span >= (n) && (a) - ctx_lo <= ctx_span - (n)) ||	\
	 region_find(run, (a), (n), (w)) > 0)
#define CHECK(a, n, w, at) do {						\
		if (unlikely(!ACCESS_OK(a, n, w))) {			\
			fault_addr = (a);				\
			fault_size = (n);				\
			fault_write = (w);				\
			fault_atomic = (at);				\
			goto bad_access;				\
		}							\
	} while (0)

/* Every ALU handler is bpf_alu_eval() with a constant opcode (vm/alu.h),
 * which the compiler folds to the one operation. */
#define ALU_EVAL(code, off, imm, d, s) do {				\
		uint64_t v_ = 0;					\
		bpf_alu_eval((code), (off), (imm), (d), (s), &v_);	\
		R(dst) = v_;						\
		NEXT;							\
	} while (0)
#define ALU(N, OP, OFF)							\
	L_##N##64_X: ALU_EVAL(BPF_ALU64 | (OP) | BPF_X, OFF, 0, R(dst), R(src)); \
	L_##N##64_K: ALU_EVAL(BPF_ALU64 | (OP) | BPF_K, OFF, 0, R(dst),	\
			      (uint64_t)(int64_t)ip->imm);		\
	L_##N##32_X: ALU_EVAL(BPF_ALU | (OP) | BPF_X, OFF, 0, R(dst), R(src)); \
	L_##N##32_K: ALU_EVAL(BPF_ALU | (OP) | BPF_K, OFF, 0, R(dst),	\
			      (uint64_t)(int64_t)ip->imm);

	ALU(ADD, BPF_ADD, 0)
	ALU(SUB, BPF_SUB, 0)
	ALU(MUL, BPF_MUL, 0)
	ALU(DIV, BPF_DIV, 0)
	ALU(SDIV, BPF_DIV, 1)
	ALU(MOD, BPF_MOD, 0)
	ALU(SMOD, BPF_MOD, 1)
	ALU(OR, BPF_OR, 0)
	ALU(AND, BPF_AND, 0)
	ALU(XOR, BPF_XOR, 0)
	ALU(LSH, BPF_LSH, 0)
	ALU(RSH, BPF_RSH, 0)
	ALU(ARSH, BPF_ARSH, 0)
	ALU(MOV, BPF_MOV, 0)

L_NEG64:
	ALU_EVAL(BPF_ALU64 | BPF_NEG, 0, 0, R(dst), 0);
L_NEG32:
	ALU_EVAL(BPF_ALU | BPF_NEG, 0, 0, R(dst), 0);
L_MOVSX64_8:
	ALU_EVAL(BPF_ALU64 | BPF_MOV | BPF_X, 8, 0, 0, R(src));
L_MOVSX64_16:
	ALU_EVAL(BPF_ALU64 | BPF_MOV | BPF_X, 16, 0, 0, R(src));
L_MOVSX64_32:
	ALU_EVAL(BPF_ALU64 | BPF_MOV | BPF_X, 32, 0, 0, R(src));
L_MOVSX32_8:
	ALU_EVAL(BPF_ALU | BPF_MOV | BPF_X, 8, 0, 0, R(src));
L_MOVSX32_16:
	ALU_EVAL(BPF_ALU | BPF_MOV | BPF_X, 16, 0, 0, R(src));
L_LE16:
	ALU_EVAL(BPF_ALU | BPF_END | BPF_TO_LE, 0, 16, R(dst), 0);
L_LE32:
	ALU_EVAL(BPF_ALU | BPF_END | BPF_TO_LE, 0, 32, R(dst), 0);
L_LE64:
	NEXT;
L_BE16:
	ALU_EVAL(BPF_ALU | BPF_END | BPF_TO_BE, 0, 16, R(dst), 0);
L_BE32:
	ALU_EVAL(BPF_ALU | BPF_END | BPF_TO_BE, 0, 32, R(dst), 0);
L_BE64:
	ALU_EVAL(BPF_ALU | BPF_END | BPF_TO_BE, 0, 64, R(dst), 0);

L_JA:
	TAKE(ip + ip->off + 1);
L_JA32:
	TAKE(ip + ip->imm + 1);

#define JCOND(N, E64, E32)						\
	L_##N##64_X: { uint64_t a = R(dst), b = R(src);			\
		if (E64) TAKE(ip + ip->off + 1); else NEXT; }		\
	L_##N##64_K: { uint64_t a = R(dst), b = (uint64_t)(int64_t)ip->imm; \
		if (E64) TAKE(ip + ip->off + 1); else NEXT; }		\
	L_##N##32_X: { uint32_t a = (uint32_t)R(dst), b = (uint32_t)R(src); \
		if (E32) TAKE(ip + ip->off + 1); else NEXT; }		\
	L_##N##32_K: { uint32_t a = (uint32_t)R(dst), b = (uint32_t)ip->imm; \
		if (E32) TAKE(ip + ip->off + 1); else NEXT; }

	JCOND(JEQ, a == b, a == b)
	JCOND(JNE, a != b, a != b)
	JCOND(JGT, a > b, a > b)
	JCOND(JGE, a >= b, a >= b)
	JCOND(JLT, a < b, a < b)
	JCOND(JLE, a <= b, a <= b)
	JCOND(JSGT, (int64_t)a > (int64_t)b, (int32_t)a > (int32_t)b)
	JCOND(JSGE, (int64_t)a >= (int64_t)b, (int32_t)a >= (int32_t)b)
	JCOND(JSLT, (int64_t)a < (int64_t)b, (int32_t)a < (int32_t)b)
	JCOND(JSLE, (int64_t)a <= (int64_t)b, (int32_t)a <= (int32_t)b)
	JCOND(JSET, (a & b) != 0, (a & b) != 0)

L_CALL_HELPER:
	fn = in->helpers[ip->imm];
call_helper:
	CHARGE();
	block_start = ip + 1;
	run->budget = budget;
	run->cur_pc = (uint32_t)(ip - slots);
	reg[0] = fn(run, &reg[1]);
	if (unlikely(run->stopped))
		return run->status ? run->status : -ECANCELED;
	budget = run->budget;	/* callbacks run by the helper count too */
	NEXT;

L_CALLX:
	/* The register holds either a BPF_PSEUDO_FUNC value (a function
	 * pointer, as LLVM emits) or a helper id (as bpf_conformance does). */
	if (func_value_slot(in, R(dst), &slot)) {
		target = slots + slot;
		goto call_local;
	}
	fn = NULL;
	if (in->calls && R(dst) <= INT32_MAX)
		fn = in->calls->resolve(in->user, (int32_t)R(dst));
	if (fn)
		goto call_helper;
	return run_stop(run, EINVAL, "insn %u: callx to an invalid target 0x%llx",
			(uint32_t)(ip - slots), (unsigned long long)R(dst));

L_CALL_LOCAL:
	target = ip + ip->imm + 1;
call_local:
	if (unlikely(run->depth >= INTERP_MAX_FRAMES))
		return run_stop(run, E2BIG, "insn %u: more than %d nested frames",
				(uint32_t)(ip - slots), INTERP_MAX_FRAMES);
	CHARGE();
	f = &run->frames[run->depth++];
	f->ret = ip + 1;
	memcpy(f->saved, &reg[6], sizeof(f->saved));
	stack_lo -= fs;
	stack_span += fs;
	frame_clear(stack_lo, fs);
	reg[10] = stack_lo + fs;
	ip = target;
	block_start = ip;
	goto *ip->op;

L_EXIT:
	CHARGE();
	if (run->depth == base_depth + 1) {
		run->depth = base_depth;
		run->budget = budget;
		*r0 = reg[0];
		return 0;
	}
	f = &run->frames[--run->depth];
	memcpy(&reg[6], f->saved, sizeof(f->saved));
	stack_lo += fs;
	stack_span -= fs;
	reg[10] = stack_lo + fs;
	ip = f->ret;
	block_start = ip;
	goto *ip->op;

L_LDDW:
	R(dst) = ip[1].k;
	ip += 2;
	goto *ip->op;

/*
 * Map values are shared by the workers, and BPF lets programs race on them
 * with plain loads and stores (the kernel's JIT emits plain moves). Aligned
 * accesses are relaxed atomics: the same moves, but no data race in C (nor
 * for ThreadSanitizer, scripts/test-tsan). Unaligned ones stay memcpy.
 */
#define LDX(N, T, EXT)							\
	L_##N: { uint64_t a = R(src) + (int64_t)ip->off; T v;		\
		CHECK(a, sizeof(T), false, false);			\
		if (likely(!(a & (sizeof(T) - 1))))			\
			v = __atomic_load_n((const T *)(uintptr_t)a, __ATOMIC_RELAXED); \
		else							\
			memcpy(&v, (const void *)(uintptr_t)a, sizeof(T)); \
		R(dst) = (uint64_t)(EXT)v; NEXT; }
#define STORE(N, T, VAL)						\
	L_##N: { uint64_t a = R(dst) + (int64_t)ip->off; T v = (T)(VAL); \
		CHECK(a, sizeof(T), true, false);			\
		if (likely(!(a & (sizeof(T) - 1))))			\
			__atomic_store_n((T *)(uintptr_t)a, v, __ATOMIC_RELAXED); \
		else							\
			memcpy((void *)(uintptr_t)a, &v, sizeof(T));	\
		NEXT; }

	LDX(LDX_B, uint8_t, uint64_t)
	LDX(LDX_H, uint16_t, uint64_t)
	LDX(LDX_W, uint32_t, uint64_t)
	LDX(LDX_DW, uint64_t, uint64_t)
	LDX(LDXSX_B, int8_t, int64_t)
	LDX(LDXSX_H, int16_t, int64_t)
	LDX(LDXSX_W, int32_t, int64_t)
	STORE(ST_B, uint8_t, ip->imm)
	STORE(ST_H, uint16_t, ip->imm)
	STORE(ST_W, uint32_t, ip->imm)
	STORE(ST_DW, uint64_t, (int64_t)ip->imm)
	STORE(STX_B, uint8_t, R(src))
	STORE(STX_H, uint16_t, R(src))
	STORE(STX_W, uint32_t, R(src))
	STORE(STX_DW, uint64_t, R(src))

/* Maps are shared between threads: real atomics, which need alignment. */
#define ATOMIC(N, T, BODY)						\
	L_##N: { uint64_t a = R(dst) + (int64_t)ip->off; T *p;		\
		if (unlikely(a & (sizeof(T) - 1)) ||			\
		    unlikely(!ACCESS_OK(a, sizeof(T), true))) {		\
			fault_addr = a;					\
			fault_size = sizeof(T);				\
			fault_write = true;				\
			fault_atomic = true;				\
			goto bad_access;				\
		}							\
		p = (T *)(uintptr_t)a; BODY; NEXT; }
#define ATOMIC_SIZES(N, BODY)						\
	ATOMIC(N##_W, uint32_t, BODY) ATOMIC(N##_DW, uint64_t, BODY)
#define SEQ __ATOMIC_SEQ_CST

	ATOMIC_SIZES(AADD, __atomic_fetch_add(p, R(src), SEQ))
	ATOMIC_SIZES(AOR, __atomic_fetch_or(p, R(src), SEQ))
	ATOMIC_SIZES(AAND, __atomic_fetch_and(p, R(src), SEQ))
	ATOMIC_SIZES(AXOR, __atomic_fetch_xor(p, R(src), SEQ))
	ATOMIC_SIZES(AFADD, R(src) = __atomic_fetch_add(p, R(src), SEQ))
	ATOMIC_SIZES(AFOR, R(src) = __atomic_fetch_or(p, R(src), SEQ))
	ATOMIC_SIZES(AFAND, R(src) = __atomic_fetch_and(p, R(src), SEQ))
	ATOMIC_SIZES(AFXOR, R(src) = __atomic_fetch_xor(p, R(src), SEQ))
	ATOMIC_SIZES(AXCHG, R(src) = __atomic_exchange_n(p, R(src), SEQ))
	ATOMIC_SIZES(ACMPXCHG, {
		__typeof__(*p) old = (__typeof__(*p))reg[0];

		__atomic_compare_exchange_n(p, &old, (__typeof__(*p))R(src),
					    false, SEQ, SEQ);
		reg[0] = old;
	})

L_END_OF_PROG:
	return run_stop(run, EINVAL, "insn %u: fell off the end of the program",
			(uint32_t)(ip - slots));
limit:
	return run_stop(run, E2BIG,
			"insn %u: more than %llu instructions executed (an endless loop?)",
			(uint32_t)(ip - slots), (unsigned long long)in->insn_limit);
bad_access:
	return fault(run, (uint32_t)(ip - slots), fault_addr, fault_size,
		     fault_write, fault_atomic);

#undef R
#undef NEXT
#undef CHARGE
#undef TAKE
#undef ACCESS_OK
#undef CHECK
#undef ALU_EVAL
#undef ALU
#undef JCOND
#undef LDX
#undef STORE
#undef ATOMIC
#undef ATOMIC_SIZES
#undef SEQ
}

/* Operation of an ALU/ALU64 instruction, or -1. */
static int decode_alu(const struct bpf_insn *insn)
{
	bool is64 = BPF_CLASS(insn->code) == BPF_ALU64;
	bool is_k = BPF_SRC(insn->code) == BPF_K;
	int base, var = (is64 ? 0 : 2) + (is_k ? 1 : 0);

	switch (BPF_OP(insn->code)) {
	case BPF_ADD: base = OP_ADD64_X; break;
	case BPF_SUB: base = OP_SUB64_X; break;
	case BPF_MUL: base = OP_MUL64_X; break;
	case BPF_OR: base = OP_OR64_X; break;
	case BPF_AND: base = OP_AND64_X; break;
	case BPF_XOR: base = OP_XOR64_X; break;
	case BPF_LSH: base = OP_LSH64_X; break;
	case BPF_RSH: base = OP_RSH64_X; break;
	case BPF_ARSH: base = OP_ARSH64_X; break;
	case BPF_DIV:
	case BPF_MOD:
		if (insn->off != 0 && insn->off != 1)
			return -1;
		if (BPF_OP(insn->code) == BPF_DIV)
			base = insn->off ? OP_SDIV64_X : OP_DIV64_X;
		else
			base = insn->off ? OP_SMOD64_X : OP_MOD64_X;
		return base + var;
	case BPF_NEG:
		return is64 ? OP_NEG64 : OP_NEG32;
	case BPF_MOV:
		if (insn->off == 0)
			return OP_MOV64_X + var;
		if (is_k)
			return -1;
		switch (insn->off) {
		case 8: return is64 ? OP_MOVSX64_8 : OP_MOVSX32_8;
		case 16: return is64 ? OP_MOVSX64_16 : OP_MOVSX32_16;
		case 32: return is64 ? OP_MOVSX64_32 : -1;
		}
		return -1;
	case BPF_END:
		if (is64 && !is_k)
			return -1;
		/* ALU64 END is an unconditional swap: big endian here. */
		if (is64 || !is_k) {
			switch (insn->imm) {
			case 16: return OP_BE16;
			case 32: return OP_BE32;
			case 64: return OP_BE64;
			}
			return -1;
		}
		switch (insn->imm) {
		case 16: return OP_LE16;
		case 32: return OP_LE32;
		case 64: return OP_LE64;
		}
		return -1;
	default:
		return -1;
	}
	if (insn->off != 0)
		return -1;
	return base + var;
}

/* Operation of a JMP/JMP32 instruction (conditions and ja only), or -1. */
static int decode_jmp(const struct bpf_insn *insn)
{
	bool is32 = BPF_CLASS(insn->code) == BPF_JMP32;
	int var = (is32 ? 2 : 0) + (BPF_SRC(insn->code) == BPF_K ? 1 : 0);

	switch (BPF_OP(insn->code)) {
	case BPF_JA: return is32 ? OP_JA32 : OP_JA;
	case BPF_JEQ: return OP_JEQ64_X + var;
	case BPF_JNE: return OP_JNE64_X + var;
	case BPF_JGT: return OP_JGT64_X + var;
	case BPF_JGE: return OP_JGE64_X + var;
	case BPF_JLT: return OP_JLT64_X + var;
	case BPF_JLE: return OP_JLE64_X + var;
	case BPF_JSGT: return OP_JSGT64_X + var;
	case BPF_JSGE: return OP_JSGE64_X + var;
	case BPF_JSLT: return OP_JSLT64_X + var;
	case BPF_JSLE: return OP_JSLE64_X + var;
	case BPF_JSET: return OP_JSET64_X + var;
	}
	return -1;
}

static int decode_atomic(const struct bpf_insn *insn)
{
	bool dw = BPF_SIZE(insn->code) == BPF_DW;
	int op;

	if (BPF_SIZE(insn->code) != BPF_W && !dw)
		return -1;
	switch (insn->imm) {
	case BPF_ADD: op = OP_AADD_W; break;
	case BPF_OR: op = OP_AOR_W; break;
	case BPF_AND: op = OP_AAND_W; break;
	case BPF_XOR: op = OP_AXOR_W; break;
	case BPF_ADD | BPF_FETCH: op = OP_AFADD_W; break;
	case BPF_OR | BPF_FETCH: op = OP_AFOR_W; break;
	case BPF_AND | BPF_FETCH: op = OP_AFAND_W; break;
	case BPF_XOR | BPF_FETCH: op = OP_AFXOR_W; break;
	case BPF_XCHG: op = OP_AXCHG_W; break;
	case BPF_CMPXCHG: op = OP_ACMPXCHG_W; break;
	default: return -1;
	}
	return op + (dw ? OP_AADD_DW - OP_AADD_W : 0);
}

static int decode_mem(const struct bpf_insn *insn)
{
	static const int ldx[4] = { OP_LDX_W, OP_LDX_H, OP_LDX_B, OP_LDX_DW };
	static const int ldxsx[4] = { OP_LDXSX_W, OP_LDXSX_H, OP_LDXSX_B, -1 };
	static const int st[4] = { OP_ST_W, OP_ST_H, OP_ST_B, OP_ST_DW };
	static const int stx[4] = { OP_STX_W, OP_STX_H, OP_STX_B, OP_STX_DW };
	int size = BPF_SIZE(insn->code) >> 3;	/* W, H, B, DW = 0..3 */

	switch (BPF_CLASS(insn->code)) {
	case BPF_LDX:
		if (BPF_MODE(insn->code) == BPF_MEM)
			return ldx[size];
		if (BPF_MODE(insn->code) == BPF_MEMSX)
			return ldxsx[size];
		return -1;
	case BPF_ST:
		return BPF_MODE(insn->code) == BPF_MEM ? st[size] : -1;
	case BPF_STX:
		if (BPF_MODE(insn->code) == BPF_MEM)
			return stx[size];
		if (BPF_MODE(insn->code) == BPF_ATOMIC)
			return decode_atomic(insn);
		return -1;
	}
	return -1;
}

static bool is_target_ok(const struct interp *in, const uint8_t *second,
			 int64_t target)
{
	return target >= 0 && target < in->cnt && !second[target];
}

/*
 * Stack bytes each frame gets. A program that uses r10 only as the base of
 * loads and stores can reach no stack byte below its lowest such offset, so
 * its frames are cut to that depth: less to clear on every run, which is a
 * large part of a short filter's cost. Any other use of r10 (taking its
 * address into a register, storing it) may pass a pointer anywhere in the
 * frame, so the frame is the full INTERP_STACK_SIZE.
 */
static uint32_t frame_size(const struct bpf_insn *insns, uint32_t cnt)
{
	int64_t lowest = 0;
	uint32_t i;

	for (i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &insns[i];
		uint8_t cls = BPF_CLASS(in->code);
		bool base = false;

		if (insn_is_ld_imm64(in)) {
			i++;
			continue;
		}
		if (cls == BPF_LDX)
			base = in->src_reg == 10;
		else if (cls == BPF_ST)
			base = in->dst_reg == 10;
		else if (cls == BPF_STX) {
			if (in->src_reg == 10)
				return INTERP_STACK_SIZE;
			base = in->dst_reg == 10;
		} else if (in->src_reg == 10 || in->dst_reg == 10) {
			return INTERP_STACK_SIZE;
		}
		if (base && in->off < lowest)
			lowest = in->off;
	}
	if (-lowest >= INTERP_STACK_SIZE)
		return INTERP_STACK_SIZE;
	/* 16-byte multiples keep every r10 aligned; 16 at least, so the
	 * bounds check never sees an empty stack. */
	if (lowest > -16)
		return 16;
	return ((uint32_t)-lowest + 15) / 16 * 16;
}

/* Add the value of map idx as a region of every run (once per map). */
static int add_map_region(struct interp *in, const struct interp_map_ref *m)
{
	uint32_t i;

	for (i = 0; i < in->nmap_regions; i++)
		if (in->map_regions[i].base == (uint64_t)(uintptr_t)m->value)
			return 0;
	in->map_regions[in->nmap_regions++] = (struct interp_region){
		.base = (uint64_t)(uintptr_t)m->value,
		.size = m->value_size,
		.writable = m->writable,
	};
	return 0;
}

/* Resolve an ld_imm64 at slot i into its constant. */
static int decode_ld_imm64(struct interp *in, const struct interp_config *cfg,
			   const uint8_t *second, uint32_t i, uint64_t *k,
			   struct secbpf_err *err)
{
	const struct bpf_insn *insn = &cfg->insns[i];
	const struct interp_map_ref *m;
	uint32_t off = (uint32_t)insn[1].imm;
	int64_t target;

	switch (insn->src_reg) {
	case 0:
		*k = insn_ld_imm64_value(insn);
		return 0;
	case BPF_PSEUDO_MAP_FD:
	case BPF_PSEUDO_MAP_VALUE:
		if (insn->imm < 0 || (uint32_t)insn->imm >= cfg->nmaps)
			return err_set(err, EINVAL,
				       "insn %u: reference to map %d, but the program has %u maps",
				       i, insn->imm, cfg->nmaps);
		m = &cfg->maps[insn->imm];
		if (insn->src_reg == BPF_PSEUDO_MAP_FD) {
			*k = m->handle;
			return 0;
		}
		if (!m->value)
			return err_set(err, EINVAL,
				       "insn %u: map %d has no directly addressable value",
				       i, insn->imm);
		if (off >= m->value_size)
			return err_set(err, EINVAL,
				       "insn %u: offset %u is outside map %d's value of %u bytes",
				       i, off, insn->imm, m->value_size);
		*k = (uint64_t)(uintptr_t)m->value + off;
		return add_map_region(in, m);
	case BPF_PSEUDO_FUNC:
		target = (int64_t)i + insn->imm + 1;
		if (!is_target_ok(in, second, target))
			return err_set(err, EINVAL,
				       "insn %u: reference to an invalid function %lld",
				       i, (long long)target);
		in->is_func[target] = 1;
		*k = INTERP_FUNC_TAG | (uint64_t)target;
		return 0;
	}
	return err_set(err, EINVAL, "insn %u: unsupported ld_imm64 source %u", i,
		       insn->src_reg);
}

/* Resolve a helper call at slot i, storing its index in helpers. */
static int decode_helper(struct interp *in, const struct interp_config *cfg,
			 uint32_t i, struct islot *s, struct secbpf_err *err)
{
	int32_t id = cfg->insns[i].imm;
	const char *name = insn_helper_name(id);
	interp_helper_fn fn = NULL;

	if (cfg->calls)
		fn = cfg->calls->resolve(cfg->user, id);
	if (!fn) {
		if (name)
			return err_set(err, ENOENT,
				       "insn %u: helper %s#%d is not available%s",
				       i, name, id,
				       cfg->calls ? "" : " (no helpers here)");
		return err_set(err, ENOENT, "insn %u: unknown helper #%d%s", i, id,
			       cfg->calls ? "" : " (no helpers here)");
	}
	s->imm = (int32_t)in->nhelpers;
	in->helpers[in->nhelpers++] = fn;
	return 0;
}

/* Decode slot i; second[] marks ld_imm64 second halves (not targets). */
static int decode_slot(struct interp *in, const struct interp_config *cfg,
		       const uint8_t *second, uint32_t i, struct secbpf_err *err)
{
	const struct bpf_insn *insn = &cfg->insns[i];
	struct islot *s = &in->slots[i];
	uint8_t cls = BPF_CLASS(insn->code);
	int64_t target;
	int op = -1;

	*s = (struct islot){ .dst = insn->dst_reg, .src = insn->src_reg,
			     .off = insn->off, .imm = insn->imm };
	if (insn->dst_reg > 10)
		return err_set(err, EINVAL, "insn %u: invalid register r%u", i,
			       insn->dst_reg);
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		op = decode_alu(insn);
		break;
	case BPF_JMP:
	case BPF_JMP32:
		if (BPF_OP(insn->code) == BPF_EXIT && cls == BPF_JMP) {
			op = OP_EXIT;
			break;
		}
		if (BPF_OP(insn->code) == BPF_CALL && cls == BPF_JMP) {
			if (BPF_SRC(insn->code) == BPF_X) {
				op = OP_CALLX;
				break;
			}
			if (insn->src_reg == BPF_PSEUDO_CALL) {
				target = (int64_t)i + insn->imm + 1;
				if (!is_target_ok(in, second, target))
					return err_set(err, EINVAL,
						       "insn %u: call to an invalid target %lld",
						       i, (long long)target);
				in->is_func[target] = 1;
				op = OP_CALL_LOCAL;
				break;
			}
			if (insn->src_reg != 0)
				return err_set(err, EINVAL,
					       "insn %u: unsupported call kind %u", i,
					       insn->src_reg);
			op = OP_CALL_HELPER;
			s->src = 0;
			if (decode_helper(in, cfg, i, s, err))
				return -ENOENT;
			break;
		}
		op = decode_jmp(insn);
		if (op < 0)
			break;
		target = (int64_t)i + (op == OP_JA32 ? insn->imm : insn->off) + 1;
		if (!is_target_ok(in, second, target))
			return err_set(err, EINVAL,
				       "insn %u: jump to an invalid target %lld", i,
				       (long long)target);
		break;
	case BPF_LD:
		if (insn->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			s->src = 0;
			if (decode_ld_imm64(in, cfg, second, i, &s[1].k, err))
				return -EINVAL;
			op = OP_LDDW;
		}
		break;
	default:
		op = decode_mem(insn);
		break;
	}
	if (op < 0)
		return err_set(err, EINVAL, "insn %u: invalid instruction (code 0x%02x)",
			       i, insn->code);
	if (s->src > 10)
		return err_set(err, EINVAL, "insn %u: invalid register r%u", i, s->src);
	s->opn = (uintptr_t)op;
	return 0;
}

struct interp *interp_new(const struct interp_config *cfg,
			  struct secbpf_err *err)
{
	const void *const *labels;
	struct interp *in = NULL;
	uint8_t *second = NULL;
	uint32_t i, ncalls = 0, nmapv = 0;
	int rc;

	if (!cfg || !cfg->insns || cfg->cnt == 0 || cfg->cnt > INSN_MAX_CNT) {
		err_set(err, EINVAL, "no program or a program of an invalid size");
		return NULL;
	}
	if (cfg->nmaps && !cfg->maps) {
		err_set(err, EINVAL, "the program has %u maps but no map table",
			cfg->nmaps);
		return NULL;
	}
	rc = insn_validate(cfg->insns, cfg->cnt, INSN_ALLOW_PSEUDO, 5, err);
	if (rc)
		return NULL;

	second = calloc(cfg->cnt, 1);
	in = calloc(1, sizeof(*in));
	if (!second || !in)
		goto nomem;
	in->cnt = cfg->cnt;
	if (cfg->calls && !cfg->calls->resolve) {
		err_set(err, EINVAL, "a call table without a resolve function");
		goto fail;
	}
	in->calls = cfg->calls;
	in->user = cfg->user;
	in->insn_limit = cfg->insn_limit ? cfg->insn_limit : INTERP_DEFAULT_INSN_LIMIT;
	if (in->insn_limit > INT64_MAX)
		in->insn_limit = INT64_MAX;
	for (i = 0; i < cfg->cnt; i++) {
		const struct bpf_insn *insn = &cfg->insns[i];

		if (insn_is_ld_imm64(insn)) {
			if (i + 1 >= cfg->cnt) {
				err_set(err, EINVAL, "insn %u: ld_imm64 without its second half", i);
				goto fail;
			}
			second[++i] = 1;
			if (insn->src_reg == BPF_PSEUDO_MAP_VALUE)
				nmapv++;
		} else if (insn->code == (BPF_JMP | BPF_CALL)) {
			ncalls++;
		}
	}
	in->slots = calloc((size_t)cfg->cnt + 1, sizeof(*in->slots));
	in->is_func = calloc(cfg->cnt, 1);
	in->helpers = calloc(ncalls ? ncalls : 1, sizeof(*in->helpers));
	in->map_regions = calloc(nmapv ? nmapv : 1, sizeof(*in->map_regions));
	if (!in->slots || !in->is_func || !in->helpers || !in->map_regions)
		goto nomem;
	in->is_func[0] = 1;
	in->frame_size = frame_size(cfg->insns, cfg->cnt);
	for (i = 0; i < cfg->cnt; i++) {
		if (decode_slot(in, cfg, second, i, err))
			goto fail;
		if (in->slots[i].opn == OP_LDDW)
			i++;
	}
	in->slots[cfg->cnt].opn = OP_END_OF_PROG;

	exec(NULL, NULL, NULL, NULL, &labels);
	for (i = 0; i <= cfg->cnt; i++) {
		if (i < cfg->cnt && second[i])
			continue;
		in->slots[i].op = labels[in->slots[i].opn];
	}
	free(second);
	return in;

nomem:
	err_set(err, ENOMEM, "out of memory preparing the interpreter");
fail:
	free(second);
	interp_free(in);
	return NULL;
}

void interp_free(struct interp *in)
{
	if (!in)
		return;
	free(in->slots);
	free(in->is_func);
	free(in->helpers);
	free(in->map_regions);
	free(in);
}

int interp_run(const struct interp *in, const uint64_t args[5],
	       const struct interp_region *regions, size_t nregions,
	       uint64_t *r0, struct secbpf_err *err)
{
	return interp_run_ctx(in, args, regions, nregions, NULL, r0, err);
}

int interp_run_ctx(const struct interp *in, const uint64_t args[5],
		   const struct interp_region *regions, size_t nregions,
		   void *run_ctx, uint64_t *r0, struct secbpf_err *err)
{
	static const uint64_t no_args[5];
	struct interp_call run;
	uint64_t ret = 0;
	int rc;

	if (nregions > INTERP_MAX_REGIONS)
		return err_set(err, E2BIG, "%zu regions given, at most %d",
			       nregions, INTERP_MAX_REGIONS);
	if (nregions && !regions)
		return err_set(err, EINVAL, "%zu regions given without a table",
			       nregions);
	/* Only the header is initialised: the stack is cleared per frame and
	 * the region and frame arrays are written before they are read. */
	run.in = in;
	run.regions = regions;
	run.nregions = nregions;
	run.nadded = 0;
	run.depth = 0;
	run.cur_pc = 0;
	run.budget = (int64_t)in->insn_limit;
	run.stopped = false;
	run.status = 0;
	run.exit_value = 0;
	run.err = err;
	run.run_ctx = run_ctx;
	rc = exec(&run, in->slots, args ? args : no_args, &ret, NULL);
	if (run.stopped) {
		if (run.status)
			return run.status;
		ret = run.exit_value;
	} else if (rc) {
		return rc;
	}
	if (r0)
		*r0 = ret;
	return 0;
}

void *interp_call_user(struct interp_call *call)
{
	return call->in->user;
}

void *interp_call_run_ctx(struct interp_call *call)
{
	return call->run_ctx;
}

unsigned int interp_call_depth(struct interp_call *call)
{
	return call->depth;
}

size_t interp_call_region_mark(struct interp_call *call)
{
	return call->nadded;
}

void interp_call_region_release(struct interp_call *call, size_t mark)
{
	if (mark < call->nadded)
		call->nadded = mark;
}

int interp_call_check(struct interp_call *call, uint64_t addr, uint64_t size,
		      bool write)
{
	uint64_t span = (uint64_t)call->depth * call->in->frame_size;
	uint64_t lo = STACK_TOP(call) - span;

	if (size == 0)
		return 0;
	if (size <= span && addr - lo <= span - size)
		return 0;
	return region_find(call, addr, size, write) > 0 ? 0 : -EFAULT;
}

int interp_call_add_region(struct interp_call *call, void *base, uint64_t size,
			   bool writable)
{
	if (call->nregions + call->nadded >= INTERP_MAX_REGIONS)
		return -ENOSPC;
	call->added[call->nadded++] = (struct interp_region){
		.base = (uint64_t)(uintptr_t)base,
		.size = size,
		.writable = writable,
	};
	return 0;
}

void interp_call_exit(struct interp_call *call, uint64_t value)
{
	if (call->stopped)
		return;
	call->stopped = true;
	call->status = 0;
	call->exit_value = value;
}

void interp_call_fail(struct interp_call *call, int errnum, const char *fmt, ...)
{
	char msg[SECBPF_ERR_MAX];
	va_list ap;

	if (call->stopped)
		return;
	if (errnum <= 0)
		errnum = EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	run_stop(call, errnum, "insn %u: %s", call->cur_pc, msg);
}

int interp_call_subprog(struct interp_call *call, uint64_t func,
			const uint64_t args[5], uint64_t *r0)
{
	uint32_t pc = call->cur_pc, slot;
	uint64_t ret = 0;
	int rc;

	if (call->stopped)
		return call->status ? call->status : -ECANCELED;
	if (!func_value_slot(call->in, func, &slot))
		return run_stop(call, EINVAL,
				"insn %u: callback 0x%llx is not a function of the program",
				pc, (unsigned long long)func);
	rc = exec(call, call->in->slots + slot, args, &ret, NULL);
	call->cur_pc = pc;	/* helpers in the callback moved it */
	if (rc)
		return rc;
	if (r0)
		*r0 = ret;
	return 0;
}
