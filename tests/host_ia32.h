/* SPDX-License-Identifier: MIT */
/*
 * Whether this host's kernel takes i386 syscalls (`int $0x80`) from a
 * 64-bit process: one probe for every test that issues them. A kernel
 * built without IA32_EMULATION, booted with ia32_emulation=0 or built with
 * IA32_EMULATION_DEFAULT_DISABLED (and many confidential-computing guests)
 * kills the caller with SIGSEGV instead: a missing kernel feature, so the
 * tests that need it skip by that name (docs/divergences.md, hosts).
 */
#ifndef SECBPF_TEST_HOST_IA32_H
#define SECBPF_TEST_HOST_IA32_H

#include <stdbool.h>
#include <stddef.h>

/* The skip reason, word for word, wherever a test skips for it. */
#define TEST_NO_IA32_REASON "the kernel runs without IA-32 emulation"

/*
 * Probe once per process (the answer is kept): a child with default
 * signal dispositions (a test runner's SIGSEGV handler must not see the
 * fault) issues i386's getpid through `int $0x80` and must get its pid.
 * Returns true if it did; otherwise false, with what happened in why.
 */
bool test_host_has_ia32(char *why, size_t size);

/* Skip the current Criterion test on a host without IA-32 emulation,
 * naming the missing feature and what the probe saw. */
#define test_require_ia32()                                                                        \
	do {                                                                                       \
		char ia32_why_[160];                                                               \
		if (!test_host_has_ia32(ia32_why_, sizeof(ia32_why_)))                             \
			cr_skip_test(TEST_NO_IA32_REASON " (%s)", ia32_why_);                      \
	} while (0)

#endif
