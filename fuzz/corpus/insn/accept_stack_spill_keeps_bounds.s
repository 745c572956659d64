# A bounded scalar keeps its bounds through a spill (used as a map index).
# expect: accept
# map: vals array 4 64 1 data
ldxdw %r2, [%r1+16]
and %r2, 7
stxdw [%r10-8], %r2
ldxdw %r3, [%r10-8]
lsh %r3, 3
ldmapval %r4, 0, 0
add %r4, %r3
ldxdw %r0, [%r4+0]
exit
