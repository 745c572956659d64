# A helper may not write .rodata either.
# expect: reject would write read-only map .rodata
# map: .rodata array 4 16 1 rodata
ldmapval %r1, 0, 0
mov %r2, 16
mov %r3, 0x1000
call 112
mov %r0, 0
exit
