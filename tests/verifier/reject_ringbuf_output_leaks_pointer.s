# expect: reject would read the pointer spilled at fp-8 and leak it
# map: events ringbuf 0 0 4096
stxdw [%r10-8], %r1
ldmap %r1, 0
mov %r2, %r10
add %r2, -8
mov %r3, 8
mov %r4, 0
call 130
mov %r0, 0
exit
