# expect: reject the size of a ringbuf record must be a constant
# map: events ringbuf 0 0 4096
ldxw %r2, [%r1+0]
and %r2, 63
ldmap %r1, 0
mov %r3, 0
call 131
mov %r0, 0
exit
