// SPDX-License-Identifier: MIT
/*
 * The kernel as the reference for compiled cBPF (issue 10 item 7): every
 * tests/cbpf/ program and every sample is compiled as it would be
 * installed, each RET k rewritten to a distinct RET ERRNO(i) (RET A read
 * back 11 bits per pass), so no syscall ever runs, and installed in a
 * forked child that issues raw syscalls: x86_64, x32 numbers and i386
 * through int $0x80, from stubs at chosen instruction pointers. Every
 * answer of the kernel is compared with cbpf_sim_run() and the interpreter.
 */
#include <criterion/criterion.h>

#ifdef __x86_64__

#include <dirent.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cbpf/cbpf.h"
#include "cbpf/cbpf_internal.h" /* cbpf_guard_targets: where the guard looks */
#include "host_ia32.h"
#include "object/object.h"
#include "vm/runtime.h"

/*
 * Cases per program (spread over nr, args and the three syscall kinds);
 * a program with RET A needs three kernel passes for the same cases.
 */
#define KREF_CASES 30000u
/* Directed cases tried in the simulator for the RETs those missed. */
#define KREF_SEARCH 100000u
#define KREF_MAX_VALS 4096u
#define KREF_MAX_NRS 1500u
#define KREF_MAX_WORD_K 256u
#define KREF_MAX_STUBS 48u
#define KREF_MAX_PAGES (2 * KREF_MAX_STUBS + 2)
/* Distinct RET k values map to ERRNO(1..n); RET A to ERRNO(base + 11 bits). */
#define KREF_RET_A_BASE 2048u
#define KREF_RET_A_BITS 11u
#define KREF_PASSES_RET_A 3u
#define KREF_X32_BIT 0x40000000u
/* A raw result meaning: the child died at this case (a division by zero
 * ended the filter with 0, SECCOMP_RET_KILL_THREAD). */
#define KREF_KILLED INT64_MIN
/* A raw result meaning: not issued, the host kills any task making this
 * syscall, with or without a filter (see struct kref_refused). */
#define KREF_HOST (INT64_MIN + 100)
#define KREF_MAX_REFUSED 16u

enum kref_mode { KREF_NATIVE, KREF_I386 };

/* Registers for kref_enter(): nr in rax, the arguments in the syscall
 * convention of the mode (rdi rsi rdx r10 r8 r9, or ebx ecx edx esi edi ebp). */
struct kref_regs {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, r8, r9, r10;
};

/*
 * Load every register from *r and call target, which is the syscall
 * instruction (0f 05) or int $0x80 (cd 80) followed by ret: the kernel then
 * reports target + 2 as the instruction pointer. Returns rax.
 */
long kref_enter(const struct kref_regs *r, const void *target)
	__attribute__((visibility("hidden")));
__asm__(".pushsection .text\n"
	".globl kref_enter\n"
	".hidden kref_enter\n"
	".type kref_enter, @function\n"
	"kref_enter:\n"
	"	push %rbx\n"
	"	push %rbp\n"
	"	push %r12\n"
	"	mov %rdi, %r12\n"
	"	mov %rsi, %r11\n"
	"	mov 0(%r12), %rax\n"
	"	mov 8(%r12), %rbx\n"
	"	mov 16(%r12), %rcx\n"
	"	mov 24(%r12), %rdx\n"
	"	mov 32(%r12), %rsi\n"
	"	mov 40(%r12), %rdi\n"
	"	mov 48(%r12), %rbp\n"
	"	mov 56(%r12), %r8\n"
	"	mov 64(%r12), %r9\n"
	"	mov 72(%r12), %r10\n"
	"	call *%r11\n"
	"	pop %r12\n"
	"	pop %rbp\n"
	"	pop %rbx\n"
	"	ret\n"
	".size kref_enter, . - kref_enter\n"
	".popsection\n");

/* A syscall stub: the instruction sits at ip - 2, ret at ip. */
struct kref_stub {
	uint64_t ip;
};

struct kref_case {
	uint64_t args[6];	/* as the kernel reports them */
	uint32_t nr;
	uint8_t mode;		/* enum kref_mode */
	uint8_t stub;		/* index into the stubs */
};

/* What the kernel does with an int $0x80 from a 64-bit task (probed once). */
struct kref_host {
	bool i386;		/* int $0x80 works (IA32_EMULATION) */
	bool i386_hi_args;	/* seccomp_data.args keep the registers' high halves */
	char i386_why[400];
};

/* The stub pages mapped for one program, unmapped when it is done. */
struct kref_stubs {
	struct kref_stub stub[KREF_MAX_STUBS];
	uint32_t n;
	void *page[KREF_MAX_PAGES];
	uint32_t npages;
};

/* RET k values of the compiled filter, in order of first appearance. */
struct kref_rets {
	uint32_t k[KREF_RET_A_BASE - 1];
	uint32_t n;
	bool ret_a;
};

/*
 * (mode, nr) pairs this host handles before seccomp looks: some sandboxed
 * kernels take syscall numbers for themselves (one such VM raises SIGILL
 * for x86_64 nr 335 and returns -ENXIO for 336, whatever the filter). Found
 * by a calibration pass under a filter that returns ERRNO(KREF_CANARY) for
 * everything; not issued from then on, counted and printed.
 */
#define KREF_CANARY 4000
struct kref_refused {
	struct {
		uint32_t nr;
		uint8_t mode;
		int sig;	/* the task was killed by it, or 0 */
		long ret;	/* else what the syscall returned */
	} at[KREF_MAX_REFUSED];
	uint32_t n;
};

static bool kref_is_refused(const struct kref_refused *rf, const struct kref_case *c)
{
	uint32_t i;

	for (i = 0; i < rf->n; i++)
		if (rf->at[i].nr == c->nr && rf->at[i].mode == c->mode)
			return true;
	return false;
}

/* Shared with the child: its progress and the raw syscall results. */
struct kref_shared {
	uint32_t progress;	/* cases [start, progress) are in raw[] */
	uint32_t done;
	int install_err;	/* errno of prctl()/seccomp() in the child */
	int64_t raw[];
};

struct kref_totals {
	uint64_t programs, cases, kernel_runs, mismatches, notif_cases, killed, host_refused;
	uint64_t rets, rets_reached;	/* RET instructions of the filters, reached */
	uint64_t guard_cases;		/* answered by the listener guard */
	uint32_t reported;
};

