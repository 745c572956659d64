# expect: accept
# map: events ringbuf 0 0 4096
ldxw %r2, [%r1+0]
stxdw [%r10-8], %r2
ldmap %r1, 0
mov %r2, %r10
add %r2, -8
mov %r3, 8
mov %r4, 0
call 130
mov %r0, 0
exit
