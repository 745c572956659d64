// SPDX-License-Identifier: MIT
/*
 * secbpf_attach() (lib/api/api_attach.c, lib/supervisor/supervisor_spawn.c,
 * tools/secbpf_supervisor.c): real processes attach real filters to
 * themselves, stateless and stateful, single- and multi-threaded, and the
 * failure paths leave them either unfiltered (nothing installed) or fail
 * closed.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "secbpf.h"

/* Failures inside the child: its exit status names the step. */
#define CHECK(cond, step)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "child: step %d failed: %s (errno %d)\n", step, #cond,    \
				errno);                                                            \
			_exit(step);                                                               \
		}                                                                                  \
	} while (0)

static char sample_path[4096];

static const char *sample(const char *name)
{
	const char *b = getenv("SECBPF_BUILD_DIR");

	cr_assert(b, "SECBPF_BUILD_DIR is not set (run through meson test)");
	snprintf(sample_path, sizeof(sample_path), "%s/samples/%s.bpf.o", b, name);
	return sample_path;
}

/* Run fn in a child (it exits 0 on success, the failed step otherwise). */
static int in_child(void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		return 1000 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static struct secbpf_program *open_prog(const char *name, struct secbpf_object **obj)
{
	*obj = secbpf_object__open_file(sample(name), NULL);
	if (!*obj)
		return NULL;
	return secbpf_object__find_program(*obj, NULL);
}

/* A raw syscall's error, or 0: no libc wrapper in the way. */
static int sys_err(long rc)
{
	return rc < 0 ? errno : 0;
}

/* How many fds of ours are seccomp listeners: must stay 0, the filtered
 * process never holds its own listener. */
static int own_listeners(void)
{
	char path[300], target[256];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;
	ssize_t len;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strstr(target, "seccomp notify"))
			n++;
	}
	closedir(dir);
	return n;
}

/* Seccomp: line of /proc/self/status (0 none, 2 filter). */
static int seccomp_mode(void)
{
	char line[256];
	int mode = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	fclose(f);
	return mode;
}

static int listen_err(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0), e;

	if (s < 0)
		return -1;
	e = sys_err(syscall(SYS_listen, s, 1));
	close(s);
	return e;
}

/* ---------------------------------------------------------- stateless */

static void stateless_child(void *arg)
{
	struct secbpf_attach_opts o = { .sz = sizeof(o) };
	struct secbpf_object *obj;
	struct secbpf_program *p = open_prog("seed_close", &obj);

	CHECK(p, 2);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 3);
	CHECK(secbpf_program__attach(p, &o) == 0, 4);
	CHECK(seccomp_mode() == 2, 5);
	CHECK(sys_err(syscall(SYS_close, 999)) == EPERM, 6);
	CHECK(sys_err(syscall(SYS_close, 998)) == EBADF, 7);
	/* No supervisor for a stateless program: nothing notified. */
	CHECK(own_listeners() == 0, 8);
	secbpf_object__close(obj);
}

Test(api_attach, a_stateless_program_runs_in_the_kernel)
{
	cr_assert_eq(in_child(stateless_child, NULL), 0);
}

static void no_nnp_child(void *arg)
{
	struct secbpf_object *obj;
	struct secbpf_program *p = open_prog("seed_close", &obj);

	CHECK(p, 2);
	/* Drop CAP_SYS_ADMIN from the effective set: no_new_privs is then
	 * what the kernel asks for. */
	{
		struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

		memset(data, 0, sizeof(data));
		CHECK(syscall(SYS_capget, &hdr, data) == 0, 4);
		data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
		CHECK(syscall(SYS_capset, &hdr, data) == 0, 5);
	}
	CHECK(secbpf_program__attach(p, NULL) == -EACCES, 6);
	CHECK(strstr(secbpf_object__last_error(obj), "no_new_privs"), 7);
	CHECK(seccomp_mode() == 0, 8);
	secbpf_object__close(obj);
}

Test(api_attach, without_no_new_privs_nothing_is_installed)
{
	cr_assert_eq(in_child(no_nnp_child, NULL), 0);
}

/* ----------------------------------------------------------- stateful */

struct lockdown {
	unsigned long marker;
	bool tsync;
	struct secbpf_object *obj;
};

