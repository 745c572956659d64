# Division by a register that may be 0 is defined (result 0) in BPF.
# expect: accept
# tier: restricted
ldxdw %r2, [%r1+16]
mov %r0, 100
div %r0, %r2
mod %r0, %r2
exit
