// SPDX-License-Identifier: MIT
/*
 * The policy of samples/docker_like.bpf.c built with libseccomp, from the
 * same lists (samples/docker_like_policy.h): the syscalls allowed outright,
 * then the argument rules as libseccomp rules; the filter exported as cBPF;
 * and the inputs on which the two filters are compared, by simulation and
 * in the kernel (tests/test_libseccomp_equiv.c), and by bench_syscall.
 */
#ifndef BENCH_POLICY_DOCKER_LIKE_H
#define BENCH_POLICY_DOCKER_LIKE_H

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "docker_like_policy.h"


/*
 * Build the policy into ctx (made with seccomp_init(SCMP_ACT_ERRNO(EPERM))
 * for the native x86_64 arch): the allowlist, then the argument rules.
 * libseccomp takes one comparison per argument in a rule and ORs the rules
 * of a syscall, so "family < AF_VSOCK, except AF_NETLINK with
 * NETLINK_AUDIT", on the low 32 bits of each, becomes 38 rules of aligned
 * blocks.
 * Returns 0 or a negative errno from libseccomp.
 */
static inline int docker_like_seccomp_rules(scmp_filter_ctx ctx)
{
	static const int allowed[] = {
#define DOCKER_LIKE_NR(name) __NR_##name,
		DOCKER_LIKE_ALLOWED(DOCKER_LIKE_NR)
#undef DOCKER_LIKE_NR
	};
#define DOCKER_LIKE_DATUM(value) value,
	static const scmp_datum_t personas[] = { DOCKER_LIKE_PERSONAS(DOCKER_LIKE_DATUM,
								      DOCKER_LIKE_DATUM) };
#undef DOCKER_LIKE_DATUM
	/* socket(2) takes the family and the protocol as ints: each is
	 * compared on its low 32 bits, as (mask, value) blocks whose mask
	 * leaves the upper half out. Families 0..15 and 17..39 (17, 18-19,
	 * 20-23, 24-31, 32-39); with AF_NETLINK, protocols other than 9
	 * (0-7, 8, 10-11, 12-15, then 2^k..2^(k+1)-1 for k = 4..31). */
	static const struct {
		scmp_datum_t mask, value;
	} families[] = {
		{ 0xfffffff0, 0 },  { 0xffffffff, 17 }, { 0xfffffffe, 18 },
		{ 0xfffffffc, 20 }, { 0xfffffff8, 24 }, { 0xfffffff8, 32 },
	};
	struct {
		scmp_datum_t mask, value;
	} protocols[32] = {
		{ 0xfffffff8, 0 },
		{ 0xffffffff, 8 },
		{ 0xfffffffe, 10 },
		{ 0xfffffffc, 12 },
	};
	int k;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
		if (rc)
			return rc;
	}
	for (i = 0; i < sizeof(personas) / sizeof(personas[0]); i++) {
		/* personality(2) takes an unsigned int: the low 32 bits. */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, __NR_personality, 1,
				      SCMP_A0_64(SCMP_CMP_MASKED_EQ, 0xffffffff, personas[i]));
		if (rc)
			return rc;
	}
	rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, __NR_clone, 1,
			      SCMP_A0_64(SCMP_CMP_MASKED_EQ, DOCKER_LIKE_NS_CLONE_FLAGS, 0));
	if (rc)
		return rc;
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), __NR_clone3, 0);
	if (rc)
		return rc;
	for (k = 4; k < 32; k++) {
		protocols[k].mask = 0xffffffffull & ~((1ull << k) - 1);
		protocols[k].value = 1ull << k;
	}
	for (i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++) {
		rc = seccomp_rule_add(
			ctx, SCMP_ACT_ALLOW, __NR_socket, 2,
			SCMP_A0_64(SCMP_CMP_MASKED_EQ, 0xffffffff, DOCKER_LIKE_AF_NETLINK),
			SCMP_A2_64(SCMP_CMP_MASKED_EQ, protocols[i].mask, protocols[i].value));
		if (rc)
			return rc;
	}
	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		rc = seccomp_rule_add(
			ctx, SCMP_ACT_ALLOW, __NR_socket, 1,
			SCMP_A0_64(SCMP_CMP_MASKED_EQ, families[i].mask, families[i].value));
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * The policy as libseccomp compiles it (optimize: SCMP_FLTATR_CTL_OPTIMIZE,
 * 0 for the default linear layout, 2 for a binary tree), exported as cBPF
 * into *insns (malloc'ed, *len instructions). Returns 0 or a negative errno.
 */
static inline int docker_like_libseccomp_filter(int optimize, struct sock_filter **insns,
						size_t *len)
{
	scmp_filter_ctx ctx;
	off_t size;
	int fd, rc;

	ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (!ctx)
		return -ENOMEM;
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (!rc && optimize)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, optimize);
	if (!rc)
		rc = docker_like_seccomp_rules(ctx);
	/* libseccomp 2.5 exports to an fd only (seccomp_export_bpf_mem is 2.6). */
	fd = rc ? -1 : memfd_create("docker_like", MFD_CLOEXEC);
	if (!rc && fd < 0)
		rc = -errno;
	if (!rc)
		rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (rc) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	size = lseek(fd, 0, SEEK_END);
	*insns = NULL;
	if (size > 0 && size % sizeof(struct sock_filter) == 0)
		*insns = malloc((size_t)size);
	if (!*insns || pread(fd, *insns, (size_t)size, 0) != size) {
		free(*insns);
		*insns = NULL;
		close(fd);
		return -EIO;
	}
	close(fd);
	*len = (size_t)size / sizeof(struct sock_filter);
	return 0;
}

