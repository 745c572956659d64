# The counter the callback keeps grows with each run: after widening it is
# unknown, so using it as an index needs a check.
# expect: reject pointer arithmetic with an unbounded value
stdw [%r10-16], 0
stdw [%r10-8], 0
mov %r1, 100
ldfunc %r2, cb
mov %r3, %r10
add %r3, -16
mov %r4, 0
call 181
mov %r0, 0
exit
cb:
ldxdw %r3, [%r2+0]
add %r3, 1
stxdw [%r2+0], %r3
mov %r4, %r10
sub %r4, %r3
stb [%r4+0], 0
mov %r0, 0
exit
