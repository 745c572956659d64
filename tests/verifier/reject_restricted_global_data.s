# Restricted tier: no direct map-value access either (seed 006).
# expect: reject no global data (direct map-value access)
# tier: restricted
# map: .data array 4 16 1 data
ldmapval %r1, 0, 0
ldxdw %r0, [%r1+0]
exit
