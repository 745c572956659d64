# Issue 23, finding 3: two paths join differing only in a spilled value; it
# is later read back as an index, so the slot decides safety and the join
# may not prune the second path (the unsafe one, explored second).
# expect: reject outside the 512-byte stack
# tier: restricted
stdw [%r10-16], 0
stdw [%r10-24], 0
ldxdw %r6, [%r1+16]
mov %r2, 200
jeq %r6, 0, join
mov %r2, 4
join:
stxdw [%r10-8], %r2
mov %r2, 0
mov %r3, %r6
and %r3, 1
jeq %r3, 0, read
mov %r3, 2
read:
ldxdw %r4, [%r10-8]
mov %r5, %r10
add %r5, -24
add %r5, %r4
ldxb %r0, [%r5+0]
exit
