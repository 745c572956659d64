# expect: accept
# map: events ringbuf 0 0 4096
ldmap %r1, 0
mov %r2, 0
call 134
exit
