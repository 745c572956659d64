# expect: reject pointer arithmetic with *= is not allowed
mov %r2, %r10
mul %r2, 2
mov %r0, 0
exit