static struct secbpf_program *lockdown_prog(struct lockdown *l)
{
	struct secbpf_program *p = open_prog("startup_lockdown", &l->obj);
	char value[32];

	if (!p)
		return NULL;
	snprintf(value, sizeof(value), "%lu", l->marker);
	if (secbpf_object__set_var(l->obj, "startup_marker", value))
		return NULL;
	return p;
}

static void stateful_child(void *arg)
{
	struct lockdown *l = arg;
	struct secbpf_attach_opts o = { .sz = sizeof(o) };
	struct secbpf_program *p = lockdown_prog(l);

	CHECK(p, 2);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 3);
	CHECK(secbpf_program__attach(p, &o) == 0, 4);
	CHECK(own_listeners() == 0, 5);
	CHECK(listen_err() == 0, 6);
	/* The default marker is not ours: the --set reached the supervisor. */
	CHECK(sys_err(syscall(SYS_close, 0x5ecb0d0e)) == EBADF, 7);
	CHECK(listen_err() == 0, 8);
	CHECK(sys_err(syscall(SYS_close, l->marker)) == EBADF, 9);
	CHECK(listen_err() == EPERM, 10);
	CHECK(sys_err(syscall(SYS_execve, "/bin/true", NULL, NULL)) == EPERM, 11);
	/* A second stateful attach: its supervisor starts before anything
	 * is installed, and the lockdown denies its execve (with a filter
	 * that let it start, the kernel would refuse a second listener in
	 * this tree with EBUSY). */
	CHECK(secbpf_program__attach(p, &o) == -EPERM, 12);
	CHECK(strstr(secbpf_object__last_error(l->obj), "nothing was installed"), 13);
	/* The guard: no listener of our own either, even by hand. */
	{
		struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		struct sock_fprog fp = { 1, &allow };

		CHECK(sys_err(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				      SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp)) == EPERM, 14);
	}
	secbpf_object__close(l->obj);
}

Test(api_attach, a_stateful_program_gets_a_spawned_supervisor, .timeout = 120)
{
	struct lockdown l = { .marker = 0x1000000 + (unsigned long)getpid() };

	cr_assert_eq(in_child(stateful_child, &l), 0);
}

static pthread_barrier_t barrier;
static unsigned long thread_marker;

/* Threads that exist before the attach: TSYNC puts them under the filter,
 * and they share its state. */
static void *lockdown_thread(void *arg)
{
	long i = (long)arg;

	pthread_barrier_wait(&barrier); /* attached */
	if (i == 0)
		syscall(SYS_close, thread_marker);
	pthread_barrier_wait(&barrier); /* locked */
	return (void *)(long)listen_err();
}

static void threads_child(void *arg)
{
	struct lockdown *l = arg;
	struct secbpf_attach_opts o = { .sz = sizeof(o), .flags = SECBPF_ATTACH_TSYNC };
	struct secbpf_program *p = lockdown_prog(l);
	pthread_t t[4];
	void *res;
	long i;

	CHECK(p, 2);
	thread_marker = l->marker;
	CHECK(pthread_barrier_init(&barrier, NULL, 5) == 0, 3);
	for (i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, lockdown_thread, (void *)i) == 0, 4);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 5);
	CHECK(secbpf_program__attach(p, &o) == 0, 6);
	pthread_barrier_wait(&barrier);
	pthread_barrier_wait(&barrier);
	for (i = 0; i < 4; i++) {
		CHECK(pthread_join(t[i], &res) == 0, 7);
		CHECK((long)res == EPERM, 8);
	}
	CHECK(listen_err() == EPERM, 9);
	CHECK(own_listeners() == 0, 10);
}

Test(api_attach, tsync_filters_threads_that_already_run, .timeout = 120)
{
	struct lockdown l = { .marker = 0x2000000 + (unsigned long)getpid() };

	cr_assert_eq(in_child(threads_child, &l), 0);
}

static volatile int busy_stop;
/* Threads that made their first syscall (the attach waits for all). */
static int busy_started;

/* A thread that keeps making a syscall the filter sends to the
 * supervisor, before, during and after the attach. */
static void *busy_thread(void *arg)
{
	long n = 0;

	while (!busy_stop) {
		if (listen_err() == EPERM)
			return (void *)n;
		if (n++ == 0)
			__atomic_fetch_add(&busy_started, 1, __ATOMIC_SEQ_CST);
	}
	return (void *)-1L;
}

