# After submit, the record belongs to the reader.
# expect: reject R6 is read before it is written
# map: events ringbuf 0 0 4096
ldmap %r1, 0
mov %r2, 16
mov %r3, 0
call 131
jeq %r0, 0, out
mov %r6, %r0
mov %r1, %r0
mov %r2, 0
call 132
stdw [%r6+0], 1
out:
mov %r0, 0
exit
