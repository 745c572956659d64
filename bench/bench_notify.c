// SPDX-License-Identifier: MIT
/*
 * What a notified syscall costs, side by side in one run: no filter; the
 * floor, a minimal supervisor that answers every notification with
 * CONTINUE; and secbpf's supervisor (lib/supervisor/, set up as `secbpf
 * run` sets it up) running a program that updates a hash map on every
 * notification. Single- and multi-threaded targets, paired rounds,
 * medians and ratios to the floor measured in the same round.
 * PROG is bench/notify_update.bpf.o or notify_count.bpf.o: a program with a
 * const volatile notified_nr (set here to getppid) and a hash map "calls"
 * whose values add up to the calls it saw, which the bench checks.
 *
 * usage: bench_notify PROG.bpf.o [-n ITERS] [-r ROUNDS] [-t THREADS]
 *                     [-w WORKERS] [-W THREADS] [-p same|free] [-c CPU] [-o CONFIG]
 *                     [-S] [-F]
 * Method and figures: bench/README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "install/attach.h"
#include "cbpf/cbpf.h"
#include "vm/maps.h"
#include "object/object.h"
#include "vm/runtime.h"
#include "supervisor/supervisor.h"
#include "bench_stats.h"

#if !defined(__x86_64__)
#error "bench_notify issues raw x86_64 syscalls"
#endif

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#define MAX_THREADS 16
#define MAX_ROUNDS 201

enum { CFG_NONE, CFG_FLOOR, CFG_SECBPF, CFG_COUNT };

static const char *const cfg_names[CFG_COUNT] = {
	"no filter",
	"floor (CONTINUE only)",
	"secbpf (PROG)",
};

/* What one measuring child reports. */
struct sample {
	double ns_per_call; /* mean over its threads of each thread's ns/call */
	double calls_per_s; /* all threads' calls over the wall time */
	long bad;	    /* calls that did not return getppid()'s value */
};

/* The settings of a run, fixed before the first round. */
struct bench {
	long iters;		    /* timed calls per thread */
	int threads[2];		    /* the thread counts compared */
	unsigned int workers;	    /* secbpf's worker threads */
	unsigned int floor_threads; /* the floor's */
	bool pin;		    /* everything on one CPU */
	bool sync_wake;		    /* SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP */
	const struct sock_filter *insns;
	size_t len;
	struct supervisor_prog prog; /* the secbpf configuration */
	long secbpf_calls;	     /* notified calls made under secbpf */
};

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_notify: %s: %s\n", what, why);
	exit(1);
}

static inline long raw_syscall0(long nr)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
	return ret;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: never notified */
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* --- The target ------------------------------------------------------------ */

struct target_thread {
	pthread_t thread;
	pthread_barrier_t *start;
	long iters;
	long expect; /* getppid() */
	double t0, t1;
	long bad;
};

static void *target_main(void *arg)
{
	struct target_thread *t = arg;
	long i, warm = t->iters / 10 + 100;

	for (i = 0; i < warm; i++)
		raw_syscall0(__NR_getppid);
	pthread_barrier_wait(t->start);
	t->t0 = now_ns();
	for (i = 0; i < t->iters; i++)
		t->bad += raw_syscall0(__NR_getppid) != t->expect;
	t->t1 = now_ns();
	return NULL;
}

/* Send fd over the unix socket sock (sendmsg is not notified). */
static void send_fd(int sock, int fd)
{
	char data = 'L', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	memset(cbuf, 0, sizeof(cbuf));
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		_exit(3);
}

static int recv_fd(int sock)
{
	char data, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	int fd;

	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		die("recvmsg", "the target sent no listener");
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		die("recvmsg", "no fd in the message");
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * The measuring child: install the filter (with the listener flags of
 * `secbpf run`) unless cfg is CFG_NONE, hand the listener to the parent,
 * wait for its go, then time nthreads threads making iters getppid each.
 * Only getppid is notified: the socket and thread calls stay in the kernel.
 */
static void target_child(const struct bench *b, int cfg, int nthreads, int sock, int out_fd)
{
	struct target_thread t[MAX_THREADS];
	struct secbpf_err err = { { 0 } };
	pthread_barrier_t start;
	struct sample s = { 0 };
	double first = 0, last = 0;
	long expect = getppid();
	char go;
	int i, fd;

	if (cfg != CFG_NONE) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(3);
		fd = attach_cbpf(b->insns, b->len, SUPERVISOR_LISTENER_FLAGS, &err);
		if (fd < 0) {
			fprintf(stderr, "bench_notify: attach: %s\n", err.msg);
			_exit(3);
		}
		send_fd(sock, fd);
		close(fd);
	} else {
		send_fd(sock, 0); /* anything: the parent ignores it */
	}
	if (read(sock, &go, 1) != 1)
		_exit(3);
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (i = 0; i < nthreads; i++) {
		t[i] = (struct target_thread){ .start = &start,
					       .iters = b->iters,
					       .expect = expect };
		if (pthread_create(&t[i].thread, NULL, target_main, &t[i]))
			_exit(3);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(t[i].thread, NULL);
		s.ns_per_call += (t[i].t1 - t[i].t0) / (double)b->iters / nthreads;
		s.bad += t[i].bad;
		if (i == 0 || t[i].t0 < first)
			first = t[i].t0;
		if (i == 0 || t[i].t1 > last)
			last = t[i].t1;
	}
	s.calls_per_s = (double)nthreads * (double)b->iters / ((last - first) / 1e9);
	if (write(out_fd, &s, sizeof(s)) != sizeof(s))
		_exit(3);
	_exit(0);
}