static bool all_busy(void *arg)
{
	return __atomic_load_n(&busy_started, __ATOMIC_SEQ_CST) == *(int *)arg;
}

static void busy_child(void *arg)
{
	struct lockdown *l = arg;
	struct secbpf_attach_opts o = { .sz = sizeof(o), .flags = SECBPF_ATTACH_TSYNC };
	struct secbpf_program *p = lockdown_prog(l);
	pthread_t t[3];
	void *res;
	int i;

	CHECK(p, 2);
	for (i = 0; i < 3; i++)
		CHECK(pthread_create(&t[i], NULL, busy_thread, NULL) == 0, 3);
	/* all three are in their loop before the filter goes in */
	i = 3;
	CHECK(test_wait_for(all_busy, &i, 10000), 10);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 4);
	CHECK(secbpf_program__attach(p, &o) == 0, 5);
	CHECK(own_listeners() == 0, 6);
	/* Lock: every thread sees EPERM from the supervisor next. */
	CHECK(sys_err(syscall(SYS_close, l->marker)) == EBADF, 7);
	for (i = 0; i < 3; i++) {
		CHECK(pthread_join(t[i], &res) == 0, 8);
		CHECK((long)res >= 0, 9);
	}
}

/* Threads hammering notified syscalls while the filter goes in: the
 * hand-over never deadlocks on them, and they end up served. */
Test(api_attach, threads_busy_during_the_attach_are_served, .timeout = 120)
{
	struct lockdown l = { .marker = 0x6000000 + (unsigned long)getpid() };

	cr_assert_eq(in_child(busy_child, &l), 0);
}

/* The supervisor of this test: the secbpf-supervisor whose command line
 * carries our unique marker. */
static pid_t find_supervisor(unsigned long marker)
{
	char path[300], buf[8192], want[64];
	struct dirent *d;
	DIR *dir = opendir("/proc");
	pid_t found = 0;
	ssize_t n, i;
	FILE *f;

	snprintf(want, sizeof(want), "startup_marker=%lu", marker);
	while (dir && (d = readdir(dir)) && !found) {
		snprintf(path, sizeof(path), "/proc/%s/cmdline", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		n = (ssize_t)fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		for (i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[n > 0 ? n : 0] = '\0';
		if (strstr(buf, "secbpf-supervisor") && strstr(buf, want))
			found = atoi(d->d_name);
	}
	if (dir)
		closedir(dir);
	return found;
}

static void killed_child(void *arg)
{
	struct lockdown *l = arg;
	struct secbpf_attach_opts o = { .sz = sizeof(o) };
	struct secbpf_program *p = lockdown_prog(l);
	struct pollfd exited;
	pid_t sup;

	CHECK(p, 2);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 3);
	CHECK(secbpf_program__attach(p, &o) == 0, 4);
	sup = find_supervisor(l->marker);
	CHECK(sup > 0, 5);
	/* its pidfd turns readable once it has exited (its fds are closed
	 * by then, the listener with them) */
	exited.fd = syscall(SYS_pidfd_open, sup, 0);
	exited.events = POLLIN;
	CHECK(exited.fd >= 0, 11);
	CHECK(kill(sup, SIGKILL) == 0, 7);
	CHECK(poll(&exited, 1, 10000) == 1, 12);
	close(exited.fd);
	/* Fail closed: what needed the supervisor fails with ENOSYS... */
	CHECK(listen_err() == ENOSYS, 8);
	/* ...what the kernel decides alone still works... */
	CHECK(getpid() > 0, 9);
	/* ...and no listener of our own can take over. */
	{
		struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		struct sock_fprog fp = { 1, &allow };

		CHECK(sys_err(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				      SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp)) == EPERM, 10);
	}
}

Test(api_attach, killing_the_supervisor_fails_closed, .timeout = 120)
{
	struct lockdown l = { .marker = 0x3000000 + (unsigned long)getpid() };

	cr_assert_eq(in_child(killed_child, &l), 0);
}

/* The supervisor copied where uid 65534 can execute it (with the
 * libraries it loads from the build directory), set before forking. */
static char staged_supervisor[4096];

