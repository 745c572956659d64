# A bounded index shifted far enough wraps around: no longer bounded.
# expect: reject pointer arithmetic with an unbounded value
# map: table array 4 64 1
ldxdw %r6, [%r1+16]
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
and %r6, 7
lsh %r6, 61
add %r0, %r6
ldxb %r0, [%r0+0]
exit
out:
mov %r0, 0
exit
