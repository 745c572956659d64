// SPDX-License-Identifier: MIT
/*
 * Tests of lib/vm/asm.c, the assembler: exact encodings of every form and
 * errors that name the line and the reason. The conformance corpus runs
 * through it in test_insn.c.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vm/asm.h"

static void expect_asm_error(const char *src, const char *needle)
{
	struct secbpf_err err = { 0 };
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;

	cr_expect_neq(insn_assemble(src, &insns, &cnt, &err), 0, "accepted: %s", src);
	cr_expect_null(insns);
	cr_expect(strstr(err.msg, needle), "for \"%s\": message \"%s\" lacks \"%s\"", src, err.msg,
		  needle);
}

Test(assemble, errors_name_line_and_reason)
{
	expect_asm_error("ldxq %r0, %r1\nexit\n", "line 1: invalid mnemonic 'ldxq'");
	expect_asm_error("mov %r0, 0\nor %r0, %r50\nexit\n", "line 2: invalid register '%r50'");
	expect_asm_error("lddw %r0\nexit\n", "line 1: lddw takes 2 operands");
	expect_asm_error("ja NOT_A_LABEL\nexit\n", "line 1: undefined label 'NOT_A_LABEL'");
	expect_asm_error("ldxb %r0, %r1\nexit\n", "expected a memory operand");
	expect_asm_error("ldxb %r0, [%r1+0x10000]\nexit\n", "16-bit range");
	expect_asm_error("ldxb %r0, [%r1-32769]\nexit\n", "16-bit range");
	expect_asm_error("mov32 %r0, 2147483648\nexit\n", "does not fit in 32 bits");
	expect_asm_error("mov32 %r0, 0x100000000\nexit\n", "does not fit in 32 bits");
	expect_asm_error("mov32 %r0, -2147483649\nexit\n", "does not fit in 32 bits");
	expect_asm_error("lddw %r0, 0x10000000000000000\nexit\n", "does not fit in 64 bits");
	expect_asm_error("lock or [%r10-8]\nexit\n", "invalid number of operands for lock");
	expect_asm_error("lock\nexit\n", "lock needs an operation");
	expect_asm_error("lock sub [%r10-8], %r1\nexit\n", "invalid lock operation 'sub'");
	expect_asm_error("-- Unknown directive\n", "line 1: unknown directive");
	expect_asm_error("", "no instructions");
	expect_asm_error("# only a comment\n", "no instructions");
	expect_asm_error("L:\nL:\nexit\n", "line 2: label 'L' defined twice");
	expect_asm_error("jeq %r1, 1\nexit\n", "jeq takes 3 operands");
	expect_asm_error("exit %r0\n", "exit takes 0 operands");
	expect_asm_error("mov %r0, 1x\nexit\n", "invalid immediate '1x'");
	expect_asm_error("movsx3232 %r0, %r1\nexit\n", "invalid mnemonic");
	expect_asm_error("ldxsdw %r0, [%r1]\nexit\n", "invalid mnemonic");
	expect_asm_error("ja +32768\nexit\n", "16-bit range");
}

static void expect_words(const char *src, const uint64_t *words, size_t n)
{
	struct secbpf_err err = { 0 };
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;

	cr_assert_eq(insn_assemble(src, &insns, &cnt, &err), 0, "%s: %s", src, err.msg);
	cr_assert_eq(cnt, n, "%s: %zu slots", src, cnt);
	for (size_t i = 0; i < n; i++) {
		uint64_t w;

		memcpy(&w, &insns[i], 8);
		cr_expect_eq(w, words[i], "%s: slot %zu is 0x%016llx, expected 0x%016llx", src, i,
			     (unsigned long long)w, (unsigned long long)words[i]);
	}
	free(insns);
}

#define WORDS(...)                                                                                 \
	((const uint64_t[]){ __VA_ARGS__ }),                                                       \
		(sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

Test(assemble, encodings)
{
	/* Words are the 8 instruction bytes read as a little-endian u64. */
	expect_words("call %r2\nexit", WORDS(0x000000000000028dull, 0x95));
	expect_words("call 5\nexit", WORDS(0x0000000500000085ull, 0x95));
	expect_words("call local f\nexit\nf:\nexit", WORDS(0x0000000100001085ull, 0x95, 0x95));
	expect_words("ja32 t\nt: exit", WORDS(0x0000000000000006ull, 0x95));
	expect_words("ja32 -1\nexit", WORDS(0xffffffff00000006ull, 0x95));
	expect_words("movsx832 %r2, %r1\nmovsx3264 %r0, %r9\nexit",
		     WORDS(0x00000000000812bcull, 0x00000000002090bfull, 0x95));
	expect_words("ldxsh %r0, [%r10-2]\nexit", WORDS(0x00000000fffea089ull, 0x95));
	expect_words("bswap16 %r0\nswap32 %r0\nbe64 %r1\nle16 %r2\nexit",
		     WORDS(0x00000010000000d7ull, 0x00000020000000d7ull, 0x00000040000001dcull,
			   0x00000010000002d4ull, 0x95));
	expect_words("sdiv32 %r0, %r1\nsmod %r0, -3\nexit",
		     WORDS(0x000000000001103cull, 0xfffffffd00010097ull, 0x95));
	expect_words("lock fetch add32 [%r10-4], %r3\nlock cmpxchg [%r10-8], %r1\nexit",
		     WORDS(0x00000001fffc3ac3ull, 0x000000f1fff81adbull, 0x95));
	expect_words("lock xchg [%r1], %r2\nlock xor32 [%r1+2], %r2\nexit",
		     WORDS(0x000000e1000021dbull, 0x000000a0000221c3ull, 0x95));
	expect_words("stw [%r1+2], -1\nstxdw [%r10-8], %r2\nexit",
		     WORDS(0xffffffff00020162ull, 0x00000000fff82a7bull, 0x95));
	expect_words("jne32 %r2, 0xffffff80, +1\njsgt %r1, %r2, -1\nexit",
		     WORDS(0xffffff8000010256ull, 0x00000000ffff216dull, 0x95));
	expect_words("lddw %r0, -1\nexit",
		     WORDS(0xffffffff00000018ull, 0xffffffff00000000ull, 0x95));
	expect_words("  L1: mov %r0 , 1 ; comment\nja L1 # back\n",
		     WORDS(0x00000001000000b7ull, 0x00000000fffe0005ull));
	/* "exit" names the first exit unless a label of that name exists. */
	expect_words("jeq %r1, 0, exit\nmov %r0, 1\nexit",
		     WORDS(0x0000000000010115ull, 0x00000001000000b7ull, 0x95));
	expect_words("ldxw %r1, [ %r6 + 4 ]\nexit", WORDS(0x0000000000046161ull, 0x95));
}
