// SPDX-License-Identifier: MIT
/*
 * Tests of lib/install/attach.c with real filters in real processes: each case
 * runs in a forked child (a filter cannot be removed) that reports the
 * first failed check through a shared page.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/proc_status.h"
#include "install/attach.h"
#include "common.h"

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "test_attach: unsupported architecture"
#endif

#define NNP_HINT "set no_new_privs with prctl(PR_SET_NO_NEW_PRIVS) or run with CAP_SYS_ADMIN"

/* The child's verdict: empty if every check passed. */
struct verdict {
	char msg[1024];
};

#define CHECK(v, cond, ...)                                                                        \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			int n_ = snprintf((v)->msg, sizeof((v)->msg), "line %d: %s: ", __LINE__,   \
					  #cond);                                                  \
			snprintf((v)->msg + n_, sizeof((v)->msg) - n_, __VA_ARGS__);               \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

/* Run fn in a forked child; assert that it returned 0. */
static void in_child(int (*fn)(struct verdict *))
{
	struct verdict *v;
	pid_t pid;
	int st;

	v = mmap(NULL, sizeof(*v), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(v, MAP_FAILED);
	memset(v, 0, sizeof(*v));
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(fn(v));
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "child killed by signal %d (%s)", WTERMSIG(st), v->msg);
	cr_assert_eq(WEXITSTATUS(st), 0, "%s", v->msg);
	munmap(v, sizeof(*v));
}

/*
 * A filter: a foreign arch is killed; syscall nr with args[0] == arg (any
 * args[0] if arg < 0) gets action; everything else is allowed. 10 slots.
 */
static size_t build_filter(struct sock_filter *f, int nr, long arg, uint32_t action)
{
	size_t n = 0;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	if (arg < 0) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1);
	} else {
		/* args[0] is a u64: both halves, little-endian. */
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 5);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						      offsetof(struct seccomp_data, args[0]));
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)arg, 0,
						      3);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						      offsetof(struct seccomp_data, args[0]) + 4);
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	return n;
}

/* errno of close(fd), 0 if it succeeded. */
static int close_errno(int fd)
{
	return close(fd) ? errno : 0;
}

/* Seccomp_filters from /proc/self/status: how many filters are installed. */
static int filter_count(void)
{
	uint64_t n;

	return proc_status_self_u64("Seccomp_filters", 10, &n) ? -1 : (int)n;
}