/* --- The floor: the least a supervisor can do ---------------------------- */

struct floor_sv {
	int listener;
	size_t req_size, resp_size;
	pthread_t threads[SUPERVISOR_MAX_WORKERS];
	unsigned int n;
};

static void *floor_main(void *arg)
{
	struct floor_sv *f = arg;
	struct seccomp_notif *req = calloc(1, f->req_size);
	struct seccomp_notif_resp *resp = calloc(1, f->resp_size);
	struct pollfd p = { .fd = f->listener, .events = POLLIN };

	if (!req || !resp)
		die("calloc", strerror(ENOMEM));
	for (;;) {
		memset(req, 0, f->req_size);
		if (ioctl(f->listener, SECCOMP_IOCTL_NOTIF_RECV, req)) {
			if (errno == EINTR)
				continue;
			if (errno == ENOENT) {
				if (poll(&p, 1, 0) == 1 && (p.revents & POLLHUP))
					break;
				continue;
			}
			die("SECCOMP_IOCTL_NOTIF_RECV", strerror(errno));
		}
		memset(resp, 0, f->resp_size);
		resp->id = req->id;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		if (ioctl(f->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) && errno != ENOENT)
			die("SECCOMP_IOCTL_NOTIF_SEND", strerror(errno));
	}
	free(req);
	free(resp);
	return NULL;
}

static void floor_start(struct floor_sv *f, int listener, unsigned int n)
{
	struct seccomp_notif_sizes sizes;
	unsigned int i;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes))
		die("SECCOMP_GET_NOTIF_SIZES", strerror(errno));
	f->listener = listener;
	f->req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif)
			      ? sizes.seccomp_notif
			      : sizeof(struct seccomp_notif);
	f->resp_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
			       ? sizes.seccomp_notif_resp
			       : sizeof(struct seccomp_notif_resp);
	f->n = n;
	for (i = 0; i < n; i++)
		if (pthread_create(&f->threads[i], NULL, floor_main, f))
			die("pthread_create", "floor supervisor");
}

static void floor_stop(struct floor_sv *f)
{
	unsigned int i;

	for (i = 0; i < f->n; i++)
		pthread_join(f->threads[i], NULL);
	close(f->listener);
}

/* --- One measurement ----------------------------------------------------- */

/* Time configuration cfg with nthreads target threads, in a fresh child. */
static struct sample measure(struct bench *b, int cfg, int nthreads)
{
	struct supervisor_opts opts = { .sz = sizeof(opts), .nworkers = b->workers };
	struct secbpf_err err = { { 0 } };
	struct supervisor *sv = NULL;
	struct floor_sv floor = { 0 };
	struct sample s;
	int sock[2], res[2], st, listener;
	uint64_t flags = b->sync_wake ? SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP : 0;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) || pipe2(res, O_CLOEXEC))
		die("socketpair/pipe", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork", strerror(errno));
	if (pid == 0) {
		close(sock[0]);
		close(res[0]);
		target_child(b, cfg, nthreads, sock[1], res[1]);
	}
	close(sock[1]);
	close(res[1]);
	listener = recv_fd(sock[0]);
	if (cfg == CFG_FLOOR) {
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags) && flags)
			die("SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP", strerror(errno));
		floor_start(&floor, listener, b->floor_threads);
	} else if (cfg == CFG_SECBPF) {
		sv = supervisor_new(listener, &b->prog, 1, &opts, &err);
		if (!sv || supervisor_start(sv, &err))
			die("supervisor", err.msg);
		/* supervisor_start sets SYNC_WAKE_UP; -S takes it back. */
		if (!flags && ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags))
			die("SECCOMP_IOCTL_NOTIF_SET_FLAGS", strerror(errno));
	} else {
		close(listener);
	}
	if (write(sock[0], "g", 1) != 1)
		die("write", strerror(errno));
	if (read(res[0], &s, sizeof(s)) != sizeof(s))
		die(cfg_names[cfg], "the measuring child failed");
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die(cfg_names[cfg], "the measuring child failed");
	close(sock[0]);
	close(res[0]);
	/* The child is reaped: the listener hangs up, the supervisors end. */
	if (cfg == CFG_FLOOR)
		floor_stop(&floor);
	if (sv) {
		if (supervisor_wait(sv))
			die("secbpf supervisor", "replies forced by supervisor failures");
		supervisor_free(sv);
		b->secbpf_calls += (long)nthreads * (b->iters + b->iters / 10 + 100);
	}
	return s;
}

