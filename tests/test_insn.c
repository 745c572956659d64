// SPDX-License-Identifier: MIT
/*
 * Tests of lib/vm/insn.c: the bpf_conformance corpus through the assembler and
 * the validator (every positive case accepted, every negative one rejected),
 * the checks of one instruction, exact disassembler strings, helper lookups,
 * and random-input robustness. The assembler's own tests are test_asm.c.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "vm/asm.h"
#include "vm/insn.h"

#define CONF_DEFAULT_DIR "tests/conformance"

/* The sections of a conformance .data file that these tests use. */
struct conf_case {
	char *asm_text;
	char *raw_text;
	bool has_asm;
	bool has_raw;
};

static const char *conf_dir(void)
{
	const char *d = getenv("SECBPF_CONFORMANCE_DIR");

	return d && *d ? d : CONF_DEFAULT_DIR;
}

/* Opens dir/sub or skips the test when the corpus is not installed. */
static DIR *open_corpus(const char *sub, char *path, size_t len)
{
	DIR *d;

	snprintf(path, len, "%s/%s", conf_dir(), sub);
	d = opendir(path);
	if (!d)
		test_skip_unless_ci("conformance data not found at %s (set SECBPF_CONFORMANCE_DIR)", path);
	return d;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	cr_assert_not_null(f, "cannot open %s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void append(char **dst, const char *line, size_t n)
{
	size_t old = *dst ? strlen(*dst) : 0;

	*dst = realloc(*dst, old + n + 2);
	cr_assert_not_null(*dst);
	memcpy(*dst + old, line, n);
	(*dst)[old + n] = '\n';
	(*dst)[old + n + 1] = '\0';
}

/*
 * Splits a .data file into sections. Only the section names the format
 * defines start a section; any other "-- ..." line stays in the current one,
 * so the assembler sees (and must reject) an unknown directive.
 */
static void parse_case(const char *text, struct conf_case *c)
{
	static const char *const known[] = {
		"asm", "raw", "mem", "result", "error", "c", "no register offset"
	};
	const char *p = text;
	int cur = -1;

	memset(c, 0, sizeof(*c));
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		bool header = false;

		if (n >= 3 && !strncmp(p, "-- ", 3)) {
			for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
				size_t kl = strlen(known[k]);

				if (n - 3 >= kl && !strncmp(p + 3, known[k], kl) &&
				    strspn(p + 3 + kl, " \t\r") >= n - 3 - kl) {
					cur = (int)k;
					header = true;
				}
			}
		}
		if (header) {
			if (cur == 0)
				c->has_asm = true;
			if (cur == 1)
				c->has_raw = true;
		} else if (cur == 0) {
			append(&c->asm_text, p, n);
		} else if (cur == 1) {
			append(&c->raw_text, p, n);
		}
		p += n + (eol ? 1 : 0);
	}
}

static void free_case(struct conf_case *c)
{
	free(c->asm_text);
	free(c->raw_text);
}

/*
 * The raw section holds either 64-bit words ("0x5566778800000018", the
 * instruction read as a little-endian u64) or lines of bytes in memory order.
 */
static size_t parse_raw(const char *text, struct bpf_insn **out)
{
	uint8_t *bytes = NULL;
	size_t n = 0;
	const char *p = text ? text : "";

	while (*p) {
		char tok[32];
		int used;

		if (sscanf(p, "%31s%n", tok, &used) != 1)
			break;
		p += used;
		bytes = realloc(bytes, n + 8);
		cr_assert_not_null(bytes);
		if (!strncmp(tok, "0x", 2) && strlen(tok) == 18) {
			uint64_t w = strtoull(tok, NULL, 16);

			for (int k = 0; k < 8; k++)
				bytes[n++] = (uint8_t)(w >> (8 * k));
		} else {
			cr_assert_eq(strlen(tok), 2, "bad raw token '%s'", tok);
			bytes[n++] = (uint8_t)strtoul(tok, NULL, 16);
		}
	}
	cr_assert_eq(n % 8, 0, "raw section is not a whole number of instructions");
	*out = (struct bpf_insn *)bytes;
	return n / 8;
}

/* Gets the program of a case: the raw words win over the assembly. */
static int load_case(const struct conf_case *c, struct bpf_insn **insns, size_t *cnt,
		     struct secbpf_err *err)
{
	if (c->has_raw) {
		*cnt = parse_raw(c->raw_text, insns);
		return 0;
	}
	return insn_assemble(c->asm_text ? c->asm_text : "", insns, cnt, err);
}

