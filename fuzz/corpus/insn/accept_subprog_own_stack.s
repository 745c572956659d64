# Each frame has its own 512 bytes.
# expect: accept
# tier: restricted
stdw [%r10-512], 1
call local f
ldxdw %r1, [%r10-512]
add %r0, %r1
exit
f:
stdw [%r10-512], 2
ldxdw %r0, [%r10-512]
exit
