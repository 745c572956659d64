# Issue 23, finding 3: pruning must not hide an unsafe path. acc only looks
# like an accumulator: after the loop it is an offset into a 64-byte stack
# buffer, so it decides safety and states with different acc are not merged.
# The first path explored adds 3 each time (54, inside); taking every "+5"
# branch, explored later, makes acc 90, past the buffer.
# expect: reject outside the 512-byte stack
# tier: restricted
stdw [%r10-8], 0
stdw [%r10-16], 0
stdw [%r10-24], 0
stdw [%r10-32], 0
stdw [%r10-40], 0
stdw [%r10-48], 0
stdw [%r10-56], 0
stdw [%r10-64], 0
ldxdw %r6, [%r1+16]
mov %r7, 0
mov %r8, 0
loop:
mov %r2, %r6
rsh %r2, %r8
and %r2, 1
jeq %r2, 0, big
add %r7, 3
ja next
big:
add %r7, 5
next:
add %r8, 1
jlt %r8, 18, loop
mov %r3, %r10
add %r3, -64
add %r3, %r7
ldxb %r0, [%r3+0]
exit
