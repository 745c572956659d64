#!/usr/bin/env python3
# test_clang_filters: random stateless filters written in C, of the shapes
# clang really emits (loops kept as loops, subprograms up to 4 levels deep,
# stack arrays read at a masked index, switches on nr, 32/64-bit mixing,
# globals in .rodata, .data and .bss that nothing writes), each built with
# `secbpf cc`, checked with `secbpf verify`, compiled with `secbpf compile`
# and run with `secbpf test` on the interpreter and on the compiled filter
# (--cbpf) for the same inputs (issue 23). Reports the valid programs
# refused, the slowest compile, the share of programs that punt and why,
# and the mismatches; fails on a refusal, a mismatch, a compile over 10 s
# or more than 5% of the programs punting.
#
# Usage: test_clang_filters.py SECBPF [COUNT [SEED]] (default 100, 1).
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import tempfile
import time

SECBPF = sys.argv[1]
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 100
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 1
JOBS = 2
CASES = 160
MAX_COMPILE_S = 10.0
MAX_PUNT_SHARE = 0.05

ACTIONS = ["SECCOMP_RET_ALLOW", "SECCOMP_RET_KILL_PROCESS", "SECCOMP_RET_TRAP | 3",
	   "SECCOMP_RET_LOG", "SECCOMP_RET_TRACE | 9"]


