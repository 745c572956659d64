# expect: reject R2 is read before it is written
mov %r0, %r2
exit
