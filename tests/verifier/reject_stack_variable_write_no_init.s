# A variable-offset write does not say which bytes got written.
# expect: reject invalid read from stack
ldxdw %r3, [%r1+16]
and %r3, 8
mov %r2, %r10
add %r2, -16
add %r2, %r3
stdw [%r2+0], 0
ldxdw %r0, [%r10-16]
exit