class Gen:
	"""One random program: C text, and the constants worth trying as inputs."""

	def __init__(self, rng):
		self.r = rng
		self.consts = set([0, 1, 7, 255, 256, 0xffffffff, 0x100000000, (1 << 64) - 1])
		self.globals = []
		self.funcs = []
		self.nrs = set()

	def const(self, wide=False):
		r = self.r
		c = r.choice([r.randrange(0, 16), r.randrange(0, 256), r.randrange(0, 1 << 16),
			      r.randrange(0, 1 << 32)] + ([r.randrange(0, 1 << 64)] if wide else []))
		self.consts.add(c)
		return c

	def expr(self, vars, depth):
		r = self.r
		if depth <= 0 or r.random() < 0.3:
			if r.random() < 0.25:
				return "%dull" % self.const(True)
			return r.choice(vars)
		a = self.expr(vars, depth - 1)
		k = r.randrange(10)
		# shifts of 64-bit values: a count past a 32-bit operand's width
		# is undefined in C, and clang drops what it feeds
		if k == 0:
			return "((__u64)%s >> %d)" % (a, r.randrange(64))
		if k == 1:
			return "((__u64)%s << %d)" % (a, r.randrange(64))
		if k == 2:
			return "((__u64)(__u32)%s * %du)" % (a, self.const() & 0xffff)
		if k == 3:
			return "((__u64)(__s32)(%s))" % a
		if k == 4:
			return "(%s / %dull)" % (a, (self.const() | 1))
		if k == 5:
			return "((__u32)%s + (__u32)%s)" % (a, self.expr(vars, depth - 1))
		op = r.choice(["+", "-", "&", "|", "^", "*"])
		return "(%s %s %s)" % (a, op, self.expr(vars, depth - 1))

	def cond(self, vars, depth):
		r = self.r
		a = self.expr(vars, depth)
		op = r.choice(["==", "!=", "<", ">", "<=", ">="])
		if r.random() < 0.3:
			return "((__s64)%s %s (__s64)%dll)" % (a, op, self.const() - (1 << 15))
		if r.random() < 0.3:
			return "((__u32)%s %s %du)" % (a, op, self.const() & 0xffffffff)
		return "(%s %s %dull)" % (a, op, self.const(True))

	def action(self, vars):
		r = self.r
		if r.random() < 0.3:
			return "SECCOMP_RET_ERRNO | (__u32)(%s & 0xfff)" % self.expr(vars, 2)
		if r.random() < 0.5:
			return "SECCOMP_RET_ERRNO | %d" % r.randrange(1, 4096)
		return r.choice(ACTIONS)

	def add_globals(self, lines):
		r = self.r
		for i in range(r.randrange(0, 4)):
			kind = r.choice(["const volatile __u64", "__u64", "__u32", "static __u64"])
			init = "" if r.random() < 0.3 else " = %dull" % self.const(True)
			if kind == "static __u64" and not init:
				init = " = 0"
			name = "g%d" % i
			lines.append("%s %s%s;" % (kind, name, init))
			self.globals.append(name)

	def add_funcs(self, lines, vars):
		r = self.r
		depth = r.randrange(0, 5)
		names = ["f%d" % i for i in range(depth)]
		for i in reversed(range(depth)):
			body = ["static __attribute__((noinline)) __u64 %s(__u64 x, __u64 y)" % names[i],
				"{"]
			fv = ["x", "y"] + self.globals
			if r.random() < 0.5:
				body.append("\tif (%s)" % self.cond(fv, 2))
				body.append("\t\treturn %s;" % self.expr(fv, 2))
			nxt = ("%s(%s, %s)" % (names[i + 1], self.expr(fv, 1), self.expr(fv, 1))
			       if i + 1 < depth else self.expr(fv, 2))
			body.append("\treturn %s ^ %s;" % (nxt, self.expr(fv, 1)))
			body.append("}")
			lines.extend(body)
		self.funcs = names

	def stmt(self, vars, out, n):
		r = self.r
		k = r.randrange(5)
		v = "v%d" % n
		if k == 0:
			# a loop clang keeps (unroll disabled), with a data-dependent branch
			out.append("\t__u64 %s = %s;" % (v, self.expr(vars, 1)))
			out.append("#pragma clang loop unroll(disable)")
			out.append("\tfor (__u32 i = 0; i < %d; i++) {" % r.randrange(2, 10))
			out.append("\t\tif ((%s >> (i & 63)) & 1)" % self.expr(vars, 1))
			out.append("\t\t\t%s += %d;" % (v, r.randrange(1, 9)))
			out.append("\t\telse")
			out.append("\t\t\t%s ^= i;" % v)
			if r.random() < 0.3:
				out.append("\t\tif ((__s8)%s < 0)" % v)
				out.append("\t\t\tbreak;")
			out.append("\t}")
		elif k == 1:
			# a stack array read at a masked index
			out.append("\t__u64 t%d[4] = { %s, %s, %d, %d };" % (
				n, self.expr(vars, 1), self.expr(vars, 1), self.const(), self.const()))
			out.append("\t__u64 %s = t%d[%s & 3];" % (v, n, self.expr(vars, 1)))
		elif k == 2 and self.funcs:
			out.append("\t__u64 %s = %s(%s, %s);" % (v, self.funcs[0], self.expr(vars, 1),
								  self.expr(vars, 1)))
		elif k == 3:
			out.append("\t__u32 %s = (__u32)%s * %du;" % (v, self.expr(vars, 2),
								       self.const() & 0xffff))
		else:
			out.append("\t__u64 %s = %s;" % (v, self.expr(vars, 2)))
		vars.append(v)

	def program(self):
		r = self.r
		lines = ["#include <secbpf/filter.h>", ""]
		self.add_globals(lines)
		args = ["ctx->args[%d]" % i for i in range(6)]
		self.add_funcs(lines, args)
		lines += ["", 'SEC("seccomp")', "int prog(struct seccomp_data *ctx)", "{"]
		lines.append("\tif (ctx->arch != AUDIT_ARCH_X86_64)")
		lines.append("\t\treturn SECCOMP_RET_KILL_PROCESS;")
		vars = ["a%d" % i for i in range(r.randrange(1, 4))]
		for i, a in enumerate(vars):
			lines.append("\t__u64 %s = ctx->args[%d];" % (a, i))
		vars += self.globals
		for n in range(r.randrange(1, 4)):
			self.stmt(vars, lines, n)
		lines.append("\tswitch (ctx->nr) {")
		for _ in range(r.randrange(1, 8)):
			nr = r.choice([r.randrange(0, 20), r.randrange(0, 450)])
			if nr in self.nrs:
				continue
			self.nrs.add(nr)
			lines.append("\tcase %d:" % nr)
			if r.random() < 0.7:
				lines.append("\t\tif %s" % self.cond(vars, 2))
				lines.append("\t\t\treturn %s;" % self.action(vars))
			lines.append("\t\treturn %s;" % self.action(vars))
		lines.append("\t}")
		lines.append("\treturn %s;" % r.choice(["SECCOMP_RET_ALLOW",
							"SECCOMP_RET_ERRNO | 38"]))
		lines += ["}", "", 'char _license[] SEC("license") = "GPL";', ""]
		return "\n".join(lines)

	def cases(self, n):
		r = self.r
		nrs = sorted(self.nrs) + [500, 1, 3]
		vals = sorted(self.consts)
		out = []
		for _ in range(n):
			args = []
			for _ in range(6):
				c = r.choice(vals)
				x = r.choice([c, c + 1, c - 1, r.randrange(1 << 64), r.randrange(256),
					      c ^ (1 << r.randrange(64))]) % (1 << 64)
				args.append(x)
			out.append("--nr %d %s" % (r.choice(nrs), " ".join("--arg %d" % a for a in args)))
		return out


