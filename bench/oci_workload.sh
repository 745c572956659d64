#!/bin/sh
# The workload of bench_oci_insns: file work in a fresh temporary directory
# (mkdir, cp, tar, find, cat, rm), whose syscalls the bench records with
# strace and weighs. Only the shell and the tools on PATH; no network.
set -eu
dir=$(mktemp -d "${TMPDIR:-/tmp}/oci-workload.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
mkdir -p src/a/b src/c
i=0
while [ $i -lt 20 ]; do
	echo "line $i of a small file" >"src/a/f$i.txt"
	seq 1 200 >"src/c/n$i.txt"
	i=$((i + 1))
done
cp -r src copy
tar -cf src.tar src
mkdir unpacked
tar -xf src.tar -C unpacked
find unpacked -type f -name '*.txt' | sort >list
cat list copy/a/*.txt >all.txt
wc -l all.txt >count
ln -s all.txt link
chmod 600 all.txt
mv copy moved
rm -r moved unpacked src.tar
ls -l >/dev/null
