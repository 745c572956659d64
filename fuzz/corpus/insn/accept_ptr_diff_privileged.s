# expect: accept
# tier: privileged
mov %r2, %r10
add %r2, -16
mov %r3, %r10
sub %r3, %r2
mov %r0, %r3
exit