def run(cmd, timeout=120):
	"""cmd's completed process (returncode -1 past timeout) and its seconds."""
	t0 = time.monotonic()
	try:
		p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
	except subprocess.TimeoutExpired:
		p = subprocess.CompletedProcess(cmd, -1, "", "timed out after %d s" % timeout)
	return p, time.monotonic() - t0


def actions(out):
	# one action per line
	return [l.strip() for l in out.splitlines() if l.strip()]


def one(i, tmp):
	rng = random.Random(SEED * 1000003 + i)
	g = Gen(rng)
	src = os.path.join(tmp, "p%d.c" % i)
	obj = os.path.join(tmp, "p%d.o" % i)
	batch = os.path.join(tmp, "p%d.batch" % i)
	with open(src, "w") as f:
		f.write(g.program())
	res = {"i": i, "src": src}
	p, _ = run([SECBPF, "cc", src, "-o", obj])
	if p.returncode:
		res["refused"] = "cc: " + p.stderr.strip()[-300:]
		return res
	p, _ = run([SECBPF, "verify", obj])
	if p.returncode:
		res["refused"] = "verify: " + (p.stdout + p.stderr).strip()[-300:]
		return res
	p, secs = run([SECBPF, "compile", obj, "--format", "asm"])
	res["compile_s"] = secs
	if p.returncode:
		res["refused"] = "compile: " + p.stderr.strip()[-300:]
		return res
	res["punts"] = re.findall(r"^# supervised: (?:.*?\(insn \d+\): )?(.*)$", p.stdout, re.M)
	with open(batch, "w") as f:
		f.write("\n".join(g.cases(CASES)) + "\n")
	pi, _ = run([SECBPF, "test", obj, "--batch", batch])
	pc, _ = run([SECBPF, "test", obj, "--batch", batch, "--cbpf"])
	if pi.returncode or pc.returncode:
		res["refused"] = "test: " + (pi.stderr + pc.stderr).strip()[-300:]
		return res
	ai, ac = actions(pi.stdout), actions(pc.stdout)
	lines = open(batch).read().splitlines()
	res["mismatches"] = []
	for k, (a, b) in enumerate(zip(ai, ac)):
		# --cbpf prints the action and who decided it
		if a != b.split()[0]:
			res["mismatches"].append("%s: interpreter %s, compiled %s" % (lines[k], a, b))
	if len(ai) != len(ac):
		res["mismatches"].append("%d actions against %d" % (len(ai), len(ac)))
	return res


def main():
	with tempfile.TemporaryDirectory(prefix="secbpf-clang-gen-") as tmp:
		with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
			results = list(ex.map(lambda i: one(i, tmp), range(COUNT)))
		refused = [r for r in results if "refused" in r]
		compiled = [r for r in results if "compile_s" in r]
		punting = [r for r in compiled if r.get("punts")]
		mism = [r for r in results if r.get("mismatches")]
		slow = max(compiled, key=lambda r: r["compile_s"]) if compiled else None
		reasons = {}
		for r in punting:
			for why in set(r["punts"]):
				reasons[why] = reasons.get(why, 0) + 1
		print("clang filters: %d programs (seed %d), %d refused, %d mismatching, "
		      "%d punting (%.1f%%), slowest compile %.2f s" %
		      (COUNT, SEED, len(refused), len(mism), len(punting),
		       100.0 * len(punting) / max(1, len(compiled)), slow["compile_s"] if slow else 0))
		for why, n in sorted(reasons.items(), key=lambda x: -x[1]):
			print("  punt: %d programs: %s" % (n, why))
		failed = False
		for r in refused:
			print("REFUSED program %d: %s" % (r["i"], r["refused"]))
			print(open(r["src"]).read())
			failed = True
		for r in mism:
			print("MISMATCH program %d:\n  %s" % (r["i"], "\n  ".join(r["mismatches"][:5])))
			print(open(r["src"]).read())
			failed = True
		if slow and slow["compile_s"] > MAX_COMPILE_S:
			print("SLOW program %d: %.2f s" % (slow["i"], slow["compile_s"]))
			print(open(slow["src"]).read())
			failed = True
		if len(punting) > MAX_PUNT_SHARE * max(1, len(compiled)):
			for r in punting:
				print("PUNTS program %d: %s" % (r["i"], "; ".join(sorted(set(r["punts"])))))
			failed = True
		return 1 if failed else 0


sys.exit(main())
