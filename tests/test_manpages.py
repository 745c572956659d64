#!/usr/bin/env python3
# The manual pages of man/ stay true to the code: each renders without a
# groff warning; secbpf.1 has a section for every command of tools/secbpf.c
# and names every option that each command's --help lists; secbpfd.8 names
# every option of secbpfd --help; secbpf.3 documents every SECBPF_API
# function and every field of every options struct of the public headers;
# cross-references between the pages resolve; and the worked examples of
# secbpf-filter.7 and secbpf.3 build and print what the pages say.
#
# Usage: test_manpages.py SOURCE_DIR SECBPF [SECBPFD]
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
	failures.append(msg)
	print("FAIL: " + msg)


def read(path):
	with open(path, encoding="utf-8") as f:
		return f.read()


def section(page, name):
	"""The roff text of .SH name, up to the next .SH."""
	m = re.search(r"^\.SH \"?%s\"?\n(.*?)(?=^\.SH |\Z)" % re.escape(name), page, re.M | re.S)
	return m.group(1) if m else ""


def unroff(text):
	"""Plain text from the few escapes the examples use."""
	text = re.sub(r"\\f[BIRP]", "", text)
	for esc, plain in (("\\-", "-"), ("\\e", "\\"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\&", "")):
		text = text.replace(esc, plain)
	return text


def examples(page):
	"""The .EX/.EE blocks of the EXAMPLES section, as plain text."""
	return [unroff(b) for b in re.findall(r"^\.EX\n(.*?)^\.EE\n", section(page, "EXAMPLES"), re.M | re.S)]


def check_renders(src):
	pages = sorted(glob.glob(os.path.join(src, "man", "*.[1-8]")))
	if len(pages) < 4:
		fail("man/: expected secbpf.1, secbpf.3, secbpf-filter.7 and secbpfd.8, found %s" % pages)
	for path in pages:
		name = os.path.basename(path)
		r = subprocess.run(["groff", "-man", "-ww", "-z", path], capture_output=True, text=True)
		if r.returncode or r.stderr.strip():
			fail("%s: groff -man -ww: exit %d: %s" % (name, r.returncode, r.stderr.strip()))
		if shutil.which("man"):
			r = subprocess.run(["man", "--warnings", "-l", path], capture_output=True, text=True,
					   env=dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="0"))
			if r.returncode or r.stderr.strip():
				fail("%s: man --warnings: exit %d: %s" % (name, r.returncode, r.stderr.strip()))
		th = re.search(r"^\.TH (\S+) (\S+)", read(path), re.M)
		sect = name.rsplit(".", 1)[1]
		if not th or th.group(2) != sect:
			fail("%s: its .TH does not give section %s" % (name, sect))
	return {os.path.basename(p): read(p) for p in pages}


def commands(src):
	table = read(os.path.join(src, "tools", "secbpf.c"))
	names = re.findall(r'\{\s*"([a-z][a-z0-9-]*)",\s*cmd_\w+', table)
	if len(names) < 9:
		fail("tools/secbpf.c: found only %d commands in the command table: %s" % (len(names), names))
	return names


def help_options(exe, args):
	"""The options an option list of `exe args --help` gives (lines that start with one)."""
	r = subprocess.run([exe] + args + ["--help"], capture_output=True, text=True)
	if r.returncode:
		fail("%s %s --help: exit %d: %s" % (exe, " ".join(args), r.returncode, r.stderr.strip()))
		return set()
	opts = set()
	for line in r.stdout.splitlines():
		m = re.match(r"^\s+((?:-[A-Za-z0-9](?:,\s+|\s|$))?(?:--[A-Za-z][A-Za-z0-9-]*)?)", line)
		if m:
			opts.update(re.findall(r"--?[A-Za-z][A-Za-z0-9-]*", m.group(1)))
	return opts


def roff_names(page, opt):
	"""Whether page names option opt (written \\-x or \\-\\-xx in roff)."""
	return re.search(re.escape(opt.replace("-", "\\-")) + r"(?![A-Za-z0-9]|\\-[a-z])", page)


def check_secbpf_1(src, pages, secbpf):
	page = pages.get("secbpf.1", "")
	headings = [unroff(h).strip('"').split() for h in re.findall(r"^\.SS (.*)$", page, re.M)]
	firsts = {h[0] for h in headings if h}
	for cmd in commands(src) + ["help"]:
		if cmd not in firsts:
			fail("secbpf.1: no section (.SS) for the command '%s'" % cmd)
		if not re.search(r"^\.B %s( |$)" % re.escape(cmd.replace("-", "\\-")),
				 section(page, "SYNOPSIS"), re.M):
			fail("secbpf.1: the SYNOPSIS has no 'secbpf %s'" % cmd)
	# Each option in its command's own section (--help and --set are
	# documented once for all, under OPERANDS AND VALUES).
	subsections = re.split(r"^(?=\.SS )", section(page, "COMMANDS"), flags=re.M)
	for cmd in commands(src):
		opts = help_options(secbpf, [cmd])
		if not opts:
			fail("secbpf %s --help lists no option" % cmd)
		own = "".join(t for t in subsections
			      if (unroff(t[4:]).strip('"').split() or [""])[0] == cmd)
		for opt in sorted(opts):
			where = page if opt in ("-h", "--help", "--set") else own
			if not roff_names(where, opt):
				fail("secbpf.1: the option %s of 'secbpf %s' is not in its section"
				     % (opt, cmd))
	for opt in ("--version", "--help"):
		if not roff_names(page, opt):
			fail("secbpf.1: %s is not documented" % opt)
	for sect in ("EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"):
		if not section(page, sect):
			fail("secbpf.1: no %s section" % sect)
	# Examples name syscalls: a --nr followed by a number is not one.
	for block in examples(page):
		for m in re.finditer(r"--nr (\S+)", block):
			if re.match(r"-?(0x)?[0-9]", m.group(1)):
				fail("secbpf.1: an example gives --nr a number (%s), not a name" % m.group(1))


def check_secbpfd_8(src, pages, secbpfd):
	page = pages.get("secbpfd.8", "")
	for word in ("programs.d", "secbpfd.conf", "allow", "user=", "group=", "tier=",
		     "/run/secbpf/secbpfd.sock", "/etc/secbpf", "ENOSYS", "systemd"):
		if word not in unroff(page):
			fail("secbpfd.8: says nothing of %s" % word)
	if secbpfd:
		for opt in sorted(help_options(secbpfd, [])):
			if not roff_names(page, opt):
				fail("secbpfd.8: the option %s of secbpfd is not documented" % opt)


def public_headers(src):
	return [os.path.join(src, "include", "secbpf.h")] + sorted(
		glob.glob(os.path.join(src, "include", "secbpf", "*.h")))


def check_secbpf_3(src, pages):
	page = pages.get("secbpf.3", "")
	synopsis = section(page, "SYNOPSIS")
	rest = page.replace(synopsis, "")
	nfuncs = 0
	for hdr in public_headers(src):
		text = read(hdr)
		for name in re.findall(r"SECBPF_API\b[^;{]*?\b(secbpf_\w+)\s*\(", text, re.S):
			nfuncs += 1
			call = re.escape(name.replace("-", "\\-")) + r"\b"
			if not re.search(call + r'\(', synopsis):
				fail("secbpf.3: %s (%s) is not in the SYNOPSIS" % (name, os.path.basename(hdr)))
			if not re.search(r'\b%s "?\(\)' % re.escape(name), rest):
				fail("secbpf.3: %s is not described (no .BR %s ())" % (name, name))
		for sname, body in re.findall(r"struct (secbpf_\w+_opts) \{(.*?)\n\};", text, re.S):
			if "struct " + sname not in page:
				fail("secbpf.3: struct %s is not documented" % sname)
			for field in re.findall(r"^\s+[^/\n*][^;\n]*?\**\b(\w+)(?:\[\w*\])?;", body, re.M):
				if not re.search(r"\b%s\b" % field, page):
					fail("secbpf.3: the field %s of struct %s is not documented" % (field, sname))
	if nfuncs < 16:
		fail("secbpf.3: found only %d SECBPF_API functions in the headers" % nfuncs)
	if "secbpf_handle_attach" not in page:
		fail("secbpf.3: secbpf_handle_attach is not documented")


def check_filter_7(pages):
	page = unroff(pages.get("secbpf-filter.7", ""))
	for word in ("struct seccomp_data", "instruction_pointer", "restricted", "unprivileged",
		     "privileged", "SECCOMP_RET_KILL_PROCESS", "SECCOMP_RET_ALLOW", "TASK_STORAGE",
		     "bpf_probe_read_user", "dumpable", "CAP_SYS_PTRACE", "divergences",
		     "threat-model"):
		if word not in page:
			fail("secbpf-filter.7: says nothing of %s" % word)


def check_filter_header(src, pages):
	"""Every macro and type <secbpf/filter.h> offers filters is in secbpf-filter.7."""
	page = unroff(pages.get("secbpf-filter.7", ""))
	text = read(os.path.join(src, "include", "secbpf", "filter.h"))
	names = [n for n in re.findall(r"^#define (SECBPF_[A-Z0-9]\w*)", text, re.M)
		 if n != "SECBPF_FILTER_H"]  # nor the SECBPF__ internals
	names += re.findall(r"^typedef [^;]*\b(\w+);", text, re.M)
	for name in names:
		if name not in page:
			fail("secbpf-filter.7: %s of <secbpf/filter.h> is not documented" % name)
	if os.path.exists(os.path.join(src, "include", "secbpf", "syscalls.h")) and "__SNR_" not in page:
		fail("secbpf-filter.7: the __SNR_ names of <secbpf/syscalls.h> are not documented")


def check_helpers_listed(src, pages):
	"""Every helper the verifier offers, and every one it refuses by name, is in the page."""
	page = pages.get("secbpf-filter.7", "")
	protos = read(os.path.join(src, "lib", "vm", "helper_protos.c"))
	ids = re.findall(r"\.id = BPF_FUNC_(\w+)", protos)
	if len(ids) < 30:
		fail("lib/vm/helper_protos.c: found only %d helpers" % len(ids))
	for h in ids:
		if not re.search(r"\bbpf_%s\b" % h, page):
			fail("secbpf-filter.7: the helper bpf_%s (lib/vm/helper_protos.c) is not listed" % h)


def check_cross_references(pages):
	for name, page in pages.items():
		for ref, sect in re.findall(r"^\.BR (secbpf[a-z\\-]*) \((\d)\)", page, re.M):
			target = "%s.%s" % (ref.replace("\\-", "-"), sect)
			if target not in pages:
				fail("%s: refers to %s, which is not in man/" % (name, target))


def check_docs_references(src, pages):
	"""Every docs/X.md a page sends the reader to exists."""
	for name, page in pages.items():
		for ref in sorted(set(re.findall(r"docs/[\w.-]+\.md", unroff(page)))):
			if not os.path.exists(os.path.join(src, ref)):
				fail("%s: refers to %s, which does not exist" % (name, ref))


def check_filter_example(pages, secbpf, tmp):
	"""secbpf-filter.7's example filter builds, verifies and answers as shown."""
	blocks = examples(pages.get("secbpf-filter.7", ""))
	code = [b for b in blocks if "SEC(\"seccomp\")" in b]
	shell = [b for b in blocks if b.lstrip().startswith("$ secbpf cc")]
	if not code or not shell:
		fail("secbpf-filter.7: EXAMPLES has no filter and no commands to build it")
		return
	name = re.search(r"\$ secbpf cc (\S+)", shell[0]).group(1)
	with open(os.path.join(tmp, name), "w") as f:
		f.write(code[0])
	lines = shell[0].strip().splitlines()
	checked = 0
	for i, line in enumerate(lines):
		if not line.startswith("$ secbpf ") or " run " in line:
			continue
		argv = [secbpf] + line[len("$ secbpf "):].split()
		r = subprocess.run(argv, cwd=tmp, capture_output=True, text=True)
		if r.returncode:
			fail("secbpf-filter.7: '%s' exits %d: %s" % (line, r.returncode, r.stderr.strip()))
			continue
		expect = lines[i + 1] if i + 1 < len(lines) and not lines[i + 1].startswith("$") else None
		if expect is not None and r.stdout.strip() != expect.strip():
			fail("secbpf-filter.7: '%s' prints %r, the page says %r"
			     % (line, r.stdout.strip(), expect.strip()))
		checked += expect is not None
	if checked < 2:
		fail("secbpf-filter.7: the example shows fewer than two outputs to check")


# The commands of secbpf.1's examples that run without a process to watch
# or a service to ask; the others (run, record, ps, map, dump, policy) are
# exercised by their own suites.
OFFLINE_COMMANDS = ("cc", "verify", "compile", "test", "sys")


def check_tool_examples(src, pages, secbpf, tmp):
	"""secbpf.1's examples that need no process or service print what they show.

	They run in tmp, beside the samples they name and limit.c (the example
	of secbpf-filter.7, written there by check_filter_example). A line
	using a command or option this secbpf does not have (a feature of
	another branch, before it is merged) is skipped, and said so."""
	for name in ("seed_close.bpf.c", "knobs.bpf.c"):
		shutil.copy(os.path.join(src, "samples", name), tmp)
	bindir = os.path.join(tmp, "bin")
	os.makedirs(bindir, exist_ok=True)
	os.symlink(secbpf, os.path.join(bindir, "secbpf"))
	env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
	subprocess.run([secbpf, "cc", "limit.c"], cwd=tmp, capture_output=True)
	checked = skipped = 0
	for block in examples(pages.get("secbpf.1", "")):
		lines = block.strip().splitlines()
		for i, line in enumerate(lines):
			if not line.startswith("$ "):
				continue
			words = line[2:].split()
			if words[0] == "secbpf":
				if len(words) < 2 or words[1] not in OFFLINE_COMMANDS:
					continue
				known = help_options(secbpf, [words[1]]) if subprocess.run(
					[secbpf, words[1], "--help"], capture_output=True).returncode == 0 else None
				if known is None or any(w.startswith("-") and w not in known for w in words):
					skipped += 1
					continue
			elif words[0] not in ("echo", "cat"):
				continue
			r = subprocess.run(line[2:], shell=True, cwd=tmp, env=env, capture_output=True, text=True)
			if r.returncode:
				fail("secbpf.1: '%s' exits %d: %s" % (line, r.returncode, r.stderr.strip()))
				continue
			out = []
			for later in lines[i + 1:]:
				if later.startswith("$ "):
					break
				out.append(later)
			if out and r.stdout.strip() != "\n".join(out).strip():
				fail("secbpf.1: '%s' prints %r, the page says %r" % (line, r.stdout.strip(),
										"\n".join(out).strip()))
			checked += bool(out)
	if checked < 3:
		fail("secbpf.1: only %d example outputs checked" % checked)
	if skipped:
		print("secbpf.1: %d example lines skipped (command or option not in this secbpf)" % skipped)


def check_library_example(src, pages, tmp):
	"""secbpf.3's example compiles against the public header."""
	blocks = [b for b in examples(pages.get("secbpf.3", "")) if "int main" in b]
	if not blocks:
		fail("secbpf.3: EXAMPLES has no program")
		return
	path = os.path.join(tmp, "example.c")
	with open(path, "w") as f:
		f.write(blocks[0])
	r = subprocess.run(["cc", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I",
			    os.path.join(src, "include"), path], capture_output=True, text=True)
	if r.returncode:
		fail("secbpf.3: the example does not compile: %s" % r.stderr.strip())


def main():
	if len(sys.argv) < 3:
		print("usage: test_manpages.py SOURCE_DIR SECBPF [SECBPFD]", file=sys.stderr)
		return 2
	src, secbpf = sys.argv[1], os.path.abspath(sys.argv[2])
	secbpfd = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
	pages = check_renders(src)
	check_secbpf_1(src, pages, secbpf)
	check_secbpfd_8(src, pages, secbpfd)
	check_secbpf_3(src, pages)
	check_filter_7(pages)
	check_filter_header(src, pages)
	check_helpers_listed(src, pages)
	check_cross_references(pages)
	check_docs_references(src, pages)
	with tempfile.TemporaryDirectory(prefix="secbpf-man-") as tmp:
		check_filter_example(pages, secbpf, tmp)
		check_tool_examples(src, pages, secbpf, tmp)
		check_library_example(src, pages, tmp)
	print("%d failed" % len(failures) if failures else "man pages: all checks passed")
	return 1 if failures else 0


if __name__ == "__main__":
	sys.exit(main())
