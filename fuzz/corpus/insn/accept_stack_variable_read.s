# A variable-offset read of initialized bytes.
# expect: accept
stdw [%r10-16], 1
stdw [%r10-8], 2
ldxdw %r3, [%r1+16]
and %r3, 8
mov %r2, %r10
add %r2, -16
add %r2, %r3
ldxdw %r0, [%r2+0]
exit
