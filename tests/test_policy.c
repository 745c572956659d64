// SPDX-License-Identifier: MIT
/*
 * The loading policy against real processes (lib/install/policy*.c, `secbpf
 * policy`): a user namespace gains nothing, a file the caller can write only
 * lowers, and a socket's peer is judged by what the kernel says of it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "install/policy.h"
#include "service/protocol.h"

#define NOBODY 65534
#define CAP(x) (1ULL << POLICY_CAP_##x)
#define AS_NOBODY "setpriv --reuid 65534 --regid 65534 --clear-groups "
/* The reproduction of issue 13: pid 1 of a new pid namespace is the
 * caller's own process, and so is every mount. */
#define USERNS "unshare -Urpf --mount-proc "

/* A copy of secbpf that nobody can run, in a directory of its own. */
struct stage {
	char dir[256];
	char secbpf[512];
};

static void stage_secbpf(struct stage *s)
{
	const char *secbpf = getenv("SECBPF");

	cr_assert(secbpf, "SECBPF is not set (run through meson test)");
	if (geteuid() != 0)
		test_skip_unless_ci("needs root to become nobody");
	test_stage_for_other_users(secbpf, s->dir, sizeof(s->dir), s->secbpf, sizeof(s->secbpf));
}

/* Write dir/name (mode 0644, owned by whoever runs the test); returns its
 * path in one of 4 static buffers used in turn. */
