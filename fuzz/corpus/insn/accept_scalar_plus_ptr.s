# scalar + pointer is a pointer.
# expect: accept
stdw [%r10-8], 7
mov %r2, -8
add %r2, %r10
ldxdw %r0, [%r2+0]
exit
