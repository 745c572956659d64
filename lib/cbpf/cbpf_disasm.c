// SPDX-License-Identifier: MIT
/*
 * Readable cBPF, one instruction per line, in the style of libseccomp's
 * scmp_bpf_disasm: the raw fields, then the operation with absolute jump
 * targets and the seccomp_data field or action named where known; a
 * whole filter with syscall and arch names next to the numbers.
 */
#include <linux/audit.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbpf/cbpf.h"
#include "common/syscall_name.h"

/* Name of the seccomp_data word at off (nr, arch, ip and args halves). */
static void cbpf_disasm_field(uint32_t off, char *buf, size_t len)
{
	if (off == 0)
		snprintf(buf, len, "nr");
	else if (off == 4)
		snprintf(buf, len, "arch");
	else if (off == 8 || off == 12)
		snprintf(buf, len, "ip.%s", off == 8 ? "lo" : "hi");
	else if (off >= 16 && off < 64)
		snprintf(buf, len, "args[%u].%s", (off - 16) / 8, off % 8 ? "hi" : "lo");
	else
		snprintf(buf, len, "?");
}

/* A return value as an action name (data bits shown where they matter). */
static void cbpf_disasm_action(uint32_t k, char *buf, size_t len)
{
	uint32_t data = k & SECCOMP_RET_DATA;

	switch (k & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS: snprintf(buf, len, "KILL_PROCESS"); break;
	case SECCOMP_RET_KILL_THREAD: snprintf(buf, len, "KILL_THREAD"); break;
	case SECCOMP_RET_TRAP: snprintf(buf, len, "TRAP(%u)", data); break;
	case SECCOMP_RET_ERRNO: snprintf(buf, len, "ERRNO(%u)", data); break;
	case SECCOMP_RET_USER_NOTIF: snprintf(buf, len, "USER_NOTIF"); break;
	case SECCOMP_RET_TRACE: snprintf(buf, len, "TRACE(%u)", data); break;
	case SECCOMP_RET_LOG: snprintf(buf, len, "LOG"); break;
	case SECCOMP_RET_ALLOW: snprintf(buf, len, "ALLOW"); break;
	default: snprintf(buf, len, "KILL_PROCESS (unknown action)"); break;
	}
}

static const char *cbpf_disasm_alu_name(uint16_t code)
{
	switch (BPF_OP(code)) {
	case BPF_ADD: return "add";
	case BPF_SUB: return "sub";
	case BPF_MUL: return "mul";
	case BPF_DIV: return "div";
	case BPF_MOD: return "mod";
	case BPF_AND: return "and";
	case BPF_OR: return "or";
	case BPF_XOR: return "xor";
	case BPF_LSH: return "lsh";
	case BPF_RSH: return "rsh";
	case BPF_NEG: return "neg";
	}
	return "alu?";
}

static const char *cbpf_disasm_jmp_name(uint16_t code)
{
	switch (BPF_OP(code)) {
	case BPF_JA: return "jmp";
	case BPF_JEQ: return "jeq";
	case BPF_JGT: return "jgt";
	case BPF_JGE: return "jge";
	case BPF_JSET: return "jset";
	}
	return "jmp?";
}

