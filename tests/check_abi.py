#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The ABI check: the functions libsecbpf.so exports (nm -D --defined-only),
# the names in the version script and the SECBPF_API declarations of the
# public headers must be one and the same set, so none can drift.
#
#   check_abi.py NM LIBSECBPF.so lib/libsecbpf.map include/secbpf.h [HEADER]...
import re
import subprocess
import sys


def exported(nm, lib):
    out = subprocess.run([nm, '-D', '--defined-only', lib], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        # "ADDR TYPE NAME"; the version node itself is an absolute (A) symbol.
        if len(fields) != 3 or fields[1] == 'A':
            continue
        names.add(fields[2].split('@')[0])
    return names


def in_version_script(path):
    text = re.sub(r'/\*.*?\*/', '', open(path).read(), flags=re.S)
    names = set()
    for node in re.finditer(r'global:(.*?)(?:local:|\})', text, flags=re.S):
        for entry in node.group(1).split(';'):
            entry = entry.strip()
            if entry:
                names.add(entry)
    return names


def declared(path):
    """The SECBPF_API functions of a header, and its other secbpf_ calls."""
    text = re.sub(r'/\*.*?\*/', '', open(path).read(), flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    names = set()
    # SECBPF_API <return type> NAME(   (the declaration may wrap lines)
    for m in re.finditer(r'^SECBPF_API\b([^;(]*?)(\w+)\s*\(', text, flags=re.M):
        names.add(m.group(2))
    unmarked = set(re.findall(r'\b(secbpf_\w+)\s*\(', text)) - names
    return names, unmarked


def main():
    if len(sys.argv) < 5:
        sys.exit('usage: check_abi.py NM LIB MAP HEADER...')
    nm, lib, vscript, headers = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    api, unmarked = set(), set()
    for h in headers:
        names, others = declared(h)
        api |= names
        unmarked |= others
    sets = {
        'exported by ' + lib: exported(nm, lib),
        'listed in ' + vscript: in_version_script(vscript),
        'declared SECBPF_API in ' + ', '.join(headers): api,
    }
    every = set().union(*sets.values())
    ok = bool(every)
    for name in sorted(unmarked):
        ok = False
        print('%s: declared in a public header without SECBPF_API' % name)
    for name in sorted(every):
        missing = [where for where, names in sets.items() if name not in names]
        if missing:
            ok = False
            print('%s: not %s' % (name, '; not '.join(missing)))
    if not every:
        print('no API found at all')
    for name in sorted(every):
        if not name.startswith('secbpf_'):
            ok = False
            print('%s: not in the secbpf_ namespace' % name)
    if ok:
        print('%d symbols, the same in all three:' % len(every))
        for name in sorted(every):
            print('  ' + name)
    # One test, counted by scripts/test as Criterion's are.
    print('[====] Synthesis: Tested: 1 | Passing: %d | Failing: %d | Crashing: 0 '
          % (ok, not ok))
    sys.exit(0 if ok else 1)


main()
