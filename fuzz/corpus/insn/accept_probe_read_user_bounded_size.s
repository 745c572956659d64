# A variable size bounded by the buffer.
# expect: accept
ldxdw %r3, [%r1+16]
ldxdw %r2, [%r1+24]
and %r2, 31
mov %r1, %r10
add %r1, -32
call 112
mov %r0, 0
exit