static const char *write_file(const char *dir, const char *name, const char *text)
{
	static char paths[4][512];
	static int next;
	char *path = paths[next++ % 4];
	FILE *f;

	snprintf(path, sizeof(paths[0]), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fputs(text, f) >= 0 && fclose(f) == 0, true);
	cr_assert_eq(chmod(path, 0644), 0);
	return path;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- the decision on given inputs ---- */

Test(policy, an_untrusted_file_cannot_raise_the_ceiling)
{
	char dir[256];
	const char *cfg;
	struct policy_inputs in = { .ptrace_scope = -1,
				    .cap_effective = CAP(SYS_ADMIN),
				    .in_init_userns = true };
	struct policy_decision d;
	struct secbpf_err err = { { 0 } };

	test_scratch_dir(dir, sizeof(dir), "secbpf-policy");
	cfg = write_file(dir, "policy.conf", "max_tier = privileged\n");
	in.config_path = cfg;
	snprintf(in.config_distrust, sizeof(in.config_distrust), "owned by uid 1000");
	cr_assert_eq(policy_decide(&in, SECBPF_TIER_PRIVILEGED, &d, &err), 0, "%s", err.msg);
	cr_assert_eq(d.tier, SECBPF_TIER_UNPRIVILEGED);
	cr_assert_eq(d.decided_by, POLICY_BY_DEFAULT);
	cr_assert(d.file_restrained);
	cr_assert_not_null(strstr(d.reason, "not trusted (owned by uid 1000)"), "%s", d.reason);
	cr_assert_not_null(strstr(d.reason, ":1 asks for privileged"), "%s", d.reason);
	/* the same file, trusted, grants it */
	in.config_trusted = true;
	cr_assert_eq(policy_decide(&in, SECBPF_TIER_PRIVILEGED, &d, &err), 0, "%s", err.msg);
	cr_assert_eq(d.tier, SECBPF_TIER_PRIVILEGED);
	cr_assert_str_eq(d.reason, "");
	test_remove_tree(dir);
}

Test(policy, an_untrusted_file_cannot_turn_yama_off)
{
	char dir[256];
	struct policy_inputs in = { .ptrace_scope = 2, .in_init_userns = true };
	struct policy_decision d;
	struct secbpf_err err = { { 0 } };

	test_scratch_dir(dir, sizeof(dir), "secbpf-policy");
	in.config_path = write_file(dir, "policy.conf", "max_tier = privileged\nyama = ignore\n");
	cr_assert_eq(policy_decide(&in, SECBPF_TIER_UNPRIVILEGED, &d, &err), 0, "%s", err.msg);
	cr_assert_eq(d.tier, SECBPF_TIER_RESTRICTED);
	cr_assert_eq(d.decided_by, POLICY_BY_YAMA);
	cr_assert(d.yama_followed && d.file_yama_ignore && d.file_restrained);
	cr_assert_not_null(strstr(d.reason, "ptrace_scope=2"), "%s", d.reason);
	in.ptrace_scope = 3;
	cr_assert_eq(policy_decide(&in, SECBPF_TIER_UNPRIVILEGED, &d, &err), 0, "%s", err.msg);
	cr_assert_eq(d.tier, SECBPF_TIER_RESTRICTED);
	/* trusted, the administrator's "ignore" holds */
	in.config_trusted = true;
	cr_assert_eq(policy_decide(&in, SECBPF_TIER_UNPRIVILEGED, &d, &err), 0, "%s", err.msg);
	cr_assert_eq(d.tier, SECBPF_TIER_UNPRIVILEGED);
	cr_assert(!d.yama_followed);
	test_remove_tree(dir);
}

Test(policy, an_untrusted_file_still_lowers)
{
	char dir[256];
	struct policy_inputs in = { .ptrace_scope = -1, .in_init_userns = true };
	struct policy_decision d;
	struct secbpf_err err = { { 0 } };

	test_scratch_dir(dir, sizeof(dir), "secbpf-policy");
	in.config_path = write_file(dir, "policy.conf", "# seed 007\n\nmax_tier = restricted\n");
	cr_assert_eq(policy_decide(&in, SECBPF_TIER_UNPRIVILEGED, &d, &err), 0, "%s", err.msg);
	cr_assert_eq(d.tier, SECBPF_TIER_RESTRICTED);
	cr_assert_eq(d.decided_by, POLICY_BY_FILE);
	cr_assert_eq(d.max_tier_line, 3);
	cr_assert_not_null(strstr(d.reason, "policy.conf:3"), "%s", d.reason);
	test_remove_tree(dir);
}

Test(policy, a_malformed_file_names_its_line)
{
	char dir[256];
	struct policy_inputs in = { .ptrace_scope = -1, .in_init_userns = true };
	struct policy_decision d;
	struct secbpf_err err = { { 0 } };

	test_scratch_dir(dir, sizeof(dir), "secbpf-policy");
	in.config_path = write_file(dir, "policy.conf", "max_tier = restricted\n\nyama = maybe\n");
	cr_assert_eq(policy_decide(&in, SECBPF_TIER_UNPRIVILEGED, &d, &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "policy.conf:3: yama must be follow or ignore"), "%s",
			   err.msg);
	test_remove_tree(dir);
}

/* ---- which files are trusted ---- */

Test(policy, only_files_no_one_but_root_can_write_are_trusted)
{
	char dir[256], sub[300], link[300], why[160];
	const char *cfg;

	if (geteuid() != 0)
		test_skip_unless_ci("needs root to own the files");
	test_scratch_dir(dir, sizeof(dir), "secbpf-policy"); /* 0700, root's */
	cfg = write_file(dir, "policy.conf", "max_tier = privileged\n");
	cr_assert(policy_config_trusted(cfg, why, sizeof(why)), "%s", why);
	/* owned by another user */
	cr_assert_eq(chown(cfg, NOBODY, NOBODY), 0);
	cr_assert_not(policy_config_trusted(cfg, why, sizeof(why)));
	cr_assert_not_null(strstr(why, "owned by uid 65534"), "%s", why);
	cr_assert_eq(chown(cfg, 0, 0), 0);
	/* writable by others */
	cr_assert_eq(chmod(cfg, 0666), 0);
	cr_assert_not(policy_config_trusted(cfg, why, sizeof(why)));
	cr_assert_not_null(strstr(why, "writable"), "%s", why);
	cr_assert_eq(chmod(cfg, 0644), 0);
	/* in a directory others can write (and not sticky) */
	snprintf(sub, sizeof(sub), "%s/open", dir);
	cr_assert_eq(mkdir(sub, 0777), 0);
	cr_assert_eq(chmod(sub, 0777), 0);
	cfg = write_file(sub, "policy.conf", "max_tier = privileged\n");
	cr_assert_not(policy_config_trusted(cfg, why, sizeof(why)));
	cr_assert_not_null(strstr(why, "/open is writable"), "%s", why);
	/* sticky, as /tmp: others cannot replace root's file */
	cr_assert_eq(chmod(sub, 01777), 0);
	cr_assert(policy_config_trusted(cfg, why, sizeof(why)), "%s", why);
	/* a symbolic link, a relative path, an absent file */
	snprintf(link, sizeof(link), "%s/link.conf", dir);
	cr_assert_eq(symlink(cfg, link), 0);
	cr_assert_not(policy_config_trusted(link, why, sizeof(why)));
	cr_assert_not_null(strstr(why, "symbolic link"), "%s", why);
	cr_assert_not(policy_config_trusted("policy.conf", why, sizeof(why)));
	cr_assert_not(policy_config_trusted("/nonexistent/policy.conf", why, sizeof(why)));
	test_remove_tree(dir);
}

/* ---- this process's user namespace ---- */

Test(policy, a_child_user_namespace_is_not_the_initial_one)
{
	pid_t pid;
	int st;

	if (!policy_in_init_userns())
		test_skip_unless_ci("the tests themselves run in a user namespace");
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER))
			_exit(2);
		_exit(policy_in_init_userns() ? 1 : 0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

/* ---- secbpf policy, as a user would run it ---- */

Test(policy, the_userns_reproduction_gets_the_unprivileged_tier, .timeout = 60)
{
	struct stage s;
	char out[8192];
	int rc;

	stage_secbpf(&s);
	/* Issue 13, as reported: nobody in its own user and pid namespace. */
	rc = test_shell(out, sizeof(out), AS_NOBODY USERNS "'%s' policy", s.secbpf);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(starts_with(out, "tier: unprivileged\n"), "%s", out);
	cr_assert_not_null(strstr(out, "user-namespace: not the initial one"), "%s", out);
	/* With its own /etc saying privileged and yama = ignore. */
	rc = test_shell(out, sizeof(out),
			AS_NOBODY USERNS "sh -c 'mount -t tmpfs none /etc && mkdir /etc/secbpf && "
					 "printf \"max_tier = privileged\\nyama = ignore\\n\" > "
					 "/etc/secbpf/policy.conf && exec \"$0\" policy' '%s'",
			s.secbpf);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(starts_with(out, "tier: unprivileged\n"), "%s", out);
	cr_assert_not_null(strstr(out, "policy-file: /etc/secbpf/policy.conf (not trusted"), "%s",
			   out);
	cr_assert_not_null(strstr(out, "max_tier = privileged (ignored)"), "%s", out);
	cr_assert_not_null(strstr(out, "yama = ignore (ignored)"), "%s", out);
	test_remove_tree(s.dir);
}

/* A filter that needs the privileged tier (bpf_get_current_comm). */
static const char comm_filter_body[] = "SEC(\"seccomp\")\n"
				       "int comm_filter(struct seccomp_data *ctx)\n"
				       "{\n"
				       "	char comm[16];\n"
				       "	bpf_get_current_comm(comm, sizeof(comm));\n"
				       "	return comm[0] == 'x' ? SECCOMP_RET_ERRNO | 1 : "
				       "SECCOMP_RET_ALLOW;\n"
				       "}\n";

/* Compile body into dir/name.bpf.o (readable by all); returns its path. */
static const char *compile_filter(struct stage *s, const char *name, const char *body)
{
	static char obj[2][512];
	static int next;
	char *o = obj[next++ % 2];
	char out[8192];
	const char *src = test_write_filter(s->dir, name, body);
	int rc;

	snprintf(o, sizeof(obj[0]), "%s/%s.bpf.o", s->dir, name);
	rc = test_shell(out, sizeof(out), "'%s' cc '%s' -o '%s'", s->secbpf, src, o);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert_eq(chmod(o, 0644), 0);
	return o;
}

Test(policy, a_user_namespace_cannot_verify_at_the_privileged_tier, .timeout = 60)
{
	struct stage s;
	char out[8192];
	const char *obj;
	int rc;

	stage_secbpf(&s);
	obj = compile_filter(&s, "comm", comm_filter_body);
	/* What issue 13 reproduced: `verify` accepted it here. */
	rc = test_shell(out, sizeof(out),
			AS_NOBODY USERNS
			"sh -c 'mount -t tmpfs none /etc && mkdir /etc/secbpf && "
			"printf \"max_tier = privileged\\n\" > /etc/secbpf/policy.conf "
			"&& exec \"$0\" verify --tier privileged \"$1\"' '%s' '%s'",
			s.secbpf, obj);
	cr_assert_eq(rc, 1, "%s", out);
	cr_assert_not_null(strstr(out, "needs the privileged tier"), "%s", out);
	cr_assert_not_null(strstr(out, "not in the initial user namespace"), "%s", out);
	test_remove_tree(s.dir);
}

Test(policy, root_with_a_privileged_policy_gets_privileged, .timeout = 60)
{
	struct stage s;
	char out[8192];
	const char *cfg;
	int rc;

	stage_secbpf(&s);
	cfg = write_file(s.dir, "policy.conf", "# site\nmax_tier = privileged\n");
	rc = test_shell(out, sizeof(out), "'%s' policy --config '%s'", s.secbpf, cfg);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(starts_with(out, "tier: privileged\n"), "%s", out);
	cr_assert_not_null(strstr(out, "CAP_SYS_ADMIN in the initial user namespace"), "%s", out);
	cr_assert_not_null(strstr(out, "policy.conf:2 sets max_tier = privileged"), "%s", out);
	/* root with some capabilities taken away (capget decides) */
	rc = test_shell(out, sizeof(out),
			"setpriv --bounding-set -sys_admin '%s' policy --config '%s'", s.secbpf,
			cfg);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(starts_with(out, "tier: privileged\n"), "%s", out);
	cr_assert_not_null(strstr(out, "CAP_BPF and CAP_PERFMON in the initial"), "%s", out);
	rc = test_shell(out, sizeof(out),
			"setpriv --bounding-set -sys_admin,-bpf '%s' policy --config '%s'",
			s.secbpf, cfg);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(starts_with(out, "tier: unprivileged\n"), "%s", out);
	cr_assert_not_null(strstr(out, "decided-by: capabilities"), "%s", out);
	/* nobody, with the same file: no capabilities */
	rc = test_shell(out, sizeof(out), AS_NOBODY "'%s' policy --config '%s'", s.secbpf, cfg);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(starts_with(out, "tier: unprivileged\n"), "%s", out);
	cr_assert_not_null(strstr(out, "decided-by: capabilities"), "%s", out);
	/* the file handed over to nobody: it can no longer raise */
	cr_assert_eq(chown(cfg, NOBODY, NOBODY), 0);
	rc = test_shell(out, sizeof(out), "'%s' policy --config '%s'", s.secbpf, cfg);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(starts_with(out, "tier: unprivileged\n"), "%s", out);
	cr_assert_not_null(strstr(out, "owned by uid 65534"), "%s", out);
	/* -j: one JSON document with the same fields */
	cr_assert_eq(chown(cfg, 0, 0), 0);
	rc = test_shell(out, sizeof(out),
			"'%s' policy -j --config '%s' | python3 -c 'import json, sys; "
			"d = json.load(sys.stdin); print(d[\"tier\"], d[\"decided_by\"])'",
			s.secbpf, cfg);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert_str_eq(out, "privileged request\n");
	test_remove_tree(s.dir);
}

Test(policy, a_restricted_policy_refuses_maps, .timeout = 60)
{
	struct stage s;
	char out[8192];
	const char *cfg, *obj;
	int rc;

	stage_secbpf(&s);
	cfg = write_file(s.dir, "restricted.conf", "max_tier = restricted\n");
	rc = test_shell(out, sizeof(out), "'%s' policy --config '%s'", s.secbpf, cfg);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(starts_with(out, "tier: restricted\n"), "%s", out);
	cr_assert_not_null(strstr(out, "restricted.conf:1"), "%s", out);
	/* seed 007: the same policy as the system's, in a mount namespace of
	 * this test's own, and a program with a map fails to verify */
	obj = compile_filter(&s, "count_closes", test_count_closes_body);
	rc = test_shell(out, sizeof(out), "'%s' verify '%s'", s.secbpf, obj);
	cr_assert_eq(rc, 0, "without the policy: %s", out);
	rc = test_shell(out, sizeof(out),
			"unshare -m sh -c 'mount -t tmpfs -o mode=0755 none /etc && mkdir "
			"/etc/secbpf && cp \"$2\" /etc/secbpf/policy.conf && exec \"$0\" verify "
			"\"$1\"' '%s' '%s' '%s'",
			s.secbpf, obj, cfg);
	cr_assert_eq(rc, 1, "%s", out);
	cr_assert_not_null(strstr(out, "rejected"), "%s", out);
	cr_assert_not_null(strstr(out, "capped to restricted by /etc/secbpf/policy.conf:1"), "%s",
			   out);
	test_remove_tree(s.dir);
}

Test(policy, a_malformed_policy_is_an_error_naming_the_line, .timeout = 60)
{
	struct stage s;
	char out[8192];
	const char *cfg;
	int rc;

	stage_secbpf(&s);
	cfg = write_file(s.dir, "bad.conf", "max_tier = restricted\ncolour = blue\n");
	rc = test_shell(out, sizeof(out), "'%s' policy --config '%s'", s.secbpf, cfg);
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert(starts_with(out, "secbpf: policy: "), "%s", out);
	cr_assert_not_null(strstr(out, "bad.conf:2: unknown key \"colour\""), "%s", out);
	test_remove_tree(s.dir);
}

/* ---- policy_read_peer: the peer as the kernel sees it ---- */

enum peer_kind {
	PEER_ROOT,
	PEER_NOBODY,
	PEER_USERNS,  /* nobody, then in a user namespace of its own */
	PEER_REGAINS, /* nobody when the socket is made, root again after */
	PEER_GONE,    /* exits before it is looked at */
};

struct peer {
	pid_t pid;
	int sock; /* our end: its peer is the child */
	int ctl;  /* closing it lets the child exit */
};

static int become_nobody(uid_t saved)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY))
		return -1;
	return setresuid(NOBODY, NOBODY, saved);
}

