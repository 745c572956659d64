# Every 64-bit ALU operation on scalars.
# expect: accept
# tier: restricted
ldxdw %r2, [%r1+16]
mov %r0, %r2
add %r0, 3
sub %r0, %r2
mul %r0, 7
div %r0, 3
or %r0, 0x10
and %r0, 0xff
lsh %r0, 4
rsh %r0, 2
arsh %r0, 1
mod %r0, 5
xor %r0, %r2
neg %r0
mov %r3, 3
div %r0, %r3
mod %r0, %r3
lsh %r0, %r3
rsh %r0, %r3
arsh %r0, %r3
exit
