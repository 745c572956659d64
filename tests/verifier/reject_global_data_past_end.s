# expect: reject past the end of the map value (16 bytes)
# map: .data array 4 16 1 data
ldmapval %r1, 0, 12
ldxdw %r0, [%r1+0]
exit
