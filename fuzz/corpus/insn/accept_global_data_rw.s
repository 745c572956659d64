# .data is read and written in place.
# expect: accept
# map: .data array 4 16 1 data
ldmapval %r1, 0, 8
ldxdw %r0, [%r1+0]
add %r0, 1
stxdw [%r1+0], %r0
exit