/* xorshift64*: reproducible argument values for the inputs below. */
static inline uint64_t docker_like_rng(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dull;
}

/* Syscall numbers 0..DOCKER_LIKE_NR_LIMIT - 1 are all tried. */
#define DOCKER_LIKE_NR_LIMIT 512

/*
 * The inputs on which to compare two builds of the policy, each passed to
 * fn: every nr 0..511 with zero and with random arguments; nr -1, x32 and
 * other large numbers; foreign arches; and the argument rules' edges
 * (personas, each clone flag bit, socket families 0..64 with and without
 * NETLINK_AUDIT, upper halves set).
 */
static inline void docker_like_inputs(void (*fn)(const struct seccomp_data *sd, void *arg),
					  void *arg)
{
	static const uint64_t personas[] = {
		0,	8,	 0x20000,  0x20008,	   0xffffffff,	   1,
		9,	0x40000, 0x400000, 0x100000000ull, 0x1ffffffffull, 0xffffffffffffffffull,
		0x20001
	};
	static const uint32_t big_nrs[] = { 0xffffffff, 0xfffffffe, 0x40000000, 0x40000027,
					    0x4000003f, 0x7fffffff, 0x80000000, 0x3fffffff };
	static const uint32_t arches[] = { AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64, 0, 0x4000003e };
	static const uint64_t protos[] = { 0,	       9,	    0x100000009ull,	    15,
					   0x80000009, 0xffffffff, 0xffffffff00000009ull, 0x100000000ull,
					   8,	       10,	   0x1000000000000009ull };
	struct seccomp_data sd = { .arch = AUDIT_ARCH_X86_64 };
	uint64_t rng_state = 0x9e3779b97f4a7c15ull;
	uint32_t nr;
	size_t i, j;
	int r, b;

	for (nr = 0; nr < DOCKER_LIKE_NR_LIMIT; nr++) {
		sd.nr = (int)nr;
		memset(sd.args, 0, sizeof(sd.args));
		fn(&sd, arg);
		for (r = 0; r < 8; r++) {
			for (j = 0; j < 6; j++) /* all magnitudes */
				sd.args[j] = docker_like_rng(&rng_state) >>
					     (docker_like_rng(&rng_state) & 63);
			fn(&sd, arg);
		}
	}
	memset(sd.args, 0, sizeof(sd.args));
	for (i = 0; i < sizeof(big_nrs) / sizeof(big_nrs[0]); i++) {
		sd.nr = (int)big_nrs[i];
		fn(&sd, arg);
	}
	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		sd.arch = arches[i];
		for (nr = 0; nr < 64; nr++) {
			sd.nr = (int)nr;
			fn(&sd, arg);
		}
	}
	sd.arch = AUDIT_ARCH_X86_64;
	sd.nr = __NR_personality;
	for (i = 0; i < sizeof(personas) / sizeof(personas[0]); i++) {
		sd.args[0] = personas[i];
		fn(&sd, arg);
	}
	sd.nr = __NR_clone;
	for (b = 0; b < 64; b++) {
		sd.args[0] = 1ull << b;
		fn(&sd, arg);
		sd.args[0] |= 0x11;
		fn(&sd, arg);
	}
	sd.nr = __NR_socket;
	for (sd.args[0] = 0; sd.args[0] <= 64; sd.args[0]++) {
		for (j = 0; j < sizeof(protos) / sizeof(protos[0]); j++) {
			sd.args[2] = protos[j];
			fn(&sd, arg);
			sd.args[0] |= 1ull << 32;
			fn(&sd, arg);
			sd.args[0] &= 0xffffffff;
		}
	}
}

#endif
