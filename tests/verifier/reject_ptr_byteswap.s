# expect: reject byte swap on a pointer is not allowed
mov %r2, %r10
be64 %r2
mov %r0, 0
exit
