/* SPDX-License-Identifier: MIT */
/*
 * The filter runc loads for an OCI seccomp profile: libseccomp's, built
 * from the profile as runc builds it, with runc's ENOSYS stub in front.
 * The reference of tests/test_oci_equiv.c and bench/bench_oci_insns.c.
 */
#ifndef SECBPF_OCI_RUNC_REF_H
#define SECBPF_OCI_RUNC_REF_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "oci/profile.h"

struct oci_runc_filter {
	struct sock_filter *insns; /* malloc'ed */
	size_t len;
};

struct oci_runc_opts {
	uint64_t caps;		     /* the container's capabilities (Docker's resolution) */
	unsigned int kmajor, kminor; /* the kernel minKernel compares with */
	/* SCMP_FLTATR_CTL_OPTIMIZE: 0 leaves libseccomp's default (what runc
	 * does), 2 asks for its binary tree of syscall numbers. */
	int optimize;
};

/*
 * Build into *f the filter runc would load for p (x86 arches only): Docker's
 * includes/excludes resolved with o's knobs, one seccomp_rule_add_array
 * per name on the native number, runc's rule for repeated indexes (each
 * condition a rule of its own), seccomp_export_bpf, and runc's patchbpf
 * stub in front. Returns 0, or a negative errno with err set.
 */
int oci_runc_filter_build(const struct oci_profile *p, const struct oci_runc_opts *o,
			  struct oci_runc_filter *f, struct secbpf_err *err);

void oci_runc_filter_free(struct oci_runc_filter *f);

#endif