/* An unprivileged target against its own supervisor: no ptrace, no
 * reading its memory, no taking its listener with pidfd_getfd. */
static void attacker_child(void *arg)
{
	struct lockdown *l = arg;
	struct secbpf_attach_opts o = { .sz = sizeof(o), .supervisor = staged_supervisor };
	struct secbpf_program *p = lockdown_prog(l);
	char path[64], buf[16];
	struct iovec local = { buf, sizeof(buf) }, remote;
	long pidfd;
	pid_t sup;
	int fd;

	CHECK(p, 2);
	CHECK(setgroups(0, NULL) == 0 && setgid(65534) == 0 && setuid(65534) == 0, 3);
	/* Staged under /tmp: reachable however the build directory is not. */
	CHECK(access(staged_supervisor, X_OK) == 0, 14);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 4);
	CHECK(secbpf_program__attach(p, &o) == 0, 5);
	sup = find_supervisor(l->marker);
	CHECK(sup > 0, 6);
	CHECK(syscall(SYS_ptrace, PTRACE_ATTACH, sup, 0, 0) < 0 && errno == EPERM, 7);
	remote.iov_base = (void *)0x400000;
	remote.iov_len = sizeof(buf);
	CHECK(process_vm_readv(sup, &local, 1, &remote, 1, 0) < 0 && errno == EPERM, 8);
	snprintf(path, sizeof(path), "/proc/%d/mem", sup);
	fd = open(path, O_RDONLY);
	CHECK(fd < 0 && errno == EACCES, 9);
	pidfd = syscall(SYS_pidfd_open, sup, 0);
	CHECK(pidfd >= 0, 10);
	/* Its listener is one of its first fds: try them all. */
	for (fd = 0; fd < 64; fd++)
		CHECK(syscall(SYS_pidfd_getfd, pidfd, fd, 0) < 0 && errno == EPERM, 11);
	/* And the filter still works as written. */
	CHECK(sys_err(syscall(SYS_close, l->marker)) == EBADF, 12);
	CHECK(listen_err() == EPERM, 13);
}

Test(api_attach, an_unprivileged_target_cannot_reach_into_its_supervisor, .timeout = 120)
{
	struct lockdown l = { .marker = 0x8000000 + (unsigned long)getpid() };

	const char *sup = getenv("SECBPF_SUPERVISOR");
	char dir[64];
	int rc;

	if (geteuid() != 0)
		test_skip_unless_ci("needs root to become nobody");
	cr_assert(sup, "SECBPF_SUPERVISOR is not set (run through meson test)");
	test_stage_for_other_users(sup, dir, sizeof(dir), staged_supervisor,
				   sizeof(staged_supervisor));
	rc = in_child(attacker_child, &l);
	test_remove_tree(dir);
	cr_assert_eq(rc, 0);
}

static void missing_supervisor_child(void *arg)
{
	struct lockdown *l = arg;
	struct secbpf_attach_opts o = { .sz = sizeof(o), .supervisor = "/nonexistent/sup" };
	struct secbpf_program *p = lockdown_prog(l);

	CHECK(p, 2);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 3);
	CHECK(secbpf_program__attach(p, &o) == -ENOENT, 4);
	CHECK(strstr(secbpf_object__last_error(l->obj), "/nonexistent/sup"), 5);
	/* Found out before anything was installed. */
	CHECK(seccomp_mode() == 0, 6);
}

Test(api_attach, a_missing_supervisor_is_reported_before_installing)
{
	struct lockdown l = { .marker = 0x4000000 + (unsigned long)getpid() };

	cr_assert_eq(in_child(missing_supervisor_child, &l), 0);
}

static void dying_supervisor_child(void *arg)
{
	struct lockdown *l = arg;
	struct secbpf_attach_opts o = { .sz = sizeof(o), .supervisor = "/bin/false" };
	struct secbpf_program *p = lockdown_prog(l);

	CHECK(p, 2);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 3);
	/* It dies before it is ready: found out before the install. */
	CHECK(secbpf_program__attach(p, &o) == -ECHILD, 4);
	CHECK(strstr(secbpf_object__last_error(l->obj), "exited with status 1"), 5);
	CHECK(strstr(secbpf_object__last_error(l->obj), "nothing was installed"), 6);
	CHECK(own_listeners() == 0, 7);
	CHECK(seccomp_mode() == 0, 8);
}

