// SPDX-License-Identifier: MIT
/*
 * Readable cBPF, one instruction per line, in the style of libseccomp's
 * scmp_bpf_disasm: the raw fields, then the operation with absolute jump
 * targets and the seccomp_data field or action named where known.
 */
#include <stdio.h>

#include "cbpf/cbpf.h"

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
	n = snprintf(buf, buflen, "%04zu: 0x%02x 0x%02x 0x%02x 0x%08x   %s", idx, in->code,
		     in->jt, in->jf, in->k, what);
	(void)n;
}
