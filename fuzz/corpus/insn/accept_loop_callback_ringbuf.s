# expect: accept
# map: events ringbuf 0 0 4096
mov %r1, 4
ldfunc %r2, cb
mov %r3, 0
mov %r4, 0
call 181
mov %r0, 0
exit
cb:
ldmap %r1, 0
mov %r2, 8
mov %r3, 0
call 131
jeq %r0, 0, out
stdw [%r0+0], 1
mov %r1, %r0
mov %r2, 0
call 132
out:
mov %r0, 0
exit
