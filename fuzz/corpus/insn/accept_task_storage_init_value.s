# expect: accept
# map: st task_storage 4 8 0
stdw [%r10-8], 0
ldmap %r1, 0
mov %r2, 0
mov %r3, %r10
add %r3, -8
mov %r4, 1
call 156
mov %r0, 0
exit
