# Sum every value of an array map.
# expect: accept
# map: vals array 4 8 8
stdw [%r10-8], 0
ldmap %r1, 0
ldfunc %r2, cb
mov %r3, %r10
add %r3, -8
mov %r4, 0
call 164
ldxdw %r0, [%r10-8]
exit
cb:
ldxw %r5, [%r2+0]
ldxdw %r5, [%r3+0]
ldxdw %r6, [%r4+0]
add %r6, %r5
stxdw [%r4+0], %r6
mov %r0, 0
exit
