# expect: reject ld_imm64 is missing its second slot
mov %r0, 0
exit
raw 0x18 0 0 0 0