static uint64_t kref_rand(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

static void kref_add(uint64_t *v, uint32_t *n, uint32_t cap, uint64_t x)
{
	uint32_t i;

	for (i = 0; i < *n; i++)
		if (v[i] == x)
			return;
	if (*n < cap)
		v[(*n)++] = x;
}

/* ---- rewriting the filter ---- */

static uint32_t kref_ret_index(struct kref_rets *rets, uint32_t k)
{
	uint32_t i;

	for (i = 0; i < rets->n; i++)
		if (rets->k[i] == k)
			return i;
	cr_assert_lt(rets->n, KREF_RET_A_BASE - 1, "too many distinct RET values");
	rets->k[rets->n] = k;
	return rets->n++;
}

/*
 * Copy f with every RET k made RET ERRNO(1 + index of k) and every RET A a
 * jump to a tail that returns ERRNO(base + 11 bits of A, from bit 11 *
 * pass). No RET of the result lets a syscall run or kills the child.
 * Returns the new length (len, or len + 5 with a RET A).
 */
static uint32_t kref_rewrite(const struct sock_filter *f, uint32_t len, unsigned pass,
			     struct kref_rets *rets, struct sock_filter *out)
{
	struct secbpf_err err = { { 0 } };
	uint32_t pc, n = len;

	for (pc = 0; pc < len; pc++) {
		out[pc] = f[pc];
		if (f[pc].code == (BPF_RET | BPF_K)) {
			out[pc].k = SECCOMP_RET_ERRNO | (1 + kref_ret_index(rets, f[pc].k));
		} else if (f[pc].code == (BPF_RET | BPF_A)) {
			rets->ret_a = true;
			out[pc] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, len - pc - 1);
		} else {
			cr_assert_neq(BPF_CLASS(f[pc].code), BPF_RET,
				      "RET 0x%x at %u cannot be rewritten", f[pc].code, pc);
		}
	}
	if (rets->ret_a) {
		out[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_RSH | BPF_K,
							KREF_RET_A_BITS * pass);
		out[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K,
							(1u << KREF_RET_A_BITS) - 1);
		out[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, KREF_RET_A_BASE);
		out[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_OR | BPF_K,
							SECCOMP_RET_ERRNO);
		out[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	}
	cr_assert_eq(cbpf_check(out, n, &err), 0, "rewritten filter: %s", err.msg);
	/* The child must survive: every RET is an ERRNO the table decodes. */
	for (pc = 0; pc < n; pc++) {
		if (out[pc].code == (BPF_RET | BPF_K)) {
			cr_assert_eq(out[pc].k & SECCOMP_RET_ACTION_FULL, SECCOMP_RET_ERRNO);
			cr_assert((out[pc].k & SECCOMP_RET_DATA) >= 1 &&
				  (out[pc].k & SECCOMP_RET_DATA) <= rets->n);
		} else if (BPF_CLASS(out[pc].code) == BPF_RET) {
			cr_assert(rets->ret_a && pc == n - 1, "RET A left at %u", pc);
		}
	}
	return n;
}

/* The program's value from one pass's raw result, or false if undecodable.
 * *is_a: it came through RET A, *v then holds that pass's bits. */
static bool kref_decode(const struct kref_rets *rets, int64_t raw, uint32_t *v, bool *is_a)
{
	int64_t e = -raw;

	*is_a = false;
	if (raw == KREF_KILLED) {
		*v = SECCOMP_RET_KILL_THREAD;
		return true;
	}
	if (e >= 1 && e <= rets->n) {
		*v = rets->k[e - 1];
		return true;
	}
	if (rets->ret_a && e >= KREF_RET_A_BASE && e < KREF_RET_A_BASE + (1 << KREF_RET_A_BITS)) {
		*v = (uint32_t)(e - KREF_RET_A_BASE);
		*is_a = true;
		return true;
	}
	return false;
}

/* ---- stubs at chosen instruction pointers ---- */

static bool kref_page_ours(const struct kref_stubs *s, uint64_t page)
{
	uint32_t i;

	for (i = 0; i < s->npages; i++)
		if ((uint64_t)(uintptr_t)s->page[i] == page)
			return true;
	return false;
}

static bool kref_map_page(struct kref_stubs *s, uint64_t page)
{
	void *p;

	if (kref_page_ours(s, page))
		return true;
	if (s->npages == KREF_MAX_PAGES)
		return false;
	p = mmap((void *)(uintptr_t)page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return false;
	if ((uint64_t)(uintptr_t)p != page) {	/* a kernel without NOREPLACE */
		munmap(p, 4096);
		return false;
	}
	s->page[s->npages++] = p;
	return true;
}

/* Add a stub whose syscall reports instruction pointer ip, if [ip-2, ip]
 * can be mapped and does not overlap another stub. */
static void kref_add_stub(struct kref_stubs *s, uint64_t ip)
{
	uint32_t i;

	if (s->n == KREF_MAX_STUBS || ip < 0x10002 || ip >= 0x7ffffffef000ull)
		return;
	for (i = 0; i < s->n; i++)
		if (ip + 3 > s->stub[i].ip && ip < s->stub[i].ip + 3)
			return;
	if (!kref_map_page(s, (ip - 2) & ~0xfffull) || !kref_map_page(s, ip & ~0xfffull))
		return;
	((uint8_t *)(uintptr_t)ip)[-2] = 0x0f;
	((uint8_t *)(uintptr_t)ip)[-1] = 0x05;
	((uint8_t *)(uintptr_t)ip)[0] = 0xc3;
	s->stub[s->n++].ip = ip;
}

static void kref_free_stubs(struct kref_stubs *s)
{
	uint32_t i;

	for (i = 0; i < s->npages; i++)
		munmap(s->page[i], 4096);
	s->n = s->npages = 0;
}

/* One stub at a kernel-chosen address, used by every program. */
static void kref_default_stub(struct kref_stubs *s)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert(p != MAP_FAILED, "mmap of an executable page: %s", strerror(errno));
	s->page[s->npages++] = p;
	kref_add_stub(s, (uint64_t)(uintptr_t)p + 0x802);
	cr_assert_eq(s->n, 1);
}

/* Issue one case in the child: patch the stub's instruction to the mode. */
static long kref_issue(const struct kref_case *c, const struct kref_stubs *s)
{
	volatile uint8_t *code = (volatile uint8_t *)(uintptr_t)(s->stub[c->stub].ip - 2);
	struct kref_regs r = { .rax = c->nr };

	if (c->mode == KREF_I386) {
		if (code[0] != 0xcd) {
			code[0] = 0xcd;
			code[1] = 0x80;
		}
		r.rbx = c->args[0];
		r.rcx = c->args[1];
		r.rdx = c->args[2];
		r.rsi = c->args[3];
		r.rdi = c->args[4];
		r.rbp = c->args[5];
		/* int $0x80 returns a 32-bit eax */
		return (int32_t)kref_enter(&r, (const void *)code);
	}
	if (code[0] != 0x0f) {
		code[0] = 0x0f;
		code[1] = 0x05;
	}
	r.rdi = c->args[0];
	r.rsi = c->args[1];
	r.rdx = c->args[2];
	r.r10 = c->args[3];
	r.r8 = c->args[4];
	r.r9 = c->args[5];
	return kref_enter(&r, (const void *)code);
}

/* ---- the child under the filter ---- */

/*
 * Install f and issue cases [start, n). Under the filter every syscall
 * fails, exit included, so the child reports through sh and then spins
 * until the parent kills it.
 */
static void __attribute__((noreturn))
kref_child(const struct sock_filter *f, uint32_t len, const struct kref_case *cases, uint32_t start,
	   uint32_t n, const struct kref_stubs *s, const struct kref_refused *rf,
	   struct kref_shared *sh)
{
	struct sock_fprog fp = { .len = (unsigned short)len, .filter = (struct sock_filter *)f };
	struct rlimit no_core = { 0, 0 };
	uint32_t k;

	/* a division by zero kills the child: no core file for that */
	setrlimit(RLIMIT_CORE, &no_core);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp)) {
		sh->install_err = errno ? errno : EINVAL;
		_exit(2);
	}
	for (k = start; k < n; k++) {
		sh->raw[k] = kref_is_refused(rf, &cases[k]) ? KREF_HOST : kref_issue(&cases[k], s);
		__atomic_store_n(&sh->progress, k + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
	for (;;)
		__builtin_ia32_pause();
}


/*
 * Run one child on cases [start, n) under f. Returns 0 when it got through
 * them all, or 1 with *status when it died first (sh->progress is then the
 * case it was on).
 */
static int kref_spawn(const struct sock_filter *f, uint32_t len, const struct kref_case *cases,
		      uint32_t start, uint32_t n, const struct kref_stubs *s,
		      const struct kref_refused *rf, struct kref_shared *sh, int *status)
{
	struct timespec t0, now, nap = { 0, 100000 };
	pid_t pid;

	sh->progress = start;
	sh->done = 0;
	sh->install_err = 0;
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		kref_child(f, len, cases, start, n, s, rf, sh);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE)) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 120) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			cr_assert_fail("the child hangs at case %u of %u", sh->progress, n);
		}
		nanosleep(&nap, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

static struct kref_shared *kref_shared_new(uint32_t n, size_t *size)
{
	struct kref_shared *sh;

	*size = sizeof(*sh) + (size_t)n * sizeof(int64_t);
	sh = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert(sh != MAP_FAILED, "mmap: %s", strerror(errno));
	return sh;
}

/*
 * The kernel's raw answers for every case under f, into raw[]. A child
 * killed by the filter (SIGSYS: a division by zero ended it with 0) leaves
 * KREF_KILLED for the case it was on, and a new child goes on after it.
 * When calibrating, any other death marks the case KREF_HOST instead.
 * Returns the number of kills by the filter.
 */
static uint32_t kref_kernel_run(const struct sock_filter *f, uint32_t len,
				const struct kref_case *cases, uint32_t n,
				const struct kref_stubs *s, const struct kref_refused *rf,
				bool calibrating, int64_t *raw)
{
	uint32_t start = 0, kills = 0, k;
	struct kref_shared *sh;
	size_t size;
	int status;

	sh = kref_shared_new(n, &size);
	while (start < n && kref_spawn(f, len, cases, start, n, s, rf, sh, &status)) {
		const struct kref_case *c;

		cr_assert_eq(sh->install_err, 0, "installing the filter: %s",
			     strerror(sh->install_err));
		k = __atomic_load_n(&sh->progress, __ATOMIC_ACQUIRE);
		c = &cases[k];
		start = k + 1;
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) {
			sh->raw[k] = KREF_KILLED;
			cr_assert_lt(++kills, 10000, "the filter kills too often");
			continue;
		}
		cr_assert(WIFSIGNALED(status) && calibrating,
			  "the child died at case %u (%s nr 0x%x args 0x%llx 0x%llx 0x%llx "
			  "0x%llx 0x%llx 0x%llx, ip 0x%llx): status 0x%x", k,
			  c->mode == KREF_I386 ? "i386" : "x86_64", c->nr,
			  (unsigned long long)c->args[0], (unsigned long long)c->args[1],
			  (unsigned long long)c->args[2], (unsigned long long)c->args[3],
			  (unsigned long long)c->args[4], (unsigned long long)c->args[5],
			  (unsigned long long)s->stub[c->stub].ip, status);
		sh->raw[k] = KREF_HOST - WTERMSIG(status);	/* below KREF_HOST */
	}
	memcpy(raw, sh->raw, (size_t)n * sizeof(int64_t));
	munmap(sh, size);
	return kills;
}

