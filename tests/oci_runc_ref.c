// SPDX-License-Identifier: MIT
/*
 * libseccomp's filter for an OCI profile, built the way runc builds it,
 * with runc's ENOSYS stub (patchbpf) in front: the reference that
 * `secbpf import-oci` is compared with (oci_runc_ref.h).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cbpf/cbpf.h"
#include "oci_runc_ref.h"

#define X32_BIT 0x40000000u
#define STUB_MAX 64

/* A tiny assembler for the stub: jumps to absolute targets. */
struct stub {
	struct sock_filter insn[STUB_MAX];
	int jt[STUB_MAX], jf[STUB_MAX]; /* absolute targets, -1: the next one */
	size_t n;
};

/* The stub has at most 12 instructions, well under STUB_MAX. */
static size_t stub_add(struct stub *s, uint16_t code, uint32_t k, int jt, int jf)
{
	s->insn[s->n] = (struct sock_filter)BPF_STMT(code, k);
	s->jt[s->n] = jt;
	s->jf[s->n] = jf;
	return s->n++;
}

/* runc's patchbpf stub for the last syscall of each arch (0: none); its
 * "to the filter" target is s->n at the end. */
static int runc_stub(const struct oci_profile *p, const uint32_t *last, struct stub *s,
		     struct secbpf_err *err)
{
	enum { FILTER = 1000, ENOSYS_RET = 1001 };
	uint32_t last64 = 0, last32 = 0, lastx86 = 0;
	bool has_x86_64, has_x86;
	size_t sec64, sec86, enosys, j64 = 0, j86 = 0;

	for (size_t i = 0; i < p->narches; i++) {
		if (p->arches[i] == SCMP_ARCH_X86_64)
			last64 = last[i];
		else if (p->arches[i] == SCMP_ARCH_X32)
			last32 = last[i];
		else if (p->arches[i] == SCMP_ARCH_X86)
			lastx86 = last[i];
		else
			return err_set(err, EOPNOTSUPP,
				       "runc's stub: arch token %#x: only x86_64, x32 and "
				       "i386 are reproduced",
				       p->arches[i]);
	}
	has_x86_64 = last64 || last32;
	has_x86 = lastx86 != 0;
	s->n = 0;
	stub_add(s, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), -1, -1);
	if (has_x86_64)
		j64 = stub_add(s, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, -1);
	if (has_x86)
		j86 = stub_add(s, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, -1);
	stub_add(s, BPF_JMP | BPF_JA, FILTER, -1, -1);
	if (has_x86_64) {
		sec64 = stub_add(s, BPF_LD | BPF_W | BPF_ABS, 0, -1, -1);
		s->jt[j64] = (int)sec64;
		if (last64 && last32) {
			size_t js = stub_add(s, BPF_JMP | BPF_JSET | BPF_K, X32_BIT, 0, -1);

			stub_add(s, BPF_JMP | BPF_JGT | BPF_K, last64, ENOSYS_RET, FILTER);
			s->jt[js] = (int)stub_add(s, BPF_JMP | BPF_JGT | BPF_K, last32, ENOSYS_RET,
						  FILTER);
		} else if (last64) {
			stub_add(s, BPF_JMP | BPF_JSET | BPF_K, X32_BIT, FILTER, -1);
			stub_add(s, BPF_JMP | BPF_JGT | BPF_K, last64, ENOSYS_RET, FILTER);
		} else {
			stub_add(s, BPF_JMP | BPF_JSET | BPF_K, X32_BIT, -1, FILTER);
			stub_add(s, BPF_JMP | BPF_JGT | BPF_K, last32, ENOSYS_RET, FILTER);
		}
	}
	if (has_x86) {
		sec86 = stub_add(s, BPF_LD | BPF_W | BPF_ABS, 0, -1, -1);
		s->jt[j86] = (int)sec86;
		stub_add(s, BPF_JMP | BPF_JGT | BPF_K, lastx86, ENOSYS_RET, FILTER);
	}
	/* the ENOSYS return last, so that every jump to it goes forward */
	enosys = stub_add(s, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS, -1, -1);
	for (size_t i = 0; i < s->n; i++) {
		int t[2] = { s->jt[i], s->jf[i] };

		for (int k = 0; k < 2; k++) {
			if (t[k] == FILTER)
				t[k] = (int)s->n;
			else if (t[k] == ENOSYS_RET)
				t[k] = (int)enosys;
			else if (t[k] < 0)
				t[k] = (int)i + 1;
		}
		if (BPF_OP(s->insn[i].code) == BPF_JA && BPF_CLASS(s->insn[i].code) == BPF_JMP) {
			s->insn[i].k = (uint32_t)((int)s->n - (int)i - 1);
			continue;
		}
		if (BPF_CLASS(s->insn[i].code) != BPF_JMP)
			continue;
		s->insn[i].jt = (uint8_t)(t[0] - (int)i - 1);
		s->insn[i].jf = (uint8_t)(t[1] - (int)i - 1);
	}
	return 0;
}

/* The arches of p in ctx, the native one removed when p does not list it. */
static int add_arches(scmp_filter_ctx ctx, const struct oci_profile *p, struct secbpf_err *err)
{
	bool native_listed = false;
	int rc;

	for (size_t i = 0; i < p->narches; i++) {
		if (p->arches[i] == seccomp_arch_native()) {
			native_listed = true;
			continue;
		}
		rc = seccomp_arch_add(ctx, p->arches[i]);
		if (rc)
			return err_set(err, -rc, "seccomp_arch_add(%#x): %s", p->arches[i],
				       strerror(-rc));
	}
	if (!native_listed && (rc = seccomp_arch_remove(ctx, seccomp_arch_native())))
		return err_set(err, -rc, "seccomp_arch_remove(native): %s", strerror(-rc));
	return 0;
}

