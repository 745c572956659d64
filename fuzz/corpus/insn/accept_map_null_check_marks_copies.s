# Checking one copy makes every copy with the same id non-NULL.
# expect: accept
# map: counts hash 4 8 16
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
mov %r6, %r0
stxdw [%r10-16], %r0
jeq %r0, 0, out
ldxdw %r7, [%r6+0]
ldxdw %r8, [%r10-16]
ldxdw %r0, [%r8+0]
exit
out:
mov %r0, 0
exit
