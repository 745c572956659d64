// SPDX-License-Identifier: MIT
/*
 * Classic-BPF instructions executed per syscall, in one run, for Docker's
 * and Podman's default profiles: the `secbpf import-oci` filter compiled by
 * secbpf, against libseccomp's filter for the same JSON as runc builds it,
 * with and without libseccomp's binary tree. Counted by the simulator over
 * every unconditionally allowed x86_64 syscall and over the recorded
 * syscalls of a file-work shell script; also the kernel's constant-allow
 * cache. Deterministic: no timing. Method and figures: bench/README.md.
 *
 * usage: bench_oci_insns [-s SECBPF] [-S SOURCE_DIR] [-w WORKLOAD.sh] [-t TRACE]
 */
#include <errno.h>
#include <limits.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cbpf/cbpf.h"
#include "object/object.h"
#include "oci/profile.h"
#include "oci_runc_ref.h"
#include "bench_stats.h"

#if !defined(__x86_64__)
#error "bench_oci_insns counts x86_64 syscalls"
#endif

extern char **environ;

/* The kernel's constant-allow bitmap covers the native numbers below
 * x86_64's __NR_syscalls (and i386's below its own); 512 covers both. */
#define CACHE_NR_LIMIT 512

enum { F_SECBPF, F_TREE, F_LINEAR, F_COUNT };

static const char *const filter_names[F_COUNT] = { "secbpf", "lsc tree", "lsc default" };

/* One recorded syscall of the workload (x86_64). */
struct call {
	uint32_t nr;
	uint64_t args[6];
};

struct trace {
	struct call *calls;
	size_t n, cap;
	size_t unknown; /* lines naming a syscall libseccomp does not know */
};

/* What one filter does over the inputs, the figures of one column. */
struct figures {
	size_t len;
	double avg, median, max;      /* over the unconditional allows */
	double work_avg, work_kernel; /* over the workload: run, and with the cache */
	unsigned cached64, cached32;  /* nr 0..511 in the cache: x86_64, i386 */
	unsigned uncached_allows;     /* unconditional allows not in the cache */
	/* workload calls that run the filter (not cached), by nr */
	unsigned long run_calls[CACHE_NR_LIMIT], run_steps[CACHE_NR_LIMIT];
};

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_oci_insns: %s: %s\n", what, why);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("memory", strerror(ENOMEM));
	return p;
}

/* --- The workload: strace -f -e raw=all, parsed ------------------------- */

/* Run the workload script under strace into trace_path. */
static void record_workload(const char *workload, const char *trace_path)
{
	char *argv[] = { "strace",
			 "-f",
			 "-qq",
			 "-e",
			 "signal=none",
			 "-e",
			 "raw=all",
			 "-o",
			 (char *)trace_path,
			 "sh",
			 (char *)workload,
			 NULL };
	int status;
	pid_t pid;

	if (posix_spawnp(&pid, "strace", NULL, NULL, argv, environ))
		die("strace", "cannot run it (apt-get install strace)");
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die(workload, "the workload under strace failed");
}

/* "PID name(0x1, 0, ..." (complete or <unfinished ...>): one call; other
 * lines (resumed halves, exits, signals) are none. */
