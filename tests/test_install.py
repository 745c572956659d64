#!/usr/bin/env python3
# `meson install --destdir TMP` of the build directory installs exactly the
# files of tests/install_manifest.txt, every public header of
# include/secbpf/ and every manual page of man/ (in its man<N> directory);
# and what it installs is usable: the headers compile from the installed
# include directory, the installed completion and pages are the sources'.
#
# Usage: test_install.py SOURCE_DIR BUILD_DIR
import filecmp
import glob
import json
import os
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
	failures.append(msg)
	print("FAIL: " + msg)


def directories(build):
	r = subprocess.run(["meson", "introspect", "--buildoptions", build], capture_output=True,
			   text=True, check=True)
	opts = {o["name"]: o["value"] for o in json.loads(r.stdout)}
	prefix = opts["prefix"]
	dirs = {"prefix": os.path.normpath(prefix)}
	for name in ("bindir", "sbindir", "libdir", "libexecdir", "includedir", "datadir", "mandir",
		     "sysconfdir"):
		v = opts[name]
		dirs[name] = os.path.normpath(v if os.path.isabs(v) else os.path.join(prefix, v))
	return dirs


def expected(src, dirs):
	want = set()
	with open(os.path.join(src, "tests", "install_manifest.txt"), encoding="utf-8") as f:
		for line in f:
			words = line.split()
			if not words or words[0].startswith("#"):
				continue
			if len(words) == 3 and words[1] == "if":
				if not os.path.exists(os.path.join(src, words[2])):
					continue
			elif len(words) != 1:
				fail("tests/install_manifest.txt: cannot read %r" % line.strip())
				continue
			want.add(os.path.normpath(words[0].format(**dirs)))
	for h in glob.glob(os.path.join(src, "include", "secbpf", "*.h")):
		want.add(os.path.join(dirs["includedir"], "secbpf", os.path.basename(h)))
	for page in glob.glob(os.path.join(src, "man", "*.[1-8]")):
		sect = page.rsplit(".", 1)[1]
		want.add(os.path.join(dirs["mandir"], "man" + sect, os.path.basename(page)))
	return want


def installed(destdir):
	got = set()
	for root, _, files in os.walk(destdir):
		for name in files:
			got.add("/" + os.path.relpath(os.path.join(root, name), destdir))
	return got


def check_usable(src, dirs, destdir):
	inc = destdir + dirs["includedir"]
	with tempfile.NamedTemporaryFile("w", suffix=".c") as f:
		f.write("#include <secbpf.h>\n#include <secbpf/agent.h>\n"
			"int main(void) { return secbpf_tier_name(SECBPF_TIER_RESTRICTED)[0] != 'r'; }\n")
		f.flush()
		r = subprocess.run(["cc", "-fsyntax-only", "-Wall", "-Werror", "-I", inc, f.name],
				   capture_output=True, text=True)
		if r.returncode:
			fail("the installed headers do not compile: %s" % r.stderr.strip())
	pairs = [(os.path.join(src, "completions", "secbpf"),
		  os.path.join(dirs["datadir"], "bash-completion", "completions", "secbpf"))]
	for page in glob.glob(os.path.join(src, "man", "*.[1-8]")):
		sect = page.rsplit(".", 1)[1]
		pairs.append((page, os.path.join(dirs["mandir"], "man" + sect, os.path.basename(page))))
	for source, target in pairs:
		path = destdir + target
		if os.path.exists(path) and not filecmp.cmp(source, path, shallow=False):
			fail("%s is not a copy of %s" % (target, source))


def main():
	if len(sys.argv) != 3:
		print("usage: test_install.py SOURCE_DIR BUILD_DIR", file=sys.stderr)
		return 2
	src, build = sys.argv[1], sys.argv[2]
	dirs = directories(build)
	with tempfile.TemporaryDirectory(prefix="secbpf-install-") as destdir:
		# --no-rebuild: meson test already built everything, and a ninja
		# inside the one that runs the tests would wait for its lock.
		r = subprocess.run(["meson", "install", "-C", build, "--no-rebuild", "--quiet",
				    "--destdir", destdir], capture_output=True, text=True)
		if r.returncode:
			fail("meson install exits %d: %s" % (r.returncode, (r.stdout + r.stderr).strip()))
		want, got = expected(src, dirs), installed(destdir)
		for path in sorted(want - got):
			fail("not installed: %s" % path)
		for path in sorted(got - want):
			fail("installed but not in tests/install_manifest.txt: %s" % path)
		check_usable(src, dirs, destdir)
		print("%d files installed" % len(got))
	print("%d failed" % len(failures) if failures else "install: all checks passed")
	return 1 if failures else 0


if __name__ == "__main__":
	sys.exit(main())
