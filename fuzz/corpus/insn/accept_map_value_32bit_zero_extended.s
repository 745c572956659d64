# mov32 clears the upper half; then a 32-bit check bounds it all.
# expect: accept
# map: table array 4 64 1
ldxdw %r6, [%r1+16]
mov32 %r6, %r6
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
jge32 %r6, 8, out
lsh %r6, 3
add %r0, %r6
ldxdw %r0, [%r0+0]
exit
out:
mov %r0, 0
exit
