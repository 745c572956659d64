# expect: reject legacy packet load BPF_IND (opcode 0x40)
mov %r7, 0
raw 0x40 0 7 0 0
exit
