# A record reserved in a callback must be released there.
# expect: reject the callback must submit or discard the ringbuf record
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
mov %r0, 0
exit
