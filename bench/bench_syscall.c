// SPDX-License-Identifier: MIT
/*
 * What a filter costs per syscall, side by side in one run: no filter, a
 * one-instruction RET ALLOW filter (the floor), the seed sample and the
 * Docker-like sample compiled by secbpf, and the same
 * Docker-like policy built with libseccomp (linear, and as a binary tree
 * with SCMP_FLTATR_CTL_OPTIMIZE=2). Also the filters' sizes, how many
 * syscalls each puts in the kernel's constant-allow cache, and a check by
 * simulation that the secbpf and libseccomp filters decide alike.
 *
 * usage: bench_syscall SEED.bpf.o DOCKER_LIKE.bpf.o [-n ITERS] [-r REPS] [-c CPU] [-F]
 * Method and figures: bench/README.md.
 */
#include <errno.h>
#include <linux/audit.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "install/attach.h"
#include "cbpf/cbpf.h"
#include "object/object.h"
#include "policies/docker_like.h"
#include "bench_stats.h"

#if !defined(__x86_64__)
#error "bench_syscall measures the x86_64 Docker-like policy"
#endif

/* The kernel keeps a constant-allow bitmap for the native arch's numbers
 * below SECCOMP_ARCH_NATIVE_NR (x86_64's __NR_syscalls); 512 covers it. */
#define CACHE_NR_LIMIT 512

/* A filter as installed: its name and its cBPF (malloc'ed). */
struct filter {
	const char *name;
	struct sock_filter *insns;
	size_t len;
};

enum { CFG_NONE, CFG_FLOOR, CFG_SEED, CFG_SECBPF, CFG_LSC, CFG_LSC_TREE, CFG_COUNT };

/* The syscalls timed, each one call of the loop. */
struct probe {
	const char *name;
	const char *what; /* what the Docker-like policy does with it */
	long nr, a0, a1, a2;
};

static const struct probe probes[] = {
	{ "getpid()", "allowed, cached", __NR_getpid, 0, 0, 0 },
	{ "read(-1, 0, 0)", "allowed, last in libseccomp's linear order", __NR_read, -1, 0, 0 },
	{ "personality(0xffffffff)", "argument rule, allowed", __NR_personality, 0xffffffff, 0, 0 },
	{ "close(999)", "allowed (the seed sample: argument rule, denied)", __NR_close, 999, 0, 0 },
	{ "unshare(0)", "denied, ERRNO(EPERM)", __NR_unshare, 0, 0, 0 },
};
#define NPROBES (sizeof(probes) / sizeof(probes[0]))

static const char *const cfg_names[CFG_COUNT] = {
	"no filter",
	"RET ALLOW (the floor)",
	"seed (secbpf)",
	"docker-like (secbpf)",
	"docker-like (libseccomp)",
	"docker-like (libseccomp tree)",
};

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_syscall: %s: %s\n", what, why);
	exit(1);
}

/* The syscall instruction itself: no libc wrapper, no errno store. */
static inline long raw_syscall3(long nr, long a0, long a1, long a2)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a0), "S"(a1), "d"(a2)
			 : "rcx", "r11", "memory");
	return ret;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no syscall, no filter */
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Compile the one program of the object at path with secbpf. */
static struct filter secbpf_filter(const char *name, const char *path)
{
	struct cbpf_compile_opts opts = { .sz = sizeof(opts) };
	struct secbpf_err err = { { 0 } };
	struct cbpf_prog prog = { 0 };
	struct object_prog *p;
	struct object *obj;
	struct filter f = { .name = name };

	obj = object_open_file(path, &err);
	if (!obj)
		die(path, err.msg);
	p = object_find_prog(obj, NULL, &err);
	if (!p)
		die(path, err.msg);
	if (cbpf_compile(obj, p, &opts, &prog, &err))
		die(path, err.msg);
	if (prog.needs_supervisor)
		die(path, "the compiled filter needs the supervisor; this benchmark times "
			  "in-kernel filters only");
	f.insns = prog.insns; /* ownership moves to f */
	f.len = prog.len;
	prog.insns = NULL;
	cbpf_prog_free(&prog);
	object_free(obj);
	return f;
}

/* The Docker-like policy built with libseccomp and exported as cBPF. */
static struct filter libseccomp_filter(const char *name, int optimize)
{
	struct filter f = { .name = name };
	int rc = docker_like_libseccomp_filter(optimize, &f.insns, &f.len);

	if (rc)
		die(name, strerror(-rc));
	return f;
}

/* The kernel's seccomp_is_const_allow() for nr on the native arch. */
static int const_allow(const struct filter *f, uint32_t nr)
{
	return cbpf_sim_const_allow(f->insns, f->len, AUDIT_ARCH_X86_64, nr);
}

static unsigned cached_count(const struct filter *f)
{
	unsigned n = 0;
	uint32_t nr;

	for (nr = 0; nr < CACHE_NR_LIMIT; nr++)
		n += const_allow(f, nr);
	return n;
}

/* How many instructions the kernel executes for sd (cbpf_sim_exec()). */
static unsigned path_length(const struct filter *f, const struct seccomp_data *sd)
{
	struct cbpf_sim_state st;

	cbpf_sim_exec(f->insns, f->len, sd, &st);
	return st.steps;
}

