#!/bin/sh
# SPDX-License-Identifier: MIT
# seccomp_cache: the kernel judges what secbpf's classic BPF leaves to its
# action cache. For each program in /cache (the samples and tests/cbpf,
# compiled by kernel/boot), /cache/NAME.expect lists the x86_64 syscalls the
# program allows for every argument value, found on the host by running the
# eBPF program in secbpf's interpreter (tests/cache_oracle.c), not by the
# compiler. Here the program runs under `secbpf run` on /bin/cache_hold and
# /proc/PID/seccomp_cache (CONFIG_SECCOMP_CACHE_DEBUG) must list exactly
# those; then two programs stacked, where the kernel ANDs the bitmaps, must
# list the syscalls both allow. Output: TAP-like lines, one
# "# cache NAME: cached C of A always allowed" per program, then
# "SECBPF-RESULT: suite=seccomp_cache pass=P fail=F skip=0".

S=/bin/secbpf
n=0
pass=0
fail=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }

# cache_of OUT -f OBJ...: run cache_hold under the filters, write its
# seccomp_cache to OUT; fails if the process died first.
cache_of() {
	out=$1
	shift
	$S run "$@" -- /bin/cache_hold >/tmp/cache_run.log 2>&1 &
	runner=$!
	pid=
	i=0
	while [ $i -lt 100 ]; do
		pid=$(pidof cache_hold)
		[ -n "$pid" ] && break
		kill -0 $runner 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$pid" ]; then
		wait $runner 2>/dev/null
		cat /tmp/cache_run.log
		return 1
	fi
	# one line per nr, "x86_64 NR ALLOW" or "x86_64 NR FILTER"; all of
	# them must be there
	cat /proc/$pid/seccomp_cache >$out.all
	st=$?
	[ "$(grep -c ' FILTER$\| ALLOW$' $out.all)" = "$NRS" ] || st=1
	grep ' ALLOW$' $out.all >$out
	kill -9 $pid 2>/dev/null
	wait $runner 2>/dev/null
	return $st
}

# compare NAME GOT WANT
compare() {
	cached=$(wc -l <"$2")
	always=$(wc -l <"$3")
	echo "# cache $1: cached $cached of $always always allowed"
	if cmp -s "$2" "$3"; then
		ok "$1: /proc/PID/seccomp_cache lists exactly the $always syscalls it always allows"
	else
		nok "$1: the kernel's cache and the interpreter disagree (- only cached, + only always allowed):"
		diff "$2" "$3" | grep '^[-+][^-+]' | head -20 | sed 's/^/#   /'
	fi
}

if [ ! -r /proc/self/seccomp_cache ]; then
	nok "/proc/self/seccomp_cache is missing (CONFIG_SECCOMP_CACHE_DEBUG)"
fi
# the number of x86_64 syscalls the kernel's table has (kernel/boot)
NRS=$(cat /cache/nr_count)
# Linux 6.11+ lets the native uretprobe (x86_64 335) through before any
# filter runs (seccomp_uprobe_exception), and its cache lists it as allowed
# whatever the program says: the oracle's set gains it there.
UPROBE_PASS=
case "$(uname -r)" in
6.[0-9].* | 6.10.* | [1-5].*) ;;
*) UPROBE_PASS="x86_64 335 ALLOW" ;;
esac
# expected FILE: the oracle's always-allowed lines, with the kernel's own
# exceptions, in the kernel's order (by nr)
expected() {
	{ cat "$1"; [ -z "$UPROBE_PASS" ] || echo "$UPROBE_PASS"; } | sort -u -k2,2n
}
progs=0
for o in /cache/*.bpf.o; do
	[ -e "$o" ] || continue
	name=$(basename "$o" .bpf.o)
	progs=$((progs + 1))
	if cache_of /tmp/cache.got -f "$o"; then
		expected "/cache/$name.expect" >/tmp/cache.want
		compare "$name" /tmp/cache.got /tmp/cache.want
	else
		nok "$name: cache_hold did not stay alive under the filter"
	fi
done
[ $progs -gt 0 ] || nok "no program in /cache (kernel/boot packs them)"

# stacked: the newest filter's bitmap is ANDed with the one before it
a=/cache/docker_like.bpf.o
b=/cache/wx.bpf.o
if [ -e $a ] && [ -e $b ]; then
	expected /cache/docker_like.expect >/tmp/cache.a
	expected /cache/wx.expect >/tmp/cache.b
	grep -xF -f /tmp/cache.a /tmp/cache.b >/tmp/cache.both
	if cache_of /tmp/cache.got -f $a -f $b; then
		compare "docker_like+wx (stacked)" /tmp/cache.got /tmp/cache.both
	else
		nok "docker_like+wx (stacked): cache_hold did not stay alive"
	fi
else
	nok "stacked: $a or $b is missing"
fi
echo "SECBPF-RESULT: suite=seccomp_cache pass=$pass fail=$fail skip=0"
[ $fail = 0 ]
