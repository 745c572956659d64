// SPDX-License-Identifier: MIT
/*
 * The target of tests/test_supervisor_race.c, run under its filter in a pid
 * namespace with a small pid_max: callers make notified syscalls and die
 * (exit or exec) while the supervisor reads them; decoys recycle the TIDs.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Kept in step with the filter in tests/test_supervisor_race.c. */
#define RACE_ADDR 0x5ace0000UL /* getppid(RACE_ADDR): read by the filter */
#define QUERY_MAGIC 0x5ecb     /* getppid(QUERY_MAGIC, i, k): counter i, bits 10k.. */
#define GENUINE 0x6e75696e65ULL
#define MARKER 0xdec0de5decULL
#define NCOUNTERS 6
#define MAX_FILLERS 4096 /* more than the test's pid_max */
#define FREE_PIDS 16	 /* TIDs left for the callers and decoys */

/* What a caller's RACE_ADDR holds; a decoy's holds MARKER. */
struct record {
	uint64_t tag;
	uint64_t tgid;
	uint64_t nonce;
};

/* Replies live callers saw, shared by the driver and its callers. */
struct replies {
	long genuine; /* ERRNO(EXDEV): the filter read this caller */
	long enosys;  /* the supervisor failed closed */
	long allowed; /* the syscall ran: never expected */
	long other;   /* any other errno (the filter's error codes) */
};

static struct replies *replies;

static void place_record(uint64_t tag, uint64_t nonce)
{
	struct record *r = mmap((void *)RACE_ADDR, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (r == MAP_FAILED) {
		perror("mmap");
		_exit(2);
	}
	r->tag = tag;
	r->tgid = (uint64_t)getpid();
	r->nonce = nonce;
}

static void *call_loop(void *arg)
{
	long rc;

	(void)arg;
	for (;;) {
		rc = syscall(SYS_getppid, RACE_ADDR);
		if (rc >= 0)
			__atomic_fetch_add(&replies->allowed, 1, __ATOMIC_RELAXED);
		else if (errno == EXDEV)
			__atomic_fetch_add(&replies->genuine, 1, __ATOMIC_RELAXED);
		else if (errno == ENOSYS)
			__atomic_fetch_add(&replies->enosys, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&replies->other, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void spin_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* A decoy: MARKER where callers keep their record, for a moment. */
static void decoy(void)
{
	place_record(MARKER, 0);
	spin_us(200);
	_exit(0);
}

/*
 * A caller: two threads in the notified syscall while the main thread
 * ends the process after a few microseconds, by exit or by exec of a decoy
 * (which kills the threads and puts MARKER at RACE_ADDR in the same TGID).
 */
static void caller(const char *self, bool by_exec, unsigned int delay_us)
{
	pthread_t t;
	uint64_t nonce = 0;
	int i;

	while (nonce == 0)
		if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
			_exit(2);
	place_record(GENUINE, nonce);
	for (i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, call_loop, NULL))
			_exit(0); /* out of TIDs: a small pid_max */
	spin_us(delay_us);
	if (by_exec)
		execl(self, self, "decoy", (char *)NULL);
	_exit(0);
}

static pid_t fork_retrying(void)
{
	pid_t pid;

	while ((pid = fork()) < 0 && errno == EAGAIN)
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	return pid;
}

/*
 * Take every free TID with sleeping children, then free `spare` of them:
 * the TID of a caller that dies is then the next one or two forks get.
 * Returns the number of fillers left.
 */
static int fill_pid_space(pid_t *fillers, int max, int spare)
{
	int n = 0;
	pid_t pid;

	while (n < max) {
		pid = fork();
		if (pid < 0)
			break;
		if (pid == 0) {
			pause();
			_exit(0);
		}
		fillers[n++] = pid;
	}
	while (spare-- > 0 && n > 0) {
		kill(fillers[--n], SIGKILL);
		waitpid(fillers[n], NULL, 0);
	}
	return n;
}

/* A counter of the filter, read 10 bits at a time through errnos. */
static long long query(long i)
{
	long long v = 0;
	long k, rc;

	for (k = 0; k < 4; k++) {
		rc = syscall(SYS_getppid, QUERY_MAGIC, i, k);
		if (rc != -1 || errno < 1 || errno > 1024)
			return -1;
		v |= (long long)(errno - 1) << (10 * k);
	}
	return v;
}

/* The driver: callers and decoys for secs seconds, then the counts. */
static int drive(const char *self, double secs)
{
	static const char *const names[NCOUNTERS] = { "filter_genuine",	 "filter_marker",
						       "filter_tgid_mismatch", "filter_stale_state",
						       "filter_bad_tag",	 "filter_read_failed" };
	static pid_t fillers[MAX_FILLERS];
	struct timespec start, now;
	long rounds = 0, wraps = 0;
	int nfillers;
	pid_t pid, last = 0;
	int i;

	replies = mmap(NULL, sizeof(*replies), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (replies == MAP_FAILED)
		return 2;
	nfillers = fill_pid_space(fillers, MAX_FILLERS, FREE_PIDS);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		pid = fork_retrying();
		if (pid == 0)
			caller(self, rounds % 2, (unsigned int)(rounds * 37 % 300));
		if (pid > 0 && pid < last)
			wraps++;
		if (pid > 0)
			last = pid;
		for (i = 0; i < 4; i++) {
			pid = fork_retrying();
			if (pid == 0)
				decoy();
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec + (now.tv_nsec - start.tv_nsec) / 1e9 < secs);
	for (i = 0; i < nfillers; i++)
		kill(fillers[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	printf("rounds=%ld\npid_wraps=%ld\nfillers=%d\n", rounds, wraps, nfillers);
	printf("reply_genuine=%ld\nreply_enosys=%ld\nreply_allowed=%ld\nreply_other=%ld\n",
	       replies->genuine, replies->enosys, replies->allowed, replies->other);
	for (i = 0; i < NCOUNTERS; i++)
		printf("%s=%lld\n", names[i], query(i));
	return 0;
}

/*
 * One caller gets task storage and exits while every TID is taken (its
 * zombie, not reaped yet, keeps its own): the supervisor frees that
 * storage then, and must not need a new thread to do it.
 */
static int exhaust(void)
{
	static pid_t fillers[MAX_FILLERS];
	int i, nfillers, ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		return 2;
	pid = fork();
	if (pid == 0) {
		place_record(GENUINE, 1);
		syscall(SYS_getppid, RACE_ADDR);
		if (read(ready[0], &c, 1) != 1)
			_exit(2);
		_exit(0);
	}
	nfillers = fill_pid_space(fillers, MAX_FILLERS, 0);
	if (write(ready[1], "x", 1) != 1)
		return 2;
	usleep(500000); /* the supervisor sees the exit and frees the storage */
	for (i = 0; i < nfillers; i++)
		kill(fillers[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	printf("fillers=%d\nfilter_genuine=%lld\n", nfillers, query(0));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "exhaust"))
		return exhaust();
	if (argc == 3 && !strcmp(argv[1], "drive"))
		return drive(argv[0], atof(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "decoy"))
		decoy();
	fprintf(stderr, "usage: %s drive SECONDS | exhaust | decoy\n", argv[0]);
	return 2;
}