/* --- Equivalence by simulation ------------------------------------------ */

struct equiv {
	const struct filter *ref, *f;
	unsigned inputs, mismatches;
};

static void equiv_one(const struct seccomp_data *sd, void *arg)
{
	struct equiv *e = arg;
	uint32_t want, got;

	want = cbpf_sim_run(e->ref->insns, e->ref->len, sd);
	got = cbpf_sim_run(e->f->insns, e->f->len, sd);
	e->inputs++;
	if (want == got)
		return;
	if (e->mismatches++ < 10)
		fprintf(stderr,
			"  mismatch: arch %#x nr %d args %#llx %#llx %#llx: %s %#x, %s %#x\n",
			sd->arch, sd->nr, (unsigned long long)sd->args[0],
			(unsigned long long)sd->args[1], (unsigned long long)sd->args[2],
			e->ref->name, want, e->f->name, got);
}

/* Compare f with ref on the policy's inputs (docker_like_inputs; the same
 * check, and a real one in the kernel, is tests/test_libseccomp_equiv.c). */
static struct equiv compare_filters(const struct filter *ref, const struct filter *f)
{
	struct equiv e = { .ref = ref, .f = f };

	docker_like_inputs(equiv_one, &e);
	return e;
}

/* --- Timing --------------------------------------------------------------- */

struct sample {
	double ns[NPROBES];
	long ret[NPROBES]; /* what the last call returned */
};

/* Measure at SCHED_FIFO priority 1 (-F: off): other tasks on the CPU
 * cannot preempt a timing, only interrupts can. */
static int use_fifo = 1;

/* In a child: install f (if any) and time every probe, iters calls each. */
static void measure_child(const struct filter *f, long iters, int out_fd)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct secbpf_err err = { { 0 } };
	struct sample s;
	size_t p;
	long i;

	if (use_fifo && sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler(SCHED_FIFO) (run as root, or pass -F)", strerror(errno));
	if (f) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			die("prctl(PR_SET_NO_NEW_PRIVS)", strerror(errno));
		if (attach_cbpf(f->insns, f->len, 0, &err) < 0)
			die(f->name, err.msg);
	}
	for (p = 0; p < NPROBES; p++) {
		const struct probe *q = &probes[p];
		double t0, t1;

		for (i = 0; i < iters / 10 + 1000; i++) /* warm up */
			raw_syscall3(q->nr, q->a0, q->a1, q->a2);
		t0 = now_ns();
		for (i = 0; i < iters; i++)
			raw_syscall3(q->nr, q->a0, q->a1, q->a2);
		t1 = now_ns();
		s.ns[p] = (t1 - t0) / (double)iters;
		s.ret[p] = raw_syscall3(q->nr, q->a0, q->a1, q->a2);
	}
	if (write(out_fd, &s, sizeof(s)) != sizeof(s))
		_exit(1);
	_exit(0);
}

static struct sample measure(const struct filter *f, long iters)
{
	struct sample s;
	int fds[2], st;
	pid_t pid;

