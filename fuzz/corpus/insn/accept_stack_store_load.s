# expect: accept
# tier: restricted
stdw [%r10-8], 42
ldxdw %r0, [%r10-8]
stw [%r10-512], 1
ldxw %r2, [%r10-512]
add %r0, %r2
exit