static bool has_suffix(const char *s, const char *sfx)
{
	size_t n = strlen(s), m = strlen(sfx);

	return n >= m && !strcmp(s + n - m, sfx);
}

Test(conformance, positive_cases_assemble_and_validate)
{
	char dir[4096], path[8192];
	struct dirent *de;
	int files = 0, failures = 0;
	DIR *d = open_corpus("tests", dir, sizeof(dir));

	while ((de = readdir(d))) {
		struct secbpf_err err = { 0 };
		struct conf_case c;
		struct bpf_insn *insns = NULL;
		size_t cnt = 0;
		char *text;

		if (!has_suffix(de->d_name, ".data"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		text = read_file(path);
		parse_case(text, &c);
		files++;
		if (load_case(&c, &insns, &cnt, &err)) {
			cr_log_error("%s: assembly rejected: %s", de->d_name, err.msg);
			failures++;
		} else if (insn_validate(insns, cnt, INSN_CHECK_UNINIT, 2, &err)) {
			cr_log_error("%s: validation rejected: %s", de->d_name, err.msg);
			failures++;
		} else {
			/* Every accepted instruction must disassemble. */
			for (size_t i = 0; i < cnt;) {
				char buf[128];
				int n = insn_disasm(insns, cnt, i, buf, sizeof(buf));

				if (n <= 0) {
					cr_log_error("%s: insn %zu does not disassemble: %s",
						     de->d_name, i, buf);
					failures++;
					break;
				}
				i += (size_t)n;
			}
		}
		free(insns);
		free_case(&c);
		free(text);
	}
	closedir(d);
	cr_log_info("%d positive conformance cases", files);
	cr_expect_gt(files, 0, "no .data files in %s", dir);
	cr_expect_eq(failures, 0, "%d of %d positive cases rejected (see log)", failures, files);
}

Test(conformance, lddw_raw_equals_assembly)
{
	char dir[4096], path[8192];
	struct secbpf_err err = { 0 };
	struct bpf_insn *raw = NULL, *asm_insns = NULL;
	size_t nraw, nasm;
	struct conf_case c;
	char *text;
	DIR *d = open_corpus("tests", dir, sizeof(dir));

	closedir(d);
	snprintf(path, sizeof(path), "%s/lddw.data", dir);
	text = read_file(path);
	parse_case(text, &c);
	cr_assert(c.has_raw && c.has_asm);
	nraw = parse_raw(c.raw_text, &raw);
	cr_assert_eq(insn_assemble(c.asm_text, &asm_insns, &nasm, &err), 0, "%s", err.msg);
	cr_assert_eq(nasm, nraw);
	cr_assert_eq(nraw, 3);
	cr_expect_eq(memcmp(raw, asm_insns, nraw * sizeof(*raw)), 0,
		     "lddw.data: assembly differs from the raw section");
	cr_expect_eq(insn_validate(raw, nraw, INSN_CHECK_UNINIT, 2, &err), 0, "%s", err.msg);
	free(raw);
	free(asm_insns);
	free_case(&c);
	free(text);
}

/*
 * This negative case is a valid program whose expected result is wrong on
 * purpose (it tests the runner's result comparison): no structural check can
 * reject it, and accepting it is correct.
 */
static bool runtime_only_negative(const char *name)
{
	return !strcmp(name, "incorrect_return_value_high_bits.data");
}

Test(conformance, negative_cases_rejected)
{
	char dir[4096], path[8192];
	struct dirent *de;
	int files = 0, rejected = 0, failures = 0;
	DIR *d = open_corpus("negative", dir, sizeof(dir));

	while ((de = readdir(d))) {
		struct secbpf_err err = { 0 };
		struct conf_case c;
		struct bpf_insn *insns = NULL;
		size_t cnt = 0;
		const char *stage = "validator";
		char *text;
		int ret;

		if (!has_suffix(de->d_name, ".data"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		text = read_file(path);
		parse_case(text, &c);
		files++;
		ret = load_case(&c, &insns, &cnt, &err);
		if (ret)
			stage = "assembler";
		else
			ret = insn_validate(insns, cnt, INSN_CHECK_UNINIT, 2, &err);
		if (runtime_only_negative(de->d_name)) {
			cr_expect_eq(ret, 0, "%s is a valid program: %s", de->d_name, err.msg);
		} else if (!ret) {
			cr_log_error("%s: accepted but must be rejected", de->d_name);
			failures++;
		} else {
			rejected++;
			cr_expect_lt(ret, 0);
			cr_expect(strstr(err.msg, "insn ") || strstr(err.msg, "line ") ||
					  strstr(err.msg, "instructions"),
				  "%s: message does not say where: %s", de->d_name, err.msg);
			cr_log_info("%s: %s: %s", de->d_name, stage, err.msg);
		}
		free(insns);
		free_case(&c);
		free(text);
	}
	closedir(d);
	cr_log_info("%d negative cases, %d rejected", files, rejected);
	cr_expect_gt(files, 0);
	cr_expect_eq(failures, 0, "%d negative cases accepted (see log)", failures);
}

/* ------------------------------------------------------------------ */
/* Validator                                                            */
/* ------------------------------------------------------------------ */

static int validate_src(const char *src, unsigned flags, int entry_args, struct secbpf_err *err)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	int ret;

	cr_assert_eq(insn_assemble(src, &insns, &cnt, err), 0, "%s: %s", src, err->msg);
	ret = insn_validate(insns, cnt, flags, entry_args, err);
	free(insns);
	return ret;
}

static void expect_valid(const char *src, unsigned flags, int entry_args)
{
	struct secbpf_err err = { 0 };

	cr_expect_eq(validate_src(src, flags, entry_args, &err), 0, "%s: %s", src, err.msg);
}

static void expect_invalid(const char *src, unsigned flags, int entry_args, const char *needle)
{
	struct secbpf_err err = { 0 };

	cr_expect_lt(validate_src(src, flags, entry_args, &err), 0, "accepted: %s", src);
	cr_expect(strstr(err.msg, needle), "for \"%s\": message \"%s\" lacks \"%s\"", src, err.msg,
		  needle);
}

static void expect_raw_invalid(const struct bpf_insn *insns, size_t cnt, unsigned flags,
			       const char *needle)
{
	struct secbpf_err err = { 0 };

	cr_expect_lt(insn_validate(insns, cnt, flags, 0, &err), 0, "accepted (%s)", needle);
	cr_expect(strstr(err.msg, needle), "message \"%s\" lacks \"%s\"", err.msg, needle);
}

#define EXIT_INSN                                                                                  \
	{                                                                                          \
		.code = BPF_JMP | BPF_EXIT                                                         \
	}
#define MOV0_INSN                                                                                  \
	{                                                                                          \
		.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0                        \
	}

Test(validate, structure)
{
	expect_invalid("mov %r10, 1\nexit", 0, 0, "insn 0: mov writes r10");
	expect_invalid("ldxdw %r10, [%r1]\nexit", 0, 1, "writes r10");
	expect_invalid("mov %r0, 0\nlock fetch add [%r1], %r10\nexit", 0, 1, "writes r10");
	expect_invalid("mov %r0, 0", 0, 0, "must be exit or ja");
	expect_invalid("mov %r0, 0\nja +1\nexit", 0, 0, "outside the program");
	expect_invalid("mov %r0, 0\nja -3\nexit", 0, 0, "outside the program");
	expect_invalid("ja +1\nlddw %r0, 1\nexit", 0, 0, "second slot of an lddw");
	expect_invalid("call local +5\nexit", 0, 0, "outside the program");
	expect_invalid("mov %r0, 0\nexit\nlddw %r0, 1", 0, 0, "lddw is the last instruction");
	expect_invalid("mov %r0, 0\njeq %r0, 0, +2\ncall local f\nexit\nf: mov %r0, 1\nexit", 0, 0,
		       "insn 1: jeq to 4 leaves its function");
	expect_invalid("mov %r0, 0\ncall local f\nmov %r0, 0\nf: mov %r0, 1\nexit", 0, 0,
		       "last instruction of a function");
	expect_valid("mov %r0, 0\ncall local f\nexit\nf: mov %r0, 1\nexit", 0, 0);
	expect_valid("mov %r1, 0\nja L2\nL1: exit\nL2: mov %r0, 0\nja L1", 0, 0);

	struct bpf_insn abs[] = { { .code = BPF_LD | BPF_ABS | BPF_W }, EXIT_INSN };
	expect_raw_invalid(abs, 2, 0, "legacy packet load BPF_ABS");
	struct bpf_insn ind[] = { { .code = BPF_LD | BPF_IND | BPF_B }, EXIT_INSN };
	expect_raw_invalid(ind, 2, 0, "BPF_IND");
	struct bpf_insn reg11[] = { { .code = BPF_ALU64 | BPF_MOV | BPF_X, .src_reg = 11 },
				    EXIT_INSN };
	expect_raw_invalid(reg11, 2, 0, "insn 0: mov uses register r11 in src_reg");
	struct bpf_insn reg15[] = { { .code = BPF_ALU | BPF_ADD | BPF_K, .dst_reg = 15 },
				    EXIT_INSN };
	expect_raw_invalid(reg15, 2, 0, "r15 in dst_reg");
	struct bpf_insn lddw_hi[] = { { .code = BPF_LD | BPF_IMM | BPF_DW },
				      { .code = 0, .dst_reg = 1 },
				      EXIT_INSN };
	expect_raw_invalid(lddw_hi, 3, 0, "insn 1: second slot of lddw");
	struct bpf_insn map[] = { { .code = BPF_LD | BPF_IMM | BPF_DW,
				    .dst_reg = 1,
				    .src_reg = BPF_PSEUDO_MAP_FD,
				    .imm = 3 },
				  { 0 },
				  MOV0_INSN,
				  EXIT_INSN };
	expect_raw_invalid(map, 4, 0, "pseudo src_reg 1");
	cr_expect_eq(insn_validate(map, 4, INSN_ALLOW_PSEUDO, 0, NULL), 0);
	map[1].imm = 1;
	expect_raw_invalid(map, 4, INSN_ALLOW_PSEUDO, "non-zero upper imm");
	map[0].src_reg = BPF_PSEUDO_BTF_ID;
	expect_raw_invalid(map, 4, INSN_ALLOW_PSEUDO, "unsupported pseudo src_reg 3");
	struct bpf_insn kfunc[] = { { .code = BPF_JMP | BPF_CALL, .src_reg = 2, .imm = 1 },
				    EXIT_INSN };
	expect_raw_invalid(kfunc, 2, INSN_ALLOW_PSEUDO, "kfunc");
	struct bpf_insn ja_exit32[] = { { .code = BPF_JMP32 | BPF_EXIT } };
	expect_raw_invalid(ja_exit32, 1, 0, "unknown opcode 0x96");
	struct bpf_insn sdiv2[] = { { .code = BPF_ALU64 | BPF_DIV | BPF_K, .off = 2, .imm = 1 },
				    EXIT_INSN };
	expect_raw_invalid(sdiv2, 2, 0, "div with invalid offset field 2");
	struct bpf_insn movsx32[] = { { .code = BPF_ALU | BPF_MOV | BPF_X, .off = 32 }, EXIT_INSN };
	expect_raw_invalid(movsx32, 2, 0, "mov32 with invalid offset field 32");
	struct bpf_insn end8[] = { { .code = BPF_ALU | BPF_END | BPF_TO_BE, .imm = 8 }, EXIT_INSN };
	expect_raw_invalid(end8, 2, 0, "invalid width 8");
	struct bpf_insn bswapx[] = { { .code = BPF_ALU64 | BPF_END | BPF_X, .imm = 16 },
				     EXIT_INSN };
	expect_raw_invalid(bswapx, 2, 0, "unknown opcode 0xdf");
	struct bpf_insn atom_b[] = { { .code = BPF_STX | BPF_ATOMIC | BPF_B }, EXIT_INSN };
	expect_raw_invalid(atom_b, 2, 0, "byte size");
	struct bpf_insn atom_sub[] = { { .code = BPF_STX | BPF_ATOMIC | BPF_DW, .imm = BPF_SUB },
				       EXIT_INSN };
	expect_raw_invalid(atom_sub, 2, 0, "invalid imm 0x10");
	struct bpf_insn memsx_dw[] = { { .code = BPF_LDX | 0x80 | BPF_DW }, EXIT_INSN };
	expect_raw_invalid(memsx_dw, 2, 0, "unknown LDX opcode 0x99");
	struct bpf_insn callx_imm[] = { { .code = BPF_JMP | BPF_CALL | BPF_X, .imm = 1 },
					EXIT_INSN };
	expect_raw_invalid(callx_imm, 2, 0, "callx with non-zero imm field");
	struct bpf_insn neg_x[] = { { .code = BPF_ALU64 | BPF_NEG | BPF_X }, EXIT_INSN };
	expect_raw_invalid(neg_x, 2, 0, "neg with a register source");

	cr_expect_eq(insn_validate(NULL, 0, 0, 0, NULL), -EINVAL);
	cr_expect_eq(insn_validate(abs, 2, 0, 6, NULL), -EINVAL);
	cr_expect_eq(insn_validate(abs, 2, 1u << 7, 0, NULL), -EINVAL);
}

Test(validate, unused_field_messages)
{
	struct bpf_insn add_off[] = { { .code = BPF_ALU | BPF_ADD | BPF_K, .off = 1, .imm = 1 },
				      EXIT_INSN };
	expect_raw_invalid(
		add_off, 2, 0,
		"insn 0: add32 (immediate form) with non-zero offset field 1 (must be 0)");
	struct bpf_insn jeq_imm[] = { { .code = BPF_JMP | BPF_JEQ | BPF_X, .imm = 1 }, EXIT_INSN };
	expect_raw_invalid(jeq_imm, 2, 0, "insn 0: jeq (register form) with non-zero imm field");
	struct bpf_insn exit_dst[] = { { .code = BPF_JMP | BPF_EXIT, .dst_reg = 1 }, EXIT_INSN };
	expect_raw_invalid(exit_dst, 2, 0, "insn 0: exit with non-zero dst_reg field 1");
	struct bpf_insn stw_src[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = 10, .src_reg = 1, .off = -4 },
		EXIT_INSN
	};
	expect_raw_invalid(stw_src, 2, 0, "insn 0: stw with non-zero src_reg field 1");
	struct bpf_insn ja32_off[] = { { .code = BPF_JMP32 | BPF_JA, .off = 1 }, EXIT_INSN };
	expect_raw_invalid(ja32_off, 2, 0, "ja32 with non-zero offset field");
}

/* insn_check: one instruction on its own, the check the verifier shares. */
Test(validate, one_instruction)
{
	struct bpf_insn prog[] = {
		{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 1, .imm = 7 },
		{ .code = 0, .off = 3 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 10 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 1, .src_reg = 2, .off = 16 },
		{ .code = BPF_JMP | BPF_JA, .off = -5 },
		{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 1 },
	};
	struct insn_fault fault = { 0 };

	/* a bad second slot is reported at that slot */
	cr_expect_eq(insn_check(prog, 6, 0, 0, &fault), -EINVAL);
	cr_expect_eq(fault.slot, 1);
	cr_expect(strstr(fault.why, "second slot of lddw"), "%s", fault.why);
	cr_expect(!strstr(fault.why, "insn "), "names no slot: %s", fault.why);
	prog[1].off = 0;
	cr_expect_eq(insn_check(prog, 6, 0, 0, &fault), 0);
	/* writing r10 is refused with EACCES, the rest with EINVAL */
	cr_expect_eq(insn_check(prog, 6, 2, 0, &fault), -EACCES);
	cr_expect_eq(fault.slot, 2);
	cr_expect(strstr(fault.why, "mov writes r10"), "%s", fault.why);
	cr_expect_eq(insn_check(prog, 6, 3, 0, NULL), 0);
	/* targets are insn_validate's business, not insn_check's */
	cr_expect_eq(insn_check(prog, 6, 4, 0, NULL), 0);
	cr_expect_eq(insn_check(prog, 6, 5, 0, &fault), -EINVAL);
	cr_expect(strstr(fault.why, "missing its second slot"), "%s", fault.why);
	cr_expect_eq(insn_check(prog, 6, 6, 0, &fault), -EINVAL);
	cr_expect_eq(insn_check(NULL, 0, 0, 0, NULL), -EINVAL);
}

Test(validate, uninitialized_registers)
{
	expect_invalid("or %r0, %r10\nexit", INSN_CHECK_UNINIT, 2, "insn 0 (r0 |= r10): reads r0");
	expect_valid("or %r0, %r10\nexit", 0, 2);
	expect_invalid("mov %r0, %r3\nexit", INSN_CHECK_UNINIT, 2, "reads r3");
	expect_valid("mov %r0, %r2\nexit", INSN_CHECK_UNINIT, 2);
	expect_invalid("mov %r0, %r2\nexit", INSN_CHECK_UNINIT, 1, "raise entry_args");
	expect_invalid("exit", INSN_CHECK_UNINIT, 5, "insn 0 (exit): reads r0");
	/* Set on one path only. */
	expect_invalid("jeq %r1, 0, +1\nmov %r0, 1\nexit", INSN_CHECK_UNINIT, 1, "reads r0");
	expect_valid("mov %r0, 0\njeq %r1, 0, +1\nmov %r0, 1\nexit", INSN_CHECK_UNINIT, 1);
	/* A call clobbers r1..r5 and sets r0. */
	expect_invalid("call 1\nmov %r0, %r1\nexit", INSN_CHECK_UNINIT, 2, "reads r1");
	expect_valid("mov %r6, 1\ncall 1\nadd %r0, %r6\nexit", INSN_CHECK_UNINIT, 0);
	/* A callee starts with r1..r5, not r6..r9. */
	expect_valid("call local f\nexit\nf: mov %r0, %r5\nexit", INSN_CHECK_UNINIT, 0);
	expect_invalid("mov %r6, 1\ncall local f\nexit\nf: mov %r0, %r6\nexit", INSN_CHECK_UNINIT,
		       0, "insn 3 (r0 = r6): reads r6");
	/* Loops reach a fixpoint. */
	expect_valid("mov %r0, 0\nL: add %r0, 1\njlt %r0, 10, L\nexit", INSN_CHECK_UNINIT, 0);
	expect_invalid("L: add %r0, 1\nmov %r0, 0\njlt %r0, 10, L\nexit", INSN_CHECK_UNINIT, 0,
		       "insn 0 (r0 += 1): reads r0");
	/* Stores read both registers, cmpxchg reads r0, callx its register. */
	expect_invalid("stxdw [%r10-8], %r3\nmov %r0, 0\nexit", INSN_CHECK_UNINIT, 2, "reads r3");
	expect_invalid("mov %r1, 0\nlock cmpxchg [%r10-8], %r1\nexit", INSN_CHECK_UNINIT, 0,
		       "reads r0");
	expect_invalid("call %r4\nexit", INSN_CHECK_UNINIT, 2, "reads r4");
	expect_valid("mov %r0, 1\nlock fetch add [%r10-8], %r0\nexit", INSN_CHECK_UNINIT, 0);
}

/* ------------------------------------------------------------------ */
/* Disassembler                                                         */
/* ------------------------------------------------------------------ */

static void expect_disasm(const struct bpf_insn *insns, size_t cnt, const char *want)
{
	char buf[128];
	int n = insn_disasm(insns, cnt, 0, buf, sizeof(buf));

	cr_expect_gt(n, 0, "disasm failed: %s (want %s)", buf, want);
	cr_expect_str_eq(buf, want);
}

/* Assembles one line (plus exit) and checks the disassembly of its first insn. */
static void expect_asm_disasm(const char *line, const char *want)
{
	struct secbpf_err err = { 0 };
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char src[256];

	snprintf(src, sizeof(src), "%s\nexit\n", line);
	cr_assert_eq(insn_assemble(src, &insns, &cnt, &err), 0, "%s: %s", line, err.msg);
	expect_disasm(insns, cnt, want);
	free(insns);
}

Test(disasm, kernel_syntax)
{
	expect_asm_disasm("ldxw %r1, [%r6+4]", "r1 = *(u32 *)(r6 +4)");
	expect_asm_disasm("ldxdw %r0, [%r1]", "r0 = *(u64 *)(r1 +0)");
	expect_asm_disasm("stxdw [%r10-8], %r1", "*(u64 *)(r10 -8) = r1");
	expect_asm_disasm("stb [%r1+2], -3", "*(u8 *)(r1 +2) = -3");
	expect_asm_disasm("mov32 %r0, %r1", "w0 = w1");
	expect_asm_disasm("add %r0, 1", "r0 += 1");
	expect_asm_disasm("mov %r1, -1", "r1 = -1");
	expect_asm_disasm("sub32 %r3, %r4", "w3 -= w4");
	expect_asm_disasm("arsh %r2, 3", "r2 s>>= 3");
	expect_asm_disasm("lsh32 %r2, %r1", "w2 <<= w1");
	expect_asm_disasm("sdiv %r1, %r2", "r1 s/= r2");
	expect_asm_disasm("smod32 %r1, 7", "w1 s%= 7");
	expect_asm_disasm("mod %r1, 7", "r1 %= 7");
	expect_asm_disasm("neg %r1", "r1 = -r1");
	expect_asm_disasm("neg32 %r1", "w1 = -w1");
	expect_asm_disasm("jne %r1, 999, +2", "if r1 != 0x3e7 goto pc+2");
	expect_asm_disasm("jsgt32 %r2, %r3, -4", "if w2 s> w3 goto pc-4");
	expect_asm_disasm("jset %r1, -1, +0", "if r1 & 0xffffffff goto pc+0");
	expect_asm_disasm("jsle %r1, %r2, +1", "if r1 s<= r2 goto pc+1");
	expect_asm_disasm("lddw %r0, 0x1122334455667788", "r0 = 0x1122334455667788");
	expect_asm_disasm("call 1", "call bpf_map_lookup_elem#1");
	expect_asm_disasm("call 99999", "call unknown#99999");
	expect_asm_disasm("call local +5", "call pc+5");
	expect_asm_disasm("call %r2", "callx r2");
	expect_asm_disasm("bswap16 %r0", "r0 = bswap16 r0");
	expect_asm_disasm("be32 %r0", "r0 = be32 r0");
	expect_asm_disasm("le64 %r3", "r3 = le64 r3");
	expect_asm_disasm("lock add [%r10-8], %r1", "lock *(u64 *)(r10 -8) += r1");
	expect_asm_disasm("lock or32 [%r10-4], %r1", "lock *(u32 *)(r10 -4) |= r1");
	expect_asm_disasm("lock fetch add [%r10-8], %r0",
			  "r0 = atomic64_fetch_add((u64 *)(r10 -8), r0)");
	expect_asm_disasm("lock fetch xor32 [%r1+4], %r3",
			  "r3 = atomic_fetch_xor((u32 *)(r1 +4), r3)");
	expect_asm_disasm("lock cmpxchg [%r10-8], %r1",
			  "r0 = atomic64_cmpxchg((u64 *)(r10 -8), r0, r1)");
	expect_asm_disasm("lock xchg32 [%r10-8], %r1", "r1 = atomic_xchg((u32 *)(r10 -8), r1)");
	expect_asm_disasm("movsx864 %r1, %r2", "r1 = (s8)r2");
	expect_asm_disasm("movsx1632 %r1, %r2", "w1 = (s16)w2");
	expect_asm_disasm("movsx3264 %r1, %r2", "r1 = (s32)r2");
	expect_asm_disasm("ldxsh %r1, [%r2+0]", "r1 = *(s16 *)(r2 +0)");
	expect_asm_disasm("ldxsb %r1, [%r2-1]", "r1 = *(s8 *)(r2 -1)");
	expect_asm_disasm("exit", "exit");
	expect_asm_disasm("ja +3", "goto pc+3");
	expect_asm_disasm("ja32 -70000", "gotol pc-70000");
}

Test(disasm, pseudo_and_invalid)
{
	struct bpf_insn map[] = { { .code = BPF_LD | BPF_IMM | BPF_DW,
				    .dst_reg = 1,
				    .src_reg = BPF_PSEUDO_MAP_FD,
				    .imm = 7 },
				  { 0 } };
	struct bpf_insn val[] = { { .code = BPF_LD | BPF_IMM | BPF_DW,
				    .dst_reg = 2,
				    .src_reg = BPF_PSEUDO_MAP_VALUE,
				    .imm = 3 },
				  { .imm = 16 } };
	struct bpf_insn fn[] = { { .code = BPF_LD | BPF_IMM | BPF_DW,
				   .dst_reg = 2,
				   .src_reg = BPF_PSEUDO_FUNC,
				   .imm = 4 },
				 { 0 } };
	struct bpf_insn bad[] = { { .code = 0xff } };
	struct bpf_insn abs[] = { { .code = BPF_LD | BPF_ABS | BPF_H, .imm = 12 } };
	char buf[64];

	cr_expect_eq(insn_disasm(map, 2, 0, buf, sizeof(buf)), 2);
	cr_expect_str_eq(buf, "r1 = map[id:7]");
	cr_expect_eq(insn_disasm(val, 2, 0, buf, sizeof(buf)), 2);
	cr_expect_str_eq(buf, "r2 = map[id:3][0]+16");
	expect_disasm(fn, 2, "r2 = subprog[+4]");
	expect_disasm(abs, 1, "r0 = *(u16 *)skb[12]");
	cr_expect_eq(insn_disasm(bad, 1, 0, buf, sizeof(buf)), -EINVAL);
	cr_expect_str_eq(buf, "invalid insn 0xff");
	cr_expect_eq(insn_disasm(map, 1, 0, buf, sizeof(buf)), -EINVAL);
	cr_expect(strstr(buf, "invalid insn 0x18"));
	cr_expect_eq(insn_disasm(map, 2, 2, buf, sizeof(buf)), -EINVAL);
	/* Truncation is safe and NUL-terminated. */
	cr_expect_eq(insn_disasm(map, 2, 0, buf, 4), 2);
	cr_expect_str_eq(buf, "r1 ");
	cr_expect_eq(insn_disasm(map, 2, 0, NULL, 0), 2);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

Test(helpers, names_and_ids)
{
	cr_expect_str_eq(insn_helper_name(BPF_FUNC_map_lookup_elem), "bpf_map_lookup_elem");
	cr_expect_str_eq(insn_helper_name(BPF_FUNC_get_current_uid_gid), "bpf_get_current_uid_gid");
	cr_expect_str_eq(insn_helper_name(BPF_FUNC_task_storage_get), "bpf_task_storage_get");
	cr_expect_null(insn_helper_name(-1));
	cr_expect_null(insn_helper_name(__BPF_FUNC_MAX_ID));
	cr_expect_eq(insn_helper_id("bpf_map_lookup_elem"), 1);
	cr_expect_eq(insn_helper_id("map_lookup_elem"), 1);
	cr_expect_eq(insn_helper_id("probe_read_user"), BPF_FUNC_probe_read_user);
	cr_expect_eq(insn_helper_id("bpf_no_such_helper"), -1);
	cr_expect_eq(insn_helper_id("bpf_"), -1);
	cr_expect_eq(insn_helper_id(""), -1);
	cr_expect_eq(insn_helper_id(NULL), -1);
	for (int32_t id = 0; id < __BPF_FUNC_MAX_ID; id++) {
		const char *name = insn_helper_name(id);

		cr_assert_not_null(name, "helper %d has no name", id);
		cr_expect_eq(insn_helper_id(name), id, "%s", name);
	}
}

/* ------------------------------------------------------------------ */
/* Robustness                                                           */
/* ------------------------------------------------------------------ */

/* A fixed-seed xorshift so failures reproduce. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

Test(robustness, random_words_never_crash)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	struct bpf_insn prog[64];
	char buf[128];

	for (int round = 0; round < 20000; round++) {
		size_t cnt = 1 + next_rand(&seed) % 64;

		for (size_t i = 0; i < cnt; i++) {
			uint64_t w = next_rand(&seed);

			/* Bias towards real opcodes and small registers so that
			 * deep paths are reached, not only "unknown opcode". */
			if (round & 1)
				w &= 0xffff00ff00ff0fffull;
			memcpy(&prog[i], &w, 8);
		}
		if (round % 4 == 0)
			prog[cnt - 1] = (struct bpf_insn)EXIT_INSN;
		for (unsigned flags = 0; flags < 4; flags++)
			(void)insn_validate(prog, cnt, flags, (int)(round % 6), NULL);
		for (size_t i = 0; i <= cnt; i++) {
			int n = insn_disasm(prog, cnt, i, buf, sizeof(buf));

			cr_assert(n == -EINVAL || n == 1 || n == 2);
			cr_assert_lt(strlen(buf), sizeof(buf));
		}
	}
}

