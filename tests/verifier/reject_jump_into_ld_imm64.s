# expect: reject into the middle of an ld_imm64
# tier: restricted
raw 0x05 0 0 1 0
lddw %r0, 0x100000001
exit
