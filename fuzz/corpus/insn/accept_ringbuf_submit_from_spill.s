# A record spilled to the stack and filled back is still the record.
# expect: accept
# map: events ringbuf 0 0 4096
ldmap %r1, 0
mov %r2, 16
mov %r3, 0
call 131
stxdw [%r10-8], %r0
jeq %r0, 0, out
ldxdw %r1, [%r10-8]
mov %r2, 0
call 132
out:
mov %r0, 0
exit
