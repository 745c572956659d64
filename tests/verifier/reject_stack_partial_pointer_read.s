# Four bytes of a spilled pointer would reveal its address.
# expect: reject reading part of the pointer spilled at fp-8
stxdw [%r10-8], %r1
ldxw %r0, [%r10-8]
exit
