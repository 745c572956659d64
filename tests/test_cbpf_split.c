// SPDX-License-Identifier: MIT
/*
 * A program whose one filter would exceed 4096 instructions compiles to
 * several stacked filters that partition its (arch, nr) cells
 * (lib/cbpf/split.c): no USER_NOTIF, the interpreter's value on every cell,
 * the kernel's action cache kept, and `secbpf run` enforces every filter.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cbpf/cbpf.h"
#include "common.h"
#include "secbpf.h"
#include "object/object.h"
#include "vm/runtime.h"
#include "cbpf/diff.h"

#define SPLIT_NRS 450 /* checked nrs: 0..SPLIT_NRS-1 */
#define SPLIT_MAGIC0 0x5ecb000000000000ull
#define SPLIT_MAGIC2 0x5eca0000beef0000ull

static char dir[4096], probe[4200], src[4400], obj_path[4400], out[65536];

/* The errno a syscall nr gets with args[0] = SPLIT_MAGIC0 + nr and
 * args[1] above 2^32 + nr. */
static unsigned split_errno(unsigned nr)
{
	return nr % 100 + 1;
}

static void write_source(void)
{
	FILE *f;
	unsigned nr;

	snprintf(src, sizeof(src), "%s/many_nrs.c", dir);
	f = fopen(src, "w");
	cr_assert_not_null(f);
	fprintf(f, "#include <secbpf/filter.h>\n"
		   "SEC(\"seccomp\") int many_nrs(struct seccomp_data *ctx)\n{\n"
		   "\tif (ctx->arch != AUDIT_ARCH_X86_64)\n"
		   "\t\treturn SECCOMP_RET_KILL_PROCESS;\n");
	for (nr = 0; nr < SPLIT_NRS; nr++)
		fprintf(f,
			"\tif (ctx->nr == %u) {\n"
			"\t\tif (ctx->args[0] == 0x%llxull && ctx->args[1] > 0x%llxull)\n"
			"\t\t\treturn SECCOMP_RET_ERRNO | %u;\n"
			"\t\tif ((ctx->args[2] & 0xffff0000ffff0000ull) == 0x%llxull)\n"
			"\t\t\treturn SECCOMP_RET_TRACE | %u;\n"
			"\t\treturn SECCOMP_RET_ALLOW;\n\t}\n",
			nr, SPLIT_MAGIC0 + nr, 0x100000000ull + nr, split_errno(nr),
			SPLIT_MAGIC2 ^ ((unsigned long long)nr << 48), nr);
	fprintf(f, "\treturn SECCOMP_RET_ALLOW;\n}\nchar _license[] SEC(\"license\") = \"GPL\";\n");
	cr_assert_eq(fclose(f), 0);
}

static void setup(void)
{
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-cbpf-split");
	test_probe(probe, sizeof(probe), "SECBPF_SYSCALL_PROBE", dir, "syscall_probe", "");
	write_source();
	snprintf(obj_path, sizeof(obj_path), "%s/many_nrs.bpf.o", dir);
	test_compile_bpf(src, obj_path);
}

static void teardown(void)
{
	test_remove_tree(dir);
}

TestSuite(cbpf_split, .init = setup, .fini = teardown, .timeout = 60);

struct split_compiled {
	struct object *obj;
	const struct object_prog *prog;
	struct cbpf_prog cp;
	struct runtime *rt;
};

static void split_compile(struct split_compiled *c, uint32_t max_filters)
{
	struct cbpf_compile_opts opts = { .sz = sizeof(opts), .max_filters = max_filters };
	struct secbpf_err err = { { 0 } };

	c->obj = object_open_file(obj_path, &err);
	cr_assert_not_null(c->obj, "%s", err.msg);
	c->prog = object_find_prog(c->obj, NULL, &err);
	cr_assert_not_null(c->prog, "%s", err.msg);
	cr_assert_eq(cbpf_compile(c->obj, c->prog, &opts, &c->cp, &err), 0, "%s", err.msg);
	c->rt = runtime_new(c->obj, c->prog, &err);
	cr_assert_not_null(c->rt, "%s", err.msg);
}

static void split_release(struct split_compiled *c)
{
	runtime_free(c->rt);
	cbpf_prog_free(&c->cp);
	object_free(c->obj);
}

