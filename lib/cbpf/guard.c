// SPDX-License-Identifier: MIT
/*
 * The listener guard (docs/design.md §1, fail closed): a filtered process
 * must not install its own NEW_LISTENER filter and answer CONTINUE to
 * itself once the supervisor is gone. The one emitter of it: the compiler
 * puts it before the dispatch, the supervisor before a combined listener
 * filter (cbpf_guard_build()).
 *
 * It denies seccomp(SECCOMP_SET_MODE_FILTER, flags with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER) with EPERM on every arch libseccomp
 * knows. op and flags are `unsigned int` in the kernel: only the low words
 * count. prctl(PR_SET_SECCOMP) cannot ask for a listener. The guard uses
 * only cache-emulated instructions until it reads args, so other syscalls
 * stay provable by the kernel's action cache.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "cbpf/cbpf_internal.h"
#include "common/syscall_name.h"

/* The low 32 bits of args[i]: seccomp_data is in the host's byte order. */
#define ARG_LO(i)                                                                                  \
	(offsetof(struct seccomp_data, args[i]) + (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 4 : 0))

size_t cbpf_guard_targets(struct cbpf_guard_target *out, size_t max)
{
	static const char *const arches[] = {
		"x86_64", "x86", "x32", "aarch64", "arm", "riscv64", "ppc64le", "ppc64",
		"ppc", "s390x", "s390", "mips", "mipsel", "mips64", "mipsel64", "mips64n32",
		"mipsel64n32", "parisc", "parisc64", "loongarch64",
	};
	size_t i, j, n = 0;

	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		struct syscall_abi abi;
		uint32_t arch;
		int32_t nr;

		if (syscall_abi_parse(arches[i], &abi) || syscall_number(&abi, "seccomp", &nr))
			continue;
		/* x32 shares AUDIT_ARCH_X86_64; its numbers carry bit 30. */
		arch = abi.audit;
		for (j = 0; j < n; j++)
			if (out[j].arch == arch && out[j].nr == (uint32_t)nr)
				break;
		if (j < n || n == max)
			continue;
		out[n].arch = arch;
		out[n].nr = (uint32_t)nr;
		n++;
	}
	return n;
}

int cbpf_guard_emit_targets(struct cbpf_asm *m, const struct cbpf_guard_target *t, size_t nt,
			    uint32_t pass_label, struct secbpf_err *err)
{
	struct {
		uint32_t arch, nr[CBPF_GUARD_MAX_NRS];
		unsigned n;
	} seen[CBPF_GUARD_MAX_ARCHES];
	uint32_t check = cbpf_asm_label(m), deny = cbpf_asm_label(m), flags, i, j, n = 0;
	uint32_t labels[CBPF_GUARD_MAX_ARCHES];
	size_t k;

	/* Grouped by arch: one arch test, then its numbers. */
	for (k = 0; k < nt; k++) {
		for (j = 0; j < n && seen[j].arch != t[k].arch; j++)
			;
		if (j == n) {
			if (n == CBPF_GUARD_MAX_ARCHES)
				return err_set(err, E2BIG,
					       "listener guard: more than %d arches have seccomp()",
					       CBPF_GUARD_MAX_ARCHES);
			seen[n].arch = t[k].arch;
			seen[n].n = 0;
			n++;
		}
		if (seen[j].n == CBPF_GUARD_MAX_NRS)
			return err_set(
				err, E2BIG,
				"listener guard: arch 0x%x has more than %d numbers for seccomp()",
				seen[j].arch, CBPF_GUARD_MAX_NRS);
		seen[j].nr[seen[j].n++] = t[k].nr;
	}
	cbpf_asm_stmt(m, BPF_LD | BPF_W | BPF_ABS, CBPF_OFF_ARCH);
	for (i = 0; i < n; i++) {
		uint32_t next = cbpf_asm_label(m);

		labels[i] = cbpf_asm_label(m);
		cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, seen[i].arch, labels[i], next);
		cbpf_asm_place(m, next);
	}
	cbpf_asm_ja(m, pass_label);
	for (i = 0; i < n; i++) {
		cbpf_asm_place(m, labels[i]);
		cbpf_asm_stmt(m, BPF_LD | BPF_W | BPF_ABS, CBPF_OFF_NR);
		for (j = 0; j < seen[i].n; j++) {
			uint32_t next = cbpf_asm_label(m);

			cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, seen[i].nr[j], check, next);
			cbpf_asm_place(m, next);
		}
		cbpf_asm_ja(m, pass_label);
	}
	cbpf_asm_place(m, check);
	cbpf_asm_stmt(m, BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
	flags = cbpf_asm_label(m);
	cbpf_asm_jump(m, BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_SET_MODE_FILTER, flags, pass_label);
	cbpf_asm_place(m, flags);
	cbpf_asm_stmt(m, BPF_LD | BPF_W | BPF_ABS, ARG_LO(1));
	cbpf_asm_jump(m, BPF_JMP | BPF_JSET | BPF_K, SECCOMP_FILTER_FLAG_NEW_LISTENER, deny,
		      pass_label);
	cbpf_asm_place(m, deny);
	cbpf_asm_stmt(m, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
	return 0;
}

int cbpf_guard_emit(struct cbpf_asm *m, uint32_t pass_label, struct secbpf_err *err)
{
	/* One more than the guard takes, to tell a full list from a cut one. */
	struct cbpf_guard_target t[CBPF_GUARD_MAX_TARGETS + 1];
	size_t nt = cbpf_guard_targets(t, CBPF_GUARD_MAX_TARGETS + 1);

	if (nt > CBPF_GUARD_MAX_TARGETS)
		return err_set(err, E2BIG,
			       "listener guard: more than %d (arch, nr) pairs for seccomp()",
			       CBPF_GUARD_MAX_TARGETS);
	return cbpf_guard_emit_targets(m, t, nt, pass_label, err);
}

int cbpf_guard_build(struct sock_filter **out, size_t *len, struct secbpf_err *err)
{
	struct cbpf_asm m = { 0 };
	uint32_t pass = cbpf_asm_label(&m), n = 0;
	int rc;

	*out = NULL;
	*len = 0;
	rc = cbpf_guard_emit(&m, pass, err);
	if (rc)
		goto done;
	cbpf_asm_place(&m, pass);	/* past the end: what follows the guard */
	if (m.oom) {
		rc = err_set(err, ENOMEM, "out of memory");
		goto done;
	}
	rc = cbpf_asm_resolve(&m, out, &n);
	if (rc) {
		rc = err_set(err, -rc, "out of memory");
		goto done;
	}
	*len = n;
done:
	cbpf_asm_free(&m);
	return rc;
}
