# A pointer spilled to the stack comes back as the same pointer.
# expect: accept
# tier: restricted
stxdw [%r10-16], %r1
mov %r1, 0
ldxdw %r2, [%r10-16]
ldxw %r0, [%r2+0]
exit