Test(robustness, random_text_never_crashes)
{
	static const char *const pieces[] = {
		"mov",	       "%r1",	   "%r11",    ",",	  " ",
		"[",	       "]",	   "+",	      "-",	  "0x",
		"9",	       "lock",	   "fetch",   "add32",	  "call",
		"local",       "L:",	   "L",	      "\n",	  "#",
		"lddw",	       "ja32",	   "exit",    "jeq",	  "18446744073709551615",
		"-2147483648", "[%r10-8]", "cmpxchg", "movsx832", ":",
	};
	uint64_t seed = 12345;
	char text[512];

	for (int round = 0; round < 20000; round++) {
		struct bpf_insn *insns = NULL;
		size_t cnt = 0, len = 0;
		struct secbpf_err err;

		while (len < sizeof(text) - 32) {
			const char *p =
				pieces[next_rand(&seed) % (sizeof(pieces) / sizeof(*pieces))];

			if (next_rand(&seed) % 40 == 0)
				break;
			memcpy(text + len, p, strlen(p));
			len += strlen(p);
		}
		text[len] = '\0';
		if (insn_assemble(text, &insns, &cnt, &err) == 0) {
			cr_assert_gt(cnt, 0);
			(void)insn_validate(insns, cnt, INSN_CHECK_UNINIT, 2, &err);
			free(insns);
		} else {
			cr_assert_null(insns);
			cr_assert_gt(strlen(err.msg), 0);
		}
	}
}
