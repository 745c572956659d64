# expect: accept
# map: .data array 4 16 1 data
ldmapval %r1, 0, 8
mov %r2, 1
lock add [%r1+0], %r2
lock fetch or32 [%r1+4], %r2
mov %r0, %r2
exit
