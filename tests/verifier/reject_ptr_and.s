# expect: reject pointer arithmetic with &= is not allowed
mov %r2, %r1
and %r2, 0xfff
mov %r0, 0
exit
