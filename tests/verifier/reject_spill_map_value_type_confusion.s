# A map value pointer spilled, then overwritten with a number, then used.
# expect: reject is a number, not a pointer
# map: counts hash 4 8 16
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
stxdw [%r10-16], %r0
mov %r3, 0x4000
stxdw [%r10-16], %r3
ldxdw %r4, [%r10-16]
ldxdw %r0, [%r4+0]
exit
out:
mov %r0, 0
exit
