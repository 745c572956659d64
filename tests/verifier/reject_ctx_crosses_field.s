# A context load the rules forbid.
# expect: reject crosses the 4-byte field nr

ldxdw %r0, [%r1+0]
exit
