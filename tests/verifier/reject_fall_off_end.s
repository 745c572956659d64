# expect: reject control falls off the end of the function after insn 0
# tier: restricted
mov %r0, 0
