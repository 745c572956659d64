# The value only narrows; the state at the loop head repeats once bounded
# (r2 is fixed at 0..255), and the exit is by a counter.
# expect: accept
# tier: restricted
ldxdw %r2, [%r1+16]
mov %r3, 0
loop:
and %r2, 0xff
add %r3, 1
jlt %r3, 3, loop
mov %r0, %r2
exit