static int set_nnp(void)
{
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* --- no_new_privs and CAP_SYS_ADMIN ----------------------------------- */

static int nonroot_needs_nnp(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sock_filter f[16];
	size_t n = build_filter(f, __NR_close, 999, SECCOMP_RET_ERRNO | EPERM);
	int rc;

	/* Dropping every uid from 0 clears the capabilities. */
	CHECK(v, setgroups(0, NULL) == 0, "%s", strerror(errno));
	CHECK(v, setresgid(65534, 65534, 65534) == 0, "%s", strerror(errno));
	CHECK(v, setresuid(65534, 65534, 65534) == 0, "%s", strerror(errno));
	CHECK(v, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0, "no_new_privs already set");

	rc = attach_cbpf(f, n, 0, &err);
	CHECK(v, rc == -EACCES, "rc %d", rc);
	CHECK(v, strstr(err.msg, NNP_HINT), "message: %s", err.msg);
	CHECK(v, filter_count() == 0, "%d filters", filter_count());
	CHECK(v, close_errno(999) == EBADF, "not filtered yet");

	/* The library never sets no_new_privs itself. */
	CHECK(v, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0, "the library set no_new_privs");
	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	rc = attach_cbpf(f, n, 0, &err);
	CHECK(v, rc == 0, "rc %d: %s", rc, err.msg);
	CHECK(v, filter_count() == 1, "%d filters", filter_count());
	CHECK(v, close_errno(999) == EPERM, "close(999) not denied");
	CHECK(v, close_errno(111) == EBADF, "close(111) changed");
	return 0;
}

Test(attach, nonroot_without_no_new_privs_fails_with_clear_error)
{
	if (geteuid() != 0)
		test_skip_unless_ci("needs root to drop to uid 65534");
	in_child(nonroot_needs_nnp);
}

static int root_without_nnp(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sock_filter f[16];
	size_t n = build_filter(f, __NR_close, 999, SECCOMP_RET_ERRNO | EPERM);
	int rc;

	CHECK(v, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0, "no_new_privs already set");
	rc = attach_cbpf(f, n, 0, &err);
	CHECK(v, rc == 0, "rc %d: %s", rc, err.msg);
	CHECK(v, close_errno(999) == EPERM, "close(999) not denied");
	return 0;
}

Test(attach, cap_sys_admin_without_no_new_privs_succeeds)
{
	if (geteuid() != 0)
		test_skip_unless_ci("needs CAP_SYS_ADMIN");
	in_child(root_without_nnp);
}

/* --- checks before the kernel ----------------------------------------- */

static int rejects_before_kernel(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sock_filter f[16];
	struct sock_filter big[CBPF_MAX_INSNS + 1];
	size_t n;
	int rc;

	CHECK(v, set_nnp() == 0, "%s", strerror(errno));

	/* An unaligned load: the kernel's checker would refuse it too. */
	n = build_filter(f, __NR_close, 999, SECCOMP_RET_ERRNO | EPERM);
	f[5].k = offsetof(struct seccomp_data, args[0]) + 1;
	err.msg[0] = '\0';
	rc = attach_cbpf(f, n, 0, &err);
	CHECK(v, rc == -EINVAL, "rc %d", rc);
	CHECK(v, err.msg[0], "no message");

	/* The last instruction is not a RET. */
	n = build_filter(f, __NR_close, 999, SECCOMP_RET_ERRNO | EPERM);
	f[n - 1] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	err.msg[0] = '\0';
	rc = attach_cbpf(f, n, 0, &err);
	CHECK(v, rc == -EINVAL, "rc %d", rc);
	CHECK(v, err.msg[0], "no message");

	/* Lengths the kernel refuses; one that would truncate to 1 in
	 * sock_fprog.len must not reach it as a one-instruction filter. */
	rc = attach_cbpf(f, 0, 0, &err);
	CHECK(v, rc == -EINVAL, "rc %d", rc);
	memset(big, 0, sizeof(big));
	big[0] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	rc = attach_cbpf(big, CBPF_MAX_INSNS + 1, 0, &err);
	CHECK(v, rc == -EINVAL, "rc %d", rc);
	rc = attach_cbpf(big, 65537, 0, &err);
	CHECK(v, rc == -EINVAL, "rc %d", rc);

	CHECK(v, filter_count() == 0, "%d filters reached the kernel", filter_count());
	return 0;
}

Test(attach, cbpf_check_rejects_before_the_kernel)
{
	in_child(rejects_before_kernel);
}

static int user_notif_needs_listener(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sock_filter f[16];
	char path[64], link[128];
	ssize_t len;
	size_t n = build_filter(f, __NR_close, 111, SECCOMP_RET_USER_NOTIF);
	int rc;

	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	rc = attach_cbpf(f, n, 0, &err);
	CHECK(v, rc == -EINVAL, "rc %d", rc);
	CHECK(v, strstr(err.msg, "USER_NOTIF"), "message: %s", err.msg);
	CHECK(v, filter_count() == 0, "%d filters", filter_count());

	rc = attach_cbpf(f, n, SECCOMP_FILTER_FLAG_NEW_LISTENER, &err);
	CHECK(v, rc >= 0, "rc %d: %s", rc, err.msg);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", rc);
	len = readlink(path, link, sizeof(link) - 1);
	CHECK(v, len > 0, "%s", strerror(errno));
	link[len] = '\0';
	CHECK(v, strstr(link, "seccomp notify"), "fd %d is %s", rc, link);
	CHECK(v, fcntl(rc, F_GETFD) & FD_CLOEXEC, "listener not close-on-exec");

	/* A second listener in the same process: EBUSY, explained. */
	rc = attach_cbpf(f, n, SECCOMP_FILTER_FLAG_NEW_LISTENER, &err);
	CHECK(v, rc == -EBUSY, "rc %d", rc);
	CHECK(v, strstr(err.msg, "listener"), "message: %s", err.msg);
	return 0;
}

Test(attach, user_notif_needs_a_listener)
{
	in_child(user_notif_needs_listener);
}

static int flag_rules(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sock_filter f[16];
	size_t n = build_filter(f, __NR_close, 999, SECCOMP_RET_ERRNO | EPERM);
	int rc;

	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	rc = attach_cbpf(f, n, 1u << 20, &err);
	CHECK(v, rc == -EINVAL && strstr(err.msg, "unknown"), "rc %d: %s", rc, err.msg);
	rc = attach_cbpf(f, n, SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_NEW_LISTENER, &err);
	CHECK(v, rc == -EINVAL && strstr(err.msg, "TSYNC_ESRCH"), "rc %d: %s", rc, err.msg);
	rc = attach_cbpf(f, n, SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &err);
	CHECK(v, rc == -EINVAL && strstr(err.msg, "NEW_LISTENER"), "rc %d: %s", rc, err.msg);
	rc = attach_cbpf(f, n, SECCOMP_FILTER_FLAG_TSYNC_ESRCH, &err);
	CHECK(v, rc == -EINVAL, "rc %d: %s", rc, err.msg);
	CHECK(v, filter_count() == 0, "%d filters", filter_count());

	rc = attach_cbpf(f, n, SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW, &err);
	CHECK(v, rc == 0, "rc %d: %s", rc, err.msg);
	rc = attach_cbpf(f, n,
			 SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH |
				 SECCOMP_FILTER_FLAG_NEW_LISTENER |
				 SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
			 &err);
	CHECK(v, rc > 0, "rc %d: %s", rc, err.msg);
	CHECK(v, filter_count() == 2, "%d filters", filter_count());
	CHECK(v, close_errno(999) == EPERM, "close(999) not denied");
	return 0;
}

Test(attach, flag_combinations_follow_the_kernel)
{
	in_child(flag_rules);
}

/*
 * A kernel older than a flag answers EINVAL: here a filter makes seccomp()
 * answer so. The message names the newest flag asked for and the Linux
 * version it needs (the supervisor's WAIT_KILLABLE_RECV: 5.19).
 */
static int old_kernel_named(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sock_filter old[16], f[16];
	size_t nold = build_filter(old, __NR_seccomp, SECCOMP_SET_MODE_FILTER,
				   SECCOMP_RET_ERRNO | EINVAL);
	size_t n = build_filter(f, __NR_close, 999, SECCOMP_RET_ERRNO | EPERM);
	int rc;

	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	rc = attach_cbpf(old, nold, 0, &err);
	CHECK(v, rc == 0, "rc %d: %s", rc, err.msg);
	rc = attach_cbpf(f, n,
			 SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
			 &err);
	CHECK(v, rc == -EINVAL, "rc %d: %s", rc, err.msg);
	CHECK(v,
	      strstr(err.msg, "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs Linux 5.19 or later"),
	      "message: %s", err.msg);
	rc = attach_cbpf(f, n, SECCOMP_FILTER_FLAG_NEW_LISTENER, &err);
	CHECK(v, rc == -EINVAL && strstr(err.msg, "NEW_LISTENER needs Linux 5.0 or later"),
	      "rc %d: %s", rc, err.msg);
	rc = attach_cbpf(f, n, 0, &err);
	CHECK(v, rc == -EINVAL && strstr(err.msg, "not built in"), "rc %d: %s", rc, err.msg);
	CHECK(v, filter_count() == 1, "%d filters", filter_count());
	return 0;
}

Test(attach, a_kernel_without_a_flag_is_named_by_the_version_it_needs)
{
	in_child(old_kernel_named);
}

/* --- TSYNC -------------------------------------------------------------- */

struct tsync_thread {
	pthread_barrier_t ready, done;
	bool own_filter; /* install a filter of its own first */
	int own_rc;
	int close_errno;
};

static void *tsync_thread_main(void *arg)
{
	struct tsync_thread *t = arg;
	struct secbpf_err err;
	struct sock_filter f[16];
	size_t n = build_filter(f, __NR_close, 111, SECCOMP_RET_ERRNO | ENOENT);

	if (t->own_filter)
		t->own_rc = attach_cbpf(f, n, 0, &err);
	pthread_barrier_wait(&t->ready);
	/* The main thread attaches now. */
	pthread_barrier_wait(&t->done);
	t->close_errno = close_errno(999);
	return NULL;
}

/* Attach with flags while a second thread is alive; return the rc and the
 * errno the thread got from close(999) afterwards. */
static int attach_with_thread(bool thread_filter, unsigned int flags, int *thread_errno,
			      struct secbpf_err *err)
{
	struct tsync_thread t = { .own_filter = thread_filter };
	struct sock_filter f[16];
	size_t n = build_filter(f, __NR_close, 999, SECCOMP_RET_ERRNO | EPERM);
	pthread_t th;
	int rc;

	pthread_barrier_init(&t.ready, NULL, 2);
	pthread_barrier_init(&t.done, NULL, 2);
	if (pthread_create(&th, NULL, tsync_thread_main, &t))
		return -1000;
	pthread_barrier_wait(&t.ready);
	rc = attach_cbpf(f, n, flags, err);
	pthread_barrier_wait(&t.done);
	pthread_join(th, NULL);
	*thread_errno = t.close_errno;
	return rc;
}

static int tsync_reaches_threads(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	int rc, te;

	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	rc = attach_with_thread(false, 0, &te, &err);
	CHECK(v, rc == 0, "rc %d: %s", rc, err.msg);
	CHECK(v, te == EBADF, "without TSYNC the other thread got %d", te);

	rc = attach_with_thread(false, SECCOMP_FILTER_FLAG_TSYNC, &te, &err);
	CHECK(v, rc == 0, "rc %d: %s", rc, err.msg);
	CHECK(v, te == EPERM, "with TSYNC the other thread got %d", te);
	return 0;
}

Test(attach, tsync_filters_every_thread)
{
	in_child(tsync_reaches_threads);
}

static int tsync_diverged_thread(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	int rc, te;

	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	/* The kernel answers with the thread's TID: reported as -ESRCH. */
	rc = attach_with_thread(true, SECCOMP_FILTER_FLAG_TSYNC, &te, &err);
	CHECK(v, rc == -ESRCH, "rc %d", rc);
	CHECK(v, strstr(err.msg, "cannot be synchronized"), "message: %s", err.msg);
	CHECK(v, filter_count() == 0, "%d filters", filter_count());
	CHECK(v, te == EBADF, "the thread got %d", te);

	rc = attach_with_thread(true, SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH,
				&te, &err);
	CHECK(v, rc == -ESRCH, "rc %d", rc);
	CHECK(v, strstr(err.msg, "synchronize"), "message: %s", err.msg);
	CHECK(v, filter_count() == 0, "%d filters", filter_count());
	return 0;
}

Test(attach, tsync_fails_on_a_thread_with_its_own_filter)
{
	in_child(tsync_diverged_thread);
}

/* --- stacking ----------------------------------------------------------- */

/* si_code of a SIGSYS sent by a seccomp TRAP (not in every libc's headers). */
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1
#endif

static volatile sig_atomic_t sigsys_seen;

static void on_sigsys(int sig, siginfo_t *info, void *uc)
{
	if (info->si_code == SYS_SECCOMP)
		sigsys_seen = 1;
}

/* A plain cBPF filter from libseccomp: close(111) and close(999) get
 * EACCES, close(222) gets EACCES, the rest is allowed. */
static int load_libseccomp_filter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (!ctx)
		return -ENOMEM;
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(close), 1,
			      SCMP_A0(SCMP_CMP_EQ, 111));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(close), 1,
				      SCMP_A0(SCMP_CMP_EQ, 999));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(close), 1,
				      SCMP_A0(SCMP_CMP_EQ, 222));
	if (!rc)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc;
}