/*
 * Issue each (mode, nr) of cases once (zero args, stub 0) under a filter
 * that answers ERRNO(KREF_CANARY) to everything, and add to rf every one
 * the host answers otherwise. cases come grouped by (mode, nr).
 */
static void kref_calibrate(const struct kref_case *cases, uint32_t n,
			   const struct kref_stubs *s, struct kref_refused *rf)
{
	static const struct sock_filter canary[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | KREF_CANARY),
	};
	struct kref_case *cal = calloc(n, sizeof(*cal));
	int64_t *raw = calloc(n, sizeof(*raw));
	uint32_t i, m = 0;

	cr_assert(cal && raw);
	for (i = 0; i < n; i++) {
		if (m && cal[m - 1].nr == cases[i].nr && cal[m - 1].mode == cases[i].mode)
			continue;
		cal[m].nr = cases[i].nr;
		cal[m].mode = cases[i].mode;
		m++;
	}
	kref_kernel_run(canary, 1, cal, m, s, rf, true, raw);
	for (i = 0; i < m; i++) {
		if (raw[i] == -KREF_CANARY || raw[i] == KREF_HOST || kref_is_refused(rf, &cal[i]))
			continue;
		cr_assert_lt(rf->n, KREF_MAX_REFUSED, "the host takes too many syscalls");
		rf->at[rf->n].nr = cal[i].nr;
		rf->at[rf->n].mode = cal[i].mode;
		rf->at[rf->n].sig = raw[i] < KREF_HOST ? (int)(KREF_HOST - raw[i]) : 0;
		rf->at[rf->n].ret = raw[i] < KREF_HOST ? 0 : (long)raw[i];
		rf->n++;
	}
	free(raw);
	free(cal);
}

/* ---- the host ---- */

/*
 * Can this kernel take int $0x80 from a 64-bit task, and does seccomp see
 * the high halves of the argument registers then? Probed in a child under
 * a filter returning ERRNO(1 + (high half of args[0] & 0xfff)) for i386.
 */
