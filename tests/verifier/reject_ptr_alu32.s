# expect: reject 32-bit arithmetic on a pointer
mov %r2, %r10
add32 %r2, -8
mov %r0, 0
exit
