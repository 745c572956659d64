// SPDX-License-Identifier: MIT
/*
 * The C filter `secbpf import-oci` writes for a profile: the Docker
 * resolution of includes/excludes as knobs, runc's ENOSYS stub, and per
 * arch a switch on the syscall number with libseccomp's semantics (the
 * i386 socketcall/ipc multiplexers, 32-bit argument compares on 32-bit
 * ABIs, runc's rule for repeated argument indexes). docs/oci-import.md.
 */
#include <errno.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "common/syscall_name.h"
#include "lint/syscall_argtypes.h"
#include "oci/profile.h"

#define X86_SOCKETCALL 102
#define X86_IPC 117

/* One rule as it lands on one syscall number of one arch. */
struct entry {
	uint32_t nr;
	const struct oci_rule *rule;
	const char *name; /* the profile's name */
	bool mux;	  /* i386 socketcall/ipc: args[0] == mux_datum */
	uint32_t mux_datum;
};

struct arch_plan {
	uint32_t token, audit;
	const char *name; /* x86_64, x86, x32... */
	bool is32;	  /* libseccomp compares 32 bits */
	struct entry *e;
	size_t n, cap;
};

static bool rule_has_knobs(const struct oci_rule *r)
{
	return r->includes.has_caps || r->includes.has_kernel || r->excludes.has_caps ||
	       r->excludes.has_kernel;
}

/* Whether the host-arch part of includes/excludes keeps the rule. */
static bool rule_on_host(const struct oci_rule *r)
{
	if (r->excludes.has_arches && r->excludes.host_in_arches)
		return false;
	return !r->includes.has_arches || r->includes.host_in_arches;
}

static int push(struct arch_plan *a, struct entry e, struct secbpf_err *err)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		struct entry *n = realloc(a->e, cap * sizeof(*n));

		if (!n)
			return err_set(err, ENOMEM, "out of memory");
		a->e = n;
		a->cap = cap;
	}
	a->e[a->n++] = e;
	return 0;
}

/* The entries of arch a, in profile order. */
static int plan_arch(const struct oci_profile *p, struct arch_plan *a, struct secbpf_err *err)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct oci_rule *r = &p->rules[i];

		if (!rule_on_host(r))
			continue;
		for (size_t j = 0; j < r->nnames; j++) {
			int raw = seccomp_syscall_resolve_name_arch(a->token, r->names[j]);
			struct entry e = { .rule = r, .name = r->names[j] };
			struct syscall_abi abi = { a->audit, a->token };
			int32_t direct;
			int rc;

			if (a->token == SCMP_ARCH_X86 &&
			    ((raw <= -100 && raw >= -224) || (raw >= 359 && raw <= 373) ||
			     (raw >= 393 && raw <= 402))) {
				/* libseccomp's x86 rule: the multiplexed call with args[0]
				 * the call's number, and the direct syscall if any. */
				if (raw < 0) {
					e.mux = true;
					e.nr = raw <= -200 ? X86_IPC : X86_SOCKETCALL;
					e.mux_datum = (uint32_t)(-raw % 100);
					if ((rc = push(a, e, err)))
						return rc;
					e.mux = false;
				}
				if (syscall_number(&abi, r->names[j], &direct) == 0) {
					e.nr = (uint32_t)direct;
					if ((rc = push(a, e, err)))
						return rc;
				}
				continue;
			}
			if (raw < 0)
				continue; /* not on this arch: skipped, as runc does */
			e.nr = (uint32_t)raw;
			if ((rc = push(a, e, err)))
				return rc;
		}
	}
	return 0;
}

static void free_plans(struct arch_plan *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(a[i].e);
}

