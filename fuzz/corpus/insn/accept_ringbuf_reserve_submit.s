# expect: accept
# map: events ringbuf 0 0 4096
mov %r6, %r1
ldmap %r1, 0
mov %r2, 16
mov %r3, 0
call 131
jeq %r0, 0, out
ldxw %r2, [%r6+0]
stxw [%r0+0], %r2
stdw [%r0+8], 0
mov %r1, %r0
mov %r2, 0
call 132
out:
mov %r0, 0
exit
