# A one-element array map has a direct value too.
# expect: accept
# map: cfg array 4 8 1
ldmapval %r1, 0, 0
ldxdw %r0, [%r1+0]
exit
