// SPDX-License-Identifier: GPL-2.0
/*
 * seed_lsm - the seccomp_extended LSM hook (patch 0004) driven by a BPF-LSM
 * program (/data/seed_lsm.bpf.o from tests/seed_lsm.bpf.c): while it is
 * attached, a filter calling a helper or reading a map value directly is
 * rejected at load time and a plain filter still loads; after detaching,
 * helpers work again. Runs before seed_sample (which ends with Yama's
 * ptrace_scope=3).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/bpf.h>

static int ntest, nfail;

static void result(int ok, const char *what)
{
	ntest++;
	nfail += !ok;
	printf("%sok %d - %s\n", ok ? "" : "not ", ntest, what);
	fflush(stdout);
}

static long advertised_prog_type(void)
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
	p = strstr(buf, "prog_type=");
	return p ? strtol(p + 10, NULL, 0) : -1;
}

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

static int load(long type, const struct bpf_insn *insns, int cnt)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = cnt;
	a.license = (uintptr_t)"GPL";
	return syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a));
}

static int array_map(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	return syscall(__NR_bpf, BPF_MAP_CREATE, &a, sizeof(a));
}

/* bit 0: helper filter loads, bit 1: map-value filter loads, bit 2: plain loads */
static int try_loads(long type, int map_fd)
{
	const struct bpf_insn helper[] = {
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_pid_tgid),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0x7fff0000),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	const struct bpf_insn mapval[] = {
		INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_VALUE, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_LDX | BPF_DW | BPF_MEM, 0, 1, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0x7fff0000),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	const struct bpf_insn plain[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0x7fff0000),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	int fd, r = 0;

	if ((fd = load(type, helper, 3)) >= 0) {
		r |= 1;
		close(fd);
	}
	if ((fd = load(type, mapval, 5)) >= 0) {
		r |= 2;
		close(fd);
	}
	if ((fd = load(type, plain, 2)) >= 0) {
		r |= 4;
		close(fd);
	}
	return r;
}

int main(void)
{
	long type = advertised_prog_type();
	int map_fd = array_map(), r, *calls;
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_link *link;
	struct bpf_map *bss;
	char msg[200];

	printf("TAP version 13\n");
	if (type < 0 || map_fd < 0) {
		result(0, "sysctl and array map");
		goto out;
	}
	r = try_loads(type, map_fd);
	snprintf(msg, sizeof(msg), "without a policy: helper, map-value and plain filters load (%d, want 7)", r);
	result(r == 7, msg);

	obj = bpf_object__open_file("/data/seed_lsm.bpf.o", NULL);
	if (!obj || bpf_object__load(obj)) {
		result(0, "load the BPF-LSM program (lsm/seccomp_extended)");
		goto out;
	}
	prog = bpf_object__find_program_by_name(obj, "deny_seccomp_extended");
	link = prog ? bpf_program__attach_lsm(prog) : NULL;
	result(link != NULL, "attach BPF-LSM program to lsm/seccomp_extended");
	if (!link)
		goto out;

	r = try_loads(type, map_fd);
	snprintf(msg, sizeof(msg), "policy attached: only the plain filter loads (%d, want 4)", r);
	result(r == 4, msg);

	/* the program's global counter, read from the live .bss map */
	bss = bpf_object__find_map_by_name(obj, ".bss");
	calls = NULL;
	if (bss && bpf_map__value_size(bss) <= 256) {
		static int val[64];
		int key = 0;

		if (bpf_map__lookup_elem(bss, &key, sizeof(key), val, bpf_map__value_size(bss), 0) == 0)
			calls = &val[0];
	}
	snprintf(msg, sizeof(msg), "the hook ran (calls=%d)", calls ? *calls : -1);
	result(calls && *calls > 0, msg);

	bpf_link__destroy(link);
	r = try_loads(type, map_fd);
	snprintf(msg, sizeof(msg), "policy detached: helpers and maps allowed again (%d, want 7)", r);
	result(r == 7, msg);
	bpf_object__close(obj);
out:
	printf("1..%d\n", ntest);
	printf("SECBPF-RESULT: suite=%s pass=%d fail=%d skip=0\n", "seed_lsm", ntest - nfail, nfail);
	return nfail ? 1 : 0;
}