static void print_action(FILE *f, uint32_t action)
{
	uint32_t data = action & SECCOMP_RET_DATA;
	const char *en;

	switch (action & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
		fprintf(f, "SECCOMP_RET_ALLOW");
		return;
	case SECCOMP_RET_KILL_THREAD:
		fprintf(f, "SECCOMP_RET_KILL_THREAD");
		return;
	case SECCOMP_RET_KILL_PROCESS:
		fprintf(f, "SECCOMP_RET_KILL_PROCESS");
		return;
	case SECCOMP_RET_TRAP:
		fprintf(f, "SECCOMP_RET_TRAP");
		return;
	case SECCOMP_RET_LOG:
		fprintf(f, "SECCOMP_RET_LOG");
		return;
	case SECCOMP_RET_USER_NOTIF:
		fprintf(f, "SECCOMP_RET_USER_NOTIF");
		return;
	case SECCOMP_RET_TRACE:
		fprintf(f, "(SECCOMP_RET_TRACE | %u)", data);
		return;
	case SECCOMP_RET_ERRNO:
		en = strerrorname_np((int)data);
		if (en && data < 134)
			fprintf(f, "(SECCOMP_RET_ERRNO | %s)", en);
		else
			fprintf(f, "(SECCOMP_RET_ERRNO | %u)", data);
		return;
	default:
		fprintf(f, "0x%08xU", action);
	}
}

static bool arg_narrow(const struct arch_plan *a, const struct entry *e, unsigned int index,
		       const struct oci_emit_opts *o)
{
	const struct syscall_argtypes *t;

	if (a->is32)
		return true;
	if (!o->kernel_args)
		return false;
	t = syscall_argtypes_find(e->name);
	return t && (t->narrow & (1u << index));
}

/* A value as the filter compares it: decimal when small, else (and masks)
 * hex. */
static void print_value(FILE *f, uint64_t v, bool narrow, bool hex)
{
	fprintf(f, v < 0x10000 && !hex ? "%llu%s" : "0x%llx%s", (unsigned long long)v,
		narrow ? "U" : "ULL");
}

static void print_cond(FILE *f, const struct arch_plan *a, const struct entry *e,
		       const struct oci_cond *c, const struct oci_emit_opts *o)
{
	static const char *const ops[] = { "!=", "<", "<=", "==", ">=", ">" };
	bool narrow = arg_narrow(a, e, c->index, o);
	uint64_t v = narrow ? (uint32_t)c->value : c->value;
	uint64_t v2 = narrow ? (uint32_t)c->value_two : c->value_two;

	if (c->op == OCI_MASKED_EQ)
		fprintf(f, "(");
	fprintf(f, narrow ? "(__u32)ctx->args[%u]" : "ctx->args[%u]", c->index);
	if (c->op == OCI_MASKED_EQ) {
		fprintf(f, " & ");
		print_value(f, v, narrow, true);
		fprintf(f, ") == ");
		print_value(f, v2, narrow, true);
		return;
	}
	fprintf(f, " %s ", ops[c->op]);
	print_value(f, v, narrow, false);
}

/* One "if (...) return ACTION;" with the conditions conds[0..n-1]. */
static void print_if(FILE *f, const struct arch_plan *a, const struct entry *e,
		     const struct oci_cond *conds, size_t n, const struct oci_emit_opts *o)
{
	bool first = true;

	fprintf(f, "\t\tif (");
	if (rule_has_knobs(e->rule)) {
		fprintf(f, "RULE_%zu", e->rule->index);
		first = false;
	}
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s", first ? "" : " && ");
		print_cond(f, a, e, &conds[i], o);
		first = false;
	}
	fprintf(f, ")\n\t\t\treturn ");
	print_action(f, e->rule->action);
	if (e->mux)
		fprintf(f, "; /* syscalls[%zu]: %s through %s */\n", e->rule->index, e->name,
			e->nr == X86_IPC ? "ipc" : "socketcall");
	else
		fprintf(f, "; /* syscalls[%zu] */\n", e->rule->index);
}

/* The conditions of e (args[0] replaced on a multiplexer), as libseccomp
 * gets them from runc: one rule, or one per condition when an index
 * repeats. Calls print_if for each. */
static void print_entry_args(FILE *f, const struct arch_plan *a, const struct entry *e,
			     const struct oci_emit_opts *o)
{
	const struct oci_rule *r = e->rule;
	struct oci_cond conds[OCI_MAX_ARGS * 4 + 1], mux = { 0, OCI_EQ, e->mux_datum, 0 };
	unsigned int count[OCI_MAX_ARGS] = { 0 };
	bool repeated = false;
	size_t n = 0;

	for (size_t i = 0; i < r->nargs; i++)
		if (++count[r->args[i].index] > 1)
			repeated = true;
	if (repeated) {
		for (size_t i = 0; i < r->nargs; i++) {
			n = 0;
			if (!e->mux || r->args[i].index != 0)
				conds[n++] = r->args[i];
			if (e->mux)
				conds[n++] = mux;
			print_if(f, a, e, conds, n, o);
		}
		return;
	}
	for (size_t i = 0; i < r->nargs; i++)
		if (!e->mux || r->args[i].index != 0)
			conds[n++] = r->args[i];
	if (e->mux)
		conds[n++] = mux;
	print_if(f, a, e, conds, n, o);
}

