# Reading 4 bytes of a spilled constant gives a constant.
# expect: accept
# tier: restricted
lddw %r2, 0x1122334455667788
stxdw [%r10-8], %r2
ldxw %r0, [%r10-4]
jeq %r0, 0x11223344, +1
ldxdw %r0, [%r1+64]
exit