static void parse_line(const char *line, struct trace *t)
{
	const char *p = line, *open;
	char name[64];
	struct call c = { 0 };
	int nr;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == line || *p++ != ' ' || !(open = strchr(p, '(')) || open == p ||
	    (size_t)(open - p) >= sizeof(name))
		return;
	for (const char *q = p; q < open; q++)
		if (!(*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9')))
			return;
	memcpy(name, p, (size_t)(open - p));
	name[open - p] = 0;
	nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
	if (nr == __NR_SCMP_ERROR && !strncmp(name, "syscall_0x", 10))
		nr = (int)strtol(name + 8, NULL, 16);
	if (nr < 0) {
		t->unknown++;
		return;
	}
	c.nr = (uint32_t)nr;
	p = open + 1;
	/* raw=all prints every argument as a number; the ones strace did
	 * not print (past the syscall's count) stay 0 */
	for (int a = 0; a < 6; a++) {
		char *end;

		while (*p == ' ')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			break;
		c.args[a] = strtoull(p, &end, 0);
		p = end;
		if (*p != ',')
			break;
		p++;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->calls = xrealloc(t->calls, t->cap * sizeof(*t->calls));
	}
	t->calls[t->n++] = c;
}

static void load_trace(const char *path, struct trace *t)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	if (!f)
		die(path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		parse_line(line, t);
	fclose(f);
	if (!t->n)
		die(path, "no syscalls in the trace");
}

/* --- The filters ------------------------------------------------------- */

/* `SECBPF import-oci PROFILE` and `SECBPF cc` into dir, then secbpf's
 * compiler on the object with the knobs set as for the reference. */
static struct cbpf_prog secbpf_filter(const char *secbpf, const char *profile, const char *dir,
				      const char *name, uint64_t caps, unsigned kmajor,
				      unsigned kminor)
{
	struct cbpf_compile_opts opts = { .sz = sizeof(opts) };
	struct secbpf_err err = { { 0 } };
	struct cbpf_prog prog = { 0 };
	char cmd[3 * PATH_MAX], obj_path[PATH_MAX], v[3][32];
	struct object_prog *op;
	struct object *obj;

	snprintf(obj_path, sizeof(obj_path), "%s/%s.bpf.o", dir, name);
	if (snprintf(cmd, sizeof(cmd),
		     "'%s' import-oci '%s' -o '%s/%s.bpf.c' && '%s' cc '%s/%s.bpf.c' -o '%s'",
		     secbpf, profile, dir, name, secbpf, dir, name, obj_path) >= (int)sizeof(cmd))
		die(profile, "path too long");
	fflush(stdout); /* cc's lint warnings after what is printed already */
	if (system(cmd))
		die(profile, "secbpf import-oci or cc failed");
	snprintf(v[0], sizeof(v[0]), "%#llx", (unsigned long long)caps);
	snprintf(v[1], sizeof(v[1]), "%u", kmajor);
	snprintf(v[2], sizeof(v[2]), "%u", kminor);
	obj = object_open_file(obj_path, &err);
	if (!obj || object_set_var(obj, "caps", v[0], &err) ||
	    object_set_var(obj, "kernel_major", v[1], &err) ||
	    object_set_var(obj, "kernel_minor", v[2], &err) ||
	    !(op = object_find_prog(obj, NULL, &err)) || cbpf_compile(obj, op, &opts, &prog, &err))
		die(obj_path, err.msg);
	object_free(obj);
	return prog;
}

/* The x86_64 numbers that profile p allows whatever the arguments, with
 * these knobs: the names of the applying rules without conditions. */
static size_t unconditional_allows(const struct oci_profile *p, uint64_t caps, unsigned kmajor,
				   unsigned kminor, uint32_t *nrs, size_t max)
{
	bool seen[CACHE_NR_LIMIT] = { false };
	size_t n = 0;

	for (size_t i = 0; i < p->nrules; i++) {
		const struct oci_rule *r = &p->rules[i];

		if (r->nargs || r->action != SECCOMP_RET_ALLOW ||
		    !oci_rule_applies(r, caps, kmajor, kminor))
			continue;
		for (size_t k = 0; k < r->nnames; k++) {
			int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, r->names[k]);

			if (nr < 0 || nr >= CACHE_NR_LIMIT || seen[nr] || n == max)
				continue;
			seen[nr] = true;
			nrs[n++] = (uint32_t)nr;
		}
	}
	return n;
}

/* --- Counting ---------------------------------------------------------- */

static unsigned steps(const struct sock_filter *insns, size_t len, const struct seccomp_data *sd,
		      uint32_t *ret)
{
	struct cbpf_sim_state st;

	*ret = cbpf_sim_exec(insns, len, sd, &st);
	return st.steps;
}

