# A variable-offset write may hit half of a spilled pointer.
# expect: reject partial overwrite of the pointer spilled at fp-16
stxdw [%r10-16], %r1
ldxdw %r3, [%r1+16]
and %r3, 4
mov %r2, %r10
add %r2, -16
add %r2, %r3
stw [%r2+0], 0
mov %r0, 0
exit
