/* SPDX-License-Identifier: MIT */
/*
 * The header a secbpf filter includes: everything a SEC("seccomp") program
 * needs from the kernel's uapi headers and from libbpf's bpf_helpers.h.
 * Build filters with `secbpf cc FILE.c`, which passes -O2 -g -target bpf,
 * the multiarch include directory and the host's arch macro (__x86_64__ on
 * x86_64, so that <asm/unistd.h> and checks like the seed sample's
 * `#if defined(__x86_64__)` see the syscall ABI the filter will enforce).
 */
#ifndef SECBPF_FILTER_H
#define SECBPF_FILTER_H

#ifndef __bpf__
#error "secbpf filters are compiled with clang -target bpf (use: secbpf cc FILE.c)"
#endif

#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/seccomp.h>
#include <linux/audit.h>
#include <linux/unistd.h>
#include <linux/errno.h>
#include <bpf/bpf_helpers.h>

/* __SNR_<arch>_<syscall>: every arch's syscall numbers, named. */
#include <secbpf/syscalls.h>

/* The native audit arch of the ABI the filter is built for. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SECBPF_AUDIT_ARCH_NATIVE AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define SECBPF_AUDIT_ARCH_NATIVE AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define SECBPF_AUDIT_ARCH_NATIVE AUDIT_ARCH_AARCH64
#endif

/*
 * The arch checks every filter needs (docs/writing-filters.md). The kernel
 * reports x32 syscalls with AUDIT_ARCH_X86_64 and bit 30 set in nr, so
 * "x86_64" means that arch with the bit clear: a filter that tests only
 * arch lets x32 numbers (__SNR_x32_*) reach its default. nr == -1 counts
 * as x32 here (bit 30 is set): syscall(-1) gets the deny, and the kernel
 * never runs filters again for a tracer that skips a syscall with -1.
 */
#define SECBPF_X32_SYSCALL_BIT 0x40000000
#define SECBPF_ARCH_IS_X86_64(ctx)                                                                 \
	((ctx)->arch == AUDIT_ARCH_X86_64 && !((ctx)->nr & SECBPF_X32_SYSCALL_BIT))
#define SECBPF_ARCH_IS_X32(ctx)                                                                    \
	((ctx)->arch == AUDIT_ARCH_X86_64 && ((ctx)->nr & SECBPF_X32_SYSCALL_BIT))
#define SECBPF_ARCH_IS_I386(ctx) ((ctx)->arch == AUDIT_ARCH_I386)
#define SECBPF_ARCH_IS_AARCH64(ctx) ((ctx)->arch == AUDIT_ARCH_AARCH64)

/* The native ABI of the host the filter is built for (x86_64: not x32). */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SECBPF_ARCH_IS_NATIVE(ctx) SECBPF_ARCH_IS_X86_64(ctx)
#elif defined(__i386__)
#define SECBPF_ARCH_IS_NATIVE(ctx) SECBPF_ARCH_IS_I386(ctx)
#elif defined(__aarch64__)
#define SECBPF_ARCH_IS_NATIVE(ctx) SECBPF_ARCH_IS_AARCH64(ctx)
#endif

/*
 * SECBPF_ARCH_ONE_OF(ctx, X86_64, I386, ...): whether the syscall comes
 * from one of the listed ABIs (1 to 5 of X86_64, X32, I386, AARCH64,
 * NATIVE). SECBPF_DENY_OTHER_ARCHES(ctx, action, X86_64, I386, ...)
 * returns action from the filter for every other ABI: put it first, then
 * tell the listed ones apart with SECBPF_ARCH_IS_*.
 */
#define SECBPF__ARCH_IS(ctx, a) SECBPF_ARCH_IS_##a(ctx)
#define SECBPF__ONE_OF1(c, a) SECBPF__ARCH_IS(c, a)
#define SECBPF__ONE_OF2(c, a, ...) (SECBPF__ARCH_IS(c, a) || SECBPF__ONE_OF1(c, __VA_ARGS__))
#define SECBPF__ONE_OF3(c, a, ...) (SECBPF__ARCH_IS(c, a) || SECBPF__ONE_OF2(c, __VA_ARGS__))
#define SECBPF__ONE_OF4(c, a, ...) (SECBPF__ARCH_IS(c, a) || SECBPF__ONE_OF3(c, __VA_ARGS__))
#define SECBPF__ONE_OF5(c, a, ...) (SECBPF__ARCH_IS(c, a) || SECBPF__ONE_OF4(c, __VA_ARGS__))
#define SECBPF__COUNT(_1, _2, _3, _4, _5, n, ...) n
#define SECBPF__PASTE(a, b) a##b
#define SECBPF__ONE_OF(n) SECBPF__PASTE(SECBPF__ONE_OF, n)
#define SECBPF_ARCH_ONE_OF(ctx, ...)                                                               \
	(SECBPF__ONE_OF(SECBPF__COUNT(__VA_ARGS__, 5, 4, 3, 2, 1))(ctx, __VA_ARGS__))
#define SECBPF_DENY_OTHER_ARCHES(ctx, action, ...)                                                 \
	do {                                                                                       \
		if (!SECBPF_ARCH_ONE_OF(ctx, __VA_ARGS__))                                         \
			return (action);                                                           \
	} while (0)

/*
 * An argument the kernel takes as an int or unsigned int (an fd, a
 * protocol, flags of that type): only its low 32 bits count, whatever the
 * caller put in the upper half of the register. Compare these, never the
 * whole args[i].
 */
/* A map key or value that holds a syscall number of the native ABI:
 * `secbpf run --stats` prints its name next to it. */
typedef __u32 secbpf_syscall_nr;

#define SECBPF_ARG_U32(ctx, i) ((__u32)(ctx)->args[i])
#define SECBPF_ARG_INT(ctx, i) ((int)(ctx)->args[i])

#endif
