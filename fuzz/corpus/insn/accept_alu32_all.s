# Every 32-bit ALU operation on scalars.
# expect: accept
# tier: restricted
ldxw %r2, [%r1+0]
mov32 %r0, %r2
add32 %r0, 3
sub32 %r0, %r2
mul32 %r0, 7
div32 %r0, 3
or32 %r0, 0x10
and32 %r0, 0xff
lsh32 %r0, 4
rsh32 %r0, 2
arsh32 %r0, 1
mod32 %r0, 5
xor32 %r0, %r2
neg32 %r0
exit
