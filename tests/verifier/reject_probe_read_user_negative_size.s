# expect: reject may be negative
ldxdw %r3, [%r1+16]
ldxdw %r2, [%r1+24]
jsgt %r2, 16, out
mov %r1, %r10
add %r1, -32
call 112
out:
mov %r0, 0
exit
