# expect: reject adding two pointers is not allowed
mov %r2, %r10
add %r2, %r1
mov %r0, 0
exit