void cbpf_disasm_insn(const struct sock_filter *insns, size_t len, size_t idx, char *buf,
		      size_t buflen)
{
	const struct sock_filter *in;
	char what[64], name[40];
	int n;

	if (!buf || buflen == 0)
		return;
	if (!insns || idx >= len) {
		snprintf(buf, buflen, "%04zu: <out of range>", idx);
		return;
	}
	in = &insns[idx];
	switch (in->code) {
	case BPF_LD | BPF_W | BPF_ABS:
	case BPF_LDX | BPF_W | BPF_ABS:
		cbpf_disasm_field(in->k, name, sizeof(name));
		snprintf(what, sizeof(what), "%s $data[%u]  ; %s",
			 BPF_CLASS(in->code) == BPF_LD ? "ld " : "ldx", in->k, name);
		break;
	case BPF_LD | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_W | BPF_LEN:
		snprintf(what, sizeof(what), "%s #len",
			 BPF_CLASS(in->code) == BPF_LD ? "ld " : "ldx");
		break;
	case BPF_LD | BPF_IMM:
	case BPF_LDX | BPF_IMM:
		snprintf(what, sizeof(what), "%s #0x%x",
			 BPF_CLASS(in->code) == BPF_LD ? "ld " : "ldx", in->k);
		break;
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
		snprintf(what, sizeof(what), "%s M[%u]",
			 BPF_CLASS(in->code) == BPF_LD ? "ld " : "ldx", in->k);
		break;
	case BPF_ST:
	case BPF_STX:
		snprintf(what, sizeof(what), "%s M[%u]", in->code == BPF_ST ? "st " : "stx",
			 in->k);
		break;
	case BPF_MISC | BPF_TAX:
		snprintf(what, sizeof(what), "tax");
		break;
	case BPF_MISC | BPF_TXA:
		snprintf(what, sizeof(what), "txa");
		break;
	case BPF_RET | BPF_A:
		snprintf(what, sizeof(what), "ret A");
		break;
	case BPF_RET | BPF_K:
		cbpf_disasm_action(in->k, name, sizeof(name));
		snprintf(what, sizeof(what), "ret #0x%08x  ; %s", in->k, name);
		break;
	default:
		if (BPF_CLASS(in->code) == BPF_ALU) {
			if (BPF_OP(in->code) == BPF_NEG)
				snprintf(what, sizeof(what), "neg");
			else if (BPF_SRC(in->code) == BPF_X)
				snprintf(what, sizeof(what), "%s X", cbpf_disasm_alu_name(in->code));
			else
				snprintf(what, sizeof(what), "%s #0x%x",
					 cbpf_disasm_alu_name(in->code), in->k);
		} else if (in->code == (BPF_JMP | BPF_JA)) {
			snprintf(what, sizeof(what), "jmp %zu", idx + 1 + (size_t)in->k);
		} else if (BPF_CLASS(in->code) == BPF_JMP) {
			if (BPF_SRC(in->code) == BPF_X)
				snprintf(name, sizeof(name), "X");
			else
				snprintf(name, sizeof(name), "#0x%x", in->k);
			snprintf(what, sizeof(what), "%s %s  true:%zu false:%zu",
				 cbpf_disasm_jmp_name(in->code), name, idx + 1 + in->jt,
				 idx + 1 + in->jf);
		} else {
			snprintf(what, sizeof(what), "<unknown opcode>");
		}
		break;
	}
	n = snprintf(buf, buflen, "%04zu: 0x%02x 0x%02x 0x%02x 0x%08x   %s", idx, in->code, in->jt,
		     in->jf, in->k, what);
	(void)n;
}

/*
 * What every path to an instruction has established: whether A holds nr
 * or arch there, and the arch that a jeq on arch has fixed (arch_known).
 * Filters only jump forward, so one pass in order sees every predecessor
 * of an instruction before the instruction itself.
 */
struct cbpf_flow {
	bool reached;
	bool a_is_nr;
	bool a_is_arch;
	bool arch_known;
	uint32_t arch;
};

/* Merge the state of a path into the state of its target. */
static void cbpf_flow_merge(struct cbpf_flow *dst, const struct cbpf_flow *src)
{
	if (!dst->reached) {
		*dst = *src;
		dst->reached = true;
		return;
	}
	dst->a_is_nr = dst->a_is_nr && src->a_is_nr;
	dst->a_is_arch = dst->a_is_arch && src->a_is_arch;
	if (!src->arch_known || src->arch != dst->arch)
		dst->arch_known = false;
}

/* The state after instruction in (for a jump: before its branches). */
static struct cbpf_flow cbpf_flow_step(const struct sock_filter *in, struct cbpf_flow st)
{
	switch (BPF_CLASS(in->code)) {
	case BPF_LD:
		st.a_is_nr = in->code == (BPF_LD | BPF_W | BPF_ABS) &&
			     in->k == offsetof(struct seccomp_data, nr);
		st.a_is_arch = in->code == (BPF_LD | BPF_W | BPF_ABS) &&
			       in->k == offsetof(struct seccomp_data, arch);
		break;
	case BPF_ALU:
		st.a_is_nr = st.a_is_arch = false;
		break;
	case BPF_MISC:
		if (in->code == (BPF_MISC | BPF_TXA))
			st.a_is_nr = st.a_is_arch = false;
		break;
	}
	return st;
}

