// SPDX-License-Identifier: MIT
/*
 * secbpf filters in real containers (docs/containers.md): Debian's crun
 * with the annotations of `secbpf oci patch`, and runc with the profile of
 * `secbpf export-oci`, podman (`run --rootfs`, crun as its runtime) with
 * the annotations, on a busybox-static rootfs built here, with a real
 * secbpfd supervising through its agent socket. The runtimes run in a
 * private mount namespace without the cgroup2 mount of a hybrid layout
 * (on a pure cgroup v2 host there is none to remove).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "service/agent_oci.h"
#include "service/protocol.h"

#define PROGRAM "ctr_policy" /* tests/containers/ctr_policy.bpf.c */
#define PLAIN "ctr_plain"    /* tests/containers/ctr_plain.bpf.c, stateless */

static char dir[4096];	   /* scratch: rootfs/, config/, the sockets, bundles */
static char sock[4200];	   /* secbpfd's client socket */
static char agent[4200];   /* its agent socket (agent.sock next to it) */
static char logpath[4200]; /* its log */
static char shared[4200];  /* bind-mounted at /shared in the containers */
static pid_t daemon_pid = -1;
static char out[65536];
static int serial;
static const char *program = PROGRAM; /* what the next bundle runs under */

static bool have(const char *tool)
{
	return test_shell(out, sizeof(out), "command -v %s", tool) == 0;
}

static void build_rootfs(void)
{
	static const char *const applets[] = { "sh",  "mkdir", "true", "echo",
					       "cat", "sleep", "chmod" };
	size_t i;

	cr_assert_eq(test_shell(out, sizeof(out),
				"cd '%s' && mkdir -p rootfs/bin rootfs/proc rootfs/dev rootfs/tmp "
				"rootfs/shared shared && cp /bin/busybox rootfs/bin/busybox",
				dir),
		     0, "the rootfs: %s", out);
	for (i = 0; i < sizeof(applets) / sizeof(applets[0]); i++)
		cr_assert_eq(test_shell(out, sizeof(out), "ln -s busybox '%s/rootfs/bin/%s'", dir,
					applets[i]),
			     0, "%s", out);
}

static bool agent_ready(void *arg)
{
	(void)arg;
	return access(agent, F_OK) == 0 || waitpid(daemon_pid, NULL, WNOHANG) == daemon_pid;
}

static void start_daemon(void)
{
	char cfg[4200];
	int fd;

	snprintf(cfg, sizeof(cfg), "%s/config", dir);
	cr_assert_eq(test_shell(out, sizeof(out),
				"mkdir -p '%s/programs.d' && for p in " PROGRAM " " PLAIN "; do "
				"cp \"%s/tests/$p.bpf.o\" \"%s/programs.d/$p.o\" && "
				"echo \"allow $p user=root\" >> '%s/secbpfd.conf'; done",
				cfg, getenv("SECBPF_BUILD_DIR"), cfg, cfg),
		     0, "the configuration: %s", out);
	daemon_pid = fork();
	cr_assert_geq(daemon_pid, 0);
	if (daemon_pid == 0) {
		fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execl(getenv("SECBPFD"), "secbpfd", "--foreground", "--config", cfg, "--socket",
		      sock, (char *)NULL);
		_exit(127);
	}
	cr_assert(test_wait_for(agent_ready, NULL, 30000) && access(agent, F_OK) == 0,
		  "secbpfd did not open its agent socket: %s",
		  (test_shell(out, sizeof(out), "cat '%s'", logpath), out));
}

static void setup(void)
{
	if (geteuid() != 0)
		test_skip_unless_ci("containers need root");
	if (!have("crun") || !have("runc") || !have("unshare") || access("/bin/busybox", X_OK))
		test_skip_unless_ci("crun, runc, unshare or /bin/busybox (busybox-static) missing: "
				    "scripts/setup-deps installs them");
	test_scratch_dir(dir, sizeof(dir), "secbpf-test-containers");
	snprintf(sock, sizeof(sock), "%s/secbpfd.sock", dir);
	snprintf(agent, sizeof(agent), "%s/agent.sock", dir);
	snprintf(logpath, sizeof(logpath), "%s/secbpfd.log", dir);
	snprintf(shared, sizeof(shared), "%s/shared", dir);
	build_rootfs();
	start_daemon();
}

