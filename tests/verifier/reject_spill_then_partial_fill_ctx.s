# Reading the upper half of a spilled ctx pointer.
# expect: reject reading part of the pointer spilled at fp-8
stxdw [%r10-8], %r1
ldxw %r0, [%r10-4]
exit
