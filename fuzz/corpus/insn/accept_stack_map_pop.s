# expect: accept
# map: s stack 0 4 16
ldmap %r1, 0
mov %r2, %r10
add %r2, -4
call 88
ldxw %r0, [%r10-4]
exit
