# expect: reject unreachable insn 2
mov %r0, 0
exit
mov %r0, 1
exit
