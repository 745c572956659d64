# expect: reject subtracting a pointer from a scalar
mov %r2, 100
sub %r2, %r10
mov %r0, 0
exit
