# expect: accept
# map: q queue 0 8 16
stdw [%r10-8], 3
ldmap %r1, 0
mov %r2, %r10
add %r2, -8
mov %r3, 0
call 87
ldmap %r1, 0
mov %r2, %r10
add %r2, -16
call 89
ldmap %r1, 0
mov %r2, %r10
add %r2, -16
call 88
ldxdw %r0, [%r10-16]
exit
