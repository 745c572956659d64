#!/bin/sh
# SPDX-License-Identifier: MIT
# native_fidelity: secbpf's user-space path against the patched kernel.
#  1. the verifier corpus (tests/verifier/, in /verifier): secbpf's verdict
#     (verify --strict) against the kernel verifier's, per program; the
#     known differences are listed in /verifier/divergences.txt
#     (kernel/tests/verifier_divergences.txt) and docs/divergences.md;
#  2. the stateful samples and helper values: the same workload under
#     `secbpf run` (supervisor) and `secbpf run --native` (the kernel), the
#     actions it saw and the map contents after it (--stats) compared.
# Sorted before seed_sample, which raises ptrace_scope to 3 for good.
S=/bin/secbpf
n=0
pass=0
fail=0

ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
uptime_s() { awk '{print $1}' /proc/uptime; }

if [ ! -x /bin/verifier_fidelity ] || ! $S run --help 2>/dev/null | grep -q -- --native; then
	# kernel/boot packs both with the tool: a broken image, not a skip
	# (verifier_fidelity's missing result is counted by the host)
	nok "this secbpf has no run --native, or there is no verifier_fidelity"
	echo "SECBPF-RESULT: suite=native_fidelity pass=$pass fail=$fail skip=0"
	exit 1
fi

# ------------------------------------------------------------ 1. verifier
t0=$(uptime_s)
if grep -q secbpf.no_corpus /proc/cmdline; then
	echo "# verifier corpus skipped (secbpf.no_corpus)" >/tmp/vf.tap
else
	timeout 300 /bin/verifier_fidelity /verifier /verifier/divergences.txt >/tmp/vf.tap 2>&1
fi
# verifier_fidelity reports as a suite of its own (with its known
# divergences); this one only checks that it reported, and its failures
# make this script's status non-zero.
cat /tmp/vf.tap
vf=$(sed -n 's/^SECBPF-RESULT: suite=verifier_fidelity pass=[0-9]* fail=\([0-9]*\) .*/\1/p' /tmp/vf.tap)
if grep -q secbpf.no_corpus /proc/cmdline; then
	echo "# SKIP: verifier corpus left out on the kernel command line (secbpf.no_corpus)"
	echo "SECBPF-RESULT: suite=verifier_fidelity pass=0 fail=0 skip=1"
	vf=0
elif [ -z "$vf" ]; then
	nok "verifier_fidelity did not report a result"
	vf=0
fi
t1=$(uptime_s)

# ------------------------------------------------------------ 2. state
# state_case WHAT WANT NORM FILTER-ARGS -- PROBE-OPS...
# Runs the probe under `secbpf run` and `secbpf run --native` with the same
# filter arguments (as nobody when AS=/bin/as_nobody), then checks: each
# path printed WANT (the actions the probe saw, and its exit status), and
# the two --stats dumps agree after the sed script NORM (for what cannot
# be equal: task storage, which the kernel cannot list; keys and values
# that are pids or times).
W=/tmp/state
mkdir -p $W
chmod 1777 $W
cases=0
state_case() {
	what=$1
	want=$2
	norm=$3
	filter=$4
	shift 5
	rm -f $W/u.stats $W/k.stats
	# shellcheck disable=SC2086
	$AS timeout -s KILL 60 $S run --stats=$W/u.stats $filter -- /bin/state_probe "$@" >$W/u.out 2>$W/u.err
	echo "status=$?" >>$W/u.out
	# shellcheck disable=SC2086
	$AS timeout -s KILL 60 $S run --native --stats=$W/k.stats $filter -- /bin/state_probe "$@" >$W/k.out 2>$W/k.err
	echo "status=$?" >>$W/k.out
	want="$want
status=0"
	cases=$((cases + 1))
	if [ "$(cat $W/u.out)" = "$want" ]; then ok "user   $what"; else
		nok "user   $what: got '$(cat $W/u.out | tr '\n' ' ')' ($(grep -a "^secbpf:" $W/u.err | tail -c 600))"; fi
	if [ "$(cat $W/k.out)" = "$want" ]; then ok "native $what"; else
		nok "native $what: got '$(cat $W/k.out | tr '\n' ' ')' ($(grep -a "^secbpf:" $W/k.err | tail -c 600))"; fi
	u=$(sed -e "$norm" $W/u.stats 2>/dev/null | sort)
	k=$(sed -e "$norm" $W/k.stats 2>/dev/null | sort)
	if [ "$u" = "$k" ]; then
		ok "maps   $what: $(echo "$k" | grep -c .) lines agree"
	else
		nok "maps   $what: user '$(echo "$u" | tr '\n' ';')' native '$(echo "$k" | tr '\n' ';')'"
	fi
}
D=/samples
AS=
state_case "syscall_count, close only: 3 closes counted" "close=9
close=9
close=9" "" "-f $D/syscall_count.bpf.o --set counted_nr=3" -- close 999 close 999 close 999
state_case "syscall_count: the whole syscall profile of the probe" "close=9" "" \
	"-f $D/syscall_count.bpf.o" -- close 999
