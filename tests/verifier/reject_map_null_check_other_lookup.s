# Two lookups: checking the first says nothing about the second.
# expect: reject R7 may be NULL
# map: counts hash 4 8 16
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
mov %r6, %r0
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
mov %r7, %r0
jeq %r6, 0, out
ldxdw %r0, [%r7+0]
exit
out:
mov %r0, 0
exit
