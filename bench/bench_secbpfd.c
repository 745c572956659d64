// SPDX-License-Identifier: MIT
/*
 * What a notified syscall costs when secbpfd supervises it, against the
 * same program under `secbpf run`, side by side in one run: the same
 * target (this program, re-executed as CMD), the same object
 * (bench/secbpfd_count.bpf.o), paired rounds in alternating order,
 * medians and the ratio secbpfd / run. The target checks that the program
 * saw every call (its count went up by exactly the calls made).
 *
 * usage (as root: secbpfd serves handles as root):
 *   bench_secbpfd [-n ITERS] [-r ROUNDS] [-s SECBPF] [-d SECBPFD] [-o OBJ]
 * By default the tools are those of the build directory this binary is in.
 * Method and figures: bench/README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"

#define MAX_ROUNDS 101

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_secbpfd: %s: %s\n", what, why);
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: never notified */
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The program's count, read back 10 bits at a time. */
static unsigned long long query_count(void)
{
	unsigned long long v = 0;
	long i;

	for (i = 0; i < 5; i++) {
		errno = 0;
		syscall(__NR_getppid, 0x5ecb, i);
		v |= (unsigned long long)((errno - 1) & 0x3ff) << (10 * i);
	}
	return v;
}

/* --target ITERS: warm up, time ITERS notified getppid, print the ns per
 * call and whether the program counted them all. */
static int target(long iters)
{
	unsigned long long before, after;
	long i, warm = iters / 10 + 100;
	double t0, t1;

	for (i = 0; i < warm; i++)
		syscall(__NR_getppid, 0xc0);
	before = query_count();
	t0 = now_ns();
	for (i = 0; i < iters; i++)
		syscall(__NR_getppid, 0xc0);
	t1 = now_ns();
	after = query_count();
	printf("%.1f %d\n", (t1 - t0) / (double)iters,
	       (after - before) % (1ull << 50) == (unsigned long long)iters);
	return 0;
}

/* Run argv (NULL-terminated) with stdout into a pipe; return what it
 * printed as ns/call, or exit on failure. */
