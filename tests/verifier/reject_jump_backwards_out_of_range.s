# expect: reject jump out of range: from insn 0 to -5
# tier: restricted
raw 0x05 0 0 -6 0
mov %r0, 0
exit
