# A function may return a map value pointer; the caller checks it.
# expect: accept
# map: counts hash 4 8 16
call local get
jeq %r0, 0, out
ldxdw %r0, [%r0+0]
exit
out:
mov %r0, 0
exit
get:
stw [%r10-4], 0
ldmap %r1, 0
mov %r2, %r10
add %r2, -4
call 1
exit