static void peer_child(int ctl, enum peer_kind kind)
{
	struct secbpf_err err = { { 0 } };
	int sv[2];
	char c;

	if (kind == PEER_NOBODY || kind == PEER_USERNS || kind == PEER_GONE)
		if (become_nobody(NOBODY))
			_exit(10);
	if (kind == PEER_REGAINS && become_nobody(0))
		_exit(11);
	if (kind == PEER_USERNS && unshare(CLONE_NEWUSER))
		_exit(12);
	/* The socket's credentials are the child's, from now. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		_exit(13);
	if (kind == PEER_REGAINS && seteuid(0))
		_exit(14);
	if (svc_send(ctl, SVC_REP_OK, NULL, 0, sv[0], &err))
		_exit(15);
	if (kind == PEER_GONE)
		_exit(0);
	(void)!read(ctl, &c, 1);
	_exit(0);
}

static void peer_start(struct peer *p, enum peer_kind kind)
{
	struct secbpf_err err = { { 0 } };
	struct svc_msg *m = calloc(1, sizeof(*m));
	int ctl[2];

	cr_assert_not_null(m);
	if (geteuid() != 0)
		test_skip_unless_ci("needs root to make peers of other users");
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl), 0);
	p->pid = fork();
	cr_assert_geq(p->pid, 0);
	if (p->pid == 0) {
		close(ctl[0]);
		peer_child(ctl[1], kind);
	}
	close(ctl[1]);
	p->ctl = ctl[0];
	cr_assert_eq(svc_recv(p->ctl, m, &err), 0, "%s", err.msg);
	cr_assert_geq(m->fd, 0);
	p->sock = m->fd;
	free(m);
}

static void peer_stop(struct peer *p)
{
	int st;

	close(p->ctl);
	close(p->sock);
	cr_assert_eq(waitpid(p->pid, &st, 0), p->pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "peer status %#x", st);
}

/* Decide for the peer with a trusted policy allowing the privileged tier. */
static enum secbpf_tier peer_tier(struct policy_inputs *in)
{
	struct policy_decision d;
	struct secbpf_err err = { { 0 } };
	char dir[256];
	const char *cfg;

	test_scratch_dir(dir, sizeof(dir), "secbpf-policy");
	cfg = write_file(dir, "policy.conf", "max_tier = privileged\n");
	in->config_path = cfg;
	in->config_trusted = policy_config_trusted(cfg, NULL, 0);
	cr_assert(in->config_trusted);
	cr_assert_eq(policy_decide(in, SECBPF_TIER_PRIVILEGED, &d, &err), 0, "%s", err.msg);
	test_remove_tree(dir);
	return d.tier;
}

/* Not in Debian 12's headers (linux/pidfd.h of Linux 6.11). */
#ifndef PIDFD_GET_USER_NAMESPACE
#define PIDFD_GET_USER_NAMESPACE _IO(0xFF, 9)
#endif

/* Where this kernel lets policy_read_peer learn a user namespace: from the
 * pidfd on Linux 6.11+, from /proc/PID/ns/user before (ENOTTY, EINVAL). */
static enum policy_userns_source kernel_userns_source(void)
{
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0), nsfd;

	cr_assert_geq(pidfd, 0, "pidfd_open: %s", strerror(errno));
	nsfd = ioctl(pidfd, PIDFD_GET_USER_NAMESPACE, 0);
	if (nsfd >= 0) {
		close(nsfd);
		close(pidfd);
		return POLICY_USERNS_PIDFD;
	}
	cr_assert(errno == ENOTTY || errno == EINVAL, "PIDFD_GET_USER_NAMESPACE: %s",
		  strerror(errno));
	close(pidfd);
	return POLICY_USERNS_PROC;
}

