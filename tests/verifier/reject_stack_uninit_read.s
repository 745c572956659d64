# expect: reject invalid read from stack: fp-8 is not initialized
ldxdw %r0, [%r10-8]
exit
