# The callback indexes a 64-byte stack buffer with its index, bounded.
# expect: accept
stdw [%r10-64], 0
stdw [%r10-56], 0
stdw [%r10-48], 0
stdw [%r10-40], 0
stdw [%r10-32], 0
stdw [%r10-24], 0
stdw [%r10-16], 0
stdw [%r10-8], 0
mov %r1, 8
ldfunc %r2, cb
mov %r3, %r10
add %r3, -64
mov %r4, 0
call 181
ldxdw %r0, [%r10-64]
exit
cb:
mov %r0, 1
jge %r1, 8, out
lsh %r1, 3
add %r2, %r1
stdw [%r2+0], 1
mov %r0, 0
out:
exit