/* Ours: close(111) ERRNO(EPERM), close(222) TRAP, close(999) allowed. */
static int attach_ours(struct secbpf_err *err)
{
	struct sock_fprog progs[2];
	struct sock_filter a[16], b[16];

	progs[0].len = build_filter(a, __NR_close, 111, SECCOMP_RET_ERRNO | EPERM);
	progs[0].filter = a;
	progs[1].len = build_filter(b, __NR_close, 222, SECCOMP_RET_TRAP | 7);
	progs[1].filter = b;
	return attach_cbpf_many(progs, 2, 0, err);
}

static int stack_libseccomp_then_ours(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
	int rc;

	CHECK(v, sigaction(SIGSYS, &sa, NULL) == 0, "%s", strerror(errno));
	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	rc = load_libseccomp_filter();
	CHECK(v, rc == 0, "libseccomp: %s", strerror(-rc));
	rc = attach_ours(&err);
	CHECK(v, rc == 0, "rc %d: %s", rc, err.msg);
	CHECK(v, filter_count() == 3, "%d filters", filter_count());

	/* Same action (ERRNO) in both: the newest filter, ours, decides. */
	CHECK(v, close_errno(111) == EPERM, "close(111) got %d", close_errno(111));
	/* ERRNO outranks ALLOW whichever filter says it. */
	CHECK(v, close_errno(999) == EACCES, "close(999) got %d", close_errno(999));
	/* TRAP outranks ERRNO. */
	sigsys_seen = 0;
	syscall(__NR_close, 222);
	CHECK(v, sigsys_seen, "close(222) did not trap");
	CHECK(v, close_errno(333) == EBADF, "close(333) changed");
	return 0;
}

