// SPDX-License-Identifier: MIT
/*
 * The eBPF assembler (see asm.h): the common assembly syntax bpf_conformance
 * and the verifier corpus are written in, one line at a time, with labels
 * resolved after the last line. Opcode names come from the decoder (insn.c).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/number.h"
#include "vm/asm.h"
#include "vm/insn.h"

#define REG_FP 10
#define ASM_MAX_TOKENS 8
#define ASM_MAX_LINE 1024

/* A jump or call whose target is a label, resolved after the last line. */
struct asm_fixup {
	size_t slot;
	unsigned line;
	bool imm; /* target goes into imm (ja32, call local), else off */
	char label[64];
};

struct asm_label {
	char name[64];
	size_t slot;
};

/* Everything the assembler builds; freed on every exit path. */
struct asm_state {
	struct bpf_insn *insns;
	size_t cnt, cap;
	struct asm_fixup *fixups;
	size_t nfixups, capfixups;
	struct asm_label *labels;
	size_t nlabels, caplabels;
	size_t first_exit; /* slot of the first exit: the implicit "exit" label */
	unsigned line;
	struct secbpf_err *err;
};

static int asm_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int asm_fail(struct asm_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int asm_fail(struct asm_state *st, const char *fmt, ...)
{
	char msg[SECBPF_ERR_MAX - 32];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(st->err, EINVAL, "line %u: %s", st->line, msg);
}

static int asm_emit(struct asm_state *st, const struct bpf_insn *in)
{
	if (st->cnt >= INSN_MAX_CNT)
		return asm_fail(st, "program longer than %d instructions", INSN_MAX_CNT);
	if (asm_grow((void **)&st->insns, &st->cap, st->cnt + 1, sizeof(*in)))
		return err_set(st->err, ENOMEM, "out of memory assembling line %u", st->line);
	st->insns[st->cnt++] = *in;
	return 0;
}

static bool is_label_start(char c)
{
	return isalpha((unsigned char)c) || c == '_' || c == '.';
}

static bool is_label_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

static bool is_label(const char *s)
{
	if (!is_label_start(*s))
		return false;
	while (*s && is_label_char(*s))
		s++;
	return *s == '\0';
}

/*
 * Parses [+|-]digits or [+|-]0xhex in full into a sign and a magnitude.
 * Fails on anything else, including magnitudes above 2^64 - 1.
 */
/* A literal as the assembler writes it: lib/common/number.c's grammar, '+' too. */
static int parse_number(const char *s, bool *neg, uint64_t *mag)
{
	struct number n;
	int ret = number_parse(s, NUMBER_ALLOW_PLUS, &n);

	if (ret)
		return ret;
	*neg = n.neg;
	*mag = n.mag;
	return 0;
}

/*
 * A 32-bit immediate: a signed decimal (-2^31..2^31-1) or a hex bit pattern
 * (0..0xffffffff), as written for jne32 %r2, 0xffffff80.
 */
static int asm_imm32(struct asm_state *st, const char *tok, int32_t *out)
{
	bool neg, hex;
	uint64_t mag;
	int ret = parse_number(tok, &neg, &mag);

	if (ret == -EINVAL)
		return asm_fail(st, "invalid immediate '%s' (expected a decimal or 0x hex number)",
				tok);
	hex = strstr(tok, "0x") || strstr(tok, "0X");
	if (ret || (neg && mag > 0x80000000ull) ||
	    (!neg && mag > (hex ? 0xffffffffull : 0x7fffffffull)))
		return asm_fail(st,
				"immediate %s does not fit in 32 bits (-2147483648.."
				"2147483647, or 0x0..0xffffffff)",
				tok);
	*out = neg ? (int32_t)(uint32_t)(0u - (uint32_t)mag) : (int32_t)(uint32_t)mag;
	return 0;
}

static int asm_imm64(struct asm_state *st, const char *tok, uint64_t *out)
{
	bool neg;
	uint64_t mag;
	int ret = parse_number(tok, &neg, &mag);

	if (ret == -EINVAL)
		return asm_fail(st, "invalid immediate '%s' (expected a decimal or 0x hex number)",
				tok);
	if (ret || (neg && mag > 0x8000000000000000ull))
		return asm_fail(st, "immediate %s does not fit in 64 bits", tok);
	*out = neg ? 0 - mag : mag;
	return 0;
}

static int asm_off16(struct asm_state *st, const char *tok, int16_t *out)
{
	bool neg;
	uint64_t mag;
	int ret = parse_number(tok, &neg, &mag);

	if (ret == -EINVAL)
		return asm_fail(st, "invalid offset '%s' (expected a decimal or 0x hex number)",
				tok);
	if (ret || mag > (neg ? 32768u : 32767u))
		return asm_fail(st, "offset %s out of the 16-bit range (-32768..32767)", tok);
	*out = (int16_t)(neg ? -(int64_t)mag : (int64_t)mag);
	return 0;
}

static int asm_reg(struct asm_state *st, const char *tok, int *out)
{
	bool neg;
	uint64_t n;

	if (tok[0] != '%' || tok[1] != 'r' || !isdigit((unsigned char)tok[2]) ||
	    parse_number(tok + 2, &neg, &n) || n > REG_FP || (tok[2] == '0' && tok[3] != '\0'))
		return asm_fail(st, "invalid register '%s' (registers are %%r0..%%r10)", tok);
	*out = (int)n;
	return 0;
}

/* A memory operand: [%rN], [%rN+off] or [%rN-off]. */
static int asm_mem(struct asm_state *st, const char *tok, int *reg, int16_t *off)
{
	char inner[ASM_MAX_LINE], regname[16];
	size_t n = strlen(tok), r = 0, k = 0, j;

	if (n < 2 || tok[0] != '[' || tok[n - 1] != ']')
		return asm_fail(st, "expected a memory operand like [%%r1+4], got '%s'", tok);
	/* Drop the brackets and any spaces, so "[%r1 + 4]" works too. */
	for (j = 1; j + 1 < n; j++) {
		if (!isspace((unsigned char)tok[j]))
			inner[k++] = tok[j];
	}
	inner[k] = '\0';
	while (inner[r] && inner[r] != '+' && inner[r] != '-')
		r++;
	if (r >= sizeof(regname))
		return asm_fail(st, "invalid register in memory operand '%s'", tok);
	memcpy(regname, inner, r);
	regname[r] = '\0';
	if (asm_reg(st, regname, reg))
		return -EINVAL;
	*off = 0;
	if (!inner[r])
		return 0;
	return asm_off16(st, inner + r, off);
}

/* Register operands into the bit-fields of struct bpf_insn. */
static int asm_dst(struct asm_state *st, const char *tok, struct bpf_insn *in)
{
	int r;

	if (asm_reg(st, tok, &r))
		return -EINVAL;
	in->dst_reg = r;
	return 0;
}

static int asm_src(struct asm_state *st, const char *tok, struct bpf_insn *in)
{
	int r;

	if (asm_reg(st, tok, &r))
		return -EINVAL;
	in->src_reg = r;
	return 0;
}

/* A memory operand whose base register is dst (stores) or src (loads). */
static int asm_mem_op(struct asm_state *st, const char *tok, struct bpf_insn *in, bool base_dst)
{
	int r;

	if (asm_mem(st, tok, &r, &in->off))
		return -EINVAL;
	if (base_dst)
		in->dst_reg = r;
	else
		in->src_reg = r;
	return 0;
}

static int asm_add_fixup(struct asm_state *st, const char *label, bool imm)
{
	struct asm_fixup *f;

	if (!is_label(label))
		return asm_fail(st, "invalid jump target '%s' (expected +N, -N or a label)", label);
	if (strlen(label) >= sizeof(f->label))
		return asm_fail(st, "label '%.20s...' longer than %zu characters", label,
				sizeof(f->label) - 1);
	if (asm_grow((void **)&st->fixups, &st->capfixups, st->nfixups + 1, sizeof(*f)))
		return err_set(st->err, ENOMEM, "out of memory assembling line %u", st->line);
	f = &st->fixups[st->nfixups++];
	f->slot = st->cnt;
	f->line = st->line;
	f->imm = imm;
	strcpy(f->label, label);
	return 0;
}

/* A jump target: +N / -N / N now, or a label resolved at the end. */
static int asm_target(struct asm_state *st, const char *tok, struct bpf_insn *in, bool imm)
{
	if (*tok == '+' || *tok == '-' || isdigit((unsigned char)*tok)) {
		if (imm)
			return asm_imm32(st, tok, &in->imm);
		return asm_off16(st, tok, &in->off);
	}
	return asm_add_fixup(st, tok, imm);
}

static int asm_nargs(struct asm_state *st, const char *mnem, int got, int want, const char *what)
{
	if (got == want)
		return 0;
	return asm_fail(st, "%s takes %d operand%s (%s), got %d", mnem, want, want == 1 ? "" : "s",
			what, got);
}

/* The BPF_OP value whose mnemonic (from name_of) is name[0..len); -1 if none. */
static int find_op(const char *(*name_of)(unsigned op), const char *name, size_t len)
{
	unsigned op;

	for (op = 0; op < 256; op += 16) {
		const char *n = name_of(op);

		if (n && strlen(n) == len && strncmp(n, name, len) == 0)
			return (int)op;
	}
	return -1;
}

static int size_code(const char *sfx)
{
	if (!strcmp(sfx, "b"))
		return BPF_B;
	if (!strcmp(sfx, "h"))
		return BPF_H;
	if (!strcmp(sfx, "w"))
		return BPF_W;
	if (!strcmp(sfx, "dw"))
		return BPF_DW;
	return -1;
}

static int asm_lock(struct asm_state *st, char **tok, int ntok)
{
	static const char usage[] = "lock [fetch] add|and|or|xor[32] [%rN+off], %rM; "
				    "lock xchg|cmpxchg[32] [%rN+off], %rM";
	struct bpf_insn in = { 0 };
	bool fetch = false;
	const char *op;
	size_t n;
	int code;

	if (ntok > 0 && !strcmp(tok[0], "fetch")) {
		fetch = true;
		tok++;
		ntok--;
	}
	if (ntok == 0)
		return asm_fail(st, "lock needs an operation: %s", usage);
	op = tok[0];
	n = strlen(op);
	in.code = BPF_STX | BPF_ATOMIC | BPF_DW;
	if (n > 2 && !strcmp(op + n - 2, "32")) {
		in.code = BPF_STX | BPF_ATOMIC | BPF_W;
		n -= 2;
	}
	if (n == 4 && !strncmp(op, "xchg", 4)) {
		in.imm = BPF_XCHG;
	} else if (n == 7 && !strncmp(op, "cmpxchg", 7)) {
		in.imm = BPF_CMPXCHG;
	} else {
		code = find_op(insn_alu_op_name, op, n);
		if (code != BPF_ADD && code != BPF_AND && code != BPF_OR && code != BPF_XOR)
			return asm_fail(st, "invalid lock operation '%s': %s", op, usage);
		in.imm = code | (fetch ? BPF_FETCH : 0);
	}
	if (ntok - 1 != 2)
		return asm_fail(st,
				"invalid number of operands for lock %s%s: expected 2 "
				"([%%rN+off], %%rM), got %d",
				fetch ? "fetch " : "", op, ntok - 1);
	if (asm_mem_op(st, tok[1], &in, true) || asm_src(st, tok[2], &in))
		return -EINVAL;
	return asm_emit(st, &in);
}

static int asm_call(struct asm_state *st, char **tok, int ntok)
{
	struct bpf_insn in = { .code = BPF_JMP | BPF_CALL };

	if (ntok >= 1 && !strcmp(tok[0], "local")) {
		if (asm_nargs(st, "call local", ntok - 1, 1, "a label or +N"))
			return -EINVAL;
		in.src_reg = BPF_PSEUDO_CALL;
		if (asm_target(st, tok[1], &in, true))
			return -EINVAL;
		return asm_emit(st, &in);
	}
	if (ntok >= 1 && !strcmp(tok[0], "helper")) {
		tok++;
		ntok--;
	}
	if (asm_nargs(st, "call", ntok, 1, "a helper number, %rN, or local LABEL"))
		return -EINVAL;
	if (tok[0][0] == '%') {
		/* callx: the register goes in dst_reg, as gcc, LLVM >= 19 and
		 * bpf_conformance encode it. */
		in.code |= BPF_X;
		if (asm_dst(st, tok[0], &in))
			return -EINVAL;
	} else if (asm_imm32(st, tok[0], &in.imm)) {
		return -EINVAL;
	}
	return asm_emit(st, &in);
}

static const struct {
	const char *name;
	uint8_t cls;
	int16_t width;
} movsx_forms[] = {
	{ "movsx832", BPF_ALU, 8 },	{ "movsx1632", BPF_ALU, 16 },
	{ "movsx864", BPF_ALU64, 8 },	{ "movsx1664", BPF_ALU64, 16 },
	{ "movsx3264", BPF_ALU64, 32 },
};

/* ALU mnemonics: base[32|64], sdiv/smod, neg, movsx, be/le/bswap/swap. */
static int asm_alu(struct asm_state *st, const char *m, char **tok, int ntok, bool *matched)
{
	struct bpf_insn in = { 0 };
	size_t n = strlen(m);
	bool is32 = false, sign = false;
	char base[16];
	int op, i;

	*matched = false;
	/* movsx<from><to>: sign-extend the low 8/16/32 bits into w or r. */
	for (i = 0; i < (int)(sizeof(movsx_forms) / sizeof(movsx_forms[0])); i++) {
		if (strcmp(m, movsx_forms[i].name))
			continue;
		*matched = true;
		in.code = movsx_forms[i].cls | BPF_MOV | BPF_X;
		in.off = movsx_forms[i].width;
		if (asm_nargs(st, m, ntok, 2, "%rD, %rS") || asm_dst(st, tok[0], &in) ||
		    asm_src(st, tok[1], &in))
			return -EINVAL;
		return asm_emit(st, &in);
	}
	if (!strcmp(m, "be16") || !strcmp(m, "be32") || !strcmp(m, "be64") || !strcmp(m, "le16") ||
	    !strcmp(m, "le32") || !strcmp(m, "le64") || !strcmp(m, "bswap16") ||
	    !strcmp(m, "bswap32") || !strcmp(m, "bswap64") || !strcmp(m, "swap16") ||
	    !strcmp(m, "swap32") || !strcmp(m, "swap64")) {
		*matched = true;
		if (m[0] == 'b' && m[1] == 'e')
			in.code = BPF_ALU | BPF_END | BPF_TO_BE;
		else if (m[0] == 'l')
			in.code = BPF_ALU | BPF_END | BPF_TO_LE;
		else
			in.code = BPF_ALU64 | BPF_END | BPF_TO_LE;
		in.imm = atoi(m + n - 2);
		if (asm_nargs(st, m, ntok, 1, "%rN") || asm_dst(st, tok[0], &in))
			return -EINVAL;
		return asm_emit(st, &in);
	}

	if (n > 2 && (!strcmp(m + n - 2, "32") || !strcmp(m + n - 2, "64"))) {
		is32 = m[n - 2] == '3';
		n -= 2;
	}
	if (n >= sizeof(base))
		return 0;
	memcpy(base, m, n);
	base[n] = '\0';
	if (!strcmp(base, "sdiv") || !strcmp(base, "smod")) {
		sign = true;
		memmove(base, base + 1, n);
		n--;
	}
	op = find_op(insn_alu_op_name, base, n);
	if (op < 0)
		return 0;
	*matched = true;
	in.code = (is32 ? BPF_ALU : BPF_ALU64) | op;
	in.off = sign;
	if (op == BPF_NEG) {
		if (asm_nargs(st, m, ntok, 1, "%rN") || asm_dst(st, tok[0], &in))
			return -EINVAL;
		return asm_emit(st, &in);
	}
	if (asm_nargs(st, m, ntok, 2, "%rD, %rS or immediate") || asm_dst(st, tok[0], &in))
		return -EINVAL;
	if (tok[1][0] == '%') {
		in.code |= BPF_X;
		if (asm_src(st, tok[1], &in))
			return -EINVAL;
	} else if (asm_imm32(st, tok[1], &in.imm)) {
		return -EINVAL;
	}
	return asm_emit(st, &in);
}

static int asm_jmp(struct asm_state *st, const char *m, char **tok, int ntok, bool *matched)
{
	struct bpf_insn in = { 0 };
	size_t n = strlen(m);
	bool is32 = false;
	int op;

	*matched = false;
	if (!strcmp(m, "ja") || !strcmp(m, "ja32")) {
		*matched = true;
		in.code = (m[2] ? BPF_JMP32 : BPF_JMP) | BPF_JA;
		if (asm_nargs(st, m, ntok, 1, "a label or +N") ||
		    asm_target(st, tok[0], &in, m[2] != '\0'))
			return -EINVAL;
		return asm_emit(st, &in);
	}
	if (n > 2 && !strcmp(m + n - 2, "32")) {
		is32 = true;
		n -= 2;
	}
	op = find_op(insn_jmp_op_name, m, n);
	if (op < 0)
		return 0;
	*matched = true;
	in.code = (is32 ? BPF_JMP32 : BPF_JMP) | op;
	if (asm_nargs(st, m, ntok, 3, "%rD, %rS or immediate, target") || asm_dst(st, tok[0], &in))
		return -EINVAL;
	if (tok[1][0] == '%') {
		in.code |= BPF_X;
		if (asm_src(st, tok[1], &in))
			return -EINVAL;
	} else if (asm_imm32(st, tok[1], &in.imm)) {
		return -EINVAL;
	}
	if (asm_target(st, tok[2], &in, false))
		return -EINVAL;
	return asm_emit(st, &in);
}

/* Loads and stores: ldx*, ldxs*, st*, stx*, lddw. */
static int asm_ldst(struct asm_state *st, const char *m, char **tok, int ntok, bool *matched)
{
	struct bpf_insn in = { 0 };
	int size;

	*matched = false;
	if (!strcmp(m, "lddw")) {
		struct bpf_insn hi = { 0 };
		uint64_t v = 0;

		*matched = true;
		in.code = BPF_LD | BPF_IMM | BPF_DW;
		if (asm_nargs(st, m, ntok, 2, "%rD, 64-bit immediate") ||
		    asm_dst(st, tok[0], &in) || asm_imm64(st, tok[1], &v))
			return -EINVAL;
		in.imm = (int32_t)(uint32_t)v;
		hi.imm = (int32_t)(uint32_t)(v >> 32);
		if (asm_emit(st, &in))
			return -EINVAL;
		return asm_emit(st, &hi);
	}
	if (!strncmp(m, "ldxs", 4) && (size = size_code(m + 4)) >= 0 && size != BPF_DW) {
		in.code = BPF_LDX | BPF_MEMSX | size;
	} else if (!strncmp(m, "ldx", 3) && (size = size_code(m + 3)) >= 0) {
		in.code = BPF_LDX | BPF_MEM | size;
	} else if (!strncmp(m, "stx", 3) && (size = size_code(m + 3)) >= 0) {
		in.code = BPF_STX | BPF_MEM | size;
	} else if (!strncmp(m, "st", 2) && (size = size_code(m + 2)) >= 0) {
		in.code = BPF_ST | BPF_MEM | size;
	} else {
		return 0;
	}
	*matched = true;
	switch (BPF_CLASS(in.code)) {
	case BPF_LDX:
		if (asm_nargs(st, m, ntok, 2, "%rD, [%rS+off]") || asm_dst(st, tok[0], &in) ||
		    asm_mem_op(st, tok[1], &in, false))
			return -EINVAL;
		break;
	case BPF_STX:
		if (asm_nargs(st, m, ntok, 2, "[%rD+off], %rS") ||
		    asm_mem_op(st, tok[0], &in, true) || asm_src(st, tok[1], &in))
			return -EINVAL;
		break;
	default:
		if (asm_nargs(st, m, ntok, 2, "[%rD+off], immediate") ||
		    asm_mem_op(st, tok[0], &in, true) || asm_imm32(st, tok[1], &in.imm))
			return -EINVAL;
	}
	return asm_emit(st, &in);
}

/*
 * Splits a line into tokens at spaces and commas, keeping [...] together.
 * Writes into line (NUL terminators); returns the count or -1 if too many.
 */
static int asm_tokenize(char *line, char **tok)
{
	int n = 0, depth = 0;
	char *p = line;

	for (;;) {
		while (*p && (isspace((unsigned char)*p) || *p == ','))
			p++;
		if (!*p)
			return n;
		if (n == ASM_MAX_TOKENS)
			return -1;
		tok[n++] = p;
		for (; *p; p++) {
			if (*p == '[')
				depth++;
			else if (*p == ']')
				depth--;
			else if (depth <= 0 && (isspace((unsigned char)*p) || *p == ','))
				break;
		}
		if (*p)
			*p++ = '\0';
	}
}

static int asm_add_label(struct asm_state *st, const char *name)
{
	struct asm_label *l;
	size_t i;

	if (!is_label(name))
		return asm_fail(st,
				"invalid label name '%s' (letters, digits, '_' and '.', not "
				"starting with a digit)",
				name);
	if (strlen(name) >= sizeof(l->name))
		return asm_fail(st, "label '%.20s...' longer than %zu characters", name,
				sizeof(l->name) - 1);
	for (i = 0; i < st->nlabels; i++) {
		if (!strcmp(st->labels[i].name, name))
			return asm_fail(st, "label '%s' defined twice", name);
	}
	if (asm_grow((void **)&st->labels, &st->caplabels, st->nlabels + 1, sizeof(*l)))
		return err_set(st->err, ENOMEM, "out of memory assembling line %u", st->line);
	l = &st->labels[st->nlabels++];
	strcpy(l->name, name);
	l->slot = st->cnt;
	return 0;
}

static int asm_line(struct asm_state *st, char *line)
{
	char *tok[ASM_MAX_TOKENS];
	char *p, *m;
	bool matched;
	int ntok, ret;

	p = strpbrk(line, "#;");
	if (p)
		*p = '\0';
	while (isspace((unsigned char)*line))
		line++;
	if (!strncmp(line, "--", 2)) {
		p = line + strlen(line);
		while (p > line && isspace((unsigned char)p[-1]))
			*--p = '\0';
		return asm_fail(st, "unknown directive '%s'", line);
	}
	/* "name:" defines a label; an instruction may follow on the same line. */
	p = line;
	while (is_label_char(*p))
		p++;
	if (p != line && *p == ':') {
		*p = '\0';
		ret = asm_add_label(st, line);
		if (ret)
			return ret;
		line = p + 1;
	}
	ntok = asm_tokenize(line, tok);
	if (ntok < 0)
		return asm_fail(st, "too many operands (at most %d tokens per line)",
				ASM_MAX_TOKENS);
	if (ntok == 0)
		return 0;
	m = tok[0];
	if (m[0] == '.')
		return asm_fail(st, "unknown directive '%s'", m);
	if (!strcmp(m, "exit")) {
		struct bpf_insn in = { .code = BPF_JMP | BPF_EXIT };

		if (asm_nargs(st, m, ntok - 1, 0, "none"))
			return -EINVAL;
		if (st->first_exit == SIZE_MAX)
			st->first_exit = st->cnt;
		return asm_emit(st, &in);
	}
	if (!strcmp(m, "lock"))
		return asm_lock(st, tok + 1, ntok - 1);
	if (!strcmp(m, "call"))
		return asm_call(st, tok + 1, ntok - 1);
	ret = asm_ldst(st, m, tok + 1, ntok - 1, &matched);
	if (matched)
		return ret;
	ret = asm_jmp(st, m, tok + 1, ntok - 1, &matched);
	if (matched)
		return ret;
	ret = asm_alu(st, m, tok + 1, ntok - 1, &matched);
	if (matched)
		return ret;
	return asm_fail(st, "invalid mnemonic '%s'", m);
}

static int asm_resolve(struct asm_state *st)
{
	size_t i, j;

	for (i = 0; i < st->nfixups; i++) {
		struct asm_fixup *f = &st->fixups[i];
		struct bpf_insn *in = &st->insns[f->slot];
		size_t target = SIZE_MAX;
		int64_t rel;

		for (j = 0; j < st->nlabels; j++) {
			if (!strcmp(st->labels[j].name, f->label))
				target = st->labels[j].slot;
		}
		/* bpf_conformance: "exit" names the first exit unless defined. */
		if (target == SIZE_MAX && !strcmp(f->label, "exit"))
			target = st->first_exit;
		st->line = f->line;
		if (target == SIZE_MAX)
			return asm_fail(st, "undefined label '%s'", f->label);
		rel = (int64_t)target - (int64_t)f->slot - 1;
		if (f->imm) {
			in->imm = (int32_t)rel;
		} else if (rel < INT16_MIN || rel > INT16_MAX) {
			return asm_fail(st,
					"label '%s' is %" PRId64 " instructions away, beyond "
					"the 16-bit jump offset (use ja32)",
					f->label, rel);
		} else {
			in->off = (int16_t)rel;
		}
	}
	return 0;
}

int insn_assemble(const char *text, struct bpf_insn **out, size_t *cnt, struct secbpf_err *err)
{
	struct asm_state st = { .first_exit = SIZE_MAX, .err = err };
	char line[ASM_MAX_LINE];
	const char *p = text;
	int ret = 0;

	if (!text || !out || !cnt)
		return err_set(err, EINVAL, "insn_assemble: NULL argument");
	*out = NULL;
	*cnt = 0;
	while (*p && !ret) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);

		st.line++;
		if (n >= sizeof(line)) {
			ret = asm_fail(&st, "line longer than %d characters", ASM_MAX_LINE - 1);
			break;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		ret = asm_line(&st, line);
		p += n + (eol ? 1 : 0);
	}
	if (!ret && st.cnt == 0)
		ret = err_set(err, EINVAL, "no instructions in the assembly source");
	if (!ret)
		ret = asm_resolve(&st);
	free(st.fixups);
	free(st.labels);
	if (ret) {
		free(st.insns);
		return ret;
	}
	*out = st.insns;
	*cnt = st.cnt;
	return 0;
}