static void teardown(void)
{
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGKILL);
		waitpid(daemon_pid, NULL, 0);
		daemon_pid = -1;
	}
	if (dir[0])
		test_remove_tree(dir);
}

TestSuite(containers, .init = setup, .fini = teardown, .timeout = 120);

/* A shell string in JSON: the scripts here have no quote or backslash. */
static void check_plain(const char *s)
{
	cr_assert(!strpbrk(s, "\"\\'"), "test bug: quote in %s", s);
}

/*
 * A bundle dir/NAME whose process runs script under program: for crun,
 * annotations from `secbpf oci patch --prog`; for runc, linux.seccomp from
 * `secbpf export-oci --prog`. Returns the container's id in id.
 */
static void make_bundle(const char *runtime, const char *script, char *bundle, size_t size)
{
	char profile[4400] = "", config[4400];
	FILE *f;

	check_plain(script);
	snprintf(bundle, size, "%s/%s-%d", dir, runtime, ++serial);
	cr_assert_eq(mkdir(bundle, 0755), 0);
	if (!strcmp(runtime, "runc")) {
		snprintf(profile, sizeof(profile), "%s/profile.json", bundle);
		cr_assert_eq(test_shell(out, sizeof(out),
					"'%s' export-oci --prog %s --daemon '%s' -o '%s'",
					getenv("SECBPF"), program, sock, profile),
			     0, "export-oci: %s", out);
		cr_assert(strstr(out, "bad-arch"), "export-oci said nothing of i386: %s", out);
	}
	snprintf(config, sizeof(config), "%s/config.json", bundle);
	f = fopen(config, "w");
	cr_assert_not_null(f);
	fprintf(f,
		"{\"ociVersion\": \"1.0.2\",\n"
		" \"process\": {\"terminal\": false, \"user\": {\"uid\": 0, \"gid\": 0},\n"
		"  \"args\": [\"/bin/sh\", \"-c\", \"%s\"], \"env\": [\"PATH=/bin\"], \"cwd\": "
		"\"/\",\n"
		"  \"noNewPrivileges\": true},\n"
		" \"root\": {\"path\": \"%s/rootfs\"}, \"hostname\": \"secbpf\",\n"
		" \"mounts\": [{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": "
		"\"proc\"},\n"
		"  {\"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\"},\n"
		"  {\"destination\": \"/shared\", \"type\": \"bind\", \"source\": \"%s\",\n"
		"   \"options\": [\"rbind\", \"rw\"]}],\n"
		" \"linux\": {\"namespaces\": [{\"type\": \"pid\"}, {\"type\": \"mount\"},\n"
		"  {\"type\": \"ipc\"}, {\"type\": \"uts\"}]",
		script, dir, shared);
	if (profile[0]) {
		FILE *p = fopen(profile, "r");
		char buf[4096];
		size_t n;

		cr_assert_not_null(p);
		fputs(",\n  \"seccomp\": ", f);
		while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
			fwrite(buf, 1, n, f);
		fclose(p);
	}
	fputs("}}\n", f);
	cr_assert_eq(fclose(f), 0);
	if (!strcmp(runtime, "crun"))
		cr_assert_eq(test_shell(out, sizeof(out),
					"'%s' oci patch '%s' --prog %s --daemon '%s'",
					getenv("SECBPF"), config, program, sock),
			     0, "oci patch: %s", out);
}

/* The runtime's command line for bundle, in a private mount namespace
 * without the hybrid layout's cgroup2 mount. */
static void runtime_command(const char *runtime, const char *bundle, char *cmd, size_t size)
{
	snprintf(cmd, size,
		 "cd '%s' && unshare -m sh -c 'umount /sys/fs/cgroup/unified 2>/dev/null; "
		 "exec %s --root \"%s/state\" %s run ctr-%d-%d' 2>&1",
		 bundle, runtime, dir, strcmp(runtime, "crun") ? "" : "--cgroup-manager=disabled",
		 (int)getpid(), serial);
}

/* podman with its storage, state and events in dir, crun as its runtime,
 * no cgroups (the hybrid layout), no network. The rlimits are set below the
 * host's: podman's defaults (nofile 1048576) need CAP_SYS_RESOURCE. */