Test(attach, stacks_after_a_libseccomp_filter_with_the_kernel_precedence)
{
	in_child(stack_libseccomp_then_ours);
}

static int stack_ours_then_libseccomp(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
	int rc;

	CHECK(v, sigaction(SIGSYS, &sa, NULL) == 0, "%s", strerror(errno));
	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	rc = attach_ours(&err);
	CHECK(v, rc == 0, "rc %d: %s", rc, err.msg);
	rc = load_libseccomp_filter();
	CHECK(v, rc == 0, "libseccomp: %s", strerror(-rc));

	/* Now libseccomp's filter is the newest: it wins the ERRNO tie. */
	CHECK(v, close_errno(111) == EACCES, "close(111) got %d", close_errno(111));
	CHECK(v, close_errno(999) == EACCES, "close(999) got %d", close_errno(999));
	sigsys_seen = 0;
	syscall(__NR_close, 222);
	CHECK(v, sigsys_seen, "close(222) did not trap");
	return 0;
}

Test(attach, stacks_before_a_libseccomp_filter_with_the_kernel_precedence)
{
	in_child(stack_ours_then_libseccomp);
}

static int kill_wins(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sock_fprog progs[2];
	struct sock_filter a[16], b[16];
	pid_t pid;
	int rc, st;

	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	pid = fork();
	CHECK(v, pid >= 0, "%s", strerror(errno));
	if (pid == 0) {
		/* KILL_PROCESS first, ERRNO last: the kill still wins. */
		progs[0].len = build_filter(a, __NR_close, 999, SECCOMP_RET_KILL_PROCESS);
		progs[0].filter = a;
		progs[1].len = build_filter(b, __NR_close, 999, SECCOMP_RET_ERRNO | EPERM);
		progs[1].filter = b;
		rc = attach_cbpf_many(progs, 2, 0, &err);
		if (rc)
			_exit(2);
		close(999);
		_exit(3);
	}
	CHECK(v, waitpid(pid, &st, 0) == pid, "%s", strerror(errno));
	CHECK(v, WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "status 0x%x", st);
	return 0;
}