/* A caller that ignores SIGCHLD: the supervisor's death is still seen. */
static void dying_supervisor_sigchld_ignored_child(void *arg)
{
	signal(SIGCHLD, SIG_IGN);
	dying_supervisor_child(arg);
}

Test(api_attach, a_supervisor_death_is_seen_when_the_caller_ignores_sigchld, .timeout = 120)
{
	struct lockdown l = { .marker = 0x7000000 + (unsigned long)getpid() };

	cr_assert_eq(in_child(dying_supervisor_sigchld_ignored_child, &l), 0);
}

Test(api_attach, a_supervisor_that_dies_at_start_installs_nothing, .timeout = 120)
{
	struct lockdown l = { .marker = 0x5000000 + (unsigned long)getpid() };

	cr_assert_eq(in_child(dying_supervisor_child, &l), 0);
}

static void rejected_child(void *arg)
{
	struct secbpf_object *obj;
	struct secbpf_program *p = open_prog("startup_lockdown", &obj);

	CHECK(p, 2);
	/* Privileged-only tracing helpers are not the issue here: the
	 * policy caps the tier; an unknown option must be refused first. */
	{
		struct secbpf_attach_opts o = { .sz = sizeof(o), .flags = 1u << 7 };

		CHECK(secbpf_program__attach(p, &o) == -EINVAL, 3);
		CHECK(strstr(secbpf_object__last_error(obj), "unknown attach flags"), 4);
	}
	CHECK(seccomp_mode() == 0, 5);
	secbpf_object__close(obj);
}

Test(api_attach, bad_options_install_nothing)
{
	cr_assert_eq(in_child(rejected_child, NULL), 0);
}

/* The end of field in struct secbpf_attach_opts: an sz that stops there. */
#define ATTACH_OPTS_END(field)                                   \
	(offsetof(struct secbpf_attach_opts, field) +            \
	 sizeof(((struct secbpf_attach_opts *)0)->field))

/*
 * An sz that stops before a field hides it: values there that would be
 * refused (unknown flags, too many workers) are not read, and the
 * defaults apply. With the whole sz the same values are refused.
 */
static void smaller_sz_child(void *arg)
{
	struct secbpf_attach_opts o;
	struct secbpf_object *obj;
	struct secbpf_program *p = open_prog("seed_close", &obj);

	CHECK(p, 2);
	memset(&o, 0, sizeof(o));
	o.flags = 1u << 7;
	o.supervisor = "/nonexistent/secbpf-supervisor";
	o.workers = 1000000;
	o.strict = true;

	/* Too small to even hold sz. */
	o.sz = sizeof(size_t) - 1;
	CHECK(secbpf_program__attach(p, &o) == -EINVAL && errno == EINVAL, 3);
	CHECK(strstr(secbpf_object__last_error(obj), "sz"), 4);
	/* Whole: the flags are read and refused. */
	o.sz = sizeof(o);
	CHECK(secbpf_program__attach(p, &o) == -EINVAL, 5);
	CHECK(strstr(secbpf_object__last_error(obj), "unknown attach flags"), 6);
	/* Good flags: workers is read and refused. */
	o.flags = 0;
	CHECK(secbpf_program__attach(p, &o) == -EINVAL, 7);
	CHECK(strstr(secbpf_object__last_error(obj), "workers"), 8);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 9);
	CHECK(seccomp_mode() == 0, 10);
	/* Up to supervisor: workers is not read, nor strict. */
	o.flags = 0;
	o.sz = ATTACH_OPTS_END(supervisor);
	CHECK(secbpf_program__attach(p, &o) == 0, 11);
	CHECK(seccomp_mode() == 2, 12);
	CHECK(sys_err(syscall(SYS_close, 999)) == EPERM, 13);
	secbpf_object__close(obj);
}

Test(api_attach, a_smaller_sz_is_honoured_field_by_field)
{
	cr_assert_eq(in_child(smaller_sz_child, NULL), 0);
}

