# expect: accept
# map: counts hash 4 8 64
stw [%r10-4], 7
stdw [%r10-16], 1
ldmap %r1, 0
mov %r2, %r10
add %r2, -4
mov %r3, %r10
add %r3, -16
mov %r4, 0
call 2
ldmap %r1, 0
mov %r2, %r10
add %r2, -4
call 3
mov %r0, 0
exit
