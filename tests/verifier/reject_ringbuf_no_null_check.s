# expect: reject may be NULL: check the pointer against NULL first
# map: events ringbuf 0 0 4096
ldmap %r1, 0
mov %r2, 16
mov %r3, 0
call 131
stdw [%r0+0], 1
mov %r1, %r0
mov %r2, 0
call 132
mov %r0, 0
exit