#define PODMAN                                                                                     \
	"podman --root \"%s/pm/s\" --runroot \"%s/pm/r\" --tmpdir \"%s/pm/t\" "                    \
	"--storage-driver vfs --events-backend file --cgroup-manager cgroupfs --runtime crun"

static void need_podman(void)
{
	if (!have("podman") || !have("conmon"))
		test_skip_unless_ci("podman or conmon missing: scripts/setup-deps installs them");
}

/* `podman run --rootfs` of script under program, with the annotations of
 * `secbpf oci annotations --prog`, in a private mount namespace without the
 * hybrid layout's cgroup2 mount. The container is named ctr-PID-SERIAL. */
static void podman_command(const char *script, char *cmd, size_t size)
{
	char annotations[16384] = "", *line, *save = NULL, path[4300];
	size_t n = 0;
	FILE *f;

	/* The script goes in the rootfs, out of reach of the shells' quoting. */
	snprintf(path, sizeof(path), "%s/rootfs/script-%d.sh", dir, ++serial);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "%s\n", script);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(test_shell(out, sizeof(out), "'%s' oci annotations --prog %s --daemon '%s'",
				getenv("SECBPF"), program, sock),
		     0, "oci annotations: %s", out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		check_plain(line);
		n += snprintf(annotations + n, sizeof(annotations) - n, " --annotation %s", line);
		cr_assert_lt(n, sizeof(annotations), "test bug: annotations too long");
	}
	n = snprintf(cmd, size,
		     "unshare -m sh -c 'umount /sys/fs/cgroup/unified 2>/dev/null; "
		     "exec " PODMAN " run --rm --name ctr-%d-%d --cgroups disabled --network none "
		     "--ulimit nofile=1024:1024 --ulimit nproc=4096:4096 --tmpfs /tmp "
		     "-v \"%s\":/shared%s --rootfs \"%s/rootfs\" /bin/sh /script-%d.sh' 2>&1",
		     dir, dir, dir, (int)getpid(), serial, shared, annotations, dir, serial);
	cr_assert_lt(n, size, "test bug: podman's command line too long");
}

/* The command that runs script in a container of runtime. */
static void container_command(const char *runtime, const char *script, char *cmd, size_t size)
{
	char bundle[4300];

	if (!strcmp(runtime, "podman")) {
		podman_command(script, cmd, size);
		return;
	}
	make_bundle(runtime, script, bundle, sizeof(bundle));
	runtime_command(runtime, bundle, cmd, size);
}

/* Run script in a container; its output in out. Returns the exit status. */
static int run_container(const char *runtime, const char *script)
{
	static char cmd[32768];

	container_command(runtime, script, cmd, sizeof(cmd));
	return test_capture(out, sizeof(out), cmd);
}

static void allowed_workload_runs(const char *runtime)
{
	int st =
		run_container(runtime, "echo hello from the container; /bin/true && echo child-ok");

	cr_expect_eq(st, 0, "%s: exit %d: %s", runtime, st, out);
	cr_expect(strstr(out, "hello from the container") && strstr(out, "child-ok"), "%s: %s",
		  runtime, out);
	test_shell(out, sizeof(out), "cat '%s'", logpath);
	cr_expect(strstr(out, PROGRAM ": supervising pid"), "secbpfd supervised nothing: %s", out);
}

static void denied_syscall_gets_the_filters_errno(const char *runtime)
{
	int st = run_container(
		runtime,
		"mkdir /tmp/made; echo mkdir=$?; "
		"while read l; do case $l in Seccomp*) echo $l;; esac; done </proc/self/status");

	cr_expect_eq(st, 0, "%s: exit %d: %s", runtime, st, out);
	cr_expect(strstr(out, "Operation not permitted") && strstr(out, "mkdir=1"),
		  "%s: mkdir was not refused with EPERM: %s", runtime, out);
	cr_expect(strstr(out, "Seccomp: 2"), "%s: the container is not under a filter: %s", runtime,
		  out);
}

/* A container left running in the background: it says it is up in
 * /shared/ready, then waits for a line on the fifo /shared/go. */
struct bg_container {
	pid_t pid; /* the runtime's shell */
	char id[64];
	char ready[4300], fifo[4300], result[4300];
};

