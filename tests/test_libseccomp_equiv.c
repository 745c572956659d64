// SPDX-License-Identifier: MIT
/*
 * The Docker-like policy built twice from one source
 * (samples/docker_like_policy.h): samples/docker_like.bpf.c compiled by
 * secbpf, and the libseccomp rules of bench/policies/docker_like.h. Both
 * filters must give the same action for the same input: simulated on every
 * input of docker_like_inputs(), and installed in children, where the kernel
 * decides the x86_64 inputs.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cbpf/cbpf.h"
#include "common.h"
#include "object/object.h"
#include "policies/docker_like.h"

/* A filter under test: its name and its cBPF (malloc'ed). */
struct filter {
	const char *name;
	struct sock_filter *insns;
	size_t len;
};

static struct filter secbpf_docker_like(void)
{
	struct cbpf_compile_opts opts = { .sz = sizeof(opts) };
	struct secbpf_err err = { { 0 } };
	struct cbpf_prog prog = { 0 };
	struct filter f = { .name = "secbpf" };
	struct object_prog *p;
	struct object *obj;
	char path[4096];

	test_sample_path(path, sizeof(path), "docker_like");
	obj = object_open_file(path, &err);
	cr_assert_not_null(obj, "%s: %s", path, err.msg);
	p = object_find_prog(obj, NULL, &err);
	cr_assert_not_null(p, "%s: %s", path, err.msg);
	cr_assert_eq(cbpf_compile(obj, p, &opts, &prog, &err), 0, "%s: %s", path, err.msg);
	cr_assert(!prog.needs_supervisor, "the Docker-like sample must compile to cBPF alone");
	/* The filter keeps the instructions; the rest of prog goes. */
	f.insns = prog.insns;
	f.len = prog.len;
	prog.insns = NULL;
	cbpf_prog_free(&prog);
	object_free(obj);
	return f;
}

static struct filter libseccomp_docker_like(const char *name, int optimize)
{
	struct filter f = { .name = name };
	int rc = docker_like_libseccomp_filter(optimize, &f.insns, &f.len);

	cr_assert_eq(rc, 0, "%s: %s", name, strerror(-rc));
	return f;
}

/* --- Simulation ------------------------------------------------------- */

struct sim_compare {
	const struct filter *a, *b;
	unsigned inputs, mismatches;
};

static void sim_one(const struct seccomp_data *sd, void *arg)
{
	struct sim_compare *c = arg;
	uint32_t ra = cbpf_sim_run(c->a->insns, c->a->len, sd);
	uint32_t rb = cbpf_sim_run(c->b->insns, c->b->len, sd);

	c->inputs++;
	if (ra == rb)
		return;
	if (c->mismatches++ < 10)
		cr_log_error("arch %#x nr %d args %#llx %#llx %#llx: %s %#x, %s %#x", sd->arch,
			     sd->nr, (unsigned long long)sd->args[0],
			     (unsigned long long)sd->args[1], (unsigned long long)sd->args[2],
			     c->a->name, ra, c->b->name, rb);
}

static void simulate_against(int optimize, const char *name)
{
	struct filter s = secbpf_docker_like(), l = libseccomp_docker_like(name, optimize);
	struct sim_compare c = { .a = &s, .b = &l };

	docker_like_inputs(sim_one, &c);
	cr_log_info("%s: %u inputs simulated", name, c.inputs);
	cr_expect_gt(c.inputs, 5000);
	cr_expect_eq(c.mismatches, 0, "%u of %u inputs decided differently", c.mismatches,
		     c.inputs);
	free(s.insns);
	free(l.insns);
}

Test(libseccomp_equiv, simulated_alike_linear)
{
	simulate_against(0, "libseccomp");
}

Test(libseccomp_equiv, simulated_alike_tree)
{
	simulate_against(2, "libseccomp tree");
}

/* --- In the kernel ---------------------------------------------------- */

/*
 * A child first installs a guard filter, then the policy on top. The guard
 * returns ERRNO(GUARD_ERRNO) for every syscall but the few the child needs
 * (write, exit, exit_group, seccomp), so no sampled syscall ever runs. The
 * kernel takes the most restrictive action of all filters, and between two
 * ERRNOs the newer filter's: so a policy ALLOW shows as GUARD_ERRNO, a
 * policy ERRNO(e) as e, and KILL_PROCESS kills the child with SIGSYS.
 */
#define GUARD_ERRNO 4000

static const int guard_allowed[] = {
	__NR_write, __NR_exit, __NR_exit_group, __NR_seccomp,
#if defined(__SANITIZE_ADDRESS__)
	/* what the ASan runtime calls on its own in the child: these numbers
	 * are left to the simulation (and to the plain build's kernel run) */
	__NR_gettid, __NR_getpid, __NR_sigaltstack, __NR_mmap, __NR_munmap, __NR_mprotect,
	__NR_madvise, __NR_rt_sigprocmask, __NR_rt_sigaction, __NR_sched_yield, __NR_prctl,
	__NR_read, __NR_openat, __NR_close, __NR_fstat, __NR_getrlimit, __NR_prlimit64,
#endif
};

static int install(struct sock_filter *insns, size_t len)
{
	struct sock_fprog fp = { .len = (unsigned short)len, .filter = insns };

	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
}

