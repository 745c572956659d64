# A copy spilled before the submit is no pointer either afterwards.
# expect: reject R3 is read before it is written
# map: events ringbuf 0 0 4096
ldmap %r1, 0
mov %r2, 16
mov %r3, 0
call 131
jeq %r0, 0, out
stxdw [%r10-8], %r0
mov %r1, %r0
mov %r2, 0
call 132
ldxdw %r3, [%r10-8]
stdw [%r3+0], 1
out:
mov %r0, 0
exit