static void count(const struct sock_filter *const insns[F_COUNT], const size_t lens[F_COUNT],
		  const uint32_t *allows, size_t nallows, const struct trace *t,
		  struct figures fig[F_COUNT])
{
	double *v = xrealloc(NULL, nallows * sizeof(*v));
	unsigned long mismatches = 0;

	for (int f = 0; f < F_COUNT; f++) {
		double sum = 0, max = 0, work = 0, work_kernel = 0;

		fig[f].len = lens[f];
		for (size_t i = 0; i < nallows; i++) {
			struct seccomp_data sd = { .nr = (int)allows[i],
						   .arch = AUDIT_ARCH_X86_64 };
			uint32_t ret;

			v[i] = steps(insns[f], lens[f], &sd, &ret);
			if (ret != SECCOMP_RET_ALLOW)
				die(filter_names[f], "denies a syscall the profile allows");
			sum += v[i];
			max = v[i] > max ? v[i] : max;
			fig[f].uncached_allows +=
				!cbpf_sim_const_allow(insns[f], lens[f], sd.arch, allows[i]);
		}
		fig[f].avg = sum / (double)nallows;
		fig[f].max = max;
		fig[f].median = median(v, (int)nallows);
		for (size_t i = 0; i < t->n; i++) {
			struct seccomp_data sd = { .nr = (int)t->calls[i].nr,
						   .arch = AUDIT_ARCH_X86_64 };
			uint32_t ret, want;
			unsigned s;

			memcpy(sd.args, t->calls[i].args, sizeof(sd.args));
			s = steps(insns[f], lens[f], &sd, &ret);
			steps(insns[F_LINEAR], lens[F_LINEAR], &sd, &want);
			mismatches += ret != want;
			work += s;
			if (cbpf_sim_const_allow(insns[f], lens[f], sd.arch, sd.nr))
				continue;
			work_kernel += s;
			if (sd.nr < CACHE_NR_LIMIT) {
				fig[f].run_calls[sd.nr]++;
				fig[f].run_steps[sd.nr] += s;
			}
		}
		fig[f].work_avg = work / (double)t->n;
		fig[f].work_kernel = work_kernel / (double)t->n;
		for (uint32_t nr = 0; nr < CACHE_NR_LIMIT; nr++) {
			struct seccomp_data sd = { .nr = (int)nr, .arch = AUDIT_ARCH_X86_64 };
			uint32_t ret, want;

			fig[f].cached64 += cbpf_sim_const_allow(insns[f], lens[f], sd.arch, nr);
			fig[f].cached32 +=
				cbpf_sim_const_allow(insns[f], lens[f], AUDIT_ARCH_I386, nr);
			steps(insns[f], lens[f], &sd, &ret);
			steps(insns[F_LINEAR], lens[F_LINEAR], &sd, &want);
			mismatches += ret != want;
			sd.arch = AUDIT_ARCH_I386;
			steps(insns[f], lens[f], &sd, &ret);
			steps(insns[F_LINEAR], lens[F_LINEAR], &sd, &want);
			mismatches += ret != want;
		}
	}
	free(v);
	if (mismatches)
		die("the filters", "decide differently on some inputs: not the same policy");
}

/* --- The table --------------------------------------------------------- */

static void row(const char *what, double s, double tree, double linear, const char *fmt)
{
	char cell[3][32], rt[16] = "-", rl[16] = "-";

	snprintf(cell[0], sizeof(cell[0]), fmt, s);
	snprintf(cell[1], sizeof(cell[1]), fmt, tree);
	snprintf(cell[2], sizeof(cell[2]), fmt, linear);
	if (tree > 0)
		snprintf(rt, sizeof(rt), "%.3f", s / tree);
	if (linear > 0)
		snprintf(rl, sizeof(rl), "%.3f", s / linear);
	printf("| %-48s | %8s | %8s | %11s | %11s | %14s |\n", what, cell[0], cell[1], cell[2], rt,
	       rl);
}

