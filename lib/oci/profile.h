/* SPDX-License-Identifier: MIT */
/*
 * An OCI (runc) or Docker seccomp profile, parsed and checked (profile.c),
 * and the secbpf C filter written from it (emit.c): `secbpf import-oci`
 * (docs/oci-import.md).
 */
#ifndef SECBPF_OCI_PROFILE_H
#define SECBPF_OCI_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"

#define OCI_MAX_ARCHES 16
#define OCI_MAX_ARGS 6

/* The SCMP_CMP_* operators, in libseccomp's order. */
enum oci_op { OCI_NE, OCI_LT, OCI_LE, OCI_EQ, OCI_GE, OCI_GT, OCI_MASKED_EQ };

/* One syscalls[].args[] entry: args[index] OP value (MASKED_EQ:
 * (args[index] & value) == value_two). */
struct oci_cond {
	unsigned int index;
	enum oci_op op;
	uint64_t value, value_two;
};

/* A rule's includes or excludes (Docker's extension): what is set. */
struct oci_when {
	bool has_caps, has_arches, has_kernel;
	uint64_t caps;		     /* bit n: capability n */
	bool host_in_arches;	     /* the host's arch (amd64, arm64...) is listed */
	unsigned int kmajor, kminor; /* minKernel */
};

struct oci_rule {
	char **names;
	size_t nnames;
	uint32_t action; /* SECCOMP_RET_* with its data */
	struct oci_cond args[OCI_MAX_ARGS * 4];
	size_t nargs;
	struct oci_when includes, excludes;
	size_t index; /* in syscalls[] */
};

struct oci_profile {
	uint32_t default_action;
	bool default_errno_set; /* defaultErrnoRet was given */
	uint32_t default_errno;
	uint32_t arches[OCI_MAX_ARCHES]; /* libseccomp SCMP_ARCH_* tokens */
	size_t narches;
	struct oci_rule *rules;
	size_t nrules;
};

/* Docker's default capability set (bit n: capability n). */
extern const uint64_t oci_docker_default_caps;

/* CAP_* of capability number cap, NULL past the last one. */
const char *oci_cap_name(unsigned int cap);

/* The name Docker's includes/excludes "arches" give the host (amd64...). */
const char *oci_host_arch_name(void);

/*
 * Parse the profile text (JSON) into p, the architectures resolved for
 * this host (archMap's entry for the host's arch, or the native arch when
 * none is given). Returns 0, or -EINVAL with err naming the JSON path and
 * what is wrong, or -ENOMEM.
 */
int oci_profile_parse(const char *text, struct oci_profile *p, struct secbpf_err *err);

/* oci_profile_parse of the file at path. */
int oci_profile_load(const char *path, struct oci_profile *p, struct secbpf_err *err);

void oci_profile_free(struct oci_profile *p);

/* Whether rule r is in the filter on this host for these knob values (the
 * Docker resolution: includes all met, no excludes met). */
bool oci_rule_applies(const struct oci_rule *r, uint64_t caps, unsigned int kmajor,
		      unsigned int kminor);

/* The knobs of the generated filter and how to compare arguments. */
struct oci_emit_opts {
	uint64_t caps;
	unsigned int kernel_major, kernel_minor;
	/* Compare the arguments the kernel declares 32 bits wide (int,
	 * unsigned int...) on their low 32 bits, as the kernel reads them,
	 * instead of libseccomp's (and runc's) 64 bits. */
	bool kernel_args;
	const char *source; /* the profile's name, for the header comment */
};

/* Write the SEC("seccomp") C filter for p to f. Returns 0, or a negative
 * errno with err set. */
int oci_emit_c(const struct oci_profile *p, const struct oci_emit_opts *opts, FILE *f,
	       struct secbpf_err *err);

/* The running kernel's major and minor version (uname); 0, 0 if unknown. */
void oci_running_kernel(unsigned int *major, unsigned int *minor);

#endif