static double run_target(char *const argv[])
{
	char buf[256] = { 0 };
	int p[2], st, ok = 0;
	double ns = 0;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		die("pipe", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork", strerror(errno));
	if (pid == 0) {
		dup2(p[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (len < sizeof(buf) - 1 && (n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(p[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die(argv[0], "the target run failed (see above)");
	if (sscanf(buf, "%lf %d", &ns, &ok) != 2)
		die(argv[0], "the target printed no timing");
	if (!ok)
		die(argv[0], "the program did not count every call");
	return ns;
}

/* This binary's directory's parent: the build directory. */
static void build_dir(char *out, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;
	int i;

	if (n <= 0)
		die("/proc/self/exe", strerror(errno));
	self[n] = 0;
	for (i = 0; i < 2; i++) {
		slash = strrchr(self, '/');
		if (!slash)
			die("/proc/self/exe", "not a path");
		*slash = 0;
	}
	snprintf(out, size, "%s", self);
}

struct service {
	char dir[64];
	char sock[128];
	pid_t pid;
};

/* A secbpfd serving the object as "count" to root, in a fresh directory. */
static void service_start(struct service *s, const char *secbpfd, const char *obj)
{
	char path[256], cmd[PATH_MAX * 2];
	struct timespec pause = { 0, 10000000 };
	FILE *f;
	int i;

	snprintf(s->dir, sizeof(s->dir), "/tmp/bench-secbpfd-XXXXXX");
	if (!mkdtemp(s->dir))
		die("mkdtemp", strerror(errno));
	snprintf(cmd, sizeof(cmd), "mkdir '%s/programs.d' && cp '%s' '%s/programs.d/count.o'",
		 s->dir, obj, s->dir);
	if (system(cmd))
		die(obj, "cannot copy it into the service's configuration");
	snprintf(path, sizeof(path), "%s/secbpfd.conf", s->dir);
	f = fopen(path, "w");
	if (!f)
		die(path, strerror(errno));
	fprintf(f, "allow count user=root\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/policy.conf", s->dir);
	f = fopen(path, "w");
	if (!f)
		die(path, strerror(errno));
	fprintf(f, "max_tier = unprivileged\n");
	fclose(f);
	snprintf(s->sock, sizeof(s->sock), "%s/secbpfd.sock", s->dir);
	s->pid = fork();
	if (s->pid < 0)
		die("fork", strerror(errno));
	if (s->pid == 0) {
		/* Its log beside its configuration, shown if it fails. */
		snprintf(cmd, sizeof(cmd), "%s/secbpfd.log", s->dir);
		i = open(cmd, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (i >= 0)
			dup2(i, 2);
		execl(secbpfd, secbpfd, "--foreground", "--config", s->dir, "--socket", s->sock,
		      "--policy", path, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 2000 && access(s->sock, F_OK); i++) {
		if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
			snprintf(cmd, sizeof(cmd), "cat '%s/secbpfd.log' >&2", s->dir);
			if (system(cmd))
				fprintf(stderr, "bench_secbpfd: no log\n");
			die(secbpfd, "exited before serving (its log is above)");
		}
		nanosleep(&pause, NULL);
	}
	if (access(s->sock, F_OK))
		die(secbpfd, "did not start in 20 s");
}

static void service_stop(struct service *s)
{
	char cmd[128];

	kill(s->pid, SIGTERM);
	waitpid(s->pid, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	if (system(cmd))
		fprintf(stderr, "bench_secbpfd: cannot remove %s\n", s->dir);
}

int main(int argc, char **argv)
{
	char build[PATH_MAX], secbpf[PATH_MAX + 16], secbpfd[PATH_MAX + 16], obj[PATH_MAX + 32];
	char self[PATH_MAX], iters_arg[32];
	double run_ns[MAX_ROUNDS], svc_ns[MAX_ROUNDS], ratio[MAX_ROUNDS];
	long iters = 20000;
	int rounds = 11, i, c;
	struct service s;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--target"))
		return target(atol(argv[2]));
	build_dir(build, sizeof(build));
	snprintf(secbpf, sizeof(secbpf), "%s/secbpf", build);
	snprintf(secbpfd, sizeof(secbpfd), "%s/secbpfd", build);
	snprintf(obj, sizeof(obj), "%s/bench/secbpfd_count.bpf.o", build);
	while ((c = getopt(argc, argv, "n:r:s:d:o:")) != -1) {
		switch (c) {
		case 'n':
			iters = atol(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 's':
			snprintf(secbpf, sizeof(secbpf), "%s", optarg);
			break;
		case 'd':
			snprintf(secbpfd, sizeof(secbpfd), "%s", optarg);
			break;
		case 'o':
			snprintf(obj, sizeof(obj), "%s", optarg);
			break;
		default:
			fprintf(stderr, "usage: bench_secbpfd [-n ITERS] [-r ROUNDS] [-s SECBPF] "
					"[-d SECBPFD] [-o OBJ]\n");
			return 2;
		}
	}
	if (iters < 1 || rounds < 1 || rounds > MAX_ROUNDS)
		die("options", "ITERS >= 1 and ROUNDS from 1 to 101");
	if (geteuid() != 0)
		die("secbpfd", "serves handles as root: run the bench as root");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		die("/proc/self/exe", strerror(errno));
	self[n] = 0;
	snprintf(iters_arg, sizeof(iters_arg), "%ld", iters);
	service_start(&s, secbpfd, obj);

	char *run_argv[] = { secbpf, "run", "-f", obj, "--", self, "--target", iters_arg, NULL };
	char *svc_argv[] = { secbpf, "run", "--prog",	"count",   "--daemon", s.sock,
			     "--",   self,  "--target", iters_arg, NULL };

	/* Paired rounds, the order alternating, so that drift on a shared
	 * machine weighs on both alike. */
	for (i = 0; i < rounds; i++) {
		if (i % 2) {
			svc_ns[i] = run_target(svc_argv);
			run_ns[i] = run_target(run_argv);
		} else {
			run_ns[i] = run_target(run_argv);
			svc_ns[i] = run_target(svc_argv);
		}
		ratio[i] = svc_ns[i] / run_ns[i];
	}
	service_stop(&s);
	printf("notified getppid, %ld calls per round, %d paired rounds, medians:\n", iters,
	       rounds);
	printf("  %-34s %8.0f ns/call\n", "secbpf run -f (its own supervisor)",
	       median(run_ns, rounds));
	printf("  %-34s %8.0f ns/call\n", "secbpfd (run --prog)", median(svc_ns, rounds));
	printf("  ratio secbpfd / run (median of the paired ratios): %.3fx (goal <= 1.10x)\n",
	       median(ratio, rounds));
	return 0;
}