	if (pipe(fds))
		die("pipe", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		measure_child(f, iters, fds[1]);
	}
	close(fds[1]);
	if (read(fds[0], &s, sizeof(s)) != sizeof(s))
		die(f ? f->name : "no filter", "the measuring child failed");
	close(fds[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die(f ? f->name : "no filter", "the measuring child failed");
	return s;
}

static const char *ret_name(long r)
{
	static char buf[32];

	if (r >= 0)
		return "ok";
	switch (-r) {
	case EPERM:
		return "EPERM";
	case EBADF:
		return "EBADF";
	case EINVAL:
		return "EINVAL";
	default:
		snprintf(buf, sizeof(buf), "errno %ld", -r);
		return buf;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_syscall SEED.bpf.o DOCKER_LIKE.bpf.o [-n ITERS] [-r REPS] "
			"[-c CPU] [-F]\n"
			"  -n ITERS  calls per timing (default 20000)\n"
			"  -r REPS   rounds; the median is reported (default 31, at most 101)\n"
			"  -c CPU    the CPU to pin to (default: the last one allowed)\n"
			"  -F        do not raise the measuring children to SCHED_FIFO\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct filter filters[CFG_COUNT] = { { 0 } };
	const struct filter *installed[CFG_COUNT];
	long iters = 20000;
	int reps = 31, cpu = -1, opt, r, c;
	const char *seed_path, *docker_path;
	static double ns[CFG_COUNT][NPROBES][101];
	long rets[CFG_COUNT][NPROBES];
	double med[CFG_COUNT][NPROBES], delta[CFG_COUNT][NPROBES], ratio[CFG_COUNT][NPROBES];
	struct equiv e_lin, e_tree;
	cpu_set_t set;
	size_t p;

	while ((opt = getopt(argc, argv, "n:r:c:Fh")) != -1) {
		switch (opt) {
		case 'F':
			use_fifo = 0;
			break;
		case 'n':
			iters = atol(optarg);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2 || iters <= 0 || reps <= 0 || reps > 101)
		usage();
	seed_path = argv[optind];
	docker_path = argv[optind + 1];

	/* The cheapest filter there is: what any filter costs (seccomp's
	 * syscall entry work and the cache lookup). */
	filters[CFG_FLOOR].name = "RET ALLOW (the floor)";
	filters[CFG_FLOOR].len = 1;
	filters[CFG_FLOOR].insns = calloc(1, sizeof(struct sock_filter));
	if (!filters[CFG_FLOOR].insns)
		die("calloc", strerror(errno));
	filters[CFG_FLOOR].insns[0] =
		(struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	filters[CFG_SEED] = secbpf_filter("seed (secbpf)", seed_path);
	filters[CFG_SECBPF] = secbpf_filter("docker-like (secbpf)", docker_path);
	filters[CFG_LSC] = libseccomp_filter("docker-like (libseccomp)", 0);
	filters[CFG_LSC_TREE] = libseccomp_filter("docker-like (libseccomp tree)", 2);
	for (c = 0; c < CFG_COUNT; c++)
		installed[c] = c == CFG_NONE ? NULL : &filters[c];
	for (c = 1; c < CFG_COUNT; c++) {
		struct secbpf_err err = { { 0 } };

		if (cbpf_check(filters[c].insns, filters[c].len, &err))
			die(filters[c].name, err.msg);
	}

	/* Same policy? Simulate both on the same inputs. */
	e_lin = compare_filters(&filters[CFG_SECBPF], &filters[CFG_LSC]);
	e_tree = compare_filters(&filters[CFG_SECBPF], &filters[CFG_LSC_TREE]);
	printf("equivalence (cbpf_sim_run, secbpf vs libseccomp): %u inputs, "
	       "%u mismatches (linear), %u mismatches (tree)\n\n",
	       e_lin.inputs, e_lin.mismatches, e_tree.mismatches);

	printf("%-30s %8s %16s\n", "filter", "insns", "cached allows");
	for (c = 1; c < CFG_COUNT; c++)
		printf("%-30s %8zu %16u\n", filters[c].name, filters[c].len,
		       cached_count(&filters[c]));
	printf("(cached allows: numbers 0..%d the kernel's constant-allow bitmap takes)\n\n",
	       CACHE_NR_LIMIT - 1);

	/* One CPU, then rounds: each round times every configuration once in
	 * a fresh child, so drifts (frequency, noise) spread over all. */
	if (cpu < 0) {
		if (sched_getaffinity(0, sizeof(set), &set))
			die("sched_getaffinity", strerror(errno));
		for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &set); cpu--)
			;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity", strerror(errno));
	printf("CPU %d%s, %ld calls per timing, median of %d rounds\n\n", cpu,
	       use_fifo ? " at SCHED_FIFO" : "", iters, reps);
	for (r = 0; r < reps; r++) {
		for (c = 0; c < CFG_COUNT; c++) {
			struct sample s = measure(installed[c], iters);

			for (p = 0; p < NPROBES; p++) {
				ns[c][p][r] = s.ns[p];
				rets[c][p] = s.ret[p];
			}
		}
	}
	/* Per cell: the median time, and the medians over rounds of the
	 * difference and the ratio to no filter in the same round (paired:
	 * less noisy than comparing medians). Also the instructions the
	 * filter executes for that call. */
	for (c = 0; c < CFG_COUNT; c++) {
		for (p = 0; p < NPROBES; p++) {
			double d[101], q[101];

			for (r = 0; r < reps; r++) {
				d[r] = ns[c][p][r] - ns[CFG_NONE][p][r];
				q[r] = ns[c][p][r] / ns[CFG_NONE][p][r];
			}
			delta[c][p] = median(d, reps);
			ratio[c][p] = median(q, reps);
		}
	}
	for (c = 0; c < CFG_COUNT; c++)
		for (p = 0; p < NPROBES; p++)
			med[c][p] = median(ns[c][p], reps);

	printf("%-30s %9s %9s %6s %6s  %s\n", "", "ns/call", "added ns", "ratio", "insns",
	       "result");
	for (p = 0; p < NPROBES; p++) {
		const struct probe *q = &probes[p];
		struct seccomp_data sd = { .nr = (int)q->nr,
					   .arch = AUDIT_ARCH_X86_64,
					   .args = { (uint64_t)q->a0, (uint64_t)q->a1,
						     (uint64_t)q->a2 } };

		printf("%s: %s\n", q->name, q->what);
		for (c = 0; c < CFG_COUNT; c++) {
			char steps[16] = "-";

			if (c != CFG_NONE)
				snprintf(steps, sizeof(steps), "%u", path_length(&filters[c], &sd));
			printf("  %-28s %9.1f %+9.1f %6.2f %6s  %s\n", cfg_names[c], med[c][p],
			       delta[c][p], ratio[c][p], steps, ret_name(rets[c][p]));
		}
	}

	for (c = 1; c < CFG_COUNT; c++)
		free(filters[c].insns);
	if (e_lin.mismatches || e_tree.mismatches) {
		fprintf(stderr, "bench_syscall: the libseccomp policy differs from the sample\n");
		return 1;
	}
	return 0;
}
