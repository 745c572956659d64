# Scan args[] for a value, with a bounded index.
# expect: accept
# tier: restricted
mov %r0, 0
mov %r2, 16
loop:
mov %r3, %r1
add %r3, %r2
ldxdw %r4, [%r3+0]
jeq %r4, 999, found
add %r2, 8
jlt %r2, 64, loop
exit
found:
mov %r0, 1
exit