static bool file_exists(void *path)
{
	return access(path, F_OK) == 0;
}

static void bg_start(struct bg_container *c, const char *runtime, const char *before,
		     const char *after)
{
	static char cmd[32768];
	char script[2048];
	int fd;

	snprintf(c->ready, sizeof(c->ready), "%s/ready", shared);
	snprintf(c->fifo, sizeof(c->fifo), "%s/go", shared);
	snprintf(c->result, sizeof(c->result), "%s/out", dir);
	cr_assert_eq(mkfifo(c->fifo, 0600), 0);
	snprintf(script, sizeof(script), "%s echo up > /shared/ready; read x < /shared/go; %s",
		 before, after);
	container_command(runtime, script, cmd, sizeof(cmd));
	snprintf(c->id, sizeof(c->id), "ctr-%d-%d", (int)getpid(), serial);
	c->pid = fork();
	cr_assert_geq(c->pid, 0);
	if (c->pid == 0) {
		fd = open(c->result, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	cr_assert(test_wait_for(file_exists, c->ready, 30000), "the container did not start");
}

/* Let the container go on, wait for it; its output in out. */
static void bg_finish(struct bg_container *c)
{
	int fd = open(c->fifo, O_WRONLY), st;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "go\n", 3), 3);
	close(fd);
	cr_assert_eq(waitpid(c->pid, &st, 0), c->pid);
	test_shell(out, sizeof(out), "cat '%s'", c->result);
}

/* The host pid of the container's process, from the runtime's state. */
static pid_t bg_host_pid(const struct bg_container *c, const char *runtime)
{
	const char *at;
	int pid = 0;

	if (!strcmp(runtime, "podman")) {
		cr_assert_eq(test_shell(out, sizeof(out),
					PODMAN " inspect --format '{{.State.Pid}}' %s", dir, dir,
					dir, c->id),
			     0, "podman inspect: %s", out);
		cr_assert(sscanf(out, "%d", &pid) == 1 && pid > 0, "no pid in %s", out);
		return pid;
	}
	cr_assert_eq(
		test_shell(out, sizeof(out), "%s --root '%s/state' state %s", runtime, dir, c->id),
		0, "%s state: %s", runtime, out);
	at = strstr(out, "\"pid\"");
	cr_assert(at && sscanf(at, "\"pid\": %d", &pid) == 1 && pid > 0, "no pid in %s", out);
	return pid;
}

/* The first 8 bytes of the one entry of `map dump -j` of .bss (a u64
 * global, little-endian), or ~0 if the output is not that. */
static uint64_t bss_u64(const char *json)
{
	struct json_object *root = json_tokener_parse(json), *value;
	uint64_t v = ~0ull;
	size_t i;

	if (root && json_object_is_type(root, json_type_array) &&
	    json_object_array_length(root) == 1 &&
	    json_object_object_get_ex(json_object_array_get_idx(root, 0), "value", &value) &&
	    json_object_array_length(value) >= 8) {
		v = 0;
		for (i = 0; i < 8; i++)
			v |= strtoull(json_object_get_string(json_object_array_get_idx(value, i)),
				      NULL, 16)
			     << (8 * i);
	}
	json_object_put(root);
	return v;
}

/* exec once per process: a child's exec passes, the shell's second fails.
 * The execs counted live in secbpfd: `secbpf map dump` reads them. */
static void exec_once_holds(const char *runtime)
{
	struct bg_container c;
	pid_t pid;
	int st;

	bg_start(&c, runtime, "/bin/true && echo child-ok; /bin/true;",
		 "exec /bin/true; echo after");
	pid = bg_host_pid(&c, runtime);
	st = test_shell(out, sizeof(out), "'%s' map dump %d .bss -j", getenv("SECBPF"), (int)pid);
	cr_expect_eq(st, 0, "map dump: %s", out);
	/* The shell's own exec, then its two children's. */
	cr_expect_eq(bss_u64(out), 3, "%s: execs_allowed is not 3: %s", runtime, out);
	bg_finish(&c);
	cr_expect(strstr(out, "child-ok"), "%s: the child's one exec failed: %s", runtime, out);
	cr_expect(strstr(out, "/bin/true: Operation not permitted") && !strstr(out, "after"),
		  "%s: the second exec of the shell passed: %s", runtime, out);
}

