# expect: reject expects a pointer to a buffer, not a number
mov %r1, 0x1000
mov %r2, 8
mov %r3, 0x2000
call 112
mov %r0, 0
exit
