// SPDX-License-Identifier: GPL-2.0
/*
 * seed_libbpf - the seed 004 user program (samples/bpf/test_seccomp_user.c)
 * on the libbpf built from the patched tree, i.e. with patch 0003: libbpf
 * maps SEC("seccomp") to BPF_PROG_TYPE_SECCOMP by itself.
 *
 * kernel/boot builds this against <build>/libbpf (headers from the patched
 * tools/ and include/uapi) and puts the compiled samples/seed_close.bpf.c
 * at /data/seed_close.bpf.o. The program type libbpf assigns is compared
 * with the one the kernel advertises in /proc/sys/kernel/seccomp/extended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/bpf.h>		/* patched: BPF_PROG_TYPE_SECCOMP */
#include <linux/seccomp.h>	/* patched: SECCOMP_FILTER_FLAG_EXTENDED */

static int ntest, nfail;

static void result(int ok, const char *what)
{
	ntest++;
	nfail += !ok;
	printf("%sok %d - %s\n", ok ? "" : "not ", ntest, what);
	fflush(stdout);
}

static long advertised(const char *key)
{
	char buf[512], *p;
	ssize_t n;
	int fd = open("/proc/sys/kernel/seccomp/extended", O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (p = strtok(buf, " \n"); p; p = strtok(NULL, " \n"))
		if (!strncmp(p, key, strlen(key)) && p[strlen(key)] == '=')
			return strtol(p + strlen(key) + 1, NULL, 0);
	return -1;
}

int main(int argc, char **argv)
{
	const char *file = argc > 1 ? argv[1] : "/data/seed_close.bpf.o";
	long adv_type = advertised("prog_type"), adv_flag = advertised("filter_flag");
	struct bpf_program *prog;
	struct bpf_object *obj;
	int prog_fd, st;
	pid_t p;
	char msg[256];

	printf("TAP version 13\n");
	snprintf(msg, sizeof(msg),
		 "headers agree with the kernel: BPF_PROG_TYPE_SECCOMP=%d (kernel %ld), SECCOMP_FILTER_FLAG_EXTENDED=%lu (kernel %ld)",
		 BPF_PROG_TYPE_SECCOMP, adv_type, (unsigned long)SECCOMP_FILTER_FLAG_EXTENDED, adv_flag);
	result(adv_type == BPF_PROG_TYPE_SECCOMP && adv_flag == (long)SECCOMP_FILTER_FLAG_EXTENDED, msg);

	obj = bpf_object__open_file(file, NULL);
	if (!obj) {
		result(0, "bpf_object__open_file");
		goto out;
	}
	prog = bpf_object__next_program(obj, NULL);
	snprintf(msg, sizeof(msg), "libbpf maps SEC(\"%s\") to prog type %d",
		 prog ? bpf_program__section_name(prog) : "?", prog ? (int)bpf_program__type(prog) : -1);
	result(prog && bpf_program__type(prog) == BPF_PROG_TYPE_SECCOMP, msg);
	if (!prog || bpf_object__load(obj)) {
		result(0, "bpf_object__load");
		goto out;
	}
	prog_fd = bpf_program__fd(prog);
	result(prog_fd >= 0, "bpf_object__load + bpf_program__fd");

	p = fork();
	if (p == 0) {
		/* the seed's test_seccomp_user.c from here on */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
			perror("prctl(NO_NEW_PRIVS)");
			_exit(1);
		}
		if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_EXTENDED, &prog_fd)) {
			perror("seccomp");
			_exit(1);
		}
		close(111);
		if (errno != EBADF)
			_exit(2);
		close(999);
		if (errno != EPERM)
			_exit(3);
		printf("close syscall successfully filtered\n");
		_exit(0);
	}
	waitpid(p, &st, 0);
	snprintf(msg, sizeof(msg), "seed 004 flow via libbpf: close(999) EPERM, close(111) EBADF (status %d)",
		 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0, msg);
	bpf_object__close(obj);
out:
	printf("1..%d\n", ntest);
	printf("SECBPF-RESULT: suite=%s pass=%d fail=%d skip=0\n", "seed_libbpf", ntest - nfail, nfail);
	return nfail ? 1 : 0;
}
