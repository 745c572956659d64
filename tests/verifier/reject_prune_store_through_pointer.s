# Issue 23, finding 3: a function stores a value through the pointer it was
# given, into its caller's stack, and the caller uses it as an index. In
# the function the value only looks stored away; it must still decide the
# join, where the unsafe path (200) comes second.
# expect: reject outside the 512-byte stack
# tier: restricted
stdw [%r10-8], 0
stdw [%r10-16], 0
stdw [%r10-24], 0
mov %r2, %r1
mov %r1, %r10
add %r1, -8
call local f
ldxdw %r4, [%r10-8]
mov %r5, %r10
add %r5, -24
add %r5, %r4
ldxb %r0, [%r5+0]
exit
f:
ldxdw %r3, [%r2+16]
mov %r4, 200
jeq %r3, 0, join
mov %r4, 4
join:
stxdw [%r1+0], %r4
mov %r0, 0
exit
