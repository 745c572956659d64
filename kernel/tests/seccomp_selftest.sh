#!/bin/sh
# SPDX-License-Identifier: MIT
# seccomp_selftest: the kernel's own seccomp selftest (seccomp_bpf from
# tools/testing/selftests/seccomp of the same Debian 6.1 source, built
# statically by kernel/boot as /bin/seccomp_bpf) on the patched kernel, as
# root and as uid 65534. Its TAP totals become one result line per user,
# "SECBPF-RESULT: suite=seccomp_selftest_USER pass=P fail=F skip=S": a
# failed or errored test fails, and so does a skip that is not in
# /data/seccomp_selftest.skips (kernel/tests/seccomp_selftest.skips) or a
# listed skip that did not happen; the listed skips are the skips.

B=/bin/seccomp_bpf
SKIPS=/data/seccomp_selftest.skips
rc=0

# report USER PASS FAIL SKIP
report() {
	echo "SECBPF-RESULT: suite=seccomp_selftest_$1 pass=$2 fail=$3 skip=$4"
	[ "$3" = 0 ] || rc=1
}

run_as() {
	user=$1
	shift
	out=/tmp/selftest.$user
	if [ ! -x $B ]; then
		echo "not ok - $user: $B is not in the initramfs (kernel/boot could not build it)"
		report "$user" 0 1 0
		return
	fi
	cd /tmp || return
	timeout 900 "$@" $B >$out 2>&1
	st=$?
	cd / || return
	sed "s/^/[$user] /" $out
	totals=$(grep '^# Totals: ' $out | tail -1)
	if [ -z "$totals" ]; then
		echo "not ok - $user: seccomp_bpf printed no totals (exit status $st)"
		report "$user" 0 1 0
		return
	fi
	num() { echo "$totals" | sed -n "s/.* $1:\([0-9]*\).*/\1/p"; }
	pass=$(num pass)
	fail=$(($(num fail) + $(num error) + $(num xpass)))
	# the skipped tests by name: the harness prints "#  RUN  NAME ..." before
	# each test and "ok N # SKIP REASON" (6.12: "ok N NAME # SKIP REASON") after a skipped one
	awk '/^#  RUN / { name = $3 } /^ok [0-9]+ ([^ ]+ )?# SKIP/ { print name }' $out | sort >/tmp/skipped.$user
	grep "^$user " $SKIPS | awk '{ print $2 }' | sort >/tmp/expected-skips.$user
	skip=0
	for t in $(cat /tmp/skipped.$user); do
		if grep -qxF "$t" /tmp/expected-skips.$user; then
			echo "ok - $user: $t skipped, as the test does by design"
			skip=$((skip + 1))
		else
			echo "not ok - $user: $t skipped, which is not in $SKIPS"
			fail=$((fail + 1))
		fi
	done
	for t in $(cat /tmp/expected-skips.$user); do
		grep -qxF "$t" /tmp/skipped.$user && continue
		echo "not ok - $user: $t should have skipped by design (listed in $SKIPS)"
		fail=$((fail + 1))
	done
	if [ $st != 0 ] && [ $fail = 0 ]; then
		echo "not ok - $user: seccomp_bpf exited with status $st"
		fail=1
	fi
	echo "# $user: $totals"
	report "$user" "$pass" "$fail" "$skip"
}

run_as root
run_as nobody /bin/as_nobody
exit $rc
