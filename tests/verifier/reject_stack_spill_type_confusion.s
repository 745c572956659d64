# A slot that held a pointer now holds a number: the fill is a number.
# expect: reject is a number, not a pointer
stxdw [%r10-8], %r1
stdw [%r10-8], 0x1000
ldxdw %r2, [%r10-8]
ldxw %r0, [%r2+0]
exit