state_case "exec_once: a second execve in the same process is EPERM" "exec=1
close=9" "/ exec_state /d" "-f $D/exec_once.bpf.o" -- exec close 5
state_case "exec_once: a forked child has its own count" "child:
close=9
parent:
close=9" "/ exec_state /d" "-f $D/exec_once.bpf.o" -- fork exec close 5 end close 6
state_case "rate_limit: burst 3, then EAGAIN" "call110=ok,ok,ok,11,11" "s/ buckets .*/ buckets ENTRY/" \
	"-f $D/rate_limit.bpf.o --set limited_nr=110 --set per_second=1 --set burst=3" -- call 110 5
state_case "startup_lockdown: listen allowed until the marker close, then EPERM" "listen=9
close=9
listen=1" "" "-f $D/startup_lockdown.bpf.o" -- listen close 0x5ecb0d0e listen
state_case "deny_path (root loader): probe_read_user_str also when not dumpable" "openat=13
openat=2
nodump=ok
openat=13" "" "-f $D/deny_path.bpf.o" -- openat /tmp/secbpf-denied/x openat /tmp/x nodump \
	openat /tmp/secbpf-denied/x
hv_ops="uidgid pidtgid read readstr task task fork task task end task thread nodump read readstr"
# shellcheck disable=SC2086
state_case "helper_values (root): uid/gid, pid/tgid, probe_read_user{,_str}, task storage" \
	"uidgid=201
pidtgid=201
read=201
readstr=201
task=301
task=302
child:
task=301
task=302
parent:
task=303
thread task=304
nodump=ok
read=201
readstr=201" "/ task_counts /d" "-f /data/helper_values.bpf.o" -- $hv_ops
AS=/bin/as_nobody
state_case "deny_path (unprivileged loader): no read once not dumpable" "openat=13
openat=2
nodump=ok
openat=2" "" "-f $D/deny_path.bpf.o" -- openat /tmp/secbpf-denied/x openat /tmp/x nodump \
	openat /tmp/secbpf-denied/x
state_case "helper_values (unprivileged loader): uid/gid, pid/tgid, reads, dumpable rule" \
	"uidgid=201
pidtgid=201
read=201
readstr=201
nodump=ok
read=203
readstr=203" "" "-f /data/helper_values_unpriv.bpf.o" -- uidgid pidtgid read readstr nodump \
	read readstr
AS=
echo "# stateful fidelity: $cases workloads, each compared on actions (both paths) and maps"
t2=$(uptime_s)
echo "# timings (s): verifier corpus $(awk -v a=$t0 -v b=$t1 'BEGIN{print b-a}')," \
	"stateful $(awk -v a=$t1 -v b=$t2 'BEGIN{print b-a}')"
echo "SECBPF-RESULT: suite=native_fidelity pass=$pass fail=$fail skip=0"
[ $fail = 0 ] && [ "$vf" = 0 ]