/* --- Setup and report ------------------------------------------------------ */

static struct runtime *load(struct bench *b, const char *path, struct object **objp)
{
	struct cbpf_compile_opts copts = { .sz = sizeof(copts), .listener_guard = true };
	struct runtime_opts ropts = { .sz = sizeof(ropts), .ncpus = b->workers };
	struct secbpf_err err = { { 0 } };
	struct cbpf_prog cp = { 0 };
	struct object_prog *p;
	struct runtime *rt;
	struct object *obj;
	char nr[16];

	obj = object_open_file(path, &err);
	if (!obj)
		die(path, err.msg);
	snprintf(nr, sizeof(nr), "%d", __NR_getppid);
	if (object_set_var(obj, "notified_nr", nr, &err))
		die(path, err.msg);
	p = object_find_prog(obj, NULL, &err);
	if (!p)
		die(path, err.msg);
	if (cbpf_compile(obj, p, &copts, &cp, &err))
		die(path, err.msg);
	if (!cp.needs_supervisor)
		die(path, "the program does not need the supervisor");
	rt = runtime_new_opts(obj, p, &ropts, &err);
	if (!rt)
		die(path, err.msg);
	b->insns = cp.insns; /* kept for the whole run */
	b->len = cp.len;
	b->prog = (struct supervisor_prog){
		.insns = cp.insns, .len = cp.len, .rt = rt, .name = path
	};
	*objp = obj;
	return rt;
}

/* The sum of the program's per-thread counters. */
static long map_total(struct runtime *rt)
{
	struct map *m = runtime_map(rt, "calls");
	uint32_t key, next;
	uint64_t v;
	long total = 0;
	void *prev = NULL;

	if (!m)
		die("calls", "no such map");
	while (map_get_next_key(m, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (map_lookup_user(m, &key, &v) == 0)
			total += (long)v;
	}
	return total;
}

static void print_load(const char *when)
{
	char buf[128] = "?";
	FILE *f = fopen("/proc/loadavg", "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			strcpy(buf, "?\n");
		fclose(f);
	}
	printf("load average %s: %s", when, buf);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench_notify PROG.bpf.o [-n ITERS] [-r ROUNDS] [-t THREADS]\n"
		"                    [-w WORKERS] [-W THREADS] [-p same|free] [-c CPU] [-o "
		"CONFIG]\n"
		"                    [-S] [-F]\n"
		"  -n ITERS    notified calls per thread per timing (default 10000)\n"
		"  -r ROUNDS   rounds; medians are reported (default 31, at most %d)\n"
		"  -t THREADS  the multi-threaded target's threads (default 4)\n"
		"  -w WORKERS  secbpf's worker threads (default: what\n"
		"              secbpf run uses, supervisor_default_workers())\n"
		"  -W THREADS  the floor's threads (default 1: the least a supervisor is)\n"
		"  -p same     pin the targets and supervisors to one CPU (default)\n"
		"  -p free     no pinning: the scheduler places them\n"
		"  -c CPU      the CPU for -p same (default: the last one allowed)\n"
		"  -o CONFIG   time only CONFIG (floor or secbpf), e.g. under perf\n"
		"  -S          without SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP\n"
		"  -F          do not run at SCHED_FIFO (only -p same runs at it)\n",
		MAX_ROUNDS);
	exit(2);
}

