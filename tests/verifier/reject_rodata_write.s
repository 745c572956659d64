# expect: reject map .rodata is read-only
# map: .rodata array 4 8 1 rodata
# init: 0 01 00 00 00 00 00 00 00
ldmapval %r1, 0, 0
stw [%r1+0], 0
mov %r0, 0
exit
