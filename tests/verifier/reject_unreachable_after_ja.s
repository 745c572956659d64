# expect: reject unreachable insn 2
# tier: restricted
mov %r0, 0
ja +1
mov %r0, 1
exit
