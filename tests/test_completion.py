#!/usr/bin/env python3
# The bash completion (completions/secbpf), sourced in a real bash and asked
# as bash asks it (COMP_WORDS, COMP_CWORD, then _secbpf; the answer in
# COMPREPLY): the commands of tools/secbpf.c's table, every option that each
# command's --help lists, files by kind for -f/-o and operands, PIDs, arch
# names, tiers, and syscall names from `secbpf sys --list`.
#
# Usage: test_completion.py SOURCE_DIR SECBPF
import os
import re
import stat
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
	failures.append(msg)
	print("FAIL: " + msg)


def complete(script, cwd, words):
	"""COMPREPLY for the command line words, the last one being completed."""
	prog = ('source "$1" || exit 3; cd "$2" || exit 3; shift 2; '
		'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _secbpf || exit 4; '
		'printf "%s\\n" "${COMPREPLY[@]}"')
	r = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog, "_", script, cwd] + words,
			   capture_output=True, text=True)
	if r.returncode or r.stderr.strip():
		fail("%s: bash exits %d: %s" % (" ".join(words), r.returncode, r.stderr.strip()))
	return [w for w in r.stdout.split("\n") if w]


def expect(script, cwd, words, want=(), exact=None, absent=()):
	got = complete(script, cwd, words)
	line = " ".join(words) + "<TAB>"
	if exact is not None and sorted(got) != sorted(exact):
		fail("%s offers %s, expected exactly %s" % (line, sorted(got), sorted(exact)))
	for w in want:
		if w not in got:
			fail("%s does not offer %s (offers %s)" % (line, w, sorted(got)[:20]))
	for w in absent:
		if w in got:
			fail("%s offers %s, which it should not" % (line, w))
	return got


def commands(src):
	table = open(os.path.join(src, "tools", "secbpf.c"), encoding="utf-8").read()
	return re.findall(r'\{\s*"([a-z][a-z0-9-]*)",\s*cmd_\w+', table)


def help_options(secbpf, cmd):
	r = subprocess.run([secbpf, cmd, "--help"], capture_output=True, text=True)
	opts = set()
	for line in r.stdout.splitlines():
		m = re.match(r"^\s+((?:-[A-Za-z0-9](?:,\s+|\s|$))?(?:--[A-Za-z][A-Za-z0-9-]*)?)", line)
		if m:
			opts.update(re.findall(r"--?[A-Za-z][A-Za-z0-9-]*", m.group(1)))
	return opts