Test(attach, kill_process_outranks_a_later_errno)
{
	in_child(kill_wins);
}

static int many_in_order(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sock_fprog progs[2];
	struct sock_filter a[16], b[16];
	int rc;

	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	progs[0].len = build_filter(a, __NR_close, 111, SECCOMP_RET_ERRNO | EACCES);
	progs[0].filter = a;
	progs[1].len = build_filter(b, __NR_close, 111, SECCOMP_RET_ERRNO | ENOENT);
	progs[1].filter = b;
	rc = attach_cbpf_many(progs, 2, 0, &err);
	CHECK(v, rc == 0, "rc %d: %s", rc, err.msg);
	CHECK(v, close_errno(111) == ENOENT, "the last installed lost the tie: %d",
	      close_errno(111));

	/* One listener per call at most. */
	rc = attach_cbpf_many(progs, 2, SECCOMP_FILTER_FLAG_NEW_LISTENER, &err);
	CHECK(v, rc == -EINVAL, "rc %d", rc);
	CHECK(v, filter_count() == 2, "%d filters", filter_count());
	return 0;
}

Test(attach, many_installs_in_order_the_last_wins_ties)
{
	in_child(many_in_order);
}

static int many_checks_all_first(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sock_fprog progs[2];
	struct sock_filter a[16], b[16];
	int rc;

	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	progs[0].len = build_filter(a, __NR_close, 111, SECCOMP_RET_ERRNO | EACCES);
	progs[0].filter = a;
	progs[1].len = build_filter(b, __NR_close, 111, SECCOMP_RET_ERRNO | ENOENT);
	progs[1].filter = b;
	b[progs[1].len - 1].code = BPF_LD | BPF_W | BPF_ABS; /* no final RET */
	rc = attach_cbpf_many(progs, 2, 0, &err);
	CHECK(v, rc == -EINVAL, "rc %d", rc);
	CHECK(v, strstr(err.msg, "filter 2 of 2"), "message: %s", err.msg);
	CHECK(v, filter_count() == 0, "%d filters: the first went in", filter_count());
	return 0;
}

