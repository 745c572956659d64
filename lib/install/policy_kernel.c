// SPDX-License-Identifier: MIT
/*
 * The loading policy's inputs (see policy.h), asked of the kernel: the user
 * namespace and capabilities of this process or of a socket's peer, Yama's
 * mode, and whether the policy file is one only root can have written.
 *
 * What a process in a user namespace controls: its mounts (a tmpfs over
 * /etc, a /proc of its own pid namespace, or a fake one), and so every path
 * it looks up. What it does not control: what the kernel answers about a
 * pidfd or a socket (its namespace, SO_PEERCRED) and what the service's own
 * /proc says of it. Decisions rest on the latter only; where an old kernel
 * leaves only a path, the comment says what that path trusts.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/pidfd.h"
#include "common/proc_status.h"
#include "install/policy.h"

/* Not in Debian 12's headers (linux/pidfd.h of Linux 6.11). */
#ifndef PIDFD_GET_USER_NAMESPACE
#define PIDFD_GET_USER_NAMESPACE _IO(0xFF, 9)
#endif

static int sys_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/*
 * Whether nsfd is the initial user namespace: 1 yes, 0 another one,
 * -EINVAL if nsfd is not a namespace file at all (then it came from a path
 * someone mounted over, and proves nothing). *ino gets its inode.
 */
static int userns_fd_is_initial(int nsfd, uint64_t *ino)
{
	struct statfs sfs;
	struct stat st;

	if (fstatfs(nsfd, &sfs))
		return -errno;
	if (sfs.f_type != NSFS_MAGIC)
		return -EINVAL;
	if (fstat(nsfd, &st))
		return -errno;
	*ino = st.st_ino;
	return st.st_ino == POLICY_INIT_USERNS_INO;
}

/*
 * Whether this kernel has user namespaces (CONFIG_USER_NS), asked of the
 * kernel and not of a path: a forked child tries unshare(CLONE_NEWUSER),
 * which fails with EINVAL only where they are compiled out (the child is
 * single-threaded and the flag is valid). Any other answer (success, EPERM
 * where they are restricted, ENOSPC at the limit) says they exist; so does
 * a child that could not be forked, so that a doubt never grants.
 */
static bool kernel_has_user_namespaces(void)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return true;
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) && errno == EINVAL ? 1 : 0);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return true;
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 1);
}

/*
 * The user namespace of the process of pidfd, as in->userns_ino and
 * in->userns_source; returns 1 if it is the initial one, 0 if not, -errno
 * when it could not be told (the caller then denies).
 * PIDFD_GET_USER_NAMESPACE is the kernel's answer about that very process.
 * Before Linux 6.11 (ENOTTY, EINVAL) only procdir/ns/user is left: the
 * service's /proc is its own, but this process's own /proc may have been
 * mounted over by a caller in a user namespace (a /proc/self/ns/user bound
 * to another of its processes' namespace files): there, and only there, a
 * fake /proc can fool the check.
 */
static int userns_of_pidfd(int pidfd, int procdir, struct policy_inputs *in)
{
	int nsfd, ret;

	nsfd = pidfd >= 0 ? ioctl(pidfd, PIDFD_GET_USER_NAMESPACE, 0) : -1;
	if (nsfd >= 0) {
		in->userns_source = POLICY_USERNS_PIDFD;
		ret = userns_fd_is_initial(nsfd, &in->userns_ino);
		close(nsfd);
		return ret;
	}
	if (pidfd >= 0 && errno == EOPNOTSUPP) {
		/* The kernel has no user namespaces (CONFIG_USER_NS=n): every
		 * process is in the initial one. */
		in->userns_source = POLICY_USERNS_NONE;
		in->userns_ino = POLICY_INIT_USERNS_INO;
		return 1;
	}
	if (pidfd >= 0 && errno != ENOTTY && errno != EINVAL)
		return -errno;
	nsfd = openat(procdir, "ns/user", O_RDONLY | O_CLOEXEC);
	if (nsfd < 0 && errno == ENOENT && !kernel_has_user_namespaces()) {
		/* A kernel older than 6.11 without user namespaces: no ns/user
		 * to look at, and none to be in but the initial one. */
		in->userns_source = POLICY_USERNS_NONE;
		in->userns_ino = POLICY_INIT_USERNS_INO;
		return 1;
	}
	if (nsfd < 0)
		return -errno;
	in->userns_source = POLICY_USERNS_PROC;
	ret = userns_fd_is_initial(nsfd, &in->userns_ino);
	close(nsfd);
	return ret;
}

/* userns_of_pidfd for this process (1: the initial namespace). */
static int userns_of_self(struct policy_inputs *in)
{
	int pidfd, procdir, ret;

	pidfd = sys_pidfd_open(getpid());
	procdir = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ret = userns_of_pidfd(pidfd, procdir, in);
	if (procdir >= 0)
		close(procdir);
	if (pidfd >= 0)
		close(pidfd);
	return ret;
}

