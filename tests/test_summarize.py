#!/usr/bin/env python3
# test_summarize: scripts/summarize-tests counts every fixture exactly
# (tests/fixtures/: Criterion binaries that pass, fail, crash, skip and time
# out, a binary that aborts in main, a suite that skips, guest logs where a
# suite is dropped or reports nothing). Usage: test_summarize.py SRC BUILD.
import os
import subprocess
import sys

src, work = sys.argv[1], sys.argv[2]
summarize = os.path.join(src, "scripts", "summarize-tests")
fixtures = os.path.join(src, "tests", "fixtures")
build = os.path.join(work, "fixtures-build")

# fixture -> the last line summarize-tests must print for it alone
MESON = {
	"passes": "2 passed, 0 failed, 0 skipped",
	"fails": "1 passed, 1 failed, 0 skipped",
	"crashes": "1 passed, 1 failed, 0 skipped",
	"skips": "1 passed, 0 failed, 1 skipped",
	"times_out": "0 passed, 1 failed, 0 skipped",
	"aborts_in_main": "0 passed, 1 failed, 0 skipped",
	"skips_suite": "0 passed, 0 failed, 1 skipped",
}
GUEST = {
	"all-report.log": "9 passed, 0 failed, 1 skipped",
	"suite-dropped.log": "1 passed, 2 failed, 0 skipped",
	"empty-result.log": "1 passed, 3 failed, 2 skipped",
	"bad-status.log": "3 passed, 4 failed, 0 skipped",
	"guest-died.log": "1 passed, 3 failed, 0 skipped",
	"nested-fail.log": "3 passed, 2 failed, 0 skipped",
}

# The fixtures are a meson project of their own, so that their failures
# never reach the real suite's counts.
env = dict(os.environ)
for k in ("MESON_TESTTHREADS", "MALLOC_PERTURB_"):
	env.pop(k, None)
if not os.path.exists(os.path.join(build, "build.ninja")):
	subprocess.run(["meson", "setup", build, fixtures], check=True, env=env,
		       stdout=subprocess.DEVNULL)
subprocess.run(["ninja", "-C", build], check=True, env=env, stdout=subprocess.DEVNULL)

bad = 0
n = 0


def check(what, args, want, want_status):
	global bad, n
	n += 1
	p = subprocess.run([summarize] + args, capture_output=True, text=True)
	last = p.stdout.rstrip("\n").split("\n")[-1]
	if last == want and p.returncode == want_status:
		print("ok %d - %s: %s" % (n, what, last))
	else:
		bad += 1
		print("not ok %d - %s: got '%s' (status %d), want '%s' (status %d)\n%s%s"
		      % (n, what, last, p.returncode, want, want_status, p.stdout, p.stderr))


for name, want in MESON.items():
	subprocess.run(["meson", "test", "-C", build, "--no-rebuild", "--logbase", name, name],
		       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
	check("meson fixture " + name, ["--meson", "%s:%s:%s" % (name, build, name)], want,
	      1 if " 0 failed" not in want else 0)
# all of them in one run: the sums, and one line per part
subprocess.run(["meson", "test", "-C", build, "--no-rebuild", "--logbase", "all"], env=env,
	       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
check("all meson fixtures in one run", ["--meson", "all:%s:all" % build],
      "5 passed, 4 failed, 2 skipped", 1)
# the same run as a guest's result lines (kernel/userspace-init) counts the
# same through --guest
p = subprocess.run([summarize, "--result-lines", "%s:all" % build], capture_output=True, text=True)
log = os.path.join(build, "result-lines.log")
with open(log, "w") as f:
	f.write("SECBPF-TEST: /tests/meson\n%sSECBPF-TEST-STATUS: /tests/meson 1\nSECBPF-EXIT: 1\n"
		% p.stdout)
with open(os.path.join(build, "result-lines.expected"), "w") as f:
	f.write("\n".join(MESON) + "\n")
check("the meson fixtures as a guest's result lines",
      ["--guest", "guest:%s:%s" % (log, os.path.join(build, "result-lines.expected"))],
      "5 passed, 4 failed, 2 skipped", 1)
expected = os.path.join(fixtures, "guest", "expected-suites")
for name, want in GUEST.items():
	log = os.path.join(fixtures, "guest", name)
	check("guest fixture " + name, ["--guest", "guest:%s:%s" % (log, expected)], want,
	      1 if " 0 failed" not in want else 0)
check("kernel/boot failed although every suite passed",
      ["--guest-status", "4", "--guest",
       "guest:%s:%s" % (os.path.join(fixtures, "guest", "all-report.log"), expected)],
      "9 passed, 1 failed, 1 skipped", 1)
check("each guest's status is its own (two guests, the second one failed)",
      ["--guest", "a:%s:%s" % (os.path.join(fixtures, "guest", "all-report.log"), expected),
       "--guest-status", "3", "--guest",
       "b:%s:%s" % (os.path.join(fixtures, "guest", "all-report.log"), expected),
       "--guest-status", "0"],
      "18 passed, 1 failed, 2 skipped", 1)
check("each guest's status is its own (two guests, the first one failed)",
      ["--guest-status", "3", "--guest",
       "a:%s:%s" % (os.path.join(fixtures, "guest", "all-report.log"), expected),
       "--guest", "b:%s:%s" % (os.path.join(fixtures, "guest", "all-report.log"), expected)],
      "18 passed, 1 failed, 2 skipped", 1)
check("a build that failed, a part skipped, and parts summed",
      ["--failed", "asan:the build failed", "--skipped", "kernel:SECBPF_SKIP_KERNEL=1",
       "--meson", "passes:%s:passes" % build],
      "2 passed, 1 failed, 1 skipped", 1)
check("a missing meson log", ["--meson", "x:%s:no-such-log" % build],
      "0 passed, 1 failed, 0 skipped", 1)
summary = os.path.join(fixtures, "summary")
check("a script's summary line", ["--summary", "fuzz:%s:0" % os.path.join(summary, "ends-with-summary.log")],
      "3 passed, 0 failed, 1 skipped", 0)
check("a script that died before its summary line",
      ["--summary", "tsan:%s:1" % os.path.join(summary, "no-summary.log")],
      "0 passed, 1 failed, 0 skipped", 1)
check("a script that failed but counted no failure",
      ["--summary", "fuzz:%s:2" % os.path.join(summary, "ends-with-summary.log")],
      "3 passed, 1 failed, 1 skipped", 1)
check("a script's log that is missing", ["--summary", "fuzz:/nonexistent/log:0"],
      "0 passed, 1 failed, 0 skipped", 1)
print("summarize: %d checks, %d failed" % (n, bad))
sys.exit(1 if bad else 0)