Test(attach, many_checks_every_filter_before_installing_any)
{
	in_child(many_checks_all_first);
}

/* The kernel's limit on one path through the stack: 32768 instructions,
 * counting 4 more per filter. Seven filters of 4096 fit, the eighth not. */
static int path_limit(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct sock_fprog progs[8];
	struct sock_filter *f;
	size_t i;
	int rc;

	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	f = calloc(CBPF_MAX_INSNS, sizeof(*f));
	CHECK(v, f, "out of memory");
	for (i = 0; i < CBPF_MAX_INSNS - 1; i++)
		f[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	f[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	for (i = 0; i < 8; i++) {
		progs[i].len = CBPF_MAX_INSNS;
		progs[i].filter = f;
	}
	rc = attach_cbpf_many(progs, 8, 0, &err);
	CHECK(v, rc == -ENOMEM, "rc %d: %s", rc, err.msg);
	CHECK(v, strstr(err.msg, "filter 8 of 8") && strstr(err.msg, "7 before it stay installed"),
	      "message: %s", err.msg);
	CHECK(v, strstr(err.msg, "32768"), "message: %s", err.msg);
	CHECK(v, filter_count() == 7, "%d filters", filter_count());
	return 0;
}

Test(attach, the_path_limit_is_explained)
{
	in_child(path_limit);
}

/* --- attach_program (needs the compiler) -------------------------------- */

static char obj_path[4096];

static int program_stateless(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj;
	struct object_prog *prog;
	int rc;

	obj = object_open_file(obj_path, &err);
	CHECK(v, obj, "%s", err.msg);
	prog = object_find_prog(obj, NULL, &err);
	CHECK(v, prog, "%s", err.msg);

	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	rc = attach_program(obj, prog, 0, &err);
	object_free(obj);
	CHECK(v, rc == 0, "rc %d: %s", rc, err.msg);
	CHECK(v, close_errno(999) == EPERM, "close(999) got %d", close_errno(999));
	CHECK(v, close_errno(111) == EBADF, "close(111) got %d", close_errno(111));
	return 0;
}

Test(attach, attach_program_installs_the_seed_sample)
{
	test_sample_path(obj_path, sizeof(obj_path), "seed_close");
	in_child(program_stateless);
}

static int program_stateful(struct verdict *v)
{
	struct secbpf_err err = { { 0 } };
	struct object *obj;
	struct object_prog *prog;
	int rc;

	obj = object_open_file(obj_path, &err);
	CHECK(v, obj, "%s", err.msg);
	prog = object_find_prog(obj, NULL, &err);
	CHECK(v, prog, "%s", err.msg);
	CHECK(v, set_nnp() == 0, "%s", strerror(errno));
	rc = attach_program(obj, prog, 0, &err);
	object_free(obj);
	CHECK(v, rc == -EOPNOTSUPP, "rc %d: %s", rc, err.msg);
	CHECK(v,
	      strstr(err.msg, "stateful paths (maps or helpers)") &&
		      strstr(err.msg, "use secbpf_attach()"),
	      "message: %s", err.msg);
	CHECK(v, filter_count() == 0, "%d filters", filter_count());
	return 0;
}

Test(attach, attach_program_refuses_a_filter_that_needs_the_supervisor)
{
	char dir[] = "/tmp/test_attach-XXXXXX", cmd[16384];
	const char *src;

	cr_assert_not_null(mkdtemp(dir));
	src = test_write_filter(dir, "count_closes", test_count_closes_body);
	snprintf(obj_path, sizeof(obj_path), "%s/count_closes.o", dir);
	/* This test is about attach, not cc: leak checks of `secbpf cc` in a
	 * sanitizer build are test_cli's business. */
	snprintf(cmd, sizeof(cmd), "ASAN_OPTIONS=detect_leaks=0 '%s' cc '%s' -o '%s'",
		 getenv("SECBPF"), src, obj_path);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	in_child(program_stateful);
	unlink(src);
	unlink(obj_path);
	rmdir(dir);
}