static int install_guard(void)
{
	struct sock_filter g[40];
	size_t n = 0, i, k = sizeof(guard_allowed) / sizeof(guard_allowed[0]);

	g[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	g[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0,
					      (uint8_t)(k + 1));
	g[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	for (i = 0; i < k; i++)
		g[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (uint32_t)guard_allowed[i],
						      (uint8_t)(k - i), 0);
	g[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | GUARD_ERRNO);
	g[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	return install(g, n);
}

/* The inputs the kernel decides here: x86_64, no syscall the guard lets
 * through, and none of 335..423, which mainline x86_64 never allocated and
 * some kernels take for their own calls before seccomp runs (SIGILL on a
 * sandbox's 6.18). The simulation covers those. */
static bool kernel_testable(const struct seccomp_data *sd)
{
	size_t i;

	if (sd->arch != AUDIT_ARCH_X86_64)
		return false;
	if (sd->nr >= 335 && sd->nr < 424)
		return false;
	for (i = 0; i < sizeof(guard_allowed) / sizeof(guard_allowed[0]); i++)
		if (sd->nr == guard_allowed[i])
			return false;
	return true;
}

struct input_list {
	struct seccomp_data *sd;
	size_t n, cap;
};

static void collect(const struct seccomp_data *sd, void *arg)
{
	struct input_list *l = arg;

	if (!kernel_testable(sd))
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->sd = realloc(l->sd, l->cap * sizeof(*l->sd));
		cr_assert_not_null(l->sd);
	}
	l->sd[l->n++] = *sd;
}

/* In the child: the guard, the policy, then inputs from..n-1, each one's
 * errno written to fd. Never returns. */
static void kernel_child(const struct filter *f, const struct input_list *l, size_t from, int fd)
{
	size_t i;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || install_guard() || install(f->insns, f->len))
		_exit(100);
	for (i = from; i < l->n; i++) {
		const struct seccomp_data *sd = &l->sd[i];
		long rc = syscall(sd->nr, sd->args[0], sd->args[1], sd->args[2], sd->args[3],
				  sd->args[4], sd->args[5]);
		int e = rc == -1 ? errno : 0;

		if (write(fd, &e, sizeof(e)) != sizeof(e))
			_exit(101);
	}
	_exit(0);
}

/* The action the kernel took for each input, as a seccomp return value:
 * children are started again after each one a KILL_PROCESS ends. */
static void kernel_actions(const struct filter *f, const struct input_list *l, uint32_t *act)
{
	size_t from = 0;

	while (from < l->n) {
		int fds[2], st, e;
		pid_t pid;

		cr_assert_eq(pipe(fds), 0);
		fflush(NULL);
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			close(fds[0]);
			kernel_child(f, l, from, fds[1]);
		}
		close(fds[1]);
		while (from < l->n && read(fds[0], &e, sizeof(e)) == sizeof(e)) {
			cr_assert(e == GUARD_ERRNO || e == EPERM || e == ENOSYS,
				  "%s: nr %d: errno %d: a syscall ran or failed on its own", f->name,
				  l->sd[from].nr, e);
			act[from++] = e == GUARD_ERRNO ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | e;
		}
		close(fds[0]);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			break;
		cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS && from < l->n,
			  "%s: the child failed (status %#x) at input %zu (nr %d)", f->name, st,
			  from, from < l->n ? l->sd[from].nr : -1);
		act[from++] = SECCOMP_RET_KILL_PROCESS;
	}
	cr_assert_eq(from, l->n);
}

static void kernel_against(int optimize, const char *name)
{
	struct filter s = secbpf_docker_like(), lsc = libseccomp_docker_like(name, optimize);
	struct input_list l = { 0 };
	uint32_t *ks, *kl;
	unsigned bad = 0, kills = 0;
	size_t i;

	docker_like_inputs(collect, &l);
	ks = calloc(l.n, sizeof(*ks));
	kl = calloc(l.n, sizeof(*kl));
	cr_assert(ks && kl);
	kernel_actions(&s, &l, ks);
	kernel_actions(&lsc, &l, kl);
	for (i = 0; i < l.n; i++) {
		uint32_t sim = cbpf_sim_run(s.insns, s.len, &l.sd[i]);

		kills += ks[i] == SECCOMP_RET_KILL_PROCESS;
		if (ks[i] == kl[i] && ks[i] == sim)
			continue;
		if (bad++ < 10)
			cr_log_error("nr %d args %#llx %#llx %#llx: kernel with secbpf %#x, "
				     "with %s %#x, simulated %#x",
				     l.sd[i].nr, (unsigned long long)l.sd[i].args[0],
				     (unsigned long long)l.sd[i].args[1],
				     (unsigned long long)l.sd[i].args[2], ks[i], name, kl[i], sim);
	}
	cr_log_info("%s: %zu inputs decided by the kernel (%u killed)", name, l.n, kills);
	cr_expect_gt(l.n, 4000);
	cr_expect_gt(kills, 0, "no input reached KILL_PROCESS (x32 numbers)");
	cr_expect_eq(bad, 0, "%u of %zu inputs decided differently", bad, l.n);
	free(ks);
	free(kl);
	free(l.sd);
	free(s.insns);
	free(lsc.insns);
}

Test(libseccomp_equiv, the_kernel_decides_alike_linear, .timeout = 120)
{
	kernel_against(0, "libseccomp");
}

Test(libseccomp_equiv, the_kernel_decides_alike_tree, .timeout = 120)
{
	kernel_against(2, "libseccomp tree");
}