/* Which filter of the stack returns non-ALLOW for nr with the magic args
 * (the one that owns nr's cell), checking that it is the only one. */
static uint32_t owner_of(const struct cbpf_prog *cp, unsigned nr)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = AUDIT_ARCH_X86_64 };
	uint32_t k, owner = UINT32_MAX;

	sd.args[0] = SPLIT_MAGIC0 + nr;
	sd.args[1] = ~0ull;
	for (k = 0; k < cp->nfilters; k++) {
		uint32_t r = cbpf_sim_run(cp->filters[k].filter, cp->filters[k].len, &sd);

		if (r == SECCOMP_RET_ALLOW)
			continue;
		cr_assert_eq(owner, UINT32_MAX, "nr %u: filters %u and %u both decide it", nr,
			     owner, k);
		cr_assert_eq(r, SECCOMP_RET_ERRNO | split_errno(nr), "nr %u: filter %u: 0x%x", nr,
			     k, r);
		owner = k;
	}
	cr_assert_neq(owner, UINT32_MAX, "nr %u: no filter denies it", nr);
	return owner;
}

Test(cbpf_split, one_filter_punts_without_splitting)
{
	struct split_compiled c = { 0 };

	/* Without max_filters the compiler keeps today's contract: one
	 * filter, the cells that do not fit handed to the supervisor. */
	split_compile(&c, 1);
	cr_assert_eq(c.cp.nfilters, 1);
	cr_assert(c.cp.needs_supervisor, "the program should not fit in one filter");
	split_release(&c);
}

Test(cbpf_split, stacked_filters_agree_with_the_interpreter)
{
	static uint64_t consts[SPLIT_NRS * 3];
	struct split_compiled c = { 0 };
	struct secbpf_err err = { { 0 } };
	struct diff_result res;
	uint32_t k, i, j, owners[CBPF_MAX_FILTERS] = { 0 };
	unsigned nr;

	split_compile(&c, CBPF_MAX_FILTERS);
	cr_assert_geq(c.cp.nfilters, 2, "%u filter(s)", c.cp.nfilters);
	cr_assert(!c.cp.needs_supervisor, "%u cells supervised", c.cp.notif_cells);
	cr_assert_eq(c.cp.insns, c.cp.filters[0].filter);
	for (k = 0; k < c.cp.nfilters; k++) {
		cr_assert_eq(cbpf_check(c.cp.filters[k].filter, c.cp.filters[k].len, &err), 0,
			     "filter %u: %s", k, err.msg);
		for (i = 0; i < c.cp.filters[k].len; i++)
			cr_assert(!(c.cp.filters[k].filter[i].code == (BPF_RET | BPF_K) &&
				    c.cp.filters[k].filter[i].k == SECCOMP_RET_USER_NOTIF),
				  "filter %u returns USER_NOTIF", k);
	}
	/* Every nr's cell has one owner, and every filter owns some. */
	for (nr = 0; nr < SPLIT_NRS; nr++)
		owners[owner_of(&c.cp, nr)]++;
	for (k = 0; k < c.cp.nfilters; k++)
		cr_assert_gt(owners[k], 0, "filter %u owns no checked nr", k);
	/* The differential check on every cell, with the magic values. */
	for (nr = 0, j = 0; nr < SPLIT_NRS; nr++) {
		consts[j++] = SPLIT_MAGIC0 + nr;
		consts[j++] = 0x100000000ull + nr;
		consts[j++] = SPLIT_MAGIC2 ^ ((uint64_t)nr << 48);
	}
	cr_assert(diff_check(c.rt, c.prog->insns, c.prog->insn_cnt, &c.cp, consts, j, 3,
			     SPLIT_NRS + 10, 1, &res),
		  "%s", res.msg);
	cr_assert_eq(res.notifs, 0);
	/* The action cache: a checked nr is never constant ALLOW, an
	 * unchecked one is, in every filter (the kernel ANDs them). */
	for (nr = 0; nr < SPLIT_NRS + 50; nr++) {
		bool all = true;

		for (k = 0; k < c.cp.nfilters; k++)
			all &= cbpf_sim_const_allow(c.cp.filters[k].filter, c.cp.filters[k].len,
						    AUDIT_ARCH_X86_64, nr);
		cr_assert_eq(all, nr >= SPLIT_NRS, "nr %u: cacheable %d", nr, all);
	}
	split_release(&c);
}