static void kref_probe_host(struct kref_host *h, const struct kref_stubs *s)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 4000),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xfff),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 1),
		BPF_STMT(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct kref_case c = { .nr = 20, .mode = KREF_I386, .args = { 0x12300000005ull } };
	struct kref_shared *sh;
	char why[160];
	size_t size;
	int status;

	memset(h, 0, sizeof(*h));
	struct kref_refused none = { .n = 0 };

	/* The shared probe first: without the emulation, int $0x80 must not
	 * run in a child that keeps the test runner's fault handlers. */
	if (!test_host_has_ia32(why, sizeof(why))) {
		snprintf(h->i386_why, sizeof(h->i386_why), "%s (%s)", TEST_NO_IA32_REASON, why);
		return;
	}

	sh = kref_shared_new(1, &size);
	if (kref_spawn(f, sizeof(f) / sizeof(f[0]), &c, 0, 1, s, &none, sh, &status)) {
		cr_assert_eq(sh->install_err, 0, "installing the probe: %s",
			     strerror(sh->install_err));
		snprintf(h->i386_why, sizeof(h->i386_why),
			 "int $0x80 killed the child with signal %d: the kernel lacks "
			 "IA32_EMULATION (or runs with ia32_emulation=0)",
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	} else if (sh->raw[0] == -(0x123 + 1)) {
		h->i386 = h->i386_hi_args = true;
	} else if (sh->raw[0] == -1) {
		h->i386 = true;
	} else {
		snprintf(h->i386_why, sizeof(h->i386_why),
			 "int $0x80 under a filter returned %lld", (long long)sh->raw[0]);
	}
	munmap(sh, size);
}

/* ---- inputs: the differential's (tests/cbpf/diff.h), as syscalls ---- */

struct kref_inputs {
	uint64_t vals[KREF_MAX_VALS];
	uint32_t nv;
	uint64_t nrs[KREF_MAX_NRS];
	uint32_t nn;
	uint64_t x32[KREF_MAX_NRS];	/* x32 numbers: nr | 0x40000000 */
	uint32_t nx;
	uint64_t kset[KREF_MAX_VALS];	/* the filter's constants +-1, 32-bit */
	uint32_t nk;
	/* The constants compared with each 32-bit word of seccomp_data
	 * (while A holds that word, maybe masked or shifted). */
	uint64_t kword[sizeof(struct seccomp_data) / 4][KREF_MAX_WORD_K];
	uint32_t nkword[sizeof(struct seccomp_data) / 4];
};

/*
 * The constants the filter compares each word of seccomp_data with: a walk
 * in program order that knows which word A holds from a load until the
 * next load (ALU operations keep it: a mask or a shift is then tested).
 */
static void kref_gen_word_constants(struct kref_inputs *in, const struct cbpf_prog *cp)
{
	uint32_t i, word = 0;	/* the word in A + 1, or 0 */

	for (i = 0; i < cp->len; i++) {
		const struct sock_filter *f = &cp->insns[i];

		if (f->code == (BPF_LD | BPF_W | BPF_ABS))
			word = f->k / 4 + 1;
		else if (BPF_CLASS(f->code) == BPF_LD || f->code == (BPF_MISC | BPF_TXA))
			word = 0;
		else if (word && BPF_CLASS(f->code) == BPF_JMP && BPF_SRC(f->code) == BPF_K &&
			 BPF_OP(f->code) != BPF_JA)
			kref_add(in->kword[word - 1], &in->nkword[word - 1], KREF_MAX_WORD_K, f->k);
	}
}

/* Values: edges, the program's constants +-1 (64- and 32-bit), the
 * filter's constants +-1 as either word; nr: 0..460, every boundary of the
 * filter +-1, the values, odd numbers; the same with the x32 bit. */
static void kref_gen_inputs(struct kref_inputs *in, const struct object_prog *prog,
			    const struct cbpf_prog *cp)
{
	static const uint64_t edge[] = {
		0, 1, 2, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull,
		0xffffffff00000000ull, 0x80000000ffffffffull,
	};
	static const uint32_t odd_nr[] = {
		0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0xffffff9c, 0xc0000000,
		0x3fffffff, 0x40000000 - 2,
	};
	const struct bpf_insn *insns = prog->insns;
	uint32_t i, cnt = prog->insn_cnt;
	int j;

	memset(in, 0, sizeof(*in));
	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		kref_add(in->vals, &in->nv, KREF_MAX_VALS, edge[i]);
	for (i = 0; i < cnt; i++) {
		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) && i + 1 < cnt) {
			uint64_t c = (uint32_t)insns[i].imm |
				     (uint64_t)(uint32_t)insns[i + 1].imm << 32;

			for (j = -1; j <= 1; j++)
				kref_add(in->vals, &in->nv, KREF_MAX_VALS, c + j);
			i++;
			continue;
		}
		for (j = -1; j <= 1; j++) {
			kref_add(in->vals, &in->nv, KREF_MAX_VALS,
				 (uint64_t)(int64_t)insns[i].imm + j);
			kref_add(in->vals, &in->nv, KREF_MAX_VALS, (uint32_t)insns[i].imm + j);
		}
	}
	for (i = 0; i < cp->len; i++) {
		uint8_t cls = BPF_CLASS(cp->insns[i].code);

		if ((cls != BPF_JMP && cls != BPF_ALU && cls != BPF_LD) ||
		    BPF_SRC(cp->insns[i].code) != BPF_K)
			continue;
		for (j = -1; j <= 1; j++) {
			uint32_t c = cp->insns[i].k + j;

			kref_add(in->vals, &in->nv, KREF_MAX_VALS, c);
			kref_add(in->vals, &in->nv, KREF_MAX_VALS, (uint64_t)c << 32);
			kref_add(in->kset, &in->nk, KREF_MAX_VALS, c);
			if (cls == BPF_JMP)
				kref_add(in->nrs, &in->nn, KREF_MAX_NRS, c);
		}
	}
	kref_gen_word_constants(in, cp);
	for (i = 0; i <= 460; i++)
		kref_add(in->nrs, &in->nn, KREF_MAX_NRS, i);
	for (i = 0; i < sizeof(odd_nr) / sizeof(odd_nr[0]); i++)
		kref_add(in->nrs, &in->nn, KREF_MAX_NRS, odd_nr[i]);
	for (i = 0; i < in->nv && in->nn < KREF_MAX_NRS - 100; i++)
		kref_add(in->nrs, &in->nn, KREF_MAX_NRS, (uint32_t)in->vals[i]);
	for (i = 0; i < in->nn; i++)
		if (in->nrs[i] <= 0x1000 || (in->nrs[i] & KREF_X32_BIT))
			kref_add(in->x32, &in->nx, KREF_MAX_NRS, in->nrs[i] | KREF_X32_BIT);
}

/* Does the filter read the instruction pointer? */
static bool kref_reads_ip(const struct cbpf_prog *cp)
{
	uint32_t i;

	for (i = 0; i < cp->len; i++)
		if (cp->insns[i].code == (BPF_LD | BPF_W | BPF_ABS) &&
		    (cp->insns[i].k == offsetof(struct seccomp_data, instruction_pointer) ||
		     cp->insns[i].k == offsetof(struct seccomp_data, instruction_pointer) + 4))
			return true;
	return false;
}