/* secbpfd killed while the container runs: its notified syscalls (exec)
 * fail with ENOSYS, what the kernel decides (mkdir) still holds. */
static void killing_secbpfd_fails_closed(const char *runtime)
{
	struct bg_container c;

	bg_start(&c, runtime, "", "/bin/true; echo exec=$?; mkdir /tmp/made; echo mkdir=$?");
	kill(daemon_pid, SIGKILL);
	waitpid(daemon_pid, NULL, 0);
	daemon_pid = -1;
	bg_finish(&c);
	cr_expect(strstr(out, "Function not implemented") && !strstr(out, "exec=0"),
		  "%s: exec passed with secbpfd gone: %s", runtime, out);
	cr_expect(strstr(out, "mkdir=1"), "%s: mkdir was not refused: %s", runtime, out);
}

Test(containers, crun_allowed_workload_runs)
{
	allowed_workload_runs("crun");
}

Test(containers, crun_denied_syscall_gets_the_filters_errno)
{
	denied_syscall_gets_the_filters_errno("crun");
}

Test(containers, crun_exec_once_holds_in_the_container)
{
	exec_once_holds("crun");
}

Test(containers, crun_killing_secbpfd_fails_closed)
{
	killing_secbpfd_fails_closed("crun");
}

Test(containers, runc_allowed_workload_runs)
{
	allowed_workload_runs("runc");
}

Test(containers, runc_denied_syscall_gets_the_filters_errno)
{
	denied_syscall_gets_the_filters_errno("runc");
}

Test(containers, runc_exec_once_holds_in_the_container)
{
	exec_once_holds("runc");
}

Test(containers, runc_killing_secbpfd_fails_closed)
{
	killing_secbpfd_fails_closed("runc");
}

/* podman run --rootfs with the annotations: podman passes them to crun
 * unchanged, and crun installs secbpf's filter instead of podman's own
 * profile (one filter: Seccomp_filters 1). */
Test(containers, podman_allowed_workload_runs)
{
	need_podman();
	allowed_workload_runs("podman");
}

Test(containers, podman_denied_syscall_gets_the_filters_errno)
{
	need_podman();
	denied_syscall_gets_the_filters_errno("podman");
	cr_expect(strstr(out, "Seccomp_filters: 1"),
		  "podman's profile is stacked on secbpf's filter: %s", out);
}

Test(containers, podman_exec_once_holds_in_the_container)
{
	need_podman();
	exec_once_holds("podman");
}

Test(containers, podman_killing_secbpfd_fails_closed)
{
	need_podman();
	killing_secbpfd_fails_closed("podman");
}

/* A stateless program whose test is a range: crun runs it in the kernel
 * alone (no receiver), runc's profile notifies chmod and secbpfd answers
 * with the compiled filter. */
static void stateless_range_holds(const char *runtime)
{
	char config[4400];
	int st;

	program = PLAIN;
	st = run_container(runtime,
			   "mkdir /tmp/a; chmod 0700 /tmp/a; echo plain=$?; "
			   "chmod 1777 /tmp/a; echo sticky=$?; chmod 0755 /tmp/a; echo mode=$?");
	cr_expect_eq(st, 0, "%s: exit %d: %s", runtime, st, out);
	cr_expect(strstr(out, "plain=0") && strstr(out, "mode=0"),
		  "%s: a chmod the filter allows failed: %s", runtime, out);
	cr_expect(strstr(out, "sticky=1") && strstr(out, "Operation not permitted"),
		  "%s: chmod 1777 was not refused: %s", runtime, out);
	snprintf(config, sizeof(config), "%s/%s-%d/config.json", dir, runtime, serial);
	test_shell(out, sizeof(out), "cat '%s' '%s/%s-%d/profile.json' 2>/dev/null", config, dir,
		   runtime, serial);
	if (!strcmp(runtime, "crun"))
		cr_expect(!strstr(out, "run.oci.seccomp.receiver"),
			  "a stateless program got a receiver: %s", out);
	else
		cr_expect(strstr(out, "SCMP_ACT_NOTIFY"), "runc's profile notifies nothing: %s",
			  out);
}

Test(containers, crun_stateless_program_with_a_range)
{
	stateless_range_holds("crun");
}