/* The last checked nr owned by a filter after the first. */
static unsigned nr_in_later_filter(void)
{
	struct split_compiled c = { 0 };
	unsigned nr, found = SPLIT_NRS;

	split_compile(&c, CBPF_MAX_FILTERS);
	for (nr = 0; nr < SPLIT_NRS; nr++)
		if (owner_of(&c.cp, nr) > 0)
			found = nr;
	cr_assert(c.cp.nfilters >= 2 && found < SPLIT_NRS);
	split_release(&c);
	return found;
}

static void run_probe(unsigned nr, unsigned long long a0, unsigned long long a1)
{
	int rc = test_shell(out, sizeof(out), "'%s' run -f '%s' -- '%s' %u 0x%llx 0x%llx 2>&1",
			    getenv("SECBPF"), src, probe, nr, a0, a1);

	cr_assert_eq(rc, 0, "secbpf run failed: %s", out);
	cr_assert_null(strstr(out, "supervised"), "a cell went to the supervisor: %s", out);
}

Test(cbpf_split, secbpf_run_enforces_every_filter)
{
	unsigned nr = nr_in_later_filter();
	char want[64];

	/* Denied by a filter after the first: the syscall never runs. */
	run_probe(nr, SPLIT_MAGIC0 + nr, ~0ull);
	snprintf(want, sizeof(want), "errno=%u\n", split_errno(nr));
	cr_assert(strstr(out, want), "nr %u: want %s, got: %s", nr, want, out);
	/* Denied by the first filter (getpid, nr 39, owned there). */
	run_probe(39, SPLIT_MAGIC0 + 39, ~0ull);
	snprintf(want, sizeof(want), "errno=%u\n", split_errno(39));
	cr_assert(strstr(out, want), "getpid: want %s, got: %s", want, out);
	/* Allowed: getpid with other arguments runs. */
	run_probe(39, 1, 2);
	cr_assert(strstr(out, "errno=0\n"), "getpid: %s", out);
}

/* A filter that returns ret for getppid and ALLOW for every other syscall. */
static void one_nr_filter(struct sock_filter *f, uint32_t ret)
{
	f[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	f[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1);
	f[2] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ret);
	f[3] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
}

/* Install a then b in a child, call getppid: the errno it got (0: it ran),
 * or -SIG when a signal ended the child. */
static int kernel_outcome(uint32_t a, uint32_t b)
{
	struct sock_filter fa[4], fb[4];
	struct sock_fprog pa = { .len = 4, .filter = fa }, pb = { .len = 4, .filter = fb };
	int status;
	pid_t pid;

	one_nr_filter(fa, a);
	one_nr_filter(fb, b);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		long r;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &pa) ||
		    syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &pb))
			_exit(255);
		r = syscall(__NR_getppid);
		_exit(r == -1 ? errno : 0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	cr_assert_neq(WEXITSTATUS(status), 255, "cannot install the filters");
	return WEXITSTATUS(status);
}

/* What a process sees of a combined return (no tracer, no listener). */
static int expected_outcome(uint32_t ret)
{
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ERRNO:
		return ret & SECCOMP_RET_DATA;
	case SECCOMP_RET_TRACE:
		return ENOSYS;
	case SECCOMP_RET_LOG:
	case SECCOMP_RET_ALLOW:
		return 0;
	default:
		return -SIGSYS; /* KILL_PROCESS, KILL_THREAD (one thread) */
	}
}

/* cbpf_sim_run_stack's precedence, which the split relies on, is the
 * kernel's: lowest action wins, the filter installed last wins ties. */
