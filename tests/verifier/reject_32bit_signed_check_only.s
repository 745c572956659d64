# A signed 32-bit check: w6 s< 64 lets the 32-bit value be negative.
# expect: reject pointer arithmetic with an unbounded value
# map: table array 4 64 1
ldxw %r6, [%r1+16]
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
jsge32 %r6, 64, out
add %r0, %r6
ldxb %r0, [%r0+0]
exit
out:
mov %r0, 0
exit
