#!/bin/sh
# SPDX-License-Identifier: MIT
# attach_api: secbpf_attach() in the patched kernel, through
# samples/self_sandbox (a program that sandboxes itself, then execs CMD):
# natively (SECBPF_ATTACH_NATIVE: the kernel loads and runs the eBPF
# program) and through secbpf's own path (cBPF in the kernel, a spawned
# secbpf-supervisor for stateful programs) on a 6.1 kernel, which has no
# SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP. The same outcome is expected from
# both. Sorted before seed_sample, which raises ptrace_scope to 3.
SS=/bin/self_sandbox
P=/bin/native_probe
D=/samples
n=0
pass=0
fail=0

ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
expect() {
	if [ "$1" = "$2" ]; then ok "$3"; else nok "$3: expected '$2', got '$1'"; fi
}

if [ ! -x $SS ] || [ ! -x $P ]; then
	# kernel/boot packs both with the tool: a broken image, not a skip
	nok "no self_sandbox or native_probe in this image"
	echo "SECBPF-RESULT: suite=attach_api pass=$pass fail=$fail skip=0"
	exit 1
fi

for mode in native supervised; do
	flag=
	[ $mode = native ] && flag=--native
	# stateless: the seed sample
	expect "$($SS $flag $D/seed_close.bpf.o -- $P 3 999 2>&1)" "errno=1" \
		"$mode: seed sample, close(999) is EPERM"
	expect "$($SS $flag $D/seed_close.bpf.o -- $P 3 998 2>&1)" "errno=9" \
		"$mode: seed sample, close(998) is EBADF"
	# stateful: exec_once keeps per-process task storage; self_sandbox's
	# own execve of CMD is the process's one exec
	expect "$($SS $flag $D/exec_once.bpf.o -- $P 39 2>&1)" "ret=ok" \
		"$mode: exec_once, the first execve runs"
	out=$($SS $flag $D/exec_once.bpf.o -- /bin/sh -c "exec $P 39" 2>&1)
	st=$?
	case "$out" in
	*"ermission"* | *"not permitted"*) ok "$mode: exec_once, a second execve is EPERM" ;;
	*) nok "$mode: exec_once, a second execve: status $st, '$out'" ;;
	esac
	# (sh -c forks for the first of two commands; a lone one it execs)
	expect "$($SS $flag $D/exec_once.bpf.o -- /bin/sh -c "$P 39; true" 2>&1)" "ret=ok" \
		"$mode: exec_once, a forked child has its own execve"
	# --set reaches the program (and, supervised, the spawned supervisor):
	# exec works until close(77) locks it
	out=$($SS $flag --set startup_marker=77 $D/startup_lockdown.bpf.o -- \
		/bin/sh -c "$P 39; $P 3 77; $P 39" 2>&1 | tr '\n' ' ')
	case "$out" in
	"ret=ok errno=9 "*"not permitted"*) ok "$mode: startup_lockdown with --set: execve is EPERM after the marker" ;;
	*) nok "$mode: startup_lockdown with --set: got '$out'" ;;
	esac
done
# Supervised on 6.1: the supervisor must exit once the filtered processes
# are gone (no SYNC_WAKE_UP, no wake-up of a blocked receive).
$SS $D/exec_once.bpf.o -- $P 39 >/dev/null 2>&1
i=0
while [ $i -lt 50 ] && ps 2>/dev/null | grep -v grep | grep -q secbpf-supervisor; do
	sleep 0.1
	i=$((i + 1))
done
if ps 2>/dev/null | grep -v grep | grep -q secbpf-supervisor; then
	nok "supervised: the supervisor is still running after its process exited"
else
	ok "supervised: the supervisor exits after its process"
fi
echo "SECBPF-RESULT: suite=attach_api pass=$pass fail=$fail skip=0"
[ $fail = 0 ]
