# Submitted on one path, forgotten on the other.
# expect: reject is neither submitted nor discarded on this path
# map: events ringbuf 0 0 4096
ldxw %r6, [%r1+0]
ldmap %r1, 0
mov %r2, 16
mov %r3, 0
call 131
jeq %r0, 0, out
jeq %r6, 1, out
mov %r1, %r0
mov %r2, 0
call 132
out:
mov %r0, 0
exit
