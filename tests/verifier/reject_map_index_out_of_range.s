# expect: reject ld_imm64 refers to map 3, but the object has 1 maps
# map: counts hash 4 8 16
ldmap %r1, 3
mov %r0, 0
exit