int main(int argc, char **argv)
{
	static double ns[2][CFG_COUNT][MAX_ROUNDS], tput[2][CFG_COUNT][MAX_ROUNDS];
	struct bench b = { .iters = 10000, .threads = { 1, 4 }, .pin = true, .sync_wake = true };
	struct sched_param sp = { .sched_priority = 1 };
	struct object *obj;
	struct runtime *rt;
	bool fifo = true;
	int only = -1; /* -o: time one configuration alone (for profiling) */
	long bad[2][CFG_COUNT] = { { 0 } };
	int rounds = 31, cpu = -1, opt, r, c, k;
	cpu_set_t set;

	b.workers = supervisor_default_workers();
	b.floor_threads = 1;
	while ((opt = getopt(argc, argv, "n:r:t:w:W:p:c:o:SFh")) != -1) {
		switch (opt) {
		case 'n':
			b.iters = atol(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 't':
			b.threads[1] = atoi(optarg);
			break;
		case 'w':
			b.workers = (unsigned)atoi(optarg);
			break;
		case 'W':
			b.floor_threads = (unsigned)atoi(optarg);
			break;
		case 'p':
			if (!strcmp(optarg, "same"))
				b.pin = true;
			else if (!strcmp(optarg, "free"))
				b.pin = false;
			else
				usage();
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'o':
			only = !strcmp(optarg, "floor")	   ? CFG_FLOOR
			       : !strcmp(optarg, "secbpf") ? CFG_SECBPF
							   : -2;
			if (only < 0)
				usage();
			break;
		case 'S':
			b.sync_wake = false;
			break;
		case 'F':
			fifo = false;
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1 || b.iters <= 0 || rounds <= 0 || rounds > MAX_ROUNDS ||
	    b.threads[1] < 1 || b.threads[1] > MAX_THREADS || b.workers < 1 ||
	    b.workers > SUPERVISOR_MAX_WORKERS || b.floor_threads < 1 ||
	    b.floor_threads > SUPERVISOR_MAX_WORKERS)
		usage();
	rt = load(&b, argv[optind], &obj);

	if (b.pin) {
		if (cpu < 0) {
			if (sched_getaffinity(0, sizeof(set), &set))
				die("sched_getaffinity", strerror(errno));
			for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &set); cpu--)
				;
		}
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		/* Inherited by every child and thread: targets and supervisors
		 * all share this CPU. */
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity", strerror(errno));
	}
	/* Also inherited: other tasks on the CPU cannot preempt ours. Only
	 * when pinned: the kernel places a woken real-time task by its own
	 * rules, so SYNC_WAKE_UP (which the fair class honours) would have
	 * no effect unpinned. */
	fifo = fifo && b.pin;
	if (fifo && sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler(SCHED_FIFO) (run as root, or pass -F)", strerror(errno));

	print_load("before");
	if (b.pin)
		printf("placement: targets and supervisors pinned to CPU %d", cpu);
	else
		printf("placement: not pinned (%ld CPUs online)", sysconf(_SC_NPROCESSORS_ONLN));
	printf("%s; SYNC_WAKE_UP %s; supervisor threads: floor %u, secbpf %u; %ld calls "
	       "per thread per timing; %d rounds\n\n",
	       fifo ? ", SCHED_FIFO" : "", b.sync_wake ? "on" : "off", b.floor_threads, b.workers,
	       b.iters, rounds);

	/* Each round times every configuration once per thread count, each
	 * in a fresh child: drifts spread over all of them. */
	for (r = 0; r < rounds; r++)
		for (k = 0; k < 2; k++)
			for (c = 0; c < CFG_COUNT; c++) {
				struct sample s;

				if (only >= 0 && c != only) {
					/* Not timed: a ratio of 1 to itself. */
					ns[k][c][r] = tput[k][c][r] = 1;
					continue;
				}
				s = measure(&b, c, b.threads[k]);

				ns[k][c][r] = s.ns_per_call;
				tput[k][c][r] = s.calls_per_s;
				bad[k][c] += s.bad;
			}

	printf("%-8s %-24s %10s %12s %10s %10s %8s\n", "threads", "configuration", "ns/call",
	       "calls/s", "x floor", "tput/floor", "wrong");
	for (k = 0; k < 2; k++) {
		for (c = 0; c < CFG_COUNT; c++) {
			double lat_ratio[MAX_ROUNDS], tput_ratio[MAX_ROUNDS], lr, tr;

			/* Paired: the ratio to the floor in the same round. */
			for (r = 0; r < rounds; r++) {
				lat_ratio[r] = ns[k][c][r] / ns[k][CFG_FLOOR][r];
				tput_ratio[r] = tput[k][c][r] / tput[k][CFG_FLOOR][r];
			}
			lr = median(lat_ratio, rounds);
			tr = median(tput_ratio, rounds);
			printf("%-8d %-24s %10.1f %12.0f %10.3f %10.3f %8ld\n", b.threads[k],
			       cfg_names[c], median(ns[k][c], rounds), median(tput[k][c], rounds),
			       lr, tr, bad[k][c]);
		}
	}
	printf("\nns/call: per thread, mean over the threads; calls/s: all threads' calls\n"
	       "over the wall time; x floor and tput/floor: medians of the ratios to the\n"
	       "floor in the same round; wrong: calls that did not return getppid().\n");
	{
		long total = map_total(rt);

		printf("secbpf map total %ld, notified calls made %ld: %s\n", total, b.secbpf_calls,
		       total == b.secbpf_calls ? "exact" : "MISMATCH");
		if (total != b.secbpf_calls)
			return 1;
	}
	print_load("after");
	runtime_free(rt);
	free((void *)b.insns);
	object_free(obj);
	for (k = 0; k < 2; k++)
		for (c = 0; c < CFG_COUNT; c++)
			if (bad[k][c])
				return 1;
	return 0;
}