bool policy_in_init_userns(void)
{
	struct policy_inputs in;

	memset(&in, 0, sizeof(in));
	return userns_of_self(&in) == 1;
}

/* Whether the uid_map of procdir's process is the initial namespace's:
 * every id to itself, "0 0 4294967295", and nothing else. */
static bool uid_map_is_identity(int procdir)
{
	char buf[256];
	unsigned long a, b, c;
	int n = 0;
	ssize_t len;

	len = proc_status_read(procdir, "uid_map", buf, sizeof(buf));
	if (len <= 0)
		return false;
	if (sscanf(buf, "%lu %lu %lu %n", &a, &b, &c, &n) != 3)
		return false;
	if (buf[n] != '\0')
		return false;
	return a == 0 && b == 0 && c == 4294967295UL;
}

/*
 * Yama's ptrace_scope: -1 when Yama is absent (no such sysctl), the mode
 * otherwise; a file that is there but not procfs's, or not a number, gives
 * the most restrictive mode (3). A caller that mounts over /proc/sys can
 * only hide it from its own process, never from the service.
 */
static int read_ptrace_scope(void)
{
	struct statfs sfs;
	char buf[32];
	int fd, scope;
	ssize_t len;

	fd = open(POLICY_YAMA_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -1 : 3;
	if (fstatfs(fd, &sfs) || sfs.f_type != PROC_SUPER_MAGIC) {
		close(fd);
		return 3;
	}
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 3;
	buf[len] = '\0';
	if (sscanf(buf, "%d", &scope) != 1 || scope < 0)
		return 3;
	return scope;
}

/* Whether one component of the policy file's path (fd, opened O_PATH and
 * O_NOFOLLOW) is one only root can have changed. */
static bool path_component_trusted(int fd, const char *name, bool is_file, char *why, size_t size)
{
	struct stat st;

	if (fstat(fd, &st)) {
		snprintf(why, size, "cannot stat %s: %s", name, strerror(errno));
		return false;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, size, "%s is a symbolic link", name);
		return false;
	}
	if (st.st_uid != 0) {
		snprintf(why, size, "%s is owned by uid %u, not root", name, (unsigned)st.st_uid);
		return false;
	}
	if (is_file && !S_ISREG(st.st_mode)) {
		snprintf(why, size, "%s is not a regular file", name);
		return false;
	}
	if (!is_file && !S_ISDIR(st.st_mode)) {
		snprintf(why, size, "%s is not a directory", name);
		return false;
	}
	if (!(st.st_mode & (S_IWGRP | S_IWOTH)))
		return true;
	/* In a sticky directory (/tmp) others may add names but not
	 * rename or remove root's. */
	if (!is_file && (st.st_mode & S_ISVTX))
		return true;
	snprintf(why, size, "%s is writable by group or others", name);
	return false;
}

/*
 * Walk path from "/" one component at a time, never following a link, and
 * check each. Once every component is root's and closed to others, no one
 * else can swap any of them later, so reading the file by path afterwards
 * reads this one.
 */
bool policy_config_trusted(const char *path, char *why, size_t size)
{
	char scratch[160], prefix[4096], *copy, *comp, *save = NULL;
	bool ok;
	int dirfd, fd;

	if (!why) {
		why = scratch;
		size = sizeof(scratch);
	}
	why[0] = '\0';
	if (!path || path[0] != '/') {
		snprintf(why, size, "%s is not an absolute path", path ? path : "(none)");
		return false;
	}
	copy = strdup(path);
	if (!copy) {
		snprintf(why, size, "out of memory");
		return false;
	}
	dirfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ok = dirfd >= 0 && path_component_trusted(dirfd, "/", false, why, size);
	prefix[0] = '\0';
	for (comp = strtok_r(copy, "/", &save); ok && comp; comp = strtok_r(NULL, "/", &save)) {
		bool is_file = save[strspn(save, "/")] == '\0'; /* the last component */

		snprintf(prefix + strlen(prefix), sizeof(prefix) - strlen(prefix), "/%s", comp);
		fd = openat(dirfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			snprintf(why, size, "%s: %s", prefix, strerror(errno));
			ok = false;
			break;
		}
		close(dirfd);
		dirfd = fd;
		ok = path_component_trusted(fd, prefix, is_file, why, size);
	}
	if (dirfd >= 0)
		close(dirfd);
	free(copy);
	return ok;
}

/* in->config_path and whether it is trusted, for a reader whose view of
 * the filesystem is the system's only when in_init_userns. */
static void set_config(struct policy_inputs *in, const char *config_path, bool in_init_userns)
{
	in->config_path = config_path ? config_path : POLICY_DEFAULT_PATH;
	if (!in_init_userns) {
		snprintf(in->config_distrust, sizeof(in->config_distrust),
			 "read from a user namespace other than the initial one, whose mounts the "
			 "caller controls");
		return;
	}
	in->config_trusted = policy_config_trusted(in->config_path, in->config_distrust,
						   sizeof(in->config_distrust));
}