/* The rules of p that Docker keeps, added as runc adds them; last[a]: the
 * largest number any kept rule names on p->arches[a]. */
static int add_rules(scmp_filter_ctx ctx, const struct oci_profile *p,
		     const struct oci_runc_opts *o, uint32_t *last, struct secbpf_err *err)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct oci_rule *r = &p->rules[i];
		struct scmp_arg_cmp conds[OCI_MAX_ARGS * 4];
		unsigned int count[OCI_MAX_ARGS] = { 0 };
		bool repeated = false;
		int rc;

		if (!oci_rule_applies(r, o->caps, o->kmajor, o->kminor))
			continue;
		for (size_t a = 0; a < r->nargs; a++) {
			const struct oci_cond *c = &r->args[a];

			conds[a] = (struct scmp_arg_cmp){ c->index, (enum scmp_compare)(c->op + 1),
							  c->value, c->value_two };
			repeated |= ++count[c->index] > 1;
		}
		for (size_t n = 0; n < r->nnames; n++) {
			int nr = seccomp_syscall_resolve_name(r->names[n]);

			for (size_t a = 0; a < p->narches; a++) {
				int s = seccomp_syscall_resolve_name_arch(p->arches[a],
									  r->names[n]);

				if (s > (int)last[a])
					last[a] = (uint32_t)s;
			}
			if (nr == __NR_SCMP_ERROR || r->action == p->default_action)
				continue;
			if (!repeated) {
				rc = seccomp_rule_add_array(ctx, r->action, nr, (unsigned)r->nargs,
							    conds);
				if (rc)
					return err_set(err, -rc, "syscalls[%zu] %s: %s", i,
						       r->names[n], strerror(-rc));
				continue;
			}
			for (size_t a = 0; a < r->nargs; a++) {
				rc = seccomp_rule_add_array(ctx, r->action, nr, 1, &conds[a]);
				if (rc)
					return err_set(err, -rc, "syscalls[%zu] %s: %s", i,
						       r->names[n], strerror(-rc));
			}
		}
	}
	return 0;
}

/* ctx's filter, exported by seccomp_export_bpf, behind the stub. */
static int export_behind(scmp_filter_ctx ctx, const struct stub *stub, struct oci_runc_filter *f,
			 struct secbpf_err *err)
{
	int fd = memfd_create("libseccomp-bpf", MFD_CLOEXEC), rc;
	off_t size;

	if (fd < 0)
		return err_set(err, errno, "memfd_create: %s", strerror(errno));
	rc = seccomp_export_bpf(ctx, fd);
	if (rc) {
		close(fd);
		return err_set(err, -rc, "seccomp_export_bpf: %s", strerror(-rc));
	}
	size = lseek(fd, 0, SEEK_END);
	f->len = stub->n + (size_t)size / sizeof(struct sock_filter);
	f->insns = calloc(f->len, sizeof(*f->insns));
	if (!f->insns) {
		close(fd);
		return err_set(err, ENOMEM, "out of memory");
	}
	memcpy(f->insns, stub->insn, stub->n * sizeof(*f->insns));
	if (pread(fd, f->insns + stub->n, (size_t)size, 0) != size) {
		close(fd);
		oci_runc_filter_free(f);
		return err_set(err, EIO, "reading libseccomp's export back failed");
	}
	close(fd);
	return 0;
}

int oci_runc_filter_build(const struct oci_profile *p, const struct oci_runc_opts *o,
			  struct oci_runc_filter *f, struct secbpf_err *err)
{
	scmp_filter_ctx ctx = seccomp_init(p->default_action);
	uint32_t last[OCI_MAX_ARCHES] = { 0 };
	uint32_t act = p->default_action & SECCOMP_RET_ACTION_FULL;
	struct stub stub = { .n = 0 };
	int rc;

	*f = (struct oci_runc_filter){ 0 };
	if (!ctx)
		return err_set(err, EINVAL, "seccomp_init(%#x) failed", p->default_action);
	rc = add_arches(ctx, p, err);
	if (!rc && o->optimize &&
	    (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)o->optimize)))
		rc = err_set(err, -rc, "SCMP_FLTATR_CTL_OPTIMIZE=%d: %s", o->optimize,
			     strerror(-rc));
	if (!rc)
		rc = add_rules(ctx, p, o, last, err);
	/* runc leaves the stub out where it would change nothing */
	if (!rc && !(p->default_errno_set && p->default_errno == ENOSYS) &&
	    act != SECCOMP_RET_ALLOW && act != SECCOMP_RET_LOG && act != SECCOMP_RET_TRACE)
		rc = runc_stub(p, last, &stub, err);
	if (!rc)
		rc = export_behind(ctx, &stub, f, err);
	seccomp_release(ctx);
	if (!rc && cbpf_check(f->insns, f->len, NULL)) {
		oci_runc_filter_free(f);
		rc = err_set(err, EINVAL, "the runc-like filter does not pass cbpf_check");
	}
	return rc;
}

void oci_runc_filter_free(struct oci_runc_filter *f)
{
	free(f->insns);
	*f = (struct oci_runc_filter){ 0 };
}
