# expect: reject map .rodata is read-only
# map: .rodata array 4 8 1 rodata
ldmapval %r1, 0, 0
mov %r2, 1
lock add [%r1+0], %r2
mov %r0, 0
exit
