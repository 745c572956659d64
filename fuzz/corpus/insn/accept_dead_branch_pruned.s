# A branch that can never be taken is not explored (r0 is a constant).
# expect: accept
# tier: restricted
mov %r0, 0
jeq %r0, 1, bad
exit
bad:
ldxdw %r0, [%r1+128]
exit
