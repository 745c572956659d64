# Increment a counter in a map value.
# expect: accept
# map: counts array 4 8 1
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
mov %r1, 1
lock add [%r0+0], %r1
ldxdw %r2, [%r0+0]
add %r2, 1
stxdw [%r0+0], %r2
out:
mov %r0, 0
exit