/* Fill flow[0..len-1] for the filter insns (which passed cbpf_check). */
static void cbpf_flow_run(const struct sock_filter *insns, size_t len, struct cbpf_flow *flow)
{
	struct cbpf_flow st, taken;
	size_t i;

	flow[0].reached = true;
	for (i = 0; i < len; i++) {
		const struct sock_filter *in = &insns[i];

		if (!flow[i].reached)
			continue;
		st = cbpf_flow_step(in, flow[i]);
		if (BPF_CLASS(in->code) == BPF_RET)
			continue;
		if (BPF_CLASS(in->code) != BPF_JMP) {
			if (i + 1 < len)
				cbpf_flow_merge(&flow[i + 1], &st);
			continue;
		}
		if (in->code == (BPF_JMP | BPF_JA)) {
			if (i + 1 + in->k < len)
				cbpf_flow_merge(&flow[i + 1 + in->k], &st);
			continue;
		}
		taken = st;
		if (st.a_is_arch && in->code == (BPF_JMP | BPF_JEQ | BPF_K)) {
			taken.arch_known = true;
			taken.arch = in->k;
		}
		if (i + 1 + in->jt < len)
			cbpf_flow_merge(&flow[i + 1 + in->jt], &taken);
		if (i + 1 + in->jf < len)
			cbpf_flow_merge(&flow[i + 1 + in->jf], &st);
	}
}

/* The name next to a compare of A with a constant: the syscall or the
 * ABI it stands for, "" when the paths to it do not say. */
static const char *cbpf_flow_name(const struct sock_filter *in, const struct cbpf_flow *st,
				  char *buf, size_t len)
{
	char name[48];
	const char *abi;
	bool x32;

	buf[0] = '\0';
	if (BPF_CLASS(in->code) != BPF_JMP || BPF_SRC(in->code) != BPF_K ||
	    BPF_OP(in->code) == BPF_JA || BPF_OP(in->code) == BPF_JSET)
		return buf;
	if (st->a_is_arch) {
		abi = syscall_abi_name(in->k, 0);
		snprintf(buf, len, "%s", abi ? abi : "");
	} else if (st->a_is_nr && st->arch_known && st->arch == AUDIT_ARCH_X86_64 &&
		   in->k >= SYSCALL_X32_BIT - 1 && in->k <= SYSCALL_X32_BIT &&
		   (BPF_OP(in->code) == BPF_JGE || BPF_OP(in->code) == BPF_JGT) &&
		   (in->k == SYSCALL_X32_BIT) == (BPF_OP(in->code) == BPF_JGE)) {
		/* nr >= 0x40000000: the x32 ABI's numbers, not its first one. */
		snprintf(buf, len, "x32 ABI (bit 30 of nr)");
	} else if (st->a_is_nr && st->arch_known) {
		syscall_name(st->arch, (int32_t)in->k, name, sizeof(name));
		/* An x32 number is named with the ABI it belongs to. */
		x32 = st->arch == AUDIT_ARCH_X86_64 && (in->k & SYSCALL_X32_BIT) &&
		      in->k < 0x80000000u && name[0];
		snprintf(buf, len, "%s%s", x32 ? "x32 " : "", name);
	}
	return buf;
}

/* How many of the first instructions of insns are secbpf's listener guard
 * (0 when it does not start the filter). */
static size_t cbpf_guard_prefix(const struct sock_filter *insns, size_t len)
{
	struct secbpf_err err = { { 0 } };
	struct sock_filter *guard;
	size_t glen, n = 0;

	if (cbpf_guard_build(&guard, &glen, &err))
		return 0;
	if (glen < len && !memcmp(guard, insns, glen * sizeof(*guard)))
		n = glen;
	free(guard);
	return n;
}

void cbpf_disasm_print(FILE *f, const struct sock_filter *insns, size_t len, const char *indent)
{
	struct cbpf_flow *flow = calloc(len ? len : 1, sizeof(*flow));
	size_t guard = cbpf_guard_prefix(insns, len), i;
	char buf[160], name[64];

	if (guard)
		fprintf(f,
			"%s# listener guard (0000-%04zu): seccomp(SET_MODE_FILTER) with "
			"NEW_LISTENER gets ERRNO(EPERM)\n",
			indent, guard - 1);
	if (flow && len)
		cbpf_flow_run(insns, len, flow);
	for (i = 0; i < len; i++) {
		if (guard && i == guard)
			fprintf(f, "%s# the filter\n", indent);
		cbpf_disasm_insn(insns, len, i, buf, sizeof(buf));
		if (flow && flow[i].reached &&
		    cbpf_flow_name(&insns[i], &flow[i], name, sizeof(name))[0])
			fprintf(f, "%s%s  ; %s\n", indent, buf, name);
		else
			fprintf(f, "%s%s\n", indent, buf);
	}
	free(flow);
}
