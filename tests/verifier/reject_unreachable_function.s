# A function nobody calls is dead code.
# expect: reject unreachable insn 2
# tier: restricted
mov %r0, 0
exit
mov %r0, 1
exit