static bool is_unconditional(const struct entry *e)
{
	return !e->mux && e->rule->nargs == 0;
}

/* The body of case nr of arch a into a memory stream: the rules in the
 * order libseccomp's tree gives them (a rule without conditions wins). */
static char *case_body(const struct oci_profile *p, const struct arch_plan *a, uint32_t nr,
		       const struct oci_emit_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < a->n; i++) {
			const struct entry *e = &a->e[i];

			if (e->nr != nr || e->rule->action == p->default_action ||
			    is_unconditional(e) != (pass == 0))
				continue;
			if (pass == 1) {
				print_entry_args(f, a, e, o);
				continue;
			}
			if (!rule_has_knobs(e->rule)) {
				fprintf(f, "\t\treturn ");
				print_action(f, e->rule->action);
				fprintf(f, "; /* syscalls[%zu] */\n", e->rule->index);
				goto done;
			}
			fprintf(f, "\t\tif (RULE_%zu)\n\t\t\treturn ", e->rule->index);
			print_action(f, e->rule->action);
			fprintf(f, ";\n");
		}
	}
	fprintf(f, "\t\tbreak;\n");
done:
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct nr_case {
	uint32_t nr;
	char *body;
};

static int cmp_case(const void *x, const void *y)
{
	const struct nr_case *a = x, *b = y;
	int c = strcmp(a->body, b->body);

	return c ? c : (a->nr > b->nr) - (a->nr < b->nr);
}