Test(containers, runc_stateless_program_with_a_range_is_answered_by_secbpfd)
{
	stateless_range_holds("runc");
	test_shell(out, sizeof(out), "cat '%s'", logpath);
	cr_expect(strstr(out, PLAIN ": supervising pid"), "secbpfd supervised nothing: %s", out);
}

/* --- the agent socket: what a runtime may send ------------------------ */

static int agent_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	cr_assert_lt(strlen(agent), sizeof(sa.sun_path), "TMPDIR too long for a socket");
	memcpy(sa.sun_path, agent, strlen(agent) + 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* Send state with fd (-1: none) as a runtime does, then hang up. */
static void send_state(const char *state, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)state, strlen(state) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int sock = agent_connect();

	cr_assert_geq(sock, 0, "connect: %s", strerror(-sock));
	if (fd >= 0) {
		struct cmsghdr *c;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	cr_assert_eq(sendmsg(sock, &mh, MSG_NOSIGNAL), (ssize_t)strlen(state));
	close(sock);
}

struct log_wait {
	const char *what;
};

static bool log_has(void *arg)
{
	const struct log_wait *w = arg;

	test_shell(out, sizeof(out), "cat '%s'", logpath);
	return strstr(out, w->what) != NULL;
}

static void expect_logged(const char *what)
{
	struct log_wait w = { what };

	cr_expect(test_wait_for(log_has, &w, 10000), "not in secbpfd's log: %s\n%s", what, out);
}

#define STATE(fds, annotations, extra)                                                             \
	"{\"ociVersion\": \"1.0.2\", \"fds\": [" fds "], \"pid\": 1, " extra                       \
	"\"state\": {\"annotations\": {" annotations "}}}"

Test(containers, agent_drops_malformed_states_and_serves_on)
{
	int p[2];

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	send_state("this is not JSON", p[0]);
	expect_logged("the state is not JSON");
	send_state(STATE("\"seccompFd\"", "\"io.secbpf.program\": \"nosuch\"", ""), p[0]);
	expect_logged("program nosuch: nosuch: no such program");
	send_state(STATE("\"seccompFd\"", "\"io.secbpf.program\": \"" PROGRAM "\"", ""), p[0]);
	expect_logged("the fd sent is not a seccomp listener");
	send_state(STATE("\"seccompFd\"", "\"io.secbpf.program\": \"" PROGRAM "\"", ""), -1);
	expect_logged("the state lists 1 fds and 0 came");
	send_state(STATE("\"other\"", "\"io.secbpf.program\": \"" PROGRAM "\"", ""), p[0]);
	expect_logged("no fd is called seccompFd");
	send_state(STATE("\"seccompFd\"", "\"io.secbpf.program\": \"" PROGRAM "\"",
			 "\"metadata\": \"io.secbpf.program=other\", "),
		   p[0]);
	expect_logged("the annotation names program " PROGRAM " and the metadata other");
	send_state(STATE("\"seccompFd\"", "", ""), p[0]);
	expect_logged("the state names no program");
	/* A runtime that hangs up before a whole state. */
	close(agent_connect());
	expect_logged("the runtime closed before a whole JSON state came (0 bytes)");
	close(p[0]);
	close(p[1]);
	/* The service still serves containers. */
	allowed_workload_runs("crun");
}

/* A root peer that connects and sends nothing holds no one up, and is
 * dropped once its time is up. */
Test(containers, agent_a_silent_runtime_blocks_nobody)
{
	int silent = agent_connect();

	cr_assert_geq(silent, 0);
	allowed_workload_runs("crun");
	usleep((SVC_AGENT_TIMEOUT_MS + 200) * 1000);
	close(agent_connect()); /* the next accept reaps */
	expect_logged("no whole state came in time");
	close(silent);
}

/* Only root may hand secbpfd a listener: the socket is 0600. */
Test(containers, agent_socket_is_root_only)
{
	struct stat st;
	pid_t pid;
	int status;

	cr_assert_eq(stat(agent, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600, "agent socket mode %o", st.st_mode & 0777);
	chmod(dir, 0755); /* so that only the socket's mode stops nobody */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(3);
		_exit(agent_connect() == -EACCES ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "uid 65534 could connect to the agent socket (status %#x)", status);
}