/* This process's effective capabilities, from capget(2): no path. */
static int own_capabilities(uint64_t *caps)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	*caps = 0;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	*caps = (uint64_t)data[1].effective << 32 | data[0].effective;
	return 0;
}

int policy_read_system(struct policy_inputs *in, const char *config_path, struct secbpf_err *err)
{
	int ret;

	memset(in, 0, sizeof(*in));
	in->pid = getpid();
	in->uid = geteuid();
	in->gid = getegid();
	in->ptrace_scope = read_ptrace_scope();
	ret = own_capabilities(&in->cap_effective);
	if (ret)
		return err_set(err, -ret, "capget: %s", strerror(-ret));
	in->in_init_userns = userns_of_self(in) == 1;
	set_config(in, config_path, in->in_init_userns);
	return 0;
}

/*
 * The peer's capabilities from its status in procdir: counted only while
 * its effective uid and gid are still those it connected with.
 */
static int peer_capabilities(struct policy_inputs *in, int procdir, struct secbpf_err *err)
{
	char status[PROC_STATUS_SIZE];
	uint64_t uids[4], gids[4];
	ssize_t len;
	int ret;

	len = proc_status_read(procdir, "status", status, sizeof(status));
	if (len < 0)
		return err_set(err, (int)-len, "reading /proc/%d/status: %s", (int)in->pid,
			       strerror((int)-len));
	ret = proc_status_u64(status, "CapEff", 16, &in->cap_effective);
	if (!ret)
		ret = proc_status_numbers(status, "Uid", 10, UINT32_MAX, uids, 4);
	if (!ret)
		ret = proc_status_numbers(status, "Gid", 10, UINT32_MAX, gids, 4);
	if (ret) {
		in->cap_effective = 0;
		return err_set(err, -ret, "/proc/%d/status: no CapEff, Uid or Gid line",
			       (int)in->pid);
	}
	if (uids[1] == in->uid && gids[1] == in->gid)
		return 0;
	in->cap_effective = 0;
	snprintf(in->caps_distrust, sizeof(in->caps_distrust),
		 "its effective uid/gid is %u/%u now but was %u/%u when it connected (it "
		 "executed another program): its capabilities do not count",
		 (unsigned)uids[1], (unsigned)gids[1], (unsigned)in->uid, (unsigned)in->gid);
	return 0;
}

int policy_read_peer(struct policy_inputs *in, int sock, const char *config_path,
		     struct ucred *cred, struct secbpf_err *err)
{
	struct ucred peer;
	socklen_t len = sizeof(peer);
	char procpath[32];
	int pidfd, procdir, ret;
	bool exact;

	memset(in, 0, sizeof(*in));
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &peer, &len))
		return err_set(err, errno, "SO_PEERCRED: %s", strerror(errno));
	if (peer.pid <= 0)
		return err_set(err, ENOTCONN,
			       "the socket's peer is not a process (not connected?)");
	if (cred)
		*cred = peer;
	in->pid = peer.pid;
	in->uid = peer.uid;
	in->gid = peer.gid;
	/* Before Linux 6.5 the pidfd names whoever has the pid now: the
	 * liveness check at the end then only proves it did not change
	 * after, and peer_capabilities' uid and gid checks stand for the
	 * rest. */
	pidfd = pidfd_of_peer(sock, peer.pid, &exact);
	if (pidfd < 0)
		return err_set(err, -pidfd, "a pidfd for peer %d: %s", (int)peer.pid,
			       strerror(-pidfd));
	snprintf(procpath, sizeof(procpath), "/proc/%d", (int)peer.pid);
	procdir = open(procpath, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (procdir < 0) {
		ret = err_set(err, errno, "%s: %s", procpath, strerror(errno));
		close(pidfd);
		return ret;
	}
	ret = peer_capabilities(in, procdir, err);
	if (ret)
		goto out;
	ret = userns_of_pidfd(pidfd, procdir, in);
	if (ret < 0) {
		ret = err_set(err, -ret, "the user namespace of peer %d: %s", (int)peer.pid,
			      strerror(-ret));
		goto out;
	}
	/* The kernel's namespace and the uid map must agree; if they do
	 * not, something is off, and the answer is no. */
	in->in_init_userns = ret == 1 && uid_map_is_identity(procdir);
	ret = 0;
	if (!pidfd_alive(pidfd)) {
		ret = err_set(err, ESRCH, "peer %d exited while its credentials were read",
			      (int)peer.pid);
		goto out;
	}
	in->ptrace_scope = read_ptrace_scope();
	/* The service's own view: trusted when the service itself is in the
	 * initial user namespace. */
	set_config(in, config_path, policy_in_init_userns());
out:
	close(procdir);
	close(pidfd);
	if (ret)
		memset(in, 0, sizeof(*in));
	return ret;
}