Test(cbpf_split, stack_precedence_matches_the_kernel)
{
	static const uint32_t pairs[][2] = {
		{ SECCOMP_RET_ERRNO | 1, SECCOMP_RET_ERRNO | 2 },
		{ SECCOMP_RET_ERRNO | 2, SECCOMP_RET_ERRNO | 1 },
		{ SECCOMP_RET_ERRNO | 3, SECCOMP_RET_TRACE | 1 },
		{ SECCOMP_RET_TRACE | 1, SECCOMP_RET_LOG },
		{ SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | 7 },
		{ SECCOMP_RET_ERRNO | 7, SECCOMP_RET_ALLOW },
		{ SECCOMP_RET_LOG, SECCOMP_RET_ALLOW },
		{ SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD },
		{ SECCOMP_RET_ERRNO | 9, SECCOMP_RET_KILL_THREAD },
		{ SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ERRNO | 9 },
	};
	struct sock_filter fa[4], fb[4];
	struct sock_fprog st[2] = { { .len = 4, .filter = fa }, { .len = 4, .filter = fb } };
	struct seccomp_data sd = { .nr = __NR_getppid, .arch = AUDIT_ARCH_X86_64 };
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		uint32_t sim;

		one_nr_filter(fa, pairs[i][0]);
		one_nr_filter(fb, pairs[i][1]);
		sim = cbpf_sim_run_stack(st, 2, &sd);
		cr_assert_eq(kernel_outcome(pairs[i][0], pairs[i][1]), expected_outcome(sim),
			     "0x%x then 0x%x: simulated 0x%x", pairs[i][0], pairs[i][1], sim);
	}
	/* The ties the kernel breaks by order, and KILL_PROCESS below
	 * KILL_THREAD, in the simulator itself. */
	one_nr_filter(fa, SECCOMP_RET_ERRNO | 1);
	one_nr_filter(fb, SECCOMP_RET_ERRNO | 2);
	cr_assert_eq(cbpf_sim_run_stack(st, 2, &sd), SECCOMP_RET_ERRNO | 2);
	one_nr_filter(fa, SECCOMP_RET_KILL_PROCESS);
	one_nr_filter(fb, SECCOMP_RET_KILL_THREAD);
	cr_assert_eq(cbpf_sim_run_stack(st, 2, &sd), SECCOMP_RET_KILL_PROCESS);
}

/* secbpf compile shows what run installs: every filter, or a refusal
 * for --format bin, which holds one. */
Test(cbpf_split, compile_lists_every_filter)
{
	/* Only the comment lines: the listing is longer than out. */
	int rc = test_shell(out, sizeof(out), "'%s' compile '%s' --format asm 2>&1 | grep '^#'",
			    getenv("SECBPF"), src);

	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(strstr(out, "# filter 1 of ") && strstr(out, "# filter 2 of "), "%.2000s", out);
	cr_assert_null(strstr(out, "# supervised:"), "%.2000s", out);
	rc = test_shell(out, sizeof(out), "'%s' compile '%s' --format c 2>&1 | grep secbpf_",
			getenv("SECBPF"), src);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(strstr(out, "secbpf_fprogs[]") && strstr(out, "secbpf_filter_1[]"), "%.2000s",
		  out);
	rc = test_shell(out, sizeof(out), "'%s' compile '%s' --format bin -o '%s/x.bin' 2>&1",
			getenv("SECBPF"), src, dir);
	cr_assert_neq(rc, 0, "%s", out);
	cr_assert(strstr(out, "stacked filters") && strstr(out, "--format c or asm"), "%s", out);
}

/* How many filters /proc/self/status says this process has, or -1. */
static int own_filter_count(void)
{
	char line[256];
	int n = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp_filters: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* The attach API installs every filter: in a child, attach the program,
 * then a syscall of a later filter's cells is denied, getpid runs, and
 * the process has as many filters as the compiler made. Exit 0 or the
 * number of the check that failed. */
static int attach_child(unsigned nr, uint32_t nfilters)
{
	struct secbpf_attach_opts o = { .sz = sizeof(o) };
	struct secbpf_object *obj = secbpf_object__open_file(obj_path, NULL);
	struct secbpf_program *p = obj ? secbpf_object__find_program(obj, NULL) : NULL;
	long r;

	if (!p)
		return 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return 3;
	if (secbpf_program__attach(p, &o))
		return 4;
	r = syscall(nr, SPLIT_MAGIC0 + nr, ~0ull, 0);
	if (r != -1 || errno != (int)split_errno(nr))
		return 5;
	if (syscall(__NR_getpid) != getpid())
		return 6;
	if (own_filter_count() != (int)nfilters)
		return 7;
	secbpf_object__close(obj);
	return 0;
}

Test(cbpf_split, the_attach_api_installs_every_filter)
{
	struct split_compiled c = { 0 };
	unsigned nr = nr_in_later_filter();
	uint32_t nfilters;
	int status;
	pid_t pid;

	split_compile(&c, CBPF_MAX_FILTERS);
	nfilters = c.cp.nfilters;
	split_release(&c);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(attach_child(nr, nfilters));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
}
