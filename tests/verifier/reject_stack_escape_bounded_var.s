# An index bounded to 0..1023 still reaches below the 512-byte frame.
# expect: reject is outside the 512-byte stack
ldxdw %r3, [%r1+16]
and %r3, 1023
mov %r2, %r10
add %r2, -8
sub %r2, %r3
stb [%r2+0], 0
mov %r0, 0
exit
