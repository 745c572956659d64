# (x << 32) >> 32 clears the upper half: a 32-bit check then bounds it.
# expect: accept
# map: table array 4 64 1
ldxdw %r6, [%r1+16]
lsh %r6, 32
rsh %r6, 32
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
jge32 %r6, 64, out
add %r0, %r6
ldxb %r0, [%r0+0]
exit
out:
mov %r0, 0
exit