static void print_table(const char *profile, size_t nallows, size_t ncalls,
			const struct figures f[F_COUNT])
{
	char what[96];

	printf("\n%s\n\n", profile);
	printf("| %-48s | %8s | %8s | %11s | %11s | %14s |\n", "instructions executed", "secbpf",
	       "lsc tree", "lsc default", "secbpf/tree", "secbpf/default");
	printf("|%.*s|---------:|---------:|------------:|------------:|---------------:|\n", 50,
	       "--------------------------------------------------");
	row("filter size (instructions)", (double)f[0].len, (double)f[1].len, (double)f[2].len,
	    "%.0f");
	snprintf(what, sizeof(what), "unconditional allows (%zu): average", nallows);
	row(what, f[0].avg, f[1].avg, f[2].avg, "%.2f");
	row("unconditional allows: median", f[0].median, f[1].median, f[2].median, "%.1f");
	row("unconditional allows: max", f[0].max, f[1].max, f[2].max, "%.0f");
	snprintf(what, sizeof(what), "workload (%zu calls): average, filter run", ncalls);
	row(what, f[0].work_avg, f[1].work_avg, f[2].work_avg, "%.2f");
	row("workload: average, cached calls as 0", f[0].work_kernel, f[1].work_kernel,
	    f[2].work_kernel, "%.2f");
	row("cached x86_64 numbers (of 0..511)", f[0].cached64, f[1].cached64, f[2].cached64,
	    "%.0f");
	row("cached i386 numbers (of 0..511)", f[0].cached32, f[1].cached32, f[2].cached32, "%.0f");
	row("unconditional allows not cached", f[0].uncached_allows, f[1].uncached_allows,
	    f[2].uncached_allows, "%.0f");
	for (uint32_t nr = 0; nr < CACHE_NR_LIMIT; nr++) {
		char *name;

		if (!f[0].run_calls[nr] && !f[1].run_calls[nr] && !f[2].run_calls[nr])
			continue;
		name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, (int)nr);
		snprintf(what, sizeof(what), "workload, not cached: %s (%lu calls), each",
			 name ? name : "?", f[1].run_calls[nr]);
		free(name);
		row(what, f[0].run_calls[nr] ? (double)f[0].run_steps[nr] / f[0].run_calls[nr] : 0,
		    f[1].run_calls[nr] ? (double)f[1].run_steps[nr] / f[1].run_calls[nr] : 0,
		    f[2].run_calls[nr] ? (double)f[2].run_steps[nr] / f[2].run_calls[nr] : 0,
		    "%.2f");
	}
	printf("\ngoal (issue 14): secbpf average <= 0.8 x libseccomp tree's: %.3f x, %s; "
	       "every unconditional allow cached: %s\n",
	       f[0].avg / f[1].avg, f[0].avg <= 0.8 * f[1].avg ? "met" : "MISSED",
	       f[0].uncached_allows ? "NO" : "yes");
}

static void bench_profile(const char *secbpf, const char *source, const char *dir, const char *name,
			  const struct trace *t)
{
	uint64_t caps = oci_docker_default_caps;
	struct secbpf_err err = { { 0 } };
	struct oci_runc_filter tree, linear;
	struct figures fig[F_COUNT] = { 0 };
	struct oci_runc_opts o;
	struct oci_profile p;
	struct cbpf_prog prog;
	unsigned kmajor, kminor;
	uint32_t allows[CACHE_NR_LIMIT];
	char path[PATH_MAX];
	size_t nallows;

	snprintf(path, sizeof(path), "%s/tests/profiles/%s.json", source, name);
	oci_running_kernel(&kmajor, &kminor);
	if (oci_profile_load(path, &p, &err))
		die(path, err.msg);
	prog = secbpf_filter(secbpf, path, dir, name, caps, kmajor, kminor);
	o = (struct oci_runc_opts){ .caps = caps, .kmajor = kmajor, .kminor = kminor };
	if (oci_runc_filter_build(&p, &o, &linear, &err))
		die(path, err.msg);
	o.optimize = 2;
	if (oci_runc_filter_build(&p, &o, &tree, &err))
		die(path, err.msg);
	nallows = unconditional_allows(&p, caps, kmajor, kminor, allows, CACHE_NR_LIMIT);
	if (!nallows)
		die(path, "no unconditionally allowed x86_64 syscall");
	const struct sock_filter *insns[F_COUNT] = { prog.insns, tree.insns, linear.insns };
	const size_t lens[F_COUNT] = { prog.len, tree.len, linear.len };

	count(insns, lens, allows, nallows, t, fig);
	print_table(name, nallows, t->n, fig);
	cbpf_prog_free(&prog);
	oci_runc_filter_free(&tree);
	oci_runc_filter_free(&linear);
	oci_profile_free(&p);
}