static void flags_unread_child(void *arg)
{
	struct secbpf_attach_opts o;
	struct secbpf_object *obj;
	struct secbpf_program *p = open_prog("seed_close", &obj);

	CHECK(p, 2);
	memset(&o, 0, sizeof(o));
	/* SECBPF_ATTACH_NATIVE would fail on a stock kernel and unknown
	 * bits are refused, but sz covers only half of flags. */
	o.flags = SECBPF_ATTACH_NATIVE | 1u << 7;
	o.sz = offsetof(struct secbpf_attach_opts, flags) + 2;
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 3);
	CHECK(secbpf_program__attach(p, &o) == 0, 4);
	CHECK(seccomp_mode() == 2, 5);
	CHECK(sys_err(syscall(SYS_close, 999)) == EPERM, 6);
	secbpf_object__close(obj);
}

Test(api_attach, a_field_sz_does_not_wholly_cover_is_not_read)
{
	cr_assert_eq(in_child(flags_unread_child, NULL), 0);
}

/* A caller built against a newer header: its struct is longer. */
struct newer_attach_opts {
	struct secbpf_attach_opts o;
	uint64_t added_later;
};

static void trailing_bytes_child(void *arg)
{
	struct newer_attach_opts n;
	struct secbpf_object *obj;
	struct secbpf_program *p = open_prog("seed_close", &obj);

	CHECK(p, 2);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 3);
	memset(&n, 0, sizeof(n));
	n.o.sz = sizeof(n);
	n.added_later = 1;
	CHECK(secbpf_program__attach(p, &n.o) == -EINVAL && errno == EINVAL, 4);
	CHECK(strstr(secbpf_object__last_error(obj), "newer"), 5);
	CHECK(seccomp_mode() == 0, 6);
	/* A non-zero byte in the struct's own tail padding is past strict,
	 * the last field this library knows: refused too. */
	memset(&n, 0, sizeof(n));
	n.o.sz = sizeof(n.o);
	if (ATTACH_OPTS_END(strict) < sizeof(n.o)) {
		((unsigned char *)&n.o)[sizeof(n.o) - 1] = 0x80;
		CHECK(secbpf_program__attach(p, &n.o) == -EINVAL, 7);
		CHECK(seccomp_mode() == 0, 8);
	}
	/* Zero bytes past what is known: accepted. */
	memset(&n, 0, sizeof(n));
	n.o.sz = sizeof(n);
	CHECK(secbpf_program__attach(p, &n.o) == 0, 9);
	CHECK(seccomp_mode() == 2, 10);
	CHECK(sys_err(syscall(SYS_close, 999)) == EPERM, 11);
	secbpf_object__close(obj);
}

Test(api_attach, unknown_trailing_bytes_are_refused_zero_ones_accepted)
{
	cr_assert_eq(in_child(trailing_bytes_child, NULL), 0);
}

static void native_child(void *arg)
{
	struct secbpf_attach_opts o = { .sz = sizeof(o), .flags = SECBPF_ATTACH_NATIVE };
	struct secbpf_object *obj;
	struct secbpf_program *p = open_prog("seed_close", &obj);

	CHECK(p, 2);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, 3);
	CHECK(secbpf_program__attach(p, &o) == -ENOSYS, 4);
	CHECK(strstr(secbpf_object__last_error(obj), "kernel"), 5);
	CHECK(seccomp_mode() == 0, 6);
	secbpf_object__close(obj);
}

Test(api_attach, native_on_a_stock_kernel_says_the_kernel_lacks_support)
{
	if (access("/proc/sys/kernel/seccomp/extended", F_OK) == 0)
		cr_skip_test("this kernel has the seed patch set");
	cr_assert_eq(in_child(native_child, NULL), 0);
}

/* The sample that sandboxes itself and becomes CMD. */
Test(api_attach, the_self_sandbox_sample_filters_the_command_it_becomes, .timeout = 120)
{
	const char *b = getenv("SECBPF_BUILD_DIR"), *probe = getenv("SECBPF_CLOSE_PROBE");
	char cmd[8192], out[4096];
	size_t n;
	FILE *p;

	cr_assert(b && probe);
	snprintf(cmd, sizeof(cmd), "%s/samples/self_sandbox %s -- %s 2>&1", b, sample("seed_close"),
		 probe);
	p = popen(cmd, "r");
	cr_assert(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	cr_assert_eq(pclose(p), 0, "%s", out);
	cr_assert(strstr(out, "close(999)=1 close(111)=9"), "%s", out);
}
