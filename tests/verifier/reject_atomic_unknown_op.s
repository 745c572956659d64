# expect: reject atomic operation with invalid imm 0x60
stdw [%r10-8], 0
mov %r1, 1
raw 0xdb 10 1 -8 0x60
mov %r0, 0
exit
