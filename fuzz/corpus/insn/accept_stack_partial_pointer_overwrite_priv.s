# Privileged loaders may destroy a spilled pointer; the slot becomes bytes.
# expect: accept
# tier: privileged
stxdw [%r10-8], %r1
stw [%r10-8], 0
ldxdw %r0, [%r10-8]
exit
