# Issue 23, finding 3: the unsafe access (an uninitialized stack read) is
# only on the last iteration, and only on paths that took the branch at
# iteration 5, which the first path explored does not: r9 decides it, so
# the joins of the iterations in between must keep it apart.
# expect: reject invalid read from stack
# tier: restricted
ldxdw %r6, [%r1+16]
mov %r7, 0
mov %r8, 0
mov %r9, 0
loop:
mov %r2, %r6
rsh %r2, %r8
and %r2, 1
jeq %r2, 0, even
add %r7, 3
ja next
even:
xor %r7, %r8
jne %r8, 5, next
mov %r9, 1
next:
jne %r8, 17, skip
jne %r9, 1, skip
ldxdw %r0, [%r10-8]
skip:
add %r8, 1
jlt %r8, 18, loop
mov %r0, %r7
and %r0, 0xfff
exit
