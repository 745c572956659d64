#!/bin/sh
# Container start cost (docs/containers.md): `crun run` of /bin/true on a
# busybox-static rootfs, N times each way, as root:
#   plain       no seccomp at all
#   filter      run.oci.seccomp_bpf_data of a stateless filter
#               (samples/docker_like: the kernel decides everything)
#   receiver    the filter and run.oci.seccomp.receiver: crun sends the
#               listener to secbpfd, which supervises it
# Prints the mean milliseconds per run and what the filter and the
# receiver add. Usage: bench/bench_containers.sh BUILD_DIR [N]
set -eu
build=$(cd "${1:?usage: bench_containers.sh BUILD_DIR [N]}" && pwd)
n=${2:-50}
src=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench_containers: needs root (crun)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/secbpf-bench-containers-XXXXXX)
daemon=
cleanup() {
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

mkdir -p "$tmp/rootfs/bin" "$tmp/rootfs/proc" "$tmp/rootfs/dev" "$tmp/config/programs.d"
cp /bin/busybox "$tmp/rootfs/bin/busybox"
ln -s busybox "$tmp/rootfs/bin/true"
"$build/secbpf" cc "$src/tests/containers/ctr_policy.bpf.c" -o "$tmp/config/programs.d/ctr_policy.o" 2>/dev/null
echo "allow ctr_policy user=root" >"$tmp/config/secbpfd.conf"
"$build/secbpfd" --foreground --config "$tmp/config" --socket "$tmp/secbpfd.sock" \
	>"$tmp/secbpfd.log" 2>&1 &
daemon=$!
i=0
while [ ! -S "$tmp/agent.sock" ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat "$tmp/secbpfd.log" >&2; exit 1; }
	sleep 0.1
done

bundle() { # NAME: a bundle running /bin/true
	mkdir -p "$tmp/$1"
	cat >"$tmp/$1/config.json" <<JSON
{"ociVersion": "1.0.2",
 "process": {"terminal": false, "user": {"uid": 0, "gid": 0}, "args": ["/bin/true"],
  "env": ["PATH=/bin"], "cwd": "/", "noNewPrivileges": true},
 "root": {"path": "$tmp/rootfs"},
 "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
 "linux": {"namespaces": [{"type": "pid"}, {"type": "mount"}]}}
JSON
}
bundle plain
bundle filter
bundle receiver
"$build/secbpf" oci patch "$tmp/receiver/config.json" --prog ctr_policy --daemon "$tmp/secbpfd.sock"
"$build/secbpf" oci annotations --prog ctr_policy --daemon "$tmp/secbpfd.sock" |
	grep -q '^run.oci.seccomp.receiver=' || { echo "no receiver annotation" >&2; exit 1; }
"$build/secbpf" oci patch "$tmp/filter/config.json" -f "$build/samples/docker_like.bpf.o" 2>/dev/null

# Mean microseconds per `crun run` of each bundle, N rounds, the three
# interleaved in each round (so that the machine's load drifts alike for
# all), in one private mount namespace without a hybrid layout's cgroup2
# mount. Prints "PLAIN FILTER RECEIVER".
measure() {
	unshare -m sh -c '
		umount /sys/fs/cgroup/unified 2>/dev/null
		tmp=$1; n=$2; i=0; tp=0; tf=0; tr=0
		one() {
			cd "$tmp/$1"
			s=$(date +%s%N)
			crun --root "$tmp/state" --cgroup-manager=disabled run "b-$1-$i" >/dev/null || exit 1
			e=$(date +%s%N)
			echo $(( (e - s) / 1000 ))
		}
		while [ $i -lt $n ]; do
			tp=$((tp + $(one plain))); tf=$((tf + $(one filter))); tr=$((tr + $(one receiver)))
			i=$((i + 1))
		done
		echo $((tp / n)) $((tf / n)) $((tr / n))' sh "$tmp" "$1"
}
measure 5 >/dev/null # warm up the page cache
set -- $(measure "$n")
p=$1 f=$2 r=$3
ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
echo "crun run /bin/true, mean of $n interleaved runs each (ms):"
echo "  plain                 $(ms "$p")"
echo "  secbpf filter         $(ms "$f")   (+$(ms $((f > p ? f - p : 0))))"
echo "  filter + receiver     $(ms "$r")   (+$(ms $((r > p ? r - p : 0))) over plain)"
grep -c "supervising pid" "$tmp/secbpfd.log" | sed 's/^/  listeners secbpfd supervised: /'
