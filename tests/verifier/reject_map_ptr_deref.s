# expect: reject is a map, not a pointer to memory
# map: counts hash 4 8 16
ldmap %r1, 0
ldxdw %r0, [%r1+0]
exit
