# expect: accept
ldxdw %r3, [%r1+16]
mov %r1, %r10
add %r1, -64
mov %r2, 64
call 114
ldxb %r0, [%r10-64]
exit
