# r1-r5 are the arguments; r0 the result; r6-r9 survive.
# expect: accept
# tier: restricted
ldxw %r6, [%r1+0]
mov %r1, 1
mov %r2, 2
mov %r3, 3
mov %r4, 4
mov %r5, 5
call local sum
add %r0, %r6
exit
sum:
mov %r0, %r1
add %r0, %r2
add %r0, %r3
add %r0, %r4
add %r0, %r5
mov %r6, 0
exit
