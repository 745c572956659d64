# expect: reject neg on a pointer is not allowed
mov %r2, %r10
neg %r2
mov %r0, 0
exit