/*
 * Stubs at the instruction pointers the filter's constants make
 * interesting: first those compared with a word of the instruction
 * pointer (A loaded from it, then ALU only, in program order), that word
 * +-1 with the other one fixed; then the values as addresses, then random
 * ones, as many as fit.
 */
static void kref_gen_stubs(struct kref_stubs *s, const struct kref_inputs *in,
			   const struct cbpf_prog *cp, uint64_t *rng)
{
	const uint32_t ip_lo = offsetof(struct seccomp_data, instruction_pointer);
	uint32_t i, word = 0;	/* 0: A is not a word of ip; else its offset + 1 */
	int j;

	for (i = 0; i < cp->len; i++) {
		const struct sock_filter *in = &cp->insns[i];

		if (in->code == (BPF_LD | BPF_W | BPF_ABS))
			word = in->k == ip_lo || in->k == ip_lo + 4 ? in->k + 1 : 0;
		else if (BPF_CLASS(in->code) == BPF_LD || in->code == (BPF_MISC | BPF_TXA))
			word = 0;
		if (!word || BPF_CLASS(in->code) != BPF_JMP || BPF_SRC(in->code) != BPF_K ||
		    BPF_OP(in->code) == BPF_JA)
			continue;
		for (j = -1; j <= 1; j++) {
			uint32_t c = in->k + j;

			if (word == ip_lo + 4 + 1)
				kref_add_stub(s, (uint64_t)c << 32 | 0x10000802);
			else
				kref_add_stub(s, 0x5a5aull << 32 | c);
		}
	}
	for (i = 0; i < in->nv; i++)
		kref_add_stub(s, in->vals[i]);
	for (i = 0; i < 8; i++)
		kref_add_stub(s, kref_rand(rng) & 0x7fffffffffffull);
}

static uint64_t kref_arg(const struct kref_inputs *in, uint64_t *rng)
{
	uint64_t x = kref_rand(rng);

	return (x & 3) ? in->vals[(x >> 8) % in->nv] : kref_rand(rng);
}

/* per cases for each nr of mode; the first with zero args at stub 0. */
static uint32_t kref_gen_cases(struct kref_case *out, uint32_t at, uint32_t cap,
			       const uint64_t *nrs, uint32_t nn, enum kref_mode mode,
			       uint32_t per, const struct kref_inputs *in,
			       const struct kref_stubs *s, bool vary_ip, uint64_t *rng)
{
	uint32_t i, t, k;

	for (i = 0; i < nn; i++)
		for (t = 0; t < per && at < cap; t++) {
			struct kref_case *c = &out[at++];

			memset(c, 0, sizeof(*c));
			c->nr = (uint32_t)nrs[i];
			c->mode = mode;
			if (t == 0)
				continue;
			for (k = 0; k < 6; k++) {
				c->args[k] = kref_arg(in, rng);
				/* i386 takes 32-bit args; some keep a high half */
				if (mode == KREF_I386 && (kref_rand(rng) & 7))
					c->args[k] = (uint32_t)c->args[k];
			}
			if (vary_ip)
				c->stub = (uint8_t)(kref_rand(rng) % s->n);
		}
	return at;
}

/* The seccomp_data the kernel builds for a case. */
static void kref_seccomp_data(const struct kref_case *c, const struct kref_stubs *s,
			      const struct kref_host *h, struct seccomp_data *sd)
{
	unsigned k;

	memset(sd, 0, sizeof(*sd));
	sd->nr = (int)c->nr;
	sd->arch = c->mode == KREF_I386 ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64;
	sd->instruction_pointer = s->stub[c->stub].ip;
	for (k = 0; k < 6; k++)
		sd->args[k] = c->mode == KREF_I386 && !h->i386_hi_args ? (uint32_t)c->args[k] :
									c->args[k];
}

/* Which RET instructions of a filter some case reaches. */
struct kref_cover {
	struct sock_filter probe[CBPF_MAX_INSNS];	/* RET i + 1 for the i-th RET */
	uint32_t len, nrets, reached;
	bool hit[CBPF_MAX_INSNS + 1];	/* [0]: a division by zero */
};

/* Everything one run of the test keeps. */
struct kref_ctx {
	struct kref_host host;
	struct kref_stubs stubs;	/* stub 0 is the default one */
	struct kref_totals tot;
	struct kref_refused refused;
	struct kref_inputs in;
	struct sock_filter rewritten[CBPF_MAX_INSNS + 8];
	struct kref_cover cover;
	struct cbpf_guard_target guard[64];	/* where the listener guard looks */
	size_t nguard;
};

/* ---- covering every RET ---- */


static void kref_cover_init(struct kref_cover *cv, const struct cbpf_prog *cp)
{
	uint32_t pc;

	memset(cv->hit, 0, sizeof(cv->hit));
	cv->len = cp->len;
	cv->nrets = cv->reached = 0;
	for (pc = 0; pc < cp->len; pc++) {
		cv->probe[pc] = cp->insns[pc];
		if (BPF_CLASS(cp->insns[pc].code) == BPF_RET)
			cv->probe[pc] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ++cv->nrets);
	}
}

/* Note the RET sd reaches; true if no case reached it before. */
static bool kref_cover_note(struct kref_cover *cv, const struct seccomp_data *sd)
{
	uint32_t r = cbpf_sim_run(cv->probe, cv->len, sd);

	if (r > cv->nrets || cv->hit[r])
		return false;
	cv->hit[r] = true;
	if (r)
		cv->reached++;
	return true;
}

/* Word w of seccomp_data as the filter might want it: mostly one of the
 * constants it compares w with (+-1), else any constant of the filter, 0 or
 * all ones. */
static uint32_t kref_word(const struct kref_inputs *in, unsigned w, uint64_t *rng)
{
	uint64_t x = kref_rand(rng);

	if (in->nkword[w] && (x & 3))
		return (uint32_t)in->kword[w][(x >> 8) % in->nkword[w]] +
		       ((x & 0x30) == 0 ? ((x & 0x40) ? 1 : -1) : 0);
	if (in->nk == 0 || (x & 0xc) == 0)
		return (x & 0x80) ? 0xffffffff : 0;
	return in->kset[(x >> 8) % in->nk];
}

/*
 * A case built from the filter's own constants, to reach the RETs that the
 * spread of kref_gen_cases missed (an argument rule under an nr, the
 * listener guard's seccomp(SET_MODE_FILTER, NEW_LISTENER)).
 */
