# The callee checks a maybe-NULL pointer the caller passed in.
# expect: accept
# map: counts hash 4 8 16
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
mov %r1, %r0
call local f
exit
f:
mov %r0, 0
jeq %r1, 0, out
ldxdw %r0, [%r1+0]
out:
exit
