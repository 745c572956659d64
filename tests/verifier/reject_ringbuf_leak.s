# Every reserved record must be submitted or discarded.
# expect: reject the ringbuf record reserved at insn 4 is neither submitted nor discarded
# map: events ringbuf 0 0 4096
ldmap %r1, 0
mov %r2, 16
mov %r3, 0
call 131
jeq %r0, 0, out
stdw [%r0+0], 1
out:
mov %r0, 0
exit