static int emit_arch(FILE *f, const struct oci_profile *p, const struct arch_plan *a,
		     const struct oci_emit_opts *o, struct secbpf_err *err)
{
	struct nr_case *cases = calloc(a->n + 1, sizeof(*cases));
	size_t n = 0;
	int rc = 0;

	if (!cases)
		return err_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < a->n; i++) {
		bool seen = false;

		for (size_t j = 0; j < n && !seen; j++)
			seen = cases[j].nr == a->e[i].nr;
		if (seen)
			continue;
		cases[n].nr = a->e[i].nr;
		cases[n].body = case_body(p, a, a->e[i].nr, o);
		if (!cases[n++].body) {
			rc = err_set(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	qsort(cases, n, sizeof(*cases), cmp_case);
	fprintf(f, "/* The rules for %s syscalls (libseccomp's %s). */\n", a->name, a->name);
	fprintf(f, "static __always_inline int rules_%s(const struct seccomp_data *ctx)\n{\n",
		a->name);
	fprintf(f, "\tswitch ((__u32)ctx->nr) {\n");
	for (size_t i = 0; i < n; i++) {
		char name[64];
		struct syscall_abi abi = { a->audit, a->token };

		if (!strcmp(cases[i].body, "\t\tbreak;\n"))
			continue; /* only rules equal to the default */
		syscall_abi_syscall_name(&abi, (int32_t)cases[i].nr, name, sizeof(name));
		fprintf(f, "\tcase %u: /* %s */\n", cases[i].nr, name[0] ? name : "?");
		if (i + 1 < n && !strcmp(cases[i].body, cases[i + 1].body))
			continue;
		fputs(cases[i].body, f);
	}
	fprintf(f, "\t}\n\treturn DEFAULT_ACTION;\n}\n\n");
out:
	for (size_t i = 0; i < n; i++)
		free(cases[i].body);
	free(cases);
	return rc;
}

static void print_when(FILE *f, const struct oci_when *w, bool include, bool *first)
{
	if (w->has_caps) {
		fprintf(f, "%s%s(caps & 0x%llxULL)%s", *first ? "" : " && ", include ? "" : "!",
			(unsigned long long)w->caps, include ? "" : "");
		if (include)
			fprintf(f, " == 0x%llxULL", (unsigned long long)w->caps);
		*first = false;
	}
	if (w->has_kernel) {
		fprintf(f, "%s%sKERNEL_AT_LEAST(%u, %u)", *first ? "" : " && ", include ? "" : "!",
			w->kmajor, w->kminor);
		*first = false;
	}
}

static void print_caps_comment(FILE *f, uint64_t caps)
{
	bool first = true;

	for (unsigned int i = 0; i < 64; i++) {
		if (!(caps & (1ull << i)))
			continue;
		fprintf(f, "%s%s", first ? "" : (i % 4 ? ", " : ",\n * "),
			oci_cap_name(i) ? oci_cap_name(i) : "?");
		first = false;
	}
	if (first)
		fprintf(f, "none");
}

/* runc's ENOSYS stub: the largest syscall number the profile names on
 * arch a (every rule Docker keeps, whatever its action), as a function of
 * the knobs; 0 if none. */
static void emit_last(FILE *f, const struct arch_plan *a)
{
	uint32_t base = 0;

	for (size_t i = 0; i < a->n; i++)
		if (!a->e[i].mux && !rule_has_knobs(a->e[i].rule) && a->e[i].nr > base &&
		    !(a->token == SCMP_ARCH_X86 && a->e[i].nr >= 359 && a->e[i].nr <= 402 &&
		      seccomp_syscall_resolve_name_arch(a->token, a->e[i].name) < 0))
			base = a->e[i].nr;
	fprintf(f, "/* The largest %s syscall the profile names (runc's ENOSYS stub). */\n",
		a->name);
	fprintf(f, "static __always_inline __u32 last_%s(void)\n{\n\t__u32 last = %u;\n\n", a->name,
		base);
	for (size_t i = 0; i < a->n; i++) {
		const struct entry *e = &a->e[i];

		if (e->mux || !rule_has_knobs(e->rule) || e->nr <= base ||
		    seccomp_syscall_resolve_name_arch(a->token, e->name) < 0)
			continue;
		fprintf(f, "\tif (RULE_%zu && last < %u)\n\t\tlast = %u;\n", e->rule->index, e->nr,
			e->nr);
	}
	fprintf(f, "\treturn last;\n}\n\n");
}

static bool stub_wanted(const struct oci_profile *p)
{
	uint32_t act = p->default_action & SECCOMP_RET_ACTION_FULL;

	if (p->default_errno_set && p->default_errno == ENOSYS)
		return false;
	return act != SECCOMP_RET_ALLOW && act != SECCOMP_RET_LOG && act != SECCOMP_RET_TRACE;
}

int oci_emit_c(const struct oci_profile *p, const struct oci_emit_opts *o, FILE *f,
	       struct secbpf_err *err)
{
	struct arch_plan plans[OCI_MAX_ARCHES] = { 0 };
	const struct arch_plan *x86_64 = NULL, *x32 = NULL;
	bool stub = stub_wanted(p);
	int rc = 0;

	for (size_t i = 0; i < p->narches; i++) {
		struct arch_plan *a = &plans[i];

		a->token = p->arches[i];
		a->audit = a->token == SCMP_ARCH_X32 ? AUDIT_ARCH_X86_64 : a->token;
		a->name =
			syscall_abi_name(a->audit, a->token == SCMP_ARCH_X32 ? SYSCALL_X32_BIT : 0);
		if (!a->name) {
			rc = err_set(err, EINVAL, "architecture 0x%08x: no syscall table for it",
				     a->token);
			goto out;
		}
		a->is32 = !(a->audit & __AUDIT_ARCH_64BIT) || a->token == SCMP_ARCH_X32 ||
			  a->token == SCMP_ARCH_MIPS64N32 || a->token == SCMP_ARCH_MIPSEL64N32;
		if ((rc = plan_arch(p, a, err)))
			goto out;
		if (a->token == SCMP_ARCH_X86_64)
			x86_64 = a;
		if (a->token == SCMP_ARCH_X32)
			x32 = a;
	}

	fprintf(f,
		"/*\n * %s as a secbpf filter: written by `secbpf import-oci%s` to\n"
		" * decide as runc with libseccomp does (docs/oci-import.md).\n */\n",
		o->source ? o->source : "An OCI seccomp profile",
		o->kernel_args ? " --kernel-args" : "");
	fprintf(f, "#include <secbpf/filter.h>\n\n");
	fprintf(f, "/*\n * The container's capabilities (bounding set), bit n for capability n;\n"
		   " * rules with includes/excludes \"caps\" depend on it. Here: ");
	print_caps_comment(f, o->caps);
	fprintf(f, ".\n */\nconst volatile __u64 caps = 0x%llxULL;\n", (unsigned long long)o->caps);
	fprintf(f,
		"/* The kernel \"minKernel\" compares with (major.minor). */\n"
		"const volatile __u32 kernel_major = %u;\nconst volatile __u32 kernel_minor = "
		"%u;\n\n",
		o->kernel_major, o->kernel_minor);
	fprintf(f, "#define KERNEL_AT_LEAST(a, b) "
		   "(kernel_major > (a) || (kernel_major == (a) && kernel_minor >= (b)))\n");
	fprintf(f, "#define DEFAULT_ACTION ");
	print_action(f, p->default_action);
	fprintf(f, "\n\n");
	for (size_t i = 0; i < p->nrules; i++) {
		const struct oci_rule *r = &p->rules[i];
		bool first = true;

		if (!rule_on_host(r) || !rule_has_knobs(r))
			continue;
		fprintf(f, "/* syscalls[%zu] (%s%s) is kept by Docker when: */\n#define RULE_%zu (",
			i, r->names[0], r->nnames > 1 ? ", ..." : "", i);
		print_when(f, &r->includes, true, &first);
		print_when(f, &r->excludes, false, &first);
		fprintf(f, ")\n");
	}
	fprintf(f, "\n");
	for (size_t i = 0; i < p->narches; i++) {
		if ((rc = emit_arch(f, p, &plans[i], o, err)))
			goto out;
		if (stub)
			emit_last(f, &plans[i]);
	}

	fprintf(f, "SEC(\"seccomp\")\nint oci_profile(struct seccomp_data *ctx)\n{\n"
		   "\t__u32 nr = (__u32)ctx->nr;\n\n");
	if (stub) {
		fprintf(f, "\t/* runc's stub: a syscall newer than any the profile names gets\n"
			   "\t * ENOSYS, so that programs fall back to an older one. */\n");
		for (size_t i = 0; i < p->narches; i++) {
			const struct arch_plan *a = &plans[i];
			const char *mode = "";

			if (a->token == SCMP_ARCH_X86_64)
				mode = " && !(nr & 0x40000000)";
			else if (a->token == SCMP_ARCH_X32)
				mode = " && (nr & 0x40000000)";
			fprintf(f,
				"\tif (ctx->arch == 0x%08x%s && last_%s() && nr > last_%s())\n"
				"\t\treturn SECCOMP_RET_ERRNO | ENOSYS;\n",
				a->audit, mode, a->name, a->name);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\t/* Each architecture the profile names (other ones are killed, as by\n"
		   "\t * libseccomp); x32 calls are x86_64's with bit 30 set, but for\n"
		   "\t * libseccomp nr -1 (a tracer's skipped call) is never x32's. */\n");
	if (x86_64 || x32) {
		fprintf(f, "\tif (ctx->arch == AUDIT_ARCH_X86_64) {\n");
		fprintf(f, "\t\tif (nr >= 0x40000000 && nr != 0xffffffff)\n\t\t\treturn %s;\n",
			x32 ? "rules_x32(ctx)" : "SECCOMP_RET_KILL_THREAD");
		fprintf(f, "\t\treturn %s;\n\t}\n",
			x86_64 ? "rules_x86_64(ctx)" : "SECCOMP_RET_KILL_THREAD");
	}
	for (size_t i = 0; i < p->narches; i++) {
		const struct arch_plan *a = &plans[i];

		if (a->audit == AUDIT_ARCH_X86_64)
			continue;
		fprintf(f, "\tif (ctx->arch == 0x%08x)\n\t\treturn rules_%s(ctx);\n", a->audit,
			a->name);
	}
	fprintf(f, "\treturn SECCOMP_RET_KILL_THREAD;\n}\n\nchar LICENSE[] SEC(\"license\") = "
		   "\"GPL\";\n");
	if (fflush(f) || ferror(f))
		rc = err_set(err, EIO, "cannot write the filter: %s", strerror(errno));
out:
	free_plans(plans, p->narches);
	return rc;
}