static void kref_directed_case(struct kref_case *c, const struct kref_ctx *x, bool vary_ip,
			       uint64_t *rng)
{
	const struct kref_inputs *in = &x->in;
	uint64_t r = kref_rand(rng);
	unsigned k;

	memset(c, 0, sizeof(*c));
	c->mode = x->host.i386 && r % 3 == 0 ? KREF_I386 : KREF_NATIVE;
	c->nr = (r & 8) ? kref_word(in, 0, rng) : (uint32_t)in->nrs[(r >> 8) % in->nn];
	if (c->mode == KREF_NATIVE && (r & 0x30) == 0)
		c->nr |= KREF_X32_BIT;
	for (k = 0; k < 6; k++) {
		unsigned w = offsetof(struct seccomp_data, args[k]) / 4;
		uint64_t hi = (kref_rand(rng) & 3) ? 0 : kref_word(in, w + 1, rng);

		c->args[k] = (r >> (16 + k)) & 1 ? hi << 32 | kref_word(in, w, rng) : 0;
	}
	if (vary_ip)
		c->stub = (uint8_t)(kref_rand(rng) % x->stubs.n);
}

/*
 * Note the RETs cases[0, n) reach, then try up to KREF_SEARCH directed
 * cases in the simulator and append (up to cap) each one that reaches a
 * RET none reached before. Returns the new number of cases.
 */
static uint32_t kref_cover_cases(struct kref_ctx *x, struct kref_cover *cv, struct kref_case *cases,
				 uint32_t n, uint32_t cap, bool vary_ip, uint64_t *rng)
{
	struct seccomp_data sd;
	uint32_t i;

	for (i = 0; i < n; i++) {
		kref_seccomp_data(&cases[i], &x->stubs, &x->host, &sd);
		kref_cover_note(cv, &sd);
	}
	for (i = 0; i < KREF_SEARCH && n < cap && cv->reached < cv->nrets; i++) {
		kref_directed_case(&cases[n], x, vary_ip, rng);
		kref_seccomp_data(&cases[n], &x->stubs, &x->host, &sd);
		if (kref_cover_note(cv, &sd))
			n++;
	}
	return n;
}

/* ---- one program ---- */


static void kref_report(struct kref_ctx *x, const char *label, const struct kref_case *c,
			const struct seccomp_data *sd, const char *what, uint32_t kernel,
			uint32_t other, const char *why)
{
	x->tot.mismatches++;
	if (x->tot.reported++ >= 10)
		return;
	cr_log_error("%s: %s nr 0x%x ip 0x%llx args 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx "
		     "0x%llx: kernel 0x%x, %s 0x%x%s%s", label,
		     c->mode == KREF_I386 ? "i386" : "x86_64", (unsigned)sd->nr,
		     (unsigned long long)sd->instruction_pointer,
		     (unsigned long long)sd->args[0], (unsigned long long)sd->args[1],
		     (unsigned long long)sd->args[2], (unsigned long long)sd->args[3],
		     (unsigned long long)sd->args[4], (unsigned long long)sd->args[5], kernel,
		     what, other, why ? ": " : "", why ? why : "");
}

/* The distinct values a program returned, for the log (at most 64). */
struct kref_answers {
	uint32_t v[64];
	uint32_t n;
};

static void kref_note_answer(struct kref_answers *a, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < a->n; i++)
		if (a->v[i] == v)
			return;
	if (a->n < 64)
		a->v[a->n++] = v;
}

/*
 * The value the kernel's filter returned for case i, from the raw result
 * of every pass: a RET k's value, or A put together from the 11-bit
 * pieces each pass read. False if a result does not decode, or the passes
 * disagree on which RET it was.
 */
static bool kref_kernel_answer(const struct kref_rets *rets, int64_t *const *raw,
			       uint32_t passes, uint32_t i, uint32_t *kernel)
{
	uint32_t p, v;
	bool is_a, via_a = false;

	*kernel = 0;
	for (p = 0; p < passes; p++) {
		if (!kref_decode(rets, raw[p][i], &v, &is_a))
			return false;
		if (p == 0)
			via_a = is_a;
		else if (is_a != via_a)
			return false;
		if (is_a)
			*kernel |= v << (KREF_RET_A_BITS * p);
		else
			*kernel = v;
	}
	return true;
}

/*
 * The listener guard's contract (cbpf.h, docs/design.md §1): on every
 * guard target, seccomp(SECCOMP_SET_MODE_FILTER, flags with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER) is denied with EPERM whatever the
 * program says; op and flags are unsigned int, so only the low words count.
 */
static bool kref_guard_denies(const struct kref_ctx *x, const struct seccomp_data *sd)
{
	size_t i;

	if ((uint32_t)sd->args[0] != SECCOMP_SET_MODE_FILTER ||
	    !((uint32_t)sd->args[1] & SECCOMP_FILTER_FLAG_NEW_LISTENER))
		return false;
	for (i = 0; i < x->nguard; i++)
		if (x->guard[i].arch == sd->arch && x->guard[i].nr == (uint32_t)sd->nr)
			return true;
	return false;
}

/*
 * Compare the kernel's answer for c with cbpf_sim_run() on the original
 * filter and with the interpreter (or, where the listener guard answers,
 * with its EPERM), reporting any difference. The interpreter is not asked
 * where the filter leaves the call to the supervisor (it may need state);
 * returns 1 then, else 0.
 */
static uint32_t kref_compare(struct kref_ctx *x, const char *label, const struct kref_case *c,
			     const struct cbpf_prog *cp, bool guarded, struct runtime *rt,
			     bool decoded, uint32_t kernel, int64_t raw)
{
	struct secbpf_err err = { { 0 } };
	struct seccomp_data sd;
	uint32_t sim, want = 0;
	int rc;

	kref_seccomp_data(c, &x->stubs, &x->host, &sd);
	sim = cbpf_sim_run(cp->insns, cp->len, &sd);
	if (!decoded) {
		kref_report(x, label, c, &sd, "simulator", (uint32_t)raw, sim,
			    "the kernel's answer does not decode");
		return 0;
	}
	if (kernel != sim) {
		kref_report(x, label, c, &sd, "simulator", kernel, sim, NULL);
		return 0;
	}
	if (guarded && kref_guard_denies(x, &sd)) {
		x->tot.guard_cases++;
		if (kernel != (SECCOMP_RET_ERRNO | EPERM))
			kref_report(x, label, c, &sd, "listener guard", kernel,
				    SECCOMP_RET_ERRNO | EPERM, NULL);
		return 0;
	}
	if (sim == SECCOMP_RET_USER_NOTIF && cp->needs_supervisor)
		return 1;
	rc = runtime_run(rt, &sd, &want, &err);
	if (rc || want != kernel)
		kref_report(x, label, c, &sd, "interpreter", kernel, want, rc ? err.msg : NULL);
	return 0;
}

/*
 * Compile prog as the supervisor would install it (with the listener guard
 * when it needs the supervisor), run its rewritten filter in the kernel on
 * the generated cases and compare every answer with cbpf_sim_run() and the
 * interpreter. mutate >= 0 flips that conditional jump in the kernel's copy
 * only (the harness must then report mismatches).
 */
