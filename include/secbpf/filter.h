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

/* The native audit arch of the ABI the filter is built for. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SECBPF_AUDIT_ARCH_NATIVE AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define SECBPF_AUDIT_ARCH_NATIVE AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define SECBPF_AUDIT_ARCH_NATIVE AUDIT_ARCH_AARCH64
#endif

#endif
