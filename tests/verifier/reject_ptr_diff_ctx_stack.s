# Pointers into different regions would reveal the address layout.
# expect: reject subtracting pointers is not allowed
# tier: privileged
mov %r2, %r10
sub %r2, %r1
mov %r0, 0
exit