static void kref_program(struct kref_ctx *x, const char *label, struct object *obj,
			 struct object_prog *prog, int mutate)
{
	struct cbpf_compile_opts opts = { .sz = sizeof(opts) };
	struct secbpf_err err = { { 0 } };
	struct kref_case *cases;
	struct kref_rets rets = { .n = 0 };
	struct cbpf_prog cp;
	struct runtime *rt;
	uint64_t rng = 0x6b726566ull ^ prog->insn_cnt;
	uint32_t n = 0, per, i, p, passes, kills = 0, notif = 0, host = 0;
	struct kref_answers answers = { .n = 0 };
	uint64_t mismatches_before = x->tot.mismatches;
	int64_t *raw[KREF_PASSES_RET_A];
	bool vary_ip;

	cr_assert_eq(cbpf_compile(obj, prog, &opts, &cp, &err), 0, "%s: %s", label, err.msg);
	if (cp.needs_supervisor) {
		cbpf_prog_free(&cp);
		opts.listener_guard = true;
		cr_assert_eq(cbpf_compile(obj, prog, &opts, &cp, &err), 0, "%s: %s", label,
			     err.msg);
	}
	rt = runtime_new(obj, prog, &err);
	cr_assert(rt != NULL, "%s: %s", label, err.msg);

	kref_gen_inputs(&x->in, prog, &cp);
	vary_ip = kref_reads_ip(&cp);
	if (vary_ip)
		kref_gen_stubs(&x->stubs, &x->in, &cp, &rng);
	per = KREF_CASES / (x->in.nn + x->in.nx + (x->host.i386 ? x->in.nn : 0));
	per = per < 2 ? 2 : per;
	cases = calloc(KREF_CASES + CBPF_MAX_INSNS, sizeof(*cases));
	cr_assert(cases);
	n = kref_gen_cases(cases, n, KREF_CASES, x->in.nrs, x->in.nn, KREF_NATIVE, per, &x->in,
			   &x->stubs, vary_ip, &rng);
	n = kref_gen_cases(cases, n, KREF_CASES, x->in.x32, x->in.nx, KREF_NATIVE, per, &x->in,
			   &x->stubs, vary_ip, &rng);
	if (x->host.i386)
		n = kref_gen_cases(cases, n, KREF_CASES, x->in.nrs, x->in.nn, KREF_I386, per,
				   &x->in, &x->stubs, vary_ip, &rng);

	kref_cover_init(&x->cover, &cp);
	n = kref_cover_cases(x, &x->cover, cases, n, KREF_CASES + CBPF_MAX_INSNS, vary_ip, &rng);
	kref_calibrate(cases, n, &x->stubs, &x->refused);
	/* the kernel: one child per pass, three passes to read a RET A */
	kref_rewrite(cp.insns, cp.len, 0, &rets, x->rewritten);
	passes = rets.ret_a ? KREF_PASSES_RET_A : 1;
	for (p = 0; p < passes; p++) {
		uint32_t len = kref_rewrite(cp.insns, cp.len, p, &rets, x->rewritten);

		if (mutate >= 0) {
			struct sock_filter *j = &x->rewritten[mutate];
			uint8_t t = j->jt;

			cr_assert(BPF_CLASS(j->code) == BPF_JMP && BPF_OP(j->code) != BPF_JA);
			j->jt = j->jf;
			j->jf = t;
		}
		raw[p] = malloc((size_t)n * sizeof(int64_t));
		cr_assert(raw[p]);
		kills += kref_kernel_run(x->rewritten, len, cases, n, &x->stubs, &x->refused,
					 false, raw[p]);
	}

	for (i = 0; i < n; i++) {
		uint32_t kernel;
		bool decoded;

		if (raw[0][i] == KREF_HOST) {
			host++;
			continue;
		}
		decoded = kref_kernel_answer(&rets, raw, passes, i, &kernel);
		if (decoded)
			kref_note_answer(&answers, kernel);
		notif += kref_compare(x, label, &cases[i], &cp, opts.listener_guard, rt, decoded,
				      kernel, raw[0][i]);
	}
	cr_log_info("%s: %u insns%s, %u cases, %llu mismatches, %u of %u RETs reached, %u "
		    "distinct answers, %u ips, %u passes, %u kills, %u notif, %u refused by the host",
		    label, cp.len, cp.needs_supervisor ? " (guarded)" : "", n,
		    (unsigned long long)(x->tot.mismatches - mismatches_before), x->cover.reached,
		    x->cover.nrets, answers.n, x->stubs.n, passes, kills, notif, host);
	x->tot.rets += x->cover.nrets;
	x->tot.rets_reached += x->cover.reached;
	x->tot.programs++;
	x->tot.cases += n - host;
	x->tot.kernel_runs += (uint64_t)(n - host) * passes;
	x->tot.notif_cases += notif;
	x->tot.killed += kills;
	x->tot.host_refused += host;

	/* back to the default stub only */
	while (x->stubs.npages > 1) {
		munmap(x->stubs.page[--x->stubs.npages], 4096);
	}
	x->stubs.n = 1;
	for (p = 0; p < passes; p++)
		free(raw[p]);
	free(cases);
	runtime_free(rt);
	cbpf_prog_free(&cp);
}

/* ---- the programs ---- */

static const char *kref_env(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v && *v ? v : fallback;
}

/* The object of dir/NAME.bpf.c: the one meson built (built/NAME.bpf.o),
 * else compiled here with the flags `secbpf cc` uses. */
static struct object *kref_open(const char *dir, const char *name, const char *built)
{
	struct secbpf_err err = { { 0 } };
	char path[1024], tmp[] = "/tmp/secbpf-kref-XXXXXX", cmd[3072];
	const char *src = kref_env("SECBPF_SOURCE_DIR", ".");
	struct object *obj;

	snprintf(path, sizeof(path), "%s.bpf.o", built);
	if (access(path, R_OK) == 0) {
		obj = object_open_file(path, &err);
		cr_assert(obj, "%s: %s", path, err.msg);
		return obj;
	}
	cr_assert(mkdtemp(tmp) != NULL);
	snprintf(path, sizeof(path), "%s/prog.o", tmp);
	snprintf(cmd, sizeof(cmd),
		 "clang -O2 -g -target bpf -D__x86_64__ -I/usr/include/x86_64-linux-gnu "
		 "-I'%s/include' -c '%s/%s/%s.bpf.c' -o '%s'", src, src, dir, name, path);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	obj = object_open_file(path, &err);
	cr_assert(obj, "%s/%s: %s", dir, name, err.msg);
	unlink(path);
	rmdir(tmp);
	return obj;
}

