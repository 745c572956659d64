# A function fills a buffer on its caller's stack.
# expect: accept
mov %r1, %r10
add %r1, -16
call local fill
ldxdw %r0, [%r10-16]
ldxdw %r1, [%r10-8]
add %r0, %r1
exit
fill:
stdw [%r1+0], 1
stdw [%r1+8], 2
mov %r0, 0
exit