Test(policy, peer_root_in_the_initial_namespace)
{
	struct policy_inputs in;
	struct secbpf_err err = { { 0 } };
	struct ucred cred;
	struct peer p;

	peer_start(&p, PEER_ROOT);
	cr_assert_eq(policy_read_peer(&in, p.sock, "/nonexistent/policy.conf", &cred, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(cred.pid, p.pid);
	cr_assert_eq(cred.uid, 0);
	cr_assert_eq(in.pid, p.pid);
	cr_assert(in.in_init_userns);
	cr_assert_eq(in.userns_ino, POLICY_INIT_USERNS_INO);
	cr_assert_eq(in.userns_source, kernel_userns_source());
	cr_assert(in.cap_effective & CAP(SYS_ADMIN));
	cr_assert_str_eq(in.config_path, "/nonexistent/policy.conf");
	cr_assert_eq(peer_tier(&in), SECBPF_TIER_PRIVILEGED);
	peer_stop(&p);
}

Test(policy, peer_nobody_has_no_capabilities)
{
	struct policy_inputs in;
	struct secbpf_err err = { { 0 } };
	struct ucred cred;
	struct peer p;

	peer_start(&p, PEER_NOBODY);
	cr_assert_eq(policy_read_peer(&in, p.sock, NULL, &cred, &err), 0, "%s", err.msg);
	cr_assert_eq(cred.pid, p.pid);
	cr_assert_eq(cred.uid, NOBODY);
	cr_assert_eq(cred.gid, NOBODY);
	cr_assert(in.in_init_userns);
	cr_assert_eq(in.cap_effective, 0);
	cr_assert_str_eq(in.config_path, POLICY_DEFAULT_PATH);
	cr_assert_eq(peer_tier(&in), SECBPF_TIER_UNPRIVILEGED);
	peer_stop(&p);
}

Test(policy, peer_in_a_user_namespace_gets_nothing_from_its_capabilities)
{
	struct policy_inputs in;
	struct secbpf_err err = { { 0 } };
	struct ucred cred;
	struct peer p;

	peer_start(&p, PEER_USERNS);
	cr_assert_eq(policy_read_peer(&in, p.sock, NULL, &cred, &err), 0, "%s", err.msg);
	cr_assert_eq(cred.uid, NOBODY);
	cr_assert_not(in.in_init_userns);
	cr_assert_neq(in.userns_ino, POLICY_INIT_USERNS_INO);
	cr_assert_neq(in.userns_ino, 0);
	/* all capabilities, in its own namespace: they do not count */
	cr_assert(in.cap_effective & CAP(SYS_ADMIN));
	cr_assert_eq(peer_tier(&in), SECBPF_TIER_UNPRIVILEGED);
	peer_stop(&p);
}

Test(policy, peer_that_regained_root_after_connecting_gets_no_capabilities)
{
	struct policy_inputs in;
	struct secbpf_err err = { { 0 } };
	struct ucred cred;
	struct peer p;

	peer_start(&p, PEER_REGAINS);
	cr_assert_eq(policy_read_peer(&in, p.sock, NULL, &cred, &err), 0, "%s", err.msg);
	cr_assert_eq(cred.uid, NOBODY);
	cr_assert(in.in_init_userns);
	cr_assert_eq(in.cap_effective, 0);
	cr_assert_not_null(strstr(in.caps_distrust, "effective uid/gid is 0/65534 now"), "%s",
			   in.caps_distrust);
	cr_assert_eq(peer_tier(&in), SECBPF_TIER_UNPRIVILEGED);
	peer_stop(&p);
}

Test(policy, peer_gone_is_an_error)
{
	struct policy_inputs in;
	struct secbpf_err err = { { 0 } };
	struct peer p;
	int st;

	peer_start(&p, PEER_GONE);
	cr_assert_eq(waitpid(p.pid, &st, 0), p.pid);
	cr_assert_lt(policy_read_peer(&in, p.sock, NULL, NULL, &err), 0);
	cr_assert_neq(err.msg[0], '\0');
	cr_assert_not(in.in_init_userns);
	cr_assert_eq(in.cap_effective, 0);
	close(p.ctl);
	close(p.sock);
}

/* ---- secbpf policy --daemon: the client, against secbpfd ---- */

static bool socket_answers(void *arg)
{
	struct secbpf_err err;
	int fd = svc_connect(arg, &err);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Start secbpfd on dir/secbpfd.sock, with no programs and the service's
 * own policy file policy. Returns its pid; the socket path is in sock. */
static pid_t start_secbpfd(const char *dir, const char *policy, char *sock, size_t size)
{
	const char *secbpfd = getenv("SECBPFD");
	char cfg[512], programs[600], log[600];
	pid_t pid;
	int fd;

	cr_assert(secbpfd, "SECBPFD is not set (run through meson test)");
	snprintf(cfg, sizeof(cfg), "%s/service", dir);
	snprintf(programs, sizeof(programs), "%s/programs.d", cfg);
	snprintf(log, sizeof(log), "%s/secbpfd.log", dir);
	cr_assert_eq(mkdir(cfg, 0755), 0);
	cr_assert_eq(mkdir(programs, 0755), 0);
	write_file(cfg, "secbpfd.conf", "# no programs: only the policy is asked\n");
	snprintf(sock, size, "%s/secbpfd.sock", dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execl(secbpfd, "secbpfd", "--foreground", "--config", cfg, "--socket", sock,
		      "--policy", policy, (char *)NULL);
		_exit(127);
	}
	cr_assert(test_wait_for(socket_answers, sock, 30000), "secbpfd did not start (log: %s)",
		  log);
	return pid;
}

Test(policy, secbpfd_decides_from_the_peer_not_from_its_files, .timeout = 60)
{
	struct stage s;
	char out[8192], sock[600];
	const char *policy;
	pid_t server;
	int rc, st;

	stage_secbpf(&s);
	policy = write_file(s.dir, "service-policy.conf", "max_tier = privileged\n");
	server = start_secbpfd(s.dir, policy, sock, sizeof(sock));

	/* root: privileged, by the service's file */
	rc = test_shell(out, sizeof(out), "'%s' policy --daemon '%s'", s.secbpf, sock);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(starts_with(out, "tier: privileged\n"), "%s", out);
	cr_assert_not_null(strstr(out, "service-policy.conf (trusted)"), "%s", out);
	/* nobody: no capabilities; -j gives the same fields */
	rc = test_shell(out, sizeof(out), AS_NOBODY "'%s' policy -j --daemon '%s'", s.secbpf, sock);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert_not_null(strstr(out, "\"tier\":\"unprivileged\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"decided_by\":\"capabilities\""), "%s", out);
	cr_assert_not_null(strstr(out, "uid 65534"), "%s", out);
	/* nobody in its own namespaces, with its own /etc: the service
	 * neither reads that /etc nor counts those capabilities */
	rc = test_shell(out, sizeof(out),
			AS_NOBODY USERNS "sh -c 'mount -t tmpfs none /etc && mkdir /etc/secbpf && "
					 "printf \"max_tier = privileged\\nyama = ignore\\n\" > "
					 "/etc/secbpf/policy.conf && exec \"$0\" policy --daemon "
					 "\"$1\"' '%s' '%s'",
			s.secbpf, sock);
	cr_assert_eq(rc, 0, "%s", out);
	cr_assert(starts_with(out, "tier: unprivileged\n"), "%s", out);
	cr_assert_not_null(strstr(out, "user-namespace: not the initial one"), "%s", out);
	cr_assert_not_null(strstr(out, "service-policy.conf (trusted)"), "%s", out);
	cr_assert_not_null(strstr(out, "uid 65534"), "%s", out);
	/* --config is the local decision's; the service reads its own */
	rc = test_shell(out, sizeof(out), "'%s' policy --daemon '%s' --config '%s'", s.secbpf, sock,
			policy);
	cr_assert_eq(rc, 2, "%s", out);
	kill(server, SIGTERM);
	cr_assert_eq(waitpid(server, &st, 0), server);
	/* no service there */
	rc = test_shell(out, sizeof(out), "'%s' policy --daemon '%s'", s.secbpf, sock);
	cr_assert_eq(rc, 2, "%s", out);
	cr_assert(starts_with(out, "secbpf: policy: "), "%s", out);
	test_remove_tree(s.dir);
}