def main():
	if len(sys.argv) != 3:
		print("usage: test_completion.py SOURCE_DIR SECBPF", file=sys.stderr)
		return 2
	src, secbpf = sys.argv[1], os.path.abspath(sys.argv[2])
	script = os.path.join(src, "completions", "secbpf")
	with tempfile.TemporaryDirectory(prefix="secbpf-comp-") as d:
		for name in ("filter.o", "filter.bpf.c", "profile.json", "notes.txt"):
			open(os.path.join(d, name), "w").close()
		os.mkdir(os.path.join(d, "sub"))

		# Commands: every one of the table, and help.
		cmds = commands(src)
		if len(cmds) < 9:
			fail("tools/secbpf.c: only %d commands found" % len(cmds))
		expect(script, d, [secbpf, ""], want=cmds + ["help", "--version", "--help"])
		expect(script, d, [secbpf, "ve"], exact=["verify"])
		expect(script, d, [secbpf, "help", "di"], exact=["dis"])

		# Options: each command offers every option its --help lists.
		for cmd in cmds:
			opts = help_options(secbpf, cmd)
			if not opts:
				fail("secbpf %s --help lists no option" % cmd)
			got = complete(script, d, [secbpf, cmd, "-"])
			# -h is offered as --help, its long form
			for o in sorted(opts - set(got) - {"-h"}):
				fail("secbpf %s -<TAB> does not offer %s" % (cmd, o))
		expect(script, d, [secbpf, "test", "filter.o", "--ar"], exact=["--arch", "--arg"])

		# Values.
		expect(script, d, [secbpf, "test", "filter.o", "--arch", "i3"], exact=["i386"])
		expect(script, d, [secbpf, "sys", "--arch", "x"], want=["x86_64", "x86", "x32"])
		expect(script, d, [secbpf, "verify", "--tier", ""],
		       exact=["restricted", "unprivileged", "privileged"])
		expect(script, d, [secbpf, "compile", "filter.o", "--format", ""], exact=["bin", "c", "asm"])

		# Files by kind, and directories to go into.
		expect(script, d, [secbpf, "run", "-f", ""], exact=["filter.o", "filter.bpf.c", "sub/"])
		expect(script, d, [secbpf, "compile", "filter.o", "-o", ""],
		       exact=["filter.o", "filter.bpf.c", "profile.json", "sub/"])
		expect(script, d, [secbpf, "cc", ""], exact=["filter.bpf.c", "sub/"])
		expect(script, d, [secbpf, "record", "-o", ""], exact=["filter.bpf.c", "sub/"])
		expect(script, d, [secbpf, "verify", "fi"], exact=["filter.o", "filter.bpf.c"])
		expect(script, d, [secbpf, "run", "--stats", "=", "no"], exact=["notes.txt"])

		# PIDs: this test's own process is one of them.
		me = str(os.getpid())
		expect(script, d, [secbpf, "dump", me], want=[me], absent=["filter.o"])
		expect(script, d, [secbpf, "map", ""], exact=["dump"])
		expect(script, d, [secbpf, "map", "dump", me], want=[me])

		# After --: the command to run, then its files.
		expect(script, d, [secbpf, "run", "-f", "filter.o", "--", "bas"], want=["bash"])
		expect(script, d, [secbpf, "run", "-f", "filter.o", "--", "cat", "no"],
		       exact=["notes.txt"])

		# Syscall names, from `secbpf sys --list [--arch A]`: a secbpf
		# that lists them for each arch (the first word of each line)...
		fake = os.path.join(d, "fake-secbpf")
		with open(fake, "w") as f:
			f.write('#!/bin/sh\n[ "$1 $2" = "sys --list" ] || exit 2\n'
				'if [ "$3 $4" = "--arch i386" ]; then echo "socketcall 102"; '
				'echo "socket 359"; else echo "socket 41"; echo "sendto 44"; fi\n')
		os.chmod(fake, stat.S_IRWXU)
		expect(script, d, [fake, "test", "filter.o", "--nr", "so"], exact=["socket"])
		expect(script, d, [fake, "test", "filter.o", "--arch", "i386", "--nr", "so"],
		       exact=["socketcall", "socket"])
		expect(script, d, [fake, "sys", "se"], exact=["sendto"])
		# A secbpf that cannot list them: the <secbpf/syscalls.h> beside it.
		os.makedirs(os.path.join(d, "pfx", "bin"))
		os.makedirs(os.path.join(d, "pfx", "include", "secbpf"))
		old = os.path.join(d, "pfx", "bin", "secbpf")
		with open(old, "w") as f:
			f.write("#!/bin/sh\nexit 2\n")
		os.chmod(old, stat.S_IRWXU)
		with open(os.path.join(d, "pfx", "include", "secbpf", "syscalls.h"), "w") as f:
			f.write("#define __SNR_x86_64_socket 41\n#define __SNR_x86_64_sendto 44\n"
				"#define __SNR_i386_socketcall 102\n#define __SNR_i386_socket 359\n"
				"#define __SNR_x32_socket 1073741865\n")
		expect(script, d, [old, "test", "f.o", "--arch", "x86_64", "--nr", "so"], exact=["socket"])
		expect(script, d, [old, "test", "f.o", "--arch", "i386", "--nr", "so"],
		       exact=["socketcall", "socket"])
		expect(script, d, [old, "test", "f.o", "--arch", "x86", "--nr", "so"],
		       exact=["socketcall", "socket"])
		expect(script, d, [old, "test", "f.o", "--arch", "x32", "--nr", ""], exact=["socket"])
		expect(script, d, [old, "test", "f.o", "--arch", "s390x", "--nr", ""], exact=[])
		# ... and the real one: its names when it lists them or has the
		# header beside it in the source tree, else nothing.
		r = subprocess.run([secbpf, "sys", "--list"], capture_output=True, text=True)
		header = os.path.join(os.path.dirname(secbpf), "..", "include", "secbpf", "syscalls.h")
		if r.returncode == 0 or os.path.exists(header):
			expect(script, d, [secbpf, "test", "filter.o", "--nr", "opena"], want=["openat"])
			expect(script, d, [secbpf, "sys", "--arch", "i386", "socketc"], exact=["socketcall"])
		else:
			expect(script, d, [secbpf, "test", "filter.o", "--nr", "opena"], exact=[])
	print("%d failed" % len(failures) if failures else "completion: all checks passed")
	return 1 if failures else 0


if __name__ == "__main__":
	sys.exit(main())
