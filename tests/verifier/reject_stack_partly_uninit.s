# Only 4 of the 8 bytes were written.
# expect: reject invalid read from stack: fp-8 is not initialized
stw [%r10-4], 0
ldxdw %r0, [%r10-8]
exit
