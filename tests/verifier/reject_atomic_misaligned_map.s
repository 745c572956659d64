# expect: reject misaligned atomic operation
# map: .data array 4 16 1 data
ldmapval %r1, 0, 4
mov %r2, 1
lock add [%r1+0], %r2
mov %r0, 0
exit
