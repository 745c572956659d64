# A constant offset added to the context pointer is fine.
# expect: accept
# tier: restricted
mov %r2, %r1
add %r2, 16
ldxdw %r0, [%r2+8]
exit
