# expect: reject pointer arithmetic with an unbounded value
ldxdw %r3, [%r1+16]
mov %r2, %r10
add %r2, %r3
stb [%r2+0], 0
mov %r0, 0
exit
