# value is u64[8]; the index from args[0] is checked against 8.
# expect: accept
# map: table array 4 64 1
ldxdw %r6, [%r1+16]
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
jge %r6, 8, out
lsh %r6, 3
add %r0, %r6
ldxdw %r0, [%r0+0]
exit
out:
mov %r0, 0
exit
