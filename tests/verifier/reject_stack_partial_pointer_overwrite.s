# Overwriting half of a spilled pointer leaves the other half readable.
# expect: reject partial overwrite of the pointer spilled at fp-8
stxdw [%r10-8], %r1
stw [%r10-8], 0
mov %r0, 0
exit
