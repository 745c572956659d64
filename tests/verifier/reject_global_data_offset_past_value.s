# expect: reject at offset 16 is past its value size 16
# map: .data array 4 16 1 data
ldmapval %r1, 0, 16
mov %r0, 0
exit