/* The secbpf of the build directory (this binary's directory's parent). */
static void secbpf_beside(char *out, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		die("/proc/self/exe", strerror(errno));
	self[n] = 0;
	for (int i = 0; i < 2; i++) {
		char *slash = strrchr(self, '/');

		if (!slash)
			die("/proc/self/exe", "not a path");
		*slash = 0;
	}
	snprintf(out, size, "%s/secbpf", self);
}

int main(int argc, char **argv)
{
	static const char *const profiles[] = { "docker-default", "podman-default" };
	char secbpf_default[PATH_MAX + 16], workload_default[PATH_MAX],
		dir[] = "/tmp/oci-insns.XXXXXX";
	char trace_tmp[PATH_MAX + 16], cmd[PATH_MAX + 16];
	const char *secbpf = secbpf_default, *source = BENCH_SOURCE_DIR, *trace_path = NULL;
	const char *workload = NULL;
	struct trace t = { 0 };
	struct utsname u;
	unsigned kmajor, kminor;
	int c;

	secbpf_beside(secbpf_default, sizeof(secbpf_default));
	while ((c = getopt(argc, argv, "s:S:w:t:")) != -1) {
		switch (c) {
		case 's':
			secbpf = optarg;
			break;
		case 'S':
			source = optarg;
			break;
		case 'w':
			workload = optarg;
			break;
		case 't':
			trace_path = optarg;
			break;
		default:
			fprintf(stderr, "usage: bench_oci_insns [-s SECBPF] [-S SOURCE_DIR] "
					"[-w WORKLOAD.sh] [-t STRACE_RAW_TRACE]\n");
			return 2;
		}
	}
	if (!mkdtemp(dir))
		die("mkdtemp", strerror(errno));
	snprintf(workload_default, sizeof(workload_default), "%s/bench/oci_workload.sh", source);
	if (!workload)
		workload = workload_default;
	if (!trace_path) {
		snprintf(trace_tmp, sizeof(trace_tmp), "%s/workload.trace", dir);
		record_workload(workload, trace_tmp);
		trace_path = trace_tmp;
	}
	load_trace(trace_path, &t);
	oci_running_kernel(&kmajor, &kminor);
	uname(&u);
	printf("bench_oci_insns: classic-BPF instructions executed per x86_64 syscall\n"
	       "(simulated), kernel %s (profiles resolved for %u.%u, Docker's default "
	       "capabilities %#llx),\nlibseccomp %u.%u.%u; libseccomp's filters with runc's "
	       "ENOSYS stub in front, as runc loads them.\n"
	       "workload: %s, %zu calls recorded (%zu lines of syscalls libseccomp does not know "
	       "skipped)\n",
	       u.release, kmajor, kminor, (unsigned long long)oci_docker_default_caps,
	       seccomp_version()->major, seccomp_version()->minor, seccomp_version()->micro,
	       trace_path == trace_tmp ? workload : trace_path, t.n, t.unknown);
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		bench_profile(secbpf, source, dir, profiles[i], &t);
	free(t.calls);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? 1 : 0;
}
