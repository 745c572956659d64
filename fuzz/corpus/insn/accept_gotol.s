# The long jump (BPF_JMP32 | BPF_JA, offset in imm).
# expect: accept
# tier: restricted
mov %r0, 1
ldxw %r2, [%r1+0]
jeq %r2, 0, +1
raw 0x06 0 0 0 1
mov %r0, 2
exit
