# Per-process storage: the task is NULL (seed 011).
# expect: accept
# map: st task_storage 4 8 0
ldmap %r1, 0
mov %r2, 0
mov %r3, 0
mov %r4, 1
call 156
jeq %r0, 0, out
ldxdw %r6, [%r0+0]
add %r6, 1
stxdw [%r0+0], %r6
ldmap %r1, 0
mov %r2, 0
call 157
out:
mov %r0, 0
exit
