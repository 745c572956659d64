# expect: reject invalid read from stack
mov %r2, 1
lock add [%r10-8], %r2
mov %r0, 0
exit
