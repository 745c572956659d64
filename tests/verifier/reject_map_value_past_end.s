# expect: reject past the end of the map value (8 bytes)
# map: counts hash 4 8 16
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
ldxdw %r0, [%r0+4]
exit
out:
mov %r0, 0
exit