static int kref_cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The NAMEs of dir/NAME.bpf.c under the source tree, sorted; at most max. */
static size_t kref_list(const char *dir, char names[][128], size_t max)
{
	char path[1024];
	char *sorted[64];
	char tmp[64][128];
	struct dirent *de;
	size_t n = 0, i;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", kref_env("SECBPF_SOURCE_DIR", "."), dir);
	d = opendir(path);
	cr_assert(d, "%s: %s", path, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);

		if (l <= 6 || l >= 128 || strcmp(de->d_name + l - 6, ".bpf.c") != 0)
			continue;
		cr_assert_lt(n, max < 64 ? max : 64);
		memcpy(tmp[n], de->d_name, l - 6);
		tmp[n][l - 6] = '\0';
		sorted[n] = tmp[n];
		n++;
	}
	closedir(d);
	qsort(sorted, n, sizeof(sorted[0]), kref_cmp_names);
	for (i = 0; i < n; i++)
		snprintf(names[i], 128, "%s", sorted[i]);
	return n;
}

static void kref_setup(struct kref_ctx *x)
{
	memset(x, 0, sizeof(*x));
	kref_default_stub(&x->stubs);
	x->nguard = cbpf_guard_targets(x->guard, 64);
	kref_probe_host(&x->host, &x->stubs);
	if (!x->host.i386)
		cr_log_info("kernel-reference: i386 skipped: %s", x->host.i386_why);
}

Test(cbpf_kernel, every_program_against_the_kernel, .timeout = 600)
{
	static const struct {
		const char *dir, *prefix;
	} where[] = {
		{ "tests/cbpf", "tests/cbpf_" },
		{ "samples", "samples/" },
	};
	static struct kref_ctx x;
	char names[64][128], built[1024], label[300];
	const char *build = kref_env("SECBPF_BUILD_DIR", ".");
	size_t w, i, n;
	uint32_t j;

	kref_setup(&x);
	for (w = 0; w < sizeof(where) / sizeof(where[0]); w++) {
		n = kref_list(where[w].dir, names, 64);
		cr_assert_gt(n, 0, "no programs in %s", where[w].dir);
		for (i = 0; i < n; i++) {
			struct object *obj;

			snprintf(built, sizeof(built), "%s/%s%s", build, where[w].prefix, names[i]);
			obj = kref_open(where[w].dir, names[i], built);
			for (j = 0; j < obj->prog_cnt; j++) {
				snprintf(label, sizeof(label), "%s/%s:%s", where[w].dir, names[i],
					 obj->progs[j].name);
				kref_program(&x, label, obj, &obj->progs[j], -1);
			}
			object_free(obj);
		}
	}
	kref_free_stubs(&x.stubs);
	printf("kernel-reference: %llu programs, %llu cases, %llu mismatches (%llu of %llu RETs "
	       "reached; %llu kernel runs; %llu answered by the listener guard; interpreter "
	       "skipped on %llu USER_NOTIF cases; %llu filter kills; %llu cases not issued: "
	       "the host refuses them)\n",
	       (unsigned long long)x.tot.programs, (unsigned long long)x.tot.cases,
	       (unsigned long long)x.tot.mismatches, (unsigned long long)x.tot.rets_reached,
	       (unsigned long long)x.tot.rets, (unsigned long long)x.tot.kernel_runs,
	       (unsigned long long)x.tot.guard_cases, (unsigned long long)x.tot.notif_cases, (unsigned long long)x.tot.killed,
	       (unsigned long long)x.tot.host_refused);
	for (j = 0; j < x.refused.n; j++) {
		const char *mode = x.refused.at[j].mode == KREF_I386 ? "i386" : "x86_64";

		if (x.refused.at[j].sig)
			printf("kernel-reference: the host raises signal %d for %s nr 0x%x "
			       "whatever the filter: not issued\n", x.refused.at[j].sig, mode,
			       x.refused.at[j].nr);
		else
			printf("kernel-reference: the host returns %ld for %s nr 0x%x whatever "
			       "the filter: not issued\n", x.refused.at[j].ret, mode,
			       x.refused.at[j].nr);
	}
	if (!x.host.i386)
		printf("kernel-reference: i386 skipped: %s\n", x.host.i386_why);
	fflush(stdout);
	cr_expect_eq(x.tot.mismatches, 0, "%llu mismatches",
		     (unsigned long long)x.tot.mismatches);
	cr_expect_gt(x.tot.cases, 300000);
}

/*
 * The harness itself: the kernel gets a copy of a filter with one jump's
 * targets swapped, the simulator and the interpreter the real one; the
 * disagreement must show.
 */
Test(cbpf_kernel, a_flipped_jump_is_caught, .timeout = 300)
{
	static struct kref_ctx x;
	struct cbpf_compile_opts opts = { .sz = sizeof(opts) };
	struct secbpf_err err = { { 0 } };
	char built[1024];
	struct object *obj;
	struct cbpf_prog cp;
	uint32_t i, at = 0;

	kref_setup(&x);
	snprintf(built, sizeof(built), "%s/tests/cbpf_docker_args",
		 kref_env("SECBPF_BUILD_DIR", "."));
	obj = kref_open("tests/cbpf", "docker_args", built);
	cr_assert_eq(obj->prog_cnt, 1);
	cr_assert_eq(cbpf_compile(obj, &obj->progs[0], &opts, &cp, &err), 0, "%s", err.msg);
	/* a jump in the argument rules, past the nr dispatch */
	for (i = cp.len / 2; i < cp.len && !at; i++)
		if (BPF_CLASS(cp.insns[i].code) == BPF_JMP && BPF_OP(cp.insns[i].code) != BPF_JA &&
		    cp.insns[i].jt != cp.insns[i].jf)
			at = i;
	cbpf_prog_free(&cp);
	cr_assert_neq(at, 0);
	x.tot.reported = 10;	/* quiet: mismatches are expected */
	kref_program(&x, "docker_args (mutant)", obj, &obj->progs[0], (int)at);
	object_free(obj);
	kref_free_stubs(&x.stubs);
	cr_log_info("kernel-reference mutant: jump at %u flipped, %llu mismatches", at,
		    (unsigned long long)x.tot.mismatches);
	cr_expect_gt(x.tot.mismatches, 0, "a flipped jump at %u went unnoticed", at);
}

#else

Test(cbpf_kernel, x86_64_only)
{
	cr_skip_test("the kernel-reference test issues x86_64 syscalls");
}

#endif /* __x86_64__ */

/*
 * The i386 half of the harness: where the kernel runs i386 code, the host
 * probe must find it, so that every program above is also checked through
 * int $0x80. Without the emulation it is a skip by that name (the i386
 * decisions are then checked by the simulator only: test_bypass.c).
 */
Test(cbpf_kernel, i386_cases_are_issued_where_the_kernel_runs_them)
{
	struct kref_stubs stubs;
	struct kref_host host;

	test_require_ia32();
	kref_default_stub(&stubs);
	kref_probe_host(&host, &stubs);
	kref_free_stubs(&stubs);
	cr_expect(host.i386, "the harness would leave i386 out: %s", host.i386_why);
}
